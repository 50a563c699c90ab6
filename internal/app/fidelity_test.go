package app

import (
	"context"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/paycli/paycli/internal/iostreams"
	"github.com/paycli/paycli/internal/journal"
	"github.com/paycli/paycli/internal/sandbox"
)

// TestAPIThreeDRefusalIsARejection (issue 34, items 1 and 2): the sandbox
// answers a 3D payment whose items do not add up with the gateway's
// refusal page (HTML, though paycli asks for JSON), and `paycli api`
// reads it as the refusal it is: exit 4 with the code and text, journaled
// rejected, never as the 3D challenge.
func TestAPIThreeDRefusalIsARejection(t *testing.T) {
	base, _ := faultSandboxAt(t, "/none", "")
	home := t.TempDir()
	env := map[string]string{
		"HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, "config"), "XDG_CACHE_HOME": filepath.Join(home, "cache"),
		"XDG_STATE_HOME": filepath.Join(home, "state"), "PAYCLI_BASE_URL": base, "PAYCLI_APP_ID": sandbox.AppID,
		"PAYCLI_APP_SECRET": sandbox.AppSecret, "PAYCLI_MERCHANT_KEY": sandbox.MerchantKey,
	}
	args := []string{"api", "POST", "/api/paySmart3D", "--merchant-key", "--hash", "payment", "--yes",
		"-f", "invoice_id=3D-R1", "-f", "total=10.00", "-f", "currency_code=TRY", "-f", "installments_number=1",
		"-f", "cc_holder_name=Ada Lovelace", "-f", "cc_no=" + sandbox.DefaultWalletCard, "-f", "expiry_month=12", "-f", "expiry_year=2099",
		"-f", "cvv=000", "-f", "name=Ada", "-f", "surname=Lovelace", "-f", `items=[{"name":"x","price":"40.00","quantity":2}]`,
		"-f", "return_url=https://merchant.invalid/ok", "-f", "cancel_url=https://merchant.invalid/no", "-f", "payment_completed_by=app"}
	ios, _, out, errOut := iostreams.Test()
	code := Run(context.Background(), args, ios, func(k string) (string, bool) { v, ok := env[k]; return v, ok })
	if code != ExitRejected || !strings.Contains(errOut.String(), "status_code 13") || !strings.Contains(out.String(), "<form") {
		t.Fatalf("exit %d, want 4 with status_code 13; stderr:\n%s\nstdout:\n%.300s", code, errOut, out)
	}
	a := lastAttempt(t, filepath.Join(home, "state", "paycli", journal.FileName))
	if a.Class() != journal.Rejected || a.Outcome.StatusCode == nil || *a.Outcome.StatusCode != 13 {
		t.Errorf("journal: outcome %q %+v, want rejected with 13", a.Class(), a.Outcome)
	}
}

// TestStatusOfAFailedSaleExitIsListed (issue 34, item 6): the gateway
// answers check status of a failed sale with status_code 41 (QNBpay's
// documented "Oder Failed" answer); paycli status exits 5, and its help
// lists 5 with what it means there.
func TestStatusOfAFailedSaleExitIsListed(t *testing.T) {
	g := newHostileGateway(t, map[string]string{
		"/api/checkstatus": `{"status_code":41,"status_description":"Oder Failed","transaction_status":"Failed","order_id":162435924998223,` +
			`"invoice_id":"INV-F1","reason":"Failed # transaction failed","md_status":0}`,
	})
	r := runHostile(t, g.URL, t.TempDir(), "status", "--invoice", "INV-F1")
	if r.code != ExitDeclined {
		t.Errorf("status of a failed sale: exit %d, want %d; stderr:\n%s", r.code, ExitDeclined, r.stderr)
	}
	help := runHostile(t, g.URL, t.TempDir(), "status", "--help")
	if !regexp.MustCompile(`(?m)^  5    the sale failed`).MatchString(help.stdout) {
		t.Errorf("status --help does not list exit 5:\n%s", help.stdout)
	}
}
