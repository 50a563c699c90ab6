package app

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/paycli/paycli/internal/iostreams"
	"github.com/paycli/paycli/internal/journal"
)

// walletTokenExpiring is an unsigned 150.00 TRY wallet token expiring at exp.
func walletTokenExpiring(exp time.Time) string {
	enc := base64.RawURLEncoding.EncodeToString
	claims := fmt.Sprintf(`{"amount":"150.00","currency":"TRY","card":{"bin":"435508","last4":"4358"},"wallet":"001","exp":%d}`, exp.Unix())
	return enc([]byte(`{"alg":"HS256","typ":"JWT"}`)) + "." + enc([]byte(claims)) + ".c2ln"
}

// inHome runs paycli in home (kept between calls) against baseURL and
// returns the exit code, stdout and stderr.
func inHome(t *testing.T, home, baseURL string, stdin string, args ...string) (int, string, string) {
	t.Helper()
	env := map[string]string{
		"HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, "config"), "XDG_CACHE_HOME": filepath.Join(home, "cache"),
		"XDG_STATE_HOME": filepath.Join(home, "state"), "PAYCLI_BASE_URL": baseURL, "PAYCLI_APP_ID": "app-id",
		"PAYCLI_APP_SECRET": "app-secret-0123456789", "PAYCLI_MERCHANT_KEY": "merchant-key-0123456789",
	}
	ios, in, out, errOut := iostreams.Test()
	in.WriteString(stdin)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	code := Run(ctx, args, ios, func(k string) (string, bool) { v, ok := env[k]; return v, ok })
	return code, out.String(), errOut.String()
}

func batchLine(invoice, token string) string {
	return fmt.Sprintf(`{"invoice":%q,"token":%q,"name":"Ada","surname":"Lovelace","email":"ada@example.com"}`, invoice, token)
}

// TestResumeAsksTheJournalBeforeTheToken (issue 13.2): a batch run again
// after its tokens expired reports what the journal knows — paid invoices
// skipped, unknown ones unknown (exit 7) — and only a line that would be
// sent is refused for its expired token.
func TestResumeAsksTheJournalBeforeTheToken(t *testing.T) {
	g := newAppGateway(t)
	g.AnswerTextFor(http.MethodPost, walletPayPath, "invoice_id", "PEND-1", 200, `{"status_code":69,"status_description":"Pending"}`)
	g.AnswerTextFor(http.MethodPost, walletPayPath, "invoice_id", "PAID-1", 200,
		`{"status_code":100,"status_description":"ok","data":{"payment_status":1,"order_no":"VP-PAID-1","invoice_id":"PAID-1"}}`)
	home, base := t.TempDir(), g.URL+"/ccpayment"
	fresh := walletTokenExpiring(time.Now().Add(time.Hour))
	first := strings.Join([]string{batchLine("PAID-1", fresh), batchLine("PEND-1", fresh)}, "\n")
	if code, _, stderr := inHome(t, home, base, first, "walletpay", "--batch", "-", "--yes"); code != ExitOutcomeUnknown {
		t.Fatalf("first run: exit %d; stderr:\n%s", code, stderr)
	}
	expired := walletTokenExpiring(time.Now().Add(-time.Hour))
	again := strings.Join([]string{batchLine("PAID-1", expired), batchLine("PEND-1", expired), batchLine("NEW-1", expired)}, "\n")
	code, stdout, stderr := inHome(t, home, base, again, "walletpay", "--batch", "-", "--yes")
	if code != ExitOutcomeUnknown {
		t.Errorf("exit %d, want 7; stderr:\n%s", code, stderr)
	}
	var outcomes []string
	for _, l := range strings.Split(strings.TrimSpace(stdout), "\n") {
		var r struct{ Invoice, Outcome string }
		_ = json.Unmarshal([]byte(l), &r)
		outcomes = append(outcomes, r.Invoice+":"+r.Outcome)
	}
	if got, want := strings.Join(outcomes, " "), "PAID-1:skipped PEND-1:unknown NEW-1:invalid"; got != want {
		t.Errorf("outcomes %s, want %s\n%s", got, want, stdout)
	}
	if !strings.Contains(stdout, `"line 3: invalid token: the wallet token expired`) {
		t.Errorf("stdout:\n%s", stdout)
	}
	if n := g.Count(walletPayPath); n != 2 {
		t.Errorf("%d walletPay requests, want the first run's 2", n)
	}
}

// TestSuccessThatContradictsItself (issue 13.7): status_code 100 whose own
// data says the payment failed is an unknown outcome (exit 7) with the
// reason, journaled unknown, never success.
func TestSuccessThatContradictsItself(t *testing.T) {
	tests := []struct {
		data string
		why  string
	}{
		{`{"payment_status":0,"error_code":41,"error":"Payment failed","order_no":"VP1","invoice_id":"C-1"}`, `its payment_status is 0, not 1 ("Payment failed")`},
		{`{"payment_status":1,"error_code":41,"order_no":"VP1","invoice_id":"C-1"}`, "its error_code is 41, not 100"},
		{`{"payment_status":1,"order_no":"VP1","invoice_id":"OTHER"}`, `it names invoice "OTHER", not the one sent`},
		{`{"payment_status":1,"order_no":"","invoice_id":"C-1"}`, "it holds no order_no"},
	}
	for _, tt := range tests {
		t.Run(tt.why, func(t *testing.T) {
			g := newAppGateway(t)
			g.AnswerText(http.MethodPost, walletPayPath, 200, `{"status_code":100,"status_description":"ok","data":`+tt.data+`}`)
			code, stderr, path := runAgainst(t, context.Background(), g.URL+"/ccpayment", payArgs("C-1")...)
			if code != ExitOutcomeUnknown {
				t.Errorf("exit %d, want 7; stderr:\n%s", code, stderr)
			}
			want := "error: outcome unknown for invoice C-1: the gateway answered status_code 100 but " + tt.why + "; it was not retried\n"
			if !strings.Contains(stderr, want) {
				t.Errorf("stderr:\n%s\nwant:\n%s", stderr, want)
			}
			checkUnknownRecorded(t, path, "C-1")
		})
	}
}

// TestRefusedPaymentIsExit3 (issue 13.6): a walletPay the gateway refuses
// for its credentials (HTTP 401) is exit 3, saying nothing was processed
// and to run the command again — never "charged nothing".
func TestRefusedPaymentIsExit3(t *testing.T) {
	g := newAppGateway(t)
	g.AnswerText(http.MethodPost, walletPayPath, http.StatusUnauthorized, `{"status_code":30,"status_description":"Unauthorized"}`)
	code, stderr, path := runAgainst(t, context.Background(), g.URL+"/ccpayment", payArgs("R-1")...)
	if code != ExitAuth {
		t.Fatalf("exit %d, want 3; stderr:\n%s", code, stderr)
	}
	processed := strings.Contains(stderr, "nothing was processed") || strings.Contains(stderr, "processed nothing")
	if !processed || !strings.Contains(stderr, "run the command again") || strings.Contains(stderr, "charged nothing") {
		t.Errorf("stderr:\n%s", stderr)
	}
	attempts, _, _ := journal.Read(path)
	if len(attempts) == 0 || attempts[len(attempts)-1].Class() != journal.Rejected {
		t.Errorf("journal %+v", attempts)
	}
}
