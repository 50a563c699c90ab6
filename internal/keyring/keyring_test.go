package keyring_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/paycli/paycli/internal/keyring"
	"github.com/paycli/paycli/internal/testkit/keyringtest"
)

func TestStoreRoundTripOnARealSecretService(t *testing.T) {
	kr := keyringtest.Start(t)
	s := &keyring.Store{}
	want := map[string]string{"app_secret": "s3cr3t-app", "merchant_key": "mk-123"}
	if err := s.Set("default@abc", want); err != nil {
		t.Fatal(err)
	}
	got, err := s.Get("default@abc")
	if err != nil {
		t.Fatal(err)
	}
	if got["app_secret"] != want["app_secret"] || got["merchant_key"] != want["merchant_key"] {
		t.Fatalf("got %v, want %v", got, want)
	}
	if raw := kr.Lookup(t, keyring.Service, "default@abc"); !strings.Contains(raw, "s3cr3t-app") {
		t.Fatalf("secret-tool does not see the entry: %q", raw)
	}
	if err := s.Delete("default@abc"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get("default@abc"); !errors.Is(err, keyring.ErrNotFound) {
		t.Fatalf("after Delete: %v, want ErrNotFound", err)
	}
}

func TestStoreWithoutASessionBusSaysSo(t *testing.T) {
	s := &keyring.Store{LookupEnv: func(string) (string, bool) { return "", false }}
	err := s.Set("default@abc", map[string]string{"app_secret": "x"})
	var un *keyring.UnavailableError
	if !errors.As(err, &un) || !strings.Contains(err.Error(), "DBUS_SESSION_BUS_ADDRESS") {
		t.Fatalf("got %v, want an UnavailableError naming the bus", err)
	}
}

func TestStoreOnABusWithoutSecretServiceRefuses(t *testing.T) {
	keyringtest.StartBus(t)
	s := &keyring.Store{Timeout: 5 * time.Second}
	_, err := s.Get("default@abc")
	var un *keyring.UnavailableError
	if !errors.As(err, &un) {
		t.Fatalf("got %v, want an UnavailableError", err)
	}
}

func TestStoreLockedKeyringIsUnavailableNotAHang(t *testing.T) {
	kr := keyringtest.Start(t)
	s := &keyring.Store{Timeout: 3 * time.Second}
	if err := s.Set("default@abc", map[string]string{"app_secret": "x"}); err != nil {
		t.Fatal(err)
	}
	kr.Lock(t)
	_, err := s.Get("default@abc")
	var un *keyring.UnavailableError
	if !errors.As(err, &un) {
		t.Fatalf("got %v, want an UnavailableError", err)
	}
	t.Logf("locked: %v", err)
}
