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

// TestInvoiceCommandLine: any command naming an invoice is built like the
// status line — every word quoted for a shell, the gateway's flags kept, an
// invoice id that reads as a card number written ID with the note saying
// whose it is, for the caller to put after the lines that use it.
func TestInvoiceCommandLine(t *testing.T) {
	tests := []struct {
		words            []string
		invoice, whose   string
		flags            []string
		wantLine, wantNo string
	}{
		{[]string{"preauth", "capture"}, "INV 1", InvoiceAsGiven, []string{"--profile", "a b", "--sandbox"},
			"paycli preauth capture --invoice 'INV 1' --profile 'a b' --sandbox", ""},
		{[]string{"preauth", "cancel"}, "4111111111111111", InvoiceAsGiven, []string{"--sandbox"},
			"paycli preauth cancel --invoice ID --sandbox", ", ID being the invoice id as given (it reads as a card number, so it is not printed)"},
		{[]string{"status"}, "4111111111111111", "the invoice id of refund RF1", nil,
			"paycli status --invoice ID", ", ID being the invoice id of refund RF1 (it reads as a card number, so it is not printed)"},
		// A value a shell would expand is quoted.
		{[]string{"status"}, "INV-*", InvoiceAsGiven, nil, "paycli status --invoice 'INV-*'", ""},
	}
	for _, tt := range tests {
		line, note := InvoiceCommandLine(tt.words, tt.invoice, tt.whose, tt.flags)
		if line != tt.wantLine || note != tt.wantNo {
			t.Errorf("InvoiceCommandLine(%q, %q) = %q, %q; want %q, %q", tt.words, tt.invoice, line, note, tt.wantLine, tt.wantNo)
		}
	}
	if got, want := CommandLine("paycli", "refund", "--retry", "RF 1", "--yes"), "paycli refund --retry 'RF 1' --yes"; got != want {
		t.Errorf("CommandLine = %s, want %s", got, want)
	}
}
