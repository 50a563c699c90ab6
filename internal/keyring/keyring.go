// Package keyring keeps a profile's secrets in the system's credential
// store (the Secret Service over D-Bus on Linux, the Keychain on macOS,
// the Credential Manager on Windows), through zalando/go-keyring.
//
// A profile's secrets are one entry, a JSON object of key → secret, under
// the service "paycli" and an account naming the profile and the gateway
// (config.KeyringAccount): a command reads them with one request, however
// many it needs. Every request has a time limit, since a Secret Service
// that waits for an unlock prompt nobody can see would otherwise hang the
// command.
package keyring

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync/atomic"
	"time"

	gokeyring "github.com/zalando/go-keyring"
)

// Service is the service name of every entry paycli writes.
const Service = "paycli"

// DefaultTimeout is how long one request may take.
const DefaultTimeout = 10 * time.Second

// ErrNotFound is an account the store has no entry for.
var ErrNotFound = errors.New("no such entry in the keyring")

// UnavailableError is a store that cannot be used: none is running, it
// is locked, it refused or did not answer.
type UnavailableError struct{ Err error }

func (e *UnavailableError) Error() string {
	return "the system keyring is not usable: " + e.Err.Error()
}
func (e *UnavailableError) Unwrap() error { return e.Err }

// Store is the system keyring. Its zero value is usable.
type Store struct {
	// Timeout limits each request; DefaultTimeout when zero.
	Timeout time.Duration
	// LookupEnv reads the environment (the session bus's address);
	// os.LookupEnv when nil.
	LookupEnv func(string) (string, bool)

	reads atomic.Int64
}

// Reads counts the entries read so far (Get), for tests that hold a
// command to one keyring read per run.
func (s *Store) Reads() int64 { return s.reads.Load() }

// Get returns the secrets stored under account.
func (s *Store) Get(account string) (map[string]string, error) {
	s.reads.Add(1)
	var raw string
	err := s.do(func() (err error) { raw, err = gokeyring.Get(Service, account); return err })
	if err != nil {
		return nil, err
	}
	secrets := map[string]string{}
	if err := json.Unmarshal([]byte(raw), &secrets); err != nil {
		return nil, fmt.Errorf("the keyring entry %s/%s is not paycli's (not a JSON object of secrets)", Service, account)
	}
	return secrets, nil
}

// Set stores secrets under account, replacing the entry.
func (s *Store) Set(account string, secrets map[string]string) error {
	data, err := json.Marshal(secrets)
	if err != nil {
		return err
	}
	return s.do(func() error { return gokeyring.Set(Service, account, string(data)) })
}

// Delete removes the entry under account; a missing one is ErrNotFound.
func (s *Store) Delete(account string) error {
	return s.do(func() error { return gokeyring.Delete(Service, account) })
}

// Check tells whether a store can be reached at all, without a request
// that could wait for a prompt: on Linux, whether a session bus is there.
func (s *Store) Check() error {
	if !usesDBus() {
		return nil
	}
	if addr, ok := s.env("DBUS_SESSION_BUS_ADDRESS"); ok && addr != "" {
		return nil
	}
	if dir, ok := s.env("XDG_RUNTIME_DIR"); ok && dir != "" {
		if _, err := os.Stat(filepath.Join(dir, "bus")); err == nil {
			return nil
		}
	}
	return &UnavailableError{Err: errors.New("no D-Bus session bus (DBUS_SESSION_BUS_ADDRESS is unset): a headless machine or a container has no Secret Service")}
}

func (s *Store) env(name string) (string, bool) {
	if s.LookupEnv != nil {
		return s.LookupEnv(name)
	}
	return os.LookupEnv(name)
}

func usesDBus() bool { return runtime.GOOS != "darwin" && runtime.GOOS != "windows" }

// do runs one request within the time limit. A request that times out is
// left running in its goroutine: go-keyring has no way to cancel it, and
// the command ends soon after.
func (s *Store) do(req func() error) error {
	// Without a session bus, godbus would try to autolaunch one
	// (dbus-launch): never start a daemon behind the user's back.
	if err := s.Check(); err != nil {
		return err
	}
	timeout := s.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	done := make(chan error, 1)
	go func() { done <- req() }()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case err := <-done:
		switch {
		case err == nil:
			return nil
		case errors.Is(err, gokeyring.ErrNotFound):
			return ErrNotFound
		}
		return &UnavailableError{Err: err}
	case <-timer.C:
		return &UnavailableError{Err: fmt.Errorf("no answer within %s (a locked keyring waiting for a prompt?)", timeout)}
	}
}
