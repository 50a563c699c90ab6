package config

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"slices"
	"strings"
	"time"
)

// secretRef is where a secret is still to be fetched from.
type secretRef struct {
	ref   Ref
	key   string // the key or variable that said so: app_secret_cmd, PAYCLI_APP_SECRET_FILE
	value string // the command line, the file's path, the keyring account
}

// chooseSecretSources decides, for each secret, the one place it comes
// from. The environment beats the file, as for every key; within each,
// the value itself, then a file, a command, the keyring (PAYCLI_APP_SECRET,
// PAYCLI_APP_SECRET_FILE, PAYCLI_APP_SECRET_CMD, PAYCLI_APP_SECRET_KEYRING;
// then app_secret_cmd,
// app_secret_file, app_secret_keyring, and app_secret last: plain text is
// what an old file or a half-done migration leaves behind). A secret the
// file gives in more than one way gets a warning naming the one used.
func (c *Config) chooseSecretSources() {
	c.pending = map[string]secretRef{}
	for _, name := range SecretNames {
		ref := func(r Ref) (Key, string, Source) {
			k, _ := LookupKey(RefKey(name, r))
			return k, c.values[k.Name], c.sources[k.Name]
		}
		// The environment.
		if c.sources[name] == SourceEnv {
			continue
		}
		chosen := false
		for _, r := range []Ref{RefFile, RefCommand, RefKeyring} {
			k, v, src := ref(r)
			if src == SourceEnv && v != "" {
				c.setPending(name, r, k.Env(), v)
				chosen = true
				break
			}
		}
		if chosen {
			continue
		}
		// The file.
		plain := c.sources[name] == SourceFile && c.values[name] != ""
		var inFile []string
		for _, r := range []Ref{RefCommand, RefFile, RefKeyring} {
			k, v, src := ref(r)
			if src != SourceFile || v == "" {
				continue
			}
			inFile = append(inFile, k.Name)
			if !chosen {
				c.setPending(name, r, k.Name, v)
				chosen = true
			}
		}
		if plain {
			inFile = append(inFile, name+" (plain text)")
		}
		if len(inFile) > 1 {
			c.Warnings = append(c.Warnings, fmt.Sprintf("warning: %s is given %d ways in profile %q of %s (%s); %s is used. Remove the others (plain text: 'paycli config migrate-secrets').",
				name, len(inFile), c.Profile, c.Path, strings.Join(inFile, ", "), inFile[0]))
		}
		if !chosen && plain {
			c.PlainSecrets = append(c.PlainSecrets, name)
		}
	}
}

func (c *Config) setPending(name string, r Ref, key, value string) {
	c.pending[name] = secretRef{ref: r, key: key, value: value}
	c.values[name] = ""
	switch r {
	case RefCommand:
		c.sources[name] = SourceCommand
	case RefFile:
		c.sources[name] = SourceFileRef
	case RefKeyring:
		c.sources[name] = SourceKeyring
	}
}

// Where says where a secret is kept, without its value: "keyring
// paycli/live@1a2b…", "command app_secret_cmd: op read …", "file
// /run/secrets/app_secret (PAYCLI_APP_SECRET_FILE)"; "" when it is the
// value itself (flag, environment, plain text in the file) or unset.
func (c *Config) Where(name string) string {
	p, ok := c.pending[name]
	if !ok {
		if fetched, ok := c.fetched[name]; ok {
			p = fetched
		} else {
			return ""
		}
	}
	switch p.ref {
	case RefKeyring:
		return "keyring paycli/" + p.value
	case RefCommand:
		return "command " + p.key + ": " + Shorten(p.value)
	}
	return "file " + p.value + " (" + p.key + ")"
}

// SecretStore is the system keyring as LoadSecrets reads it: one entry
// per account, holding a profile's secrets by name (internal/keyring).
type SecretStore interface {
	Get(account string) (map[string]string, error)
}

// SecretOptions are what LoadSecrets fetches with.
type SecretOptions struct {
	// Keyring is the system keyring; nil means none can be reached.
	Keyring SecretStore
	// Timeout limits each command (*_cmd); the profile's timeout when zero.
	Timeout time.Duration
	// NoJournal: the command uses no shared journal (--sandbox), so the
	// journal's password is not fetched.
	NoJournal bool
}

// CredentialError is a secret that could not be fetched from where the
// configuration says it is. It names the key and where, never a secret.
type CredentialError struct {
	Secret string // app_secret
	From   string // what Where says
	Err    error
}

func (e *CredentialError) Error() string {
	return fmt.Sprintf("cannot get %s from %s: %v", e.Secret, e.From, e.Err)
}
func (e *CredentialError) Unwrap() error { return e.Err }

// Pending reports whether a secret is still to be fetched by LoadSecrets.
func (c *Config) Pending(name string) bool { _, ok := c.pending[name]; return ok }

// LoadSecrets fetches the secrets the configuration points at: the
// keyring is read once per account (a profile's secrets are one entry),
// each command is run once, each file read once. A secret the sandbox
// overlay replaced is not fetched. It may be called once per Config.
func (c *Config) LoadSecrets(ctx context.Context, opts SecretOptions) error {
	if len(c.pending) == 0 {
		return nil
	}
	timeout := opts.Timeout
	if timeout <= 0 {
		timeout = c.Timeout
	}
	entries := map[string]map[string]string{}
	if c.fetched == nil {
		c.fetched = map[string]secretRef{}
	}
	for _, name := range SecretNames {
		p, ok := c.pending[name]
		if !ok {
			continue
		}
		// A secret the sandbox replaced, or the password of a journal
		// that is not used, is not fetched.
		if c.sources[name] == SourceSandbox || name == "journal_password" && (c.Journal == "" || opts.NoJournal) {
			delete(c.pending, name)
			continue
		}
		from := c.Where(name)
		var value string
		var err error
		switch p.ref {
		case RefKeyring:
			value, err = fromKeyring(opts.Keyring, entries, p.value, name)
		case RefFile:
			value, err = readSecretFile(p.value)
		case RefCommand:
			value, err = RunSecretCommand(ctx, p.value, timeout, c.knownSecrets())
		}
		if err != nil {
			return &CredentialError{Secret: name, From: from, Err: err}
		}
		c.values[name] = value
		c.fetched[name] = p
		delete(c.pending, name)
	}
	return c.fill()
}

// knownSecrets are the secrets of the run known so far: the values of
// SecretNames, and the passwords of the journal URL (its user's, and its
// query's password and sslpassword).
func (c *Config) knownSecrets() []string {
	var secrets []string
	for _, name := range SecretNames {
		if v := c.values[name]; v != "" {
			secrets = append(secrets, v)
		}
	}
	if u, err := url.Parse(c.values["journal"]); err == nil && c.values["journal"] != "" {
		if pw, ok := u.User.Password(); ok {
			secrets = append(secrets, pw)
		}
		for key, values := range u.Query() {
			if k := strings.ToLower(strings.TrimSpace(key)); k == "password" || k == "sslpassword" {
				secrets = append(secrets, values...)
			}
		}
	}
	return secrets
}

func fromKeyring(store SecretStore, entries map[string]map[string]string, account, name string) (string, error) {
	if store == nil {
		return "", errors.New("no system keyring can be reached here")
	}
	entry, ok := entries[account]
	if !ok {
		var err error
		if entry, err = store.Get(account); err != nil {
			return "", err
		}
		entries[account] = entry
	}
	v := entry[name]
	if v == "" {
		return "", fmt.Errorf("the entry holds no %s; store it again with 'paycli config set %s -'", name, name)
	}
	return v, nil
}

// maxSecretFile bounds what a secret file may hold: a secret, not a file
// given by mistake.
const maxSecretFile = 64 << 10

// readSecretFile reads a secret mounted as a file (a Docker or Kubernetes
// secret): its content less one trailing line ending.
func readSecretFile(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("cannot read it: %w", errors.Unwrap(err))
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxSecretFile+1))
	if err != nil {
		return "", fmt.Errorf("cannot read it: %w", err)
	}
	if len(data) > maxSecretFile {
		return "", fmt.Errorf("it holds more than %d KiB: not a secret", maxSecretFile>>10)
	}
	return oneLine(string(data), "the file")
}

// oneLine is a secret as a file or a command gives it: one line, its line
// ending dropped; empty or more lines are errors.
func oneLine(s, what string) (string, error) {
	s = strings.TrimSuffix(s, "\n")
	s = strings.TrimSuffix(s, "\r")
	switch {
	case s == "":
		return "", fmt.Errorf("%s is empty", what)
	case strings.ContainsAny(s, "\r\n"):
		n := len(strings.FieldsFunc(s, func(r rune) bool { return r == '\n' || r == '\r' }))
		return "", fmt.Errorf("%s holds %d lines; a secret is one line", what, max(n, 2))
	}
	return s, nil
}

// IsSecretName reports whether name is one of SecretNames.
func IsSecretName(name string) bool { return slices.Contains(SecretNames, name) }
