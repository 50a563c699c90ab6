package app

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/paycli/paycli/internal/cli/sandboxcmd"
	"github.com/paycli/paycli/internal/sandbox"
)

// TestCardInvoiceNeverPrinted: invoice ids that happen to be card numbers
// (Luhn-valid) go through a walletpay batch, its resumption, and every
// command that shows invoices — status, journal in each format and with
// --jq, journal reconcile, refund, the errors of preauth, complete and
// refund for an invoice the gateway does not know, and --jq on the fields
// of walletpay, refund, preauth capture, complete and status. The full
// numbers appear on no stdout and no stderr; they are shown as their first
// 6 and last 4 digits. The journal keeps them whole, so the resumed batch
// still skips the paid invoice and reports the unknown one without sending
// either.
func TestCardInvoiceNeverPrinted(t *testing.T) {
	t.Parallel()
	const (
		paid    = "4111111111111111"
		pending = "5555555555554444"
		missing = "4012888888881881"
		jqPaid  = "6011111111111117"
		held    = "5105105105105100" // a pre-authorization
		threeD  = "378282246310005"  // a 3D sale waiting for the merchant
	)
	rs := newRefundSandbox(t) // a pending sale completes on its first check status
	var shown []string        // every stdout and stderr, each after the command's name
	run := func(want int, args ...string) (string, string) {
		t.Helper()
		code, stdout, stderr := rs.run(t, args...)
		if code != want {
			t.Errorf("%v: exit %d, want %d\n%s%s", args, code, want, stdout, stderr)
		}
		shown = append(shown, fmt.Sprintf("$ paycli %s …\n%s%s", args[0], stdout, stderr))
		return stdout, stderr
	}

	batch := filepath.Join(t.TempDir(), "batch.jsonl")
	lines := []string{
		batchLine(paid, sandboxWalletToken(t, "150.00")),
		batchLine(pending, sandboxWalletToken(t, "150.69")), // the sandbox keeps it pending: unknown
		batchLine(paid, sandboxWalletToken(t, "150.00")),    // repeated in the file
	}
	if err := os.WriteFile(batch, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	type result struct{ Invoice, Outcome string }
	outcomes := func(stdout string) string {
		var got []string
		for _, l := range strings.Split(strings.TrimSpace(stdout), "\n") {
			var r result
			if err := json.Unmarshal([]byte(l), &r); err != nil {
				t.Fatalf("%v: %s", err, l)
			}
			got = append(got, r.Invoice+":"+r.Outcome)
		}
		return strings.Join(got, " ")
	}
	stdout, stderr := run(ExitOutcomeUnknown, "walletpay", "--batch", batch, "--yes")
	if got, want := outcomes(stdout), "411111******1111:succeeded 555555******4444:unknown 411111******1111:duplicate"; got != want {
		t.Errorf("batch: %s, want %s", got, want)
	}
	if !strings.Contains(stdout, "; run paycli journal reconcile\"") || !strings.Contains(stderr, "Check each with:\n  paycli journal reconcile\n") {
		t.Errorf("the unknown line does not point at journal reconcile:\n%s%s", stdout, stderr)
	}
	attemptsOf := func(invoice string) int {
		n := 0
		for _, a := range rs.journal(t) {
			if a.Intent.Invoice == invoice {
				n++
			}
		}
		return n
	}
	if attemptsOf(paid) != 1 || attemptsOf(pending) != 1 {
		t.Fatalf("the journal does not hold the invoices whole: %+v", rs.journal(t))
	}

	stdout, _ = run(ExitOutcomeUnknown, "walletpay", "--batch", batch, "--yes")
	if got, want := outcomes(stdout), "411111******1111:skipped 555555******4444:unknown 411111******1111:duplicate"; got != want {
		t.Errorf("resumed batch: %s, want %s", got, want)
	}
	if attemptsOf(paid) != 1 || attemptsOf(pending) != 1 {
		t.Errorf("the resumed batch sent again: %d and %d attempts", attemptsOf(paid), attemptsOf(pending))
	}

	_, stderr = run(ExitDuplicate, "walletpay", "--invoice", paid, "--token", sandboxWalletToken(t, "150.00"),
		"--name", "Ada", "--surname", "Lovelace", "--email", "ada@example.com", "--yes")
	if !strings.Contains(stderr, "error: invoice 411111******1111 was already processed") ||
		!strings.Contains(stderr, "paycli status --invoice ID, ID being the invoice id as given") {
		t.Errorf("duplicate:\n%s", stderr)
	}
	_, stderr = run(ExitOK, "journal")
	if !strings.Contains(stderr, "1 invoice has an unknown outcome: 555555******4444.") {
		t.Errorf("journal footer:\n%s", stderr)
	}
	run(ExitOK, "journal", "-o", "json")
	run(ExitOK, "journal", "-o", "csv")
	stdout, _ = run(ExitOK, "journal", "--jq", ".[].invoice")
	if !strings.Contains(stdout, "411111******1111") {
		t.Errorf("journal --jq:\n%s", stdout)
	}
	stdout, _ = run(ExitOK, "journal", "--invoice", paid, "-o", "json")
	if !strings.Contains(stdout, `"invoice": "411111******1111"`) {
		t.Errorf("journal --invoice finds nothing by the whole id:\n%s", stdout)
	}
	stdout, _ = run(ExitOK, "journal", "reconcile", "--dry-run")
	if stdout != "555555******4444\n" {
		t.Errorf("journal reconcile --dry-run: %q", stdout)
	}
	// The command the batch suggested settles the unknown outcome without
	// being given the invoice id.
	stdout, _ = run(ExitOK, "journal", "reconcile")
	if !strings.Contains(stdout, "555555******4444  succeeded") {
		t.Errorf("journal reconcile:\n%s", stdout)
	}
	stdout, _ = run(ExitDuplicate, "walletpay", "--batch", batch, "--yes")
	if got, want := outcomes(stdout), "411111******1111:skipped 555555******4444:skipped 411111******1111:duplicate"; got != want {
		t.Errorf("batch resumed after reconciling: %s, want %s", got, want)
	}
	run(ExitOK, "status", "--invoice", paid)
	run(ExitOK, "status", "--invoice", pending, "-o", "json")
	run(ExitRejected, "status", "--invoice", missing)
	run(ExitOK, "refund", "--invoice", paid, "--amount", "10.00", "--dry-run")
	run(ExitOK, "refund", "--invoice", paid, "--amount", "10.00", "--yes")
	run(ExitOK, "refund", "--invoice", paid, "--amount", "10.00", "--yes", "-o", "json")
	// Errors that echo the invoice: the error line masks it, once for every
	// command.
	run(ExitRejected, "refund", "--invoice", missing, "--amount", "1.00", "--yes")
	run(ExitRejected, "preauth", "capture", "--invoice", missing, "--yes")
	run(ExitRejected, "complete", "--invoice", missing, "--order-id", "VP1", "--yes")

	// --jq filters the fields as -o json prints them: the invoice_id it
	// picks out is masked, for every command that prints fields.
	jq := func(want string, args ...string) {
		t.Helper()
		if stdout, _ := run(ExitOK, append(args, "--jq", ".invoice_id")...); stdout != want+"\n" {
			t.Errorf("%v --jq .invoice_id: %q, want %q", args, stdout, want)
		}
	}
	sandboxSale(t, rs.baseURL, sandboxcmd.PayOptions{PreAuth: true, Invoice: held, Amount: decimal.RequireFromString("50.00")})
	threeDOrder := sandboxSale(t, rs.baseURL, sandboxcmd.PayOptions{ThreeD: true, CompletedBy: sandbox.CompletedByMerchant,
		Invoice: threeD, Amount: decimal.RequireFromString("50.00")})
	// Only the invoice is masked in a message: the order number given,
	// whose digits pass the Luhn check by chance, is named whole.
	const luhnOrder = "VP17953766355293785"
	sandboxSale(t, rs.baseURL, sandboxcmd.PayOptions{ThreeD: true, CompletedBy: sandbox.CompletedByMerchant,
		Invoice: "CM-X1", Amount: decimal.RequireFromString("50.00")})
	for invoice, shownAs := range map[string]string{"CM-X1": "CM-X1", threeD: "378282*****0005"} {
		_, stderr = run(ExitRejected, "complete", "--invoice", invoice, "--order-id", luhnOrder, "--yes")
		if want := "error: order " + luhnOrder + " is not the order of invoice " + shownAs + "; nothing was sent\n"; !strings.HasPrefix(stderr, want) {
			t.Errorf("complete with another order:\n%s\nwant it to start %q", stderr, want)
		}
	}
	jq("601111******1117", "walletpay", "--invoice", jqPaid, "--token", sandboxWalletToken(t, "150.00"),
		"--name", "Ada", "--surname", "Lovelace", "--email", "ada@example.com", "--yes")
	jq("411111******1111", "refund", "--invoice", paid, "--amount", "10.00", "--yes")
	jq("510510******5100", "preauth", "capture", "--invoice", held, "--yes")
	jq("378282*****0005", "complete", "--invoice", threeD, "--order-id", threeDOrder, "--yes")
	jq("411111******1111", "status", "--invoice", paid)

	all := strings.Join(shown, "\n")
	for _, card := range []string{paid, pending, missing, jqPaid, held, threeD} {
		if strings.Contains(all, card) {
			t.Errorf("the full card number %s was printed:\n%s", card, all)
		}
	}
	for _, masked := range []string{"411111******1111", "555555******4444", "401288******1881"} {
		if !strings.Contains(all, masked) {
			t.Errorf("%s is never shown:\n%s", masked, all)
		}
	}
}
