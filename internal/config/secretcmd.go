package config

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"time"
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

// RunSecretCommand runs a *_cmd setting and returns the secret it prints:
// without a shell (SplitCommand), with no standard input, within timeout.
// Its output is never logged; its standard error is shown when it fails.
func RunSecretCommand(ctx context.Context, line string, timeout time.Duration) (string, error) {
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
			msg += "; it said: " + strings.Join(strings.Fields(e), " ")
		}
		return "", errors.New(msg)
	case stdout.over:
		return "", fmt.Errorf("the command printed more than %d KiB: not a secret", maxSecretOutput>>10)
	}
	return oneLine(stdout.buf.String(), "the command's output")
}
