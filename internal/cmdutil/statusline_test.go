package cmdutil

import (
	"strings"
	"testing"
)

// TestStatusCommandLineNeverPrintsACard: an invoice id that reads as a
// card number is not written into the line, whole or masked (a masked one
// would look up another invoice); the line says what to put in its place.
func TestStatusCommandLineNeverPrintsACard(t *testing.T) {
	tests := []struct {
		invoice string
		flags   []string
		want    string
	}{
		{"INV-1", []string{"--profile", "a b"}, "paycli status --invoice INV-1 --profile 'a b'"},
		{"4111111111111111", []string{"--sandbox"},
			"paycli status --invoice ID --sandbox, ID being the invoice id as given (it reads as a card number, so it is not printed)"},
		// Fails the Luhn check: no card, printed as it is.
		{"4111111111111112", nil, "paycli status --invoice 4111111111111112"},
	}
	for _, tt := range tests {
		got := StatusCommandLine(tt.invoice, tt.flags)
		if got != tt.want {
			t.Errorf("StatusCommandLine(%q, %q) = %s, want %s", tt.invoice, tt.flags, got, tt.want)
		}
		if strings.Contains(got, "411111******1111") {
			t.Errorf("StatusCommandLine(%q) names the masked invoice: %s", tt.invoice, got)
		}
	}
	if got, want := ReconcileCommandLine([]string{"--profile", "a b", "--sandbox"}), "paycli journal reconcile --profile 'a b' --sandbox"; got != want {
		t.Errorf("ReconcileCommandLine = %s, want %s", got, want)
	}
}
