package config

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"time"

	"github.com/paycli/paycli/internal/redact"
)

// SplitCommand splits a *_cmd setting into a program and its arguments,
// the way a POSIX shell splits words but running no shell: blanks
// separate words; '…' keeps everything literally; "…" keeps everything
// but \" and \\; a backslash outside quotes keeps the next character.
// Nothing is expanded ($VAR, ~, globs), and an unquoted |, &, ;, <, >,
// (, ), ` or $ is refused: the command would not do what a shell does
// with them. To need a shell, say so: sh -c '…'.
func SplitCommand(s string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	rs := []rune(s)
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch {
		case r == ' ' || r == '\t' || r == '\n':
			if inWord {
				words, inWord = append(words, cur.String()), false
				cur.Reset()
			}
		case r == '\'':
			inWord = true
			j := i + 1
			for j < len(rs) && rs[j] != '\'' {
				cur.WriteRune(rs[j])
				j++
			}
			if j == len(rs) {
				return nil, errors.New("a ' is not closed")
			}
			i = j
		case r == '"':
			inWord = true
			j := i + 1
			for ; j < len(rs) && rs[j] != '"'; j++ {
				if rs[j] == '\\' && j+1 < len(rs) && (rs[j+1] == '"' || rs[j+1] == '\\') {
					j++
				}
				cur.WriteRune(rs[j])
			}
			if j == len(rs) {
				return nil, errors.New(`a " is not closed`)
			}
			i = j
		case r == '\\':
			if i+1 == len(rs) {
				return nil, errors.New("a \\ ends the command")
			}
			inWord = true
			i++
			cur.WriteRune(rs[i])
		case strings.ContainsRune("|&;<>()`$", r):
			return nil, fmt.Errorf("%q would need a shell, and paycli runs the command without one: quote it, or write sh -c '…'", string(r))
		default:
			inWord = true
			cur.WriteRune(r)
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	if len(words) == 0 {
		return nil, errors.New("the command is empty")
	}
	return words, nil
}

// maxSecretOutput bounds what a secret command may print.
const maxSecretOutput = 64 << 10

// limitedBuffer keeps the first n bytes written to it and counts the rest.
type limitedBuffer struct {
	buf  bytes.Buffer
	n    int
	over bool
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	if room := b.n - b.buf.Len(); room > 0 {
		b.buf.Write(p[:min(room, len(p))])
	}
	if b.buf.Len()+len(p) > b.n {
		b.over = true
	}
	return len(p), nil
}

// secretCommandNames and secretCommandPrefixes are the variables of
// paycli's environment a *_cmd command is given: what the helpers of
// vaults and keyrings need to find the user, their store and their agent
// (pass, gpg and its pinentry, secret-tool over D-Bus, 1Password's op,
// Bitwarden's bw, HashiCorp's vault, the AWS CLI), the locale, and a
// proxy. Nothing of paycli's own is among them: not PAYCLI_* (a secret, a
// *_FILE, the journal URL and its password), not PGPASSWORD.
var (
	secretCommandNames = []string{
		"PATH", "HOME", "USER", "LOGNAME", "LANG", "LANGUAGE", "TZ", "TMPDIR", "TERM",
		"XDG_RUNTIME_DIR", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME",
		"DBUS_SESSION_BUS_ADDRESS", "DISPLAY", "WAYLAND_DISPLAY", "SSH_AUTH_SOCK",
		"GNUPGHOME", "GPG_TTY", "GPG_AGENT_INFO",
		"HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "ALL_PROXY", "SSL_CERT_FILE", "SSL_CERT_DIR",
		// Windows
		"SYSTEMROOT", "SYSTEMDRIVE", "WINDIR", "COMSPEC", "PATHEXT", "USERPROFILE", "USERNAME",
		"APPDATA", "LOCALAPPDATA", "PROGRAMDATA", "TEMP", "TMP",
	}
	secretCommandPrefixes = []string{"LC_", "PASSWORD_STORE_", "OP_", "BW_", "VAULT_", "AWS_"}
)

// secretCommandGets reports whether a *_cmd command is given the variable
// name (in any case: Windows ignores it, and proxies are written both ways).
func secretCommandGets(name string) bool {
	name = strings.ToUpper(name)
	return slices.Contains(secretCommandNames, name) ||
		slices.ContainsFunc(secretCommandPrefixes, func(p string) bool { return strings.HasPrefix(name, p) })
}

// secretCommandEnv is environ less what a *_cmd command is not given;
// never nil, which would give it all of paycli's.
func secretCommandEnv(environ []string) []string {
	env := []string{}
	for _, kv := range environ {
		if name, _, ok := strings.Cut(kv, "="); ok && name != "" && secretCommandGets(name) {
			env = append(env, kv)
		}
	}
	return env
}

// secretMask stands for a secret of the run a command's stderr repeated.
const secretMask = "•••"

// minScrubbedSecret is the shortest secret scrubbed from a command's
// stderr: a shorter one would mask words by chance, and is no secret.
const minScrubbedSecret = 4

// scrubSecrets masks in s every one of secrets (the longest first, so that
// one holding another goes whole), the passwords of URLs and card numbers.
func scrubSecrets(s string, secrets []string) string {
	secrets = slices.Clone(secrets)
	slices.SortFunc(secrets, func(a, b string) int { return len(b) - len(a) })
	for _, secret := range secrets {
		if len(secret) >= minScrubbedSecret {
			s = strings.ReplaceAll(s, secret, secretMask)
		}
	}
	return redact.Cards(redact.URL(s))
}

// RunSecretCommand runs a *_cmd setting and returns the secret it prints:
// without a shell (SplitCommand), with no standard input, within timeout,
// given only the variables of the environment a helper needs
// (secretCommandNames). Its output is never logged; its standard error is
// shown when it fails, with secrets (the run's, known so far), URLs'
// passwords and card numbers masked.
func RunSecretCommand(ctx context.Context, line string, timeout time.Duration, secrets []string) (string, error) {
	argv, err := SplitCommand(line)
	if err != nil {
		return "", err
	}
	if timeout <= 0 {
		timeout = 30 * time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	// A child that keeps the pipes open (a daemon the command started)
	// must not hold paycli past the limit.
	cmd.WaitDelay = time.Second
	cmd.Env = secretCommandEnv(os.Environ())
	stdout := &limitedBuffer{n: maxSecretOutput}
	stderr := &limitedBuffer{n: 2 << 10}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	runErr := cmd.Run()
	switch {
	case ctx.Err() == context.DeadlineExceeded:
		return "", fmt.Errorf("the command did not finish within %s", timeout)
	case runErr != nil:
		var exit *exec.ExitError
		msg := runErr.Error()
		if errors.As(runErr, &exit) {
			msg = "the command " + exit.ProcessState.String()
		} else if errors.Is(runErr, exec.ErrNotFound) {
			msg = fmt.Sprintf("no program %q on PATH", argv[0])
		}
		if e := strings.TrimSpace(stderr.buf.String()); e != "" {
			msg += "; it said: " + scrubSecrets(strings.Join(strings.Fields(e), " "), secrets)
		}
		return "", errors.New(msg)
	case stdout.over:
		return "", fmt.Errorf("the command printed more than %d KiB: not a secret", maxSecretOutput>>10)
	}
	return oneLine(stdout.buf.String(), "the command's output")
}
