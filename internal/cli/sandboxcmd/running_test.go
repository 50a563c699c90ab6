package sandboxcmd

import (
	"context"
	"testing"

	"github.com/paycli/paycli/internal/cmdutil"
	"github.com/paycli/paycli/internal/sandbox"
)

// TestSandboxURL: a --sandbox-url given must answer (else exit 8, never
// a fall-back to the state folder); without one, the state folder's serve
// is used only when it answers.
func TestSandboxURL(t *testing.T) {
	const served, given = "http://127.0.0.1:4001", "http://127.0.0.1:4002"
	tests := []struct {
		name     string
		given    string
		address  bool // the state folder names a serve
		answers  map[string]bool
		want     string
		wantKind cmdutil.Kind
	}{
		{name: "given answers", given: given, address: true, answers: map[string]bool{given: true, served: true}, want: given},
		{name: "given silent", given: given, address: true, answers: map[string]bool{served: true}, wantKind: cmdutil.KindUnavailable},
		{name: "state serve answers", address: true, answers: map[string]bool{served: true}, want: served},
		{name: "state serve silent", address: true, answers: map[string]bool{}, want: ""},
		{name: "no serve", answers: map[string]bool{served: true}, want: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if tt.address {
				if err := sandbox.WriteAddress(dir, served); err != nil {
					t.Fatal(err)
				}
			}
			probe := func(_ context.Context, u string) bool { return tt.answers[u] }
			got, err := sandboxURL(context.Background(), tt.given, dir, probe)
			if tt.wantKind != 0 {
				if k, _ := cmdutil.KindOf(err); k != tt.wantKind || got != "" {
					t.Fatalf("got %q, %v (kind %v), want kind %v", got, err, k, tt.wantKind)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("got %q, %v, want %q", got, err, tt.want)
			}
		})
	}
}
