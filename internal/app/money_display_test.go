//go:build unix

package app_test

import (
	"regexp"
	"strings"
	"testing"
)

// TestMoneyShownOneWayAtEightyColumns runs the real binary on an
// 80-column pseudo-terminal (issue 34, part 2, items 2 and 8): the
// installments table shows the fee in the currency's minor unit and the
// program as commissions spells it; the commission matrix shows the odd
// cent of a split and the same fee, two installment columns to a block;
// percentages have two decimals; a preauth cancel's amount reads as
// money; status says first where the sale stands.
func TestMoneyShownOneWayAtEightyColumns(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs the sandbox and several commands")
	}
	d := newDesk(t)
	fits := func(args []string, out string) {
		t.Helper()
		if w, line := widest(out); w > terminalColumns {
			t.Errorf("paycli %s: a line is %d columns:\n%s", strings.Join(args, " "), w, line)
		}
	}
	has := func(args []string, out, pattern string) {
		t.Helper()
		if !regexp.MustCompile(pattern).MatchString(ansiEscape.ReplaceAllString(out, "")) {
			t.Errorf("paycli %s: nothing matches %s in:\n%s", strings.Join(args, " "), pattern, out)
		}
	}

	args := []string{"installments", "--bin", "435508", "--amount", "1250.50", "--currency", "TRY", "--sandbox"}
	out := d.onTerminal(0, args...)
	fits(args, out)
	has(args, out, `(?m)^ +3 +Axess +.*416\.83 +416\.84 +58\.15 +1,192\.35$`)
	if strings.Contains(out, "58.1483") || strings.Contains(out, "AXESS") {
		t.Errorf("installments shows the gateway's digits or spelling:\n%s", out)
	}
	// The exact figure stays in JSON.
	if js := d.piped(append(args, "-o", "json", "--installments", "3")...); !strings.Contains(js, `"merchant_fee": 58.1483`) {
		t.Errorf("JSON lost the exact fee:\n%s", js)
	}

	args = []string{"commissions", "--amount", "1250.50", "--currency", "TRY", "--sandbox"}
	out = d.onTerminal(0, args...)
	fits(args, out)
	has(args, out, `(?m)^Axess +416\.84 \+ 2×416\.83, fee 58\.15 +312\.64 \+ 3×312\.62, fee 73\.15$`)
	if !strings.Contains(d.stderr[len(d.stderr)-1], "Buyer pays 1,250.50 TRY in all") {
		t.Errorf("commissions does not say the buyer's total once: %q", d.stderr[len(d.stderr)-1])
	}
	if blocks := strings.Count(out, "PROGRAM"); blocks > 6 {
		t.Errorf("the matrix is %d blocks at 80 columns, want two installment columns a block:\n%s", blocks, out)
	}

	args = []string{"commissions", "--currency", "TRY", "--sandbox", "--installments", "1"}
	out = d.onTerminal(0, args...)
	fits(args, out)
	has(args, out, `(?m)^saved card token +2\.10% +–$`)

	d.piped("sandbox", "pay", "--amount", "80", "--currency", "TRY", "--preauth", "--invoice", "PA-80")
	args = []string{"preauth", "cancel", "--sandbox", "--invoice", "PA-80", "--yes"}
	out = d.onTerminal(0, args...)
	fits(args, out)
	has(args, out, `(?m)^amount +0\.00 TRY \(nothing charged\)$`)
	has(args, out, `(?m)^released_amount +80\.00 TRY$`)

	d.piped("sandbox", "pay", "--amount", "100", "--currency", "TRY", "--invoice", "INV-100")
	d.piped("refund", "--sandbox", "--invoice", "INV-100", "--amount", "10", "--yes")
	d.onTerminal(0, "status", "--sandbox", "INV-100")
	if first, _, _ := strings.Cut(d.stderr[len(d.stderr)-1], "\n"); first != "INV-100: completed, 100.00 TRY, refunded 10.00 TRY" {
		t.Errorf("status's first line %q", first)
	}
}
