package cmdutil

import (
	"context"
	"errors"
	"io"
	"os"
	"strings"
)

// MaxValueBytes caps a flag value read from a file or stdin: far more than
// any token or key paycli takes, far less than a mistaken /dev/zero or
// disk image would fill memory with.
const MaxValueBytes = 1 << 20

// ReadValue resolves a flag value given as the value itself, @FILE, or -
// for stdin, as --token takes it. what names the value in messages
// ("token"). The value is trimmed of surrounding white space.
//
// Reading is bounded and interruptible: more than MaxValueBytes is a usage
// error (exit 2) found after reading at most one byte more, and a read that
// blocks (a FIFO nobody writes to, a terminal) ends when ctx does, so that
// Ctrl-C, SIGTERM and --timeout are obeyed. An empty value, a missing or
// unreadable file are usage errors.
func ReadValue(ctx context.Context, stdin io.Reader, flag, value, what string) (string, error) {
	var (
		name string
		open func() (io.ReadCloser, error)
	)
	switch {
	case value == "-":
		name = "stdin"
		open = func() (io.ReadCloser, error) { return io.NopCloser(stdin), nil }
	case strings.HasPrefix(value, "@"):
		name = strings.TrimPrefix(value, "@")
		open = func() (io.ReadCloser, error) { return os.Open(name) }
	default:
		return strings.TrimSpace(value), nil
	}
	b, err := readBounded(ctx, open, MaxValueBytes)
	switch {
	case ctx.Err() != nil:
		return "", ctx.Err()
	case errors.Is(err, errTooLarge):
		return "", UsageErrorf("invalid --%s: %s holds more than %d MiB; a %s is a few KiB at most", flag, name, MaxValueBytes>>20, what)
	case err != nil && name == "stdin":
		return "", UsageErrorf("reading --%s from stdin: %v", flag, err)
	case err != nil:
		return "", UsageErrorf("invalid --%s: reading %s: %v", flag, name, unwrapPathError(err))
	}
	v := strings.TrimSpace(string(b))
	if v == "" {
		if name == "stdin" {
			return "", UsageErrorf("invalid --%s: stdin held no %s", flag, what)
		}
		return "", UsageErrorf("invalid --%s: %s is empty", flag, name)
	}
	return v, nil
}

var errTooLarge = errors.New("too large")

// readBounded opens and reads a source in a goroutine, giving up when ctx
// ends; a read abandoned this way stays blocked on its source, and the
// process is about to exit then.
func readBounded(ctx context.Context, open func() (io.ReadCloser, error), max int64) ([]byte, error) {
	type result struct {
		b   []byte
		err error
	}
	ch := make(chan result, 1)
	go func() {
		rc, err := open()
		if err != nil {
			ch <- result{nil, err}
			return
		}
		defer rc.Close()
		b, err := io.ReadAll(io.LimitReader(rc, max+1))
		if err == nil && int64(len(b)) > max {
			b, err = nil, errTooLarge
		}
		ch <- result{b, err}
	}()
	select {
	case r := <-ch:
		return r.b, r.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func unwrapPathError(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
