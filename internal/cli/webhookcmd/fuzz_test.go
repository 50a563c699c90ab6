package webhookcmd

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/paycli/paycli/internal/webhook"
)

// FuzzReadBodies feeds `webhook verify`'s reader whatever a capture file
// may hold. It must not panic; the bodies it yields are non-empty, at most
// a body's limit, on increasing lines that exist in the input, and each
// is text of the input; its only errors are a line over the limit.
func FuzzReadBodies(f *testing.F) {
	f.Add("status=1&total=1\n\n{\"a\": 1}\r\n")
	f.Add("{\n  \"status\": \"1\"\n}\n")
	f.Add("{\n}\n{\n}")
	f.Add("\n\n\n")
	f.Add(strings.Repeat("x", webhook.MaxBodySize+3) + "\ny")
	f.Fuzz(func(t *testing.T, input string) {
		lines := strings.Count(input, "\n") + 1
		last := 0
		err := readBodies(context.Background(), strings.NewReader(input), func(line int, body []byte) error {
			if len(body) == 0 || len(body) > webhook.MaxBodySize {
				t.Fatalf("body of %d bytes", len(body))
			}
			if line <= last || line > lines {
				t.Fatalf("line %d after %d (input has %d)", line, last, lines)
			}
			if !strings.Contains(input, string(body)) || !bytes.Equal(bytes.TrimSpace(body), body) {
				t.Fatalf("body %q is not a trimmed piece of the input", body)
			}
			last = line
			return nil
		})
		var tooLong *lineTooLongError
		if err != nil && !errors.As(err, &tooLong) {
			t.Fatalf("readBodies: %v", err)
		}
	})
}
