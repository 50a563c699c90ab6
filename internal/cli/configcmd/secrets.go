package configcmd

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/paycli/paycli/internal/cmdutil"
	"github.com/paycli/paycli/internal/config"
	"github.com/paycli/paycli/internal/iostreams"
	"github.com/paycli/paycli/internal/journal"
	"github.com/paycli/paycli/internal/keyring"
)

// insecureStorageHelp is the --insecure-storage flag's help, the same on
// every command that stores a secret.
const insecureStorageHelp = "store secrets in the config file in plain text, not in the system keyring"

// secretStorage is where a command that stores secrets puts them: the
// system keyring, unless there is none and the user says plain text will
// do (--insecure-storage, or yes on a terminal).
type secretStorage struct {
	IO       *iostreams.IOStreams
	Keyring  *keyring.Store
	Insecure bool
	// NoPlainText: never fall back to the file (migrate-secrets).
	NoPlainText bool
}

// keyringAccount names a profile's entry in the keyring: the profile and
// the gateway account it points at (journal.Identity of its base URL and
// app_id), so that two files' profiles of the same name, pointed at other
// gateways, do not share secrets.
func keyringAccount(profile, baseURL, appID string) string {
	return profile + "@" + journal.Identity(baseURL, appID)
}

// profileAccount is the account the profile's secrets live under: the one
// its file already names, else a new one.
func profileAccount(values map[string]string, profile string) string {
	for _, name := range config.SecretNames {
		if acct := values[config.RefKey(name, config.RefKeyring)]; acct != "" {
			return acct
		}
	}
	return keyringAccount(profile, values["base_url"], values["app_id"])
}

// errNoKeyring is a keyring that cannot take the secrets, with what to do.
func errNoKeyring(err error, names []string) error {
	what := strings.Join(names, " and ")
	return cmdutil.UsageHint(
		fmt.Errorf("cannot store %s in the system keyring: %w", what, err),
		"Nothing was saved. On a desktop, unlock the keyring (log in); on a server or in a container, keep the secret out of the file ("+
			config.RefKey(names[0], config.RefCommand)+", PAYCLI_"+strings.ToUpper(names[0])+"_FILE), or store it in plain text with --insecure-storage.")
}

// store puts secrets (by name) of profile where they belong and records in
// edit where that is: in the keyring, the file holding a reference
// (app_secret_keyring) and no plain text; or, when the keyring cannot be
// used and plain text is allowed, in the file. values are the profile's
// settings as they will be saved (base_url and app_id name the account).
// It reports where the secrets went: "the system keyring" or the file.
func (s secretStorage) store(ctx context.Context, edit *config.Edit, profile string, values map[string]string, secrets map[string]string) (string, error) {
	if len(secrets) == 0 {
		return "", nil
	}
	var names []string
	for _, name := range config.SecretNames {
		if _, ok := secrets[name]; ok {
			names = append(names, name)
		}
	}
	var kerr error
	if s.Insecure {
		kerr = errors.New("--insecure-storage")
	} else if s.Keyring == nil {
		kerr = &keyring.UnavailableError{Err: errors.New("none is set up for this command")}
	} else {
		kerr = s.Keyring.Check()
	}
	if kerr == nil {
		acct := profileAccount(values, profile)
		entry, err := s.Keyring.Get(acct)
		switch {
		case errors.Is(err, keyring.ErrNotFound):
			entry = map[string]string{}
			err = nil
		case err != nil:
			kerr = err
		}
		if kerr == nil {
			for name, v := range secrets {
				entry[name] = v
			}
			kerr = s.Keyring.Set(acct, entry)
		}
		if kerr == nil {
			for _, name := range names {
				if err := edit.Set(profile, config.RefKey(name, config.RefKeyring), acct); err != nil {
					return "", err
				}
				if _, err := edit.Unset(profile, name); err != nil {
					return "", err
				}
			}
			return "the system keyring (" + keyring.Service + "/" + acct + ")", nil
		}
	}
	if s.NoPlainText {
		return "", errNoKeyring(kerr, names)
	}
	if !s.Insecure {
		if !s.IO.CanPrompt() {
			return "", errNoKeyring(kerr, names)
		}
		s.IO.Notef("The system keyring cannot take %s: %v", strings.Join(names, " and "), kerr)
		ok, err := s.IO.Confirm(ctx, fmt.Sprintf("Store %s in plain text in %s instead?", strings.Join(names, " and "), edit.Path))
		if err != nil {
			return "", err
		}
		if !ok {
			return "", errNoKeyring(kerr, names)
		}
	}
	for _, name := range names {
		if err := edit.Set(profile, name, secrets[name]); err != nil {
			return "", err
		}
		// A keyring reference would win over the plain text.
		if _, err := edit.Unset(profile, config.RefKey(name, config.RefKeyring)); err != nil {
			return "", err
		}
	}
	return edit.Path + " (plain text)", nil
}

// forget removes secrets (by name) from the profile's keyring entry, the
// entry itself when nothing is left. A keyring that cannot be reached is
// reported, not an error: the file no longer points at the entry.
func (s secretStorage) forget(acct string, names []string) error {
	if s.Keyring == nil || acct == "" {
		return nil
	}
	entry, err := s.Keyring.Get(acct)
	if errors.Is(err, keyring.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, name := range names {
		delete(entry, name)
	}
	if len(entry) == 0 {
		return s.Keyring.Delete(acct)
	}
	return s.Keyring.Set(acct, entry)
}
