package cmdutil

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadValue(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := write("good", "  tok\r\n")
	empty := write("empty", "\n\n")
	exact := write("exact", strings.Repeat("a", MaxValueBytes))
	over := write("over", strings.Repeat("a", MaxValueBytes+1))
	tests := []struct {
		value, stdin string
		want, err    string
	}{
		{"tok ", "", "tok", ""},
		{"-", "\n tok \n", "tok", ""},
		{"@" + good, "", "tok", ""},
		{"-", " \n", "", "invalid --token: stdin held no token"},
		{"@" + empty, "", "", "invalid --token: " + empty + " is empty"},
		{"@" + filepath.Join(dir, "missing"), "", "", "reading " + filepath.Join(dir, "missing") + ": no such file or directory"},
		{"@" + exact, "", strings.Repeat("a", MaxValueBytes), ""},
		{"@" + over, "", "", "invalid --token: " + over + " holds more than 1 MiB; a token is a few KiB at most"},
		{"-", strings.Repeat("a", MaxValueBytes+1), "", "invalid --token: stdin holds more than 1 MiB"},
	}
	for _, tt := range tests {
		got, err := ReadValue(context.Background(), strings.NewReader(tt.stdin), "token", tt.value, "token")
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%.40q: err = %v, want %q", tt.value, err, tt.err)
			}
			if k, _ := KindOf(err); k != KindUsage {
				t.Errorf("%.40q: kind %v, want usage", tt.value, k)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("%.40q: %.40q, %v; want %.40q", tt.value, got, err, tt.want)
		}
	}
}

// An endless source is read only up to the cap.
func TestReadValueEndlessStdin(t *testing.T) {
	r := &countingZeros{}
	_, err := ReadValue(context.Background(), r, "token", "-", "token")
	if k, _ := KindOf(err); k != KindUsage {
		t.Fatalf("err = %v, want a usage error", err)
	}
	if r.n > MaxValueBytes+64<<10 {
		t.Errorf("read %d bytes of an endless stdin, want about %d", r.n, MaxValueBytes)
	}
}

type countingZeros struct{ n int }

func (z *countingZeros) Read(p []byte) (int, error) {
	clear(p)
	z.n += len(p)
	return len(p), nil
}
