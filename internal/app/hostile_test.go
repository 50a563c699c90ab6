package app

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/paycli/paycli/internal/iostreams"
	"github.com/paycli/paycli/internal/journal"
	"github.com/paycli/paycli/internal/sandbox"
	"github.com/paycli/paycli/internal/testkit/replay"
)

// The profile hostileGateway's commands run with: its secrets are long and
// distinct, so that a test can look for them anywhere paycli writes.
const (
	hostileAppID       = "hostile-app-id-0123456789"
	hostileAppSecret   = "hostile-app-secret-0123456789"
	hostileMerchantKey = "hostile-merchant-key-0123456789"
)

// newHostileGateway is the recorded-answer server issue 23's defects
// meet: its token answer is token_far.json (paycli caches it whatever the
// day), and each path after /ccpayment in answers gets its made-up answer
// to POST; an answer holding a {{field}} echoes that field of the request
// (replay's AnswerEcho).
func newHostileGateway(t *testing.T, answers map[string]string) *replay.Server {
	t.Helper()
	g := replay.New(t)
	g.Answer(http.MethodPost, "/ccpayment/api/token", 200, "testdata/replay/token_far.json")
	for path, body := range answers {
		if strings.Contains(body, "{{") {
			g.AnswerEcho(http.MethodPost, "/ccpayment"+path, 200, body)
			continue
		}
		g.AnswerText(http.MethodPost, "/ccpayment"+path, 200, body)
	}
	return g
}

// sentTo is the body of request n (from 0) to path (after /ccpayment),
// its numbers as sent.
func sentTo(t *testing.T, g *replay.Server, path string, n int) map[string]any {
	t.Helper()
	var bodies []string
	for _, r := range g.Requests() {
		if r.Path == "/ccpayment"+path {
			bodies = append(bodies, r.Raw)
		}
	}
	if n >= len(bodies) {
		t.Fatalf("%s got %d requests, not %d", path, len(bodies), n+1)
	}
	var body map[string]any
	dec := json.NewDecoder(strings.NewReader(bodies[n]))
	dec.UseNumber()
	if err := dec.Decode(&body); err != nil {
		t.Fatalf("request %d to %s: %v", n, path, err)
	}
	return body
}

// hostileRun is one run of paycli against the hostile gateway, in home
// (kept between runs of one test).
type hostileRun struct {
	code           int
	stdout, stderr string
	journal        string
}

// runHostile runs paycli with the hostile profile on the gateway at the
// server URL base, in home.
func runHostile(t *testing.T, base, home string, args ...string) hostileRun {
	t.Helper()
	env := map[string]string{
		"HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, "config"), "XDG_CACHE_HOME": filepath.Join(home, "cache"),
		"XDG_STATE_HOME": filepath.Join(home, "state"), "PAYCLI_BASE_URL": base + "/ccpayment", "PAYCLI_APP_ID": hostileAppID,
		"PAYCLI_APP_SECRET": hostileAppSecret, "PAYCLI_MERCHANT_KEY": hostileMerchantKey,
	}
	ios, _, out, errOut := iostreams.Test()
	code := Run(context.Background(), args, ios, func(k string) (string, bool) { v, ok := env[k]; return v, ok })
	return hostileRun{code: code, stdout: out.String(), stderr: errOut.String(), journal: filepath.Join(home, "state", "paycli", journal.FileName)}
}

// checkStatusOf is a check-status answer for invoice: a completed TRY sale
// of amount, with fields set or (with a nil value) removed by change.
func checkStatusOf(invoice, amount string, change map[string]any) string {
	m := map[string]any{
		"status_code": 100, "status_description": "ok", "transaction_status": "Completed", "order_id": "ORD-1",
		"invoice_id": invoice, "transaction_amount": amount, "total_refunded_amount": "0.00", "transaction_type": "Auth",
		"payment_status": 1, "currency_code": "TRY", "cc_no": "435508****4358", "refund_info": nil,
	}
	for k, v := range change {
		if v == nil {
			delete(m, k)
			continue
		}
		m[k] = v
	}
	b, _ := json.Marshal(m)
	return string(b)
}

// refundAnswer answers a refund request for what it asked: status_code 100
// naming the invoice sent.
const refundAnswer = `{"status_code":100,"status_description":"Refund successful.","order_no":"RO-1","invoice_id":"{{invoice_id}}","ref_no":"R1"}`

// TestRefundAmountWithTrailingZeros (issue 23, defect 10): 50.000 TRY is
// the amount 50: trailing zeros change nothing. It is refunded, sent as
// 50.00 (the text its hash_key holds too).
func TestRefundAmountWithTrailingZeros(t *testing.T) {
	g := newHostileGateway(t, map[string]string{
		"/api/checkstatus": checkStatusOf("INV-Z", "150.00", nil),
		"/api/refund":      refundAnswer,
	})
	r := runHostile(t, g.URL, t.TempDir(), "refund", "--invoice", "INV-Z", "--amount", "50.000", "--yes")
	if r.code != ExitOK {
		t.Fatalf("exit %d, want 0; stderr:\n%s", r.code, r.stderr)
	}
	if got := sentTo(t, g, "/api/refund", 0)["amount"]; fmt.Sprint(got) != "50.00" {
		t.Errorf("refund amount sent %v, want 50.00", got)
	}
	if !strings.Contains(r.stdout, "50.00") {
		t.Errorf("stdout:\n%s", r.stdout)
	}
}

// TestFullRefundNeverRoundsUp (issue 23): what remains of a sale of
// 150.005 TRY is refunded as 150.00, never 150.01: paycli never rounds a
// refund up past what was sold.
func TestFullRefundNeverRoundsUp(t *testing.T) {
	g := newHostileGateway(t, map[string]string{
		"/api/checkstatus": checkStatusOf("INV-R", "150.005", nil),
		"/api/refund":      refundAnswer,
	})
	r := runHostile(t, g.URL, t.TempDir(), "refund", "--invoice", "INV-R", "--full", "--yes", "-o", "json")
	if r.code != ExitOK {
		t.Fatalf("exit %d, want 0; stderr:\n%s", r.code, r.stderr)
	}
	var out struct {
		Amount json.Number `json:"amount"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil || out.Amount != "150.00" {
		t.Errorf("refunded %q (%v), want 150.00; stdout:\n%s", out.Amount, err, r.stdout)
	}
}

// openHold is check status of an open pre-authorization of amount TRY.
func openHold(invoice, amount string) string {
	return checkStatusOf(invoice, amount, map[string]any{"transaction_type": "PreAuth", "transaction_status": "Pre-Authorized", "payment_status": nil})
}

// lastAttempt is the journal's only attempt.
func lastAttempt(t *testing.T, path string) journal.Attempt {
	t.Helper()
	attempts, skipped, err := journal.Read(path)
	if err != nil || skipped != 0 || len(attempts) != 1 {
		t.Fatalf("journal: %d attempts, %d bad lines, %v", len(attempts), skipped, err)
	}
	return attempts[0]
}

// TestCaptureAnsweredFailedIsUnknown (issue 23, defect 5): a capture
// answered status_code 100 whose own fields say it failed, or that the
// money is still only held, is an unknown outcome (exit 7, journaled
// unknown, saying what was inconsistent), never "captured".
func TestCaptureAnsweredFailedIsUnknown(t *testing.T) {
	for fields, want := range map[string]string{
		`"transaction_status":"Failed"`:                       `its transaction_status is "Failed"`,
		`"transaction_status":"Declined"`:                     `its transaction_status is "Declined"`,
		`"transaction_status":"Pre-Authorized"`:               `its transaction_status is "Pre-Authorized"`,
		`"transaction_status":"Completed","payment_status":0`: "its payment_status is 0, not 1",
	} {
		t.Run(fields, func(t *testing.T) {
			g := newHostileGateway(t, map[string]string{
				"/api/checkstatus":    openHold("H-1", "100.00"),
				"/api/confirmPayment": `{"status_code":100,"status_description":"ok","order_id":"VP1","invoice_id":"H-1",` + fields + `}`,
			})
			r := runHostile(t, g.URL, t.TempDir(), "preauth", "capture", "--invoice", "H-1", "--yes")
			if r.code != ExitOutcomeUnknown || g.Count("/ccpayment/api/confirmPayment") != 1 {
				t.Fatalf("exit %d (want 7), %d captures sent; stderr:\n%s", r.code, g.Count("/ccpayment/api/confirmPayment"), r.stderr)
			}
			if want := "error: outcome unknown for invoice H-1: the gateway answered status_code 100 but " + want; !strings.Contains(r.stderr, want) {
				t.Errorf("stderr:\n%s\nwant %q", r.stderr, want)
			}
			if a := lastAttempt(t, r.journal); a.Class() != journal.Unknown || a.Intent.OpKind() != "preauth-capture" {
				t.Errorf("journal: kind %q outcome %q, want an unknown capture", a.Intent.OpKind(), a.Class())
			}
		})
	}
}

// TestAPIWalletPayAnsweredUnpaidIsUnknown (issue 23, defect 5): `paycli
// api` on walletPay answered status_code 100 with payment_status 0 says
// unknown as walletpay does (exit 7, journaled unknown), never succeeded.
func TestAPIWalletPayAnsweredUnpaidIsUnknown(t *testing.T) {
	g := newHostileGateway(t, map[string]string{
		"/api/walletPay": `{"status_code":100,"status_description":"ok","data":{"payment_status":0,"error":"Payment failed","order_no":"VP1","invoice_id":"A-1"}}`,
	})
	r := runHostile(t, g.URL, t.TempDir(), "api", "POST", "/api/walletPay", "--merchant-key", "-f", "invoice_id=A-1", "--yes")
	if r.code != ExitOutcomeUnknown {
		t.Fatalf("exit %d, want 7; stderr:\n%s", r.code, r.stderr)
	}
	if !strings.Contains(r.stderr, `the gateway answered status_code 100 but its payment_status is 0, not 1 ("Payment failed")`) {
		t.Errorf("stderr:\n%s", r.stderr)
	}
	if a := lastAttempt(t, r.journal); a.Class() != journal.Unknown {
		t.Errorf("journal: outcome %q, want unknown", a.Class())
	}
}

// TestCheckStatusAboutAnotherSaleSendsNothing (issue 23, defect 6): a
// check-status answer about another invoice (O1-OTHER, for 100000) is
// refused in the client: no refund of 1000.00 is sent on a 150.00 sale,
// no capture of 5000 on a 100.00 hold, and nothing is journaled.
func TestCheckStatusAboutAnotherSaleSendsNothing(t *testing.T) {
	for _, tc := range []struct {
		name, status, path string
		args               []string
	}{
		{"refund", checkStatusOf("O1-OTHER", "100000", nil), "/api/refund", []string{"refund", "--invoice", "O1", "--amount", "1000.00", "--yes"}},
		{"refund, answer naming no invoice", checkStatusOf("O1", "100000", map[string]any{"invoice_id": nil}), "/api/refund",
			[]string{"refund", "--invoice", "O1", "--amount", "1000.00", "--yes"}},
		{"capture", openHold("O1-OTHER", "100000"), "/api/confirmPayment", []string{"preauth", "capture", "--invoice", "O1", "--amount", "5000", "--yes"}},
		{"complete", checkStatusOf("O1-OTHER", "100000", map[string]any{"transaction_status": "Pending", "three_d_status": "awaiting_merchant_completion"}),
			"/payment/complete", []string{"complete", "--invoice", "O1", "--order-id", "ORD-1", "--yes"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := newHostileGateway(t, map[string]string{
				"/api/checkstatus":    tc.status,
				"/api/refund":         refundAnswer,
				"/api/confirmPayment": `{"status_code":100,"invoice_id":"O1","transaction_status":"Completed"}`,
			})
			r := runHostile(t, g.URL, t.TempDir(), tc.args...)
			if r.code == ExitOK || g.Count("/ccpayment"+tc.path) != 0 {
				t.Fatalf("exit %d, %d requests to %s (want none); stderr:\n%s", r.code, g.Count("/ccpayment"+tc.path), tc.path, r.stderr)
			}
			if !strings.Contains(r.stderr, "it names ") || !strings.Contains(r.stderr, "nothing was sent") {
				t.Errorf("stderr does not say what was wrong:\n%s", r.stderr)
			}
			if attempts, _, _ := journal.Read(r.journal); len(attempts) != 0 {
				t.Errorf("journaled %d attempts, want none", len(attempts))
			}
		})
	}
}

// TestRefundAnswerAboutAnotherInvoiceSaysSo (issue 23, defect 10): a
// refund answered status_code 100 about another invoice is unknown, and
// the message says what was inconsistent, not that no complete answer
// arrived.
func TestRefundAnswerAboutAnotherInvoiceSaysSo(t *testing.T) {
	g := newHostileGateway(t, map[string]string{
		"/api/checkstatus": checkStatusOf("INV-X", "150.00", nil),
		"/api/refund":      `{"status_code":100,"status_description":"ok","order_no":"RO-1","invoice_id":"INV-Y"}`,
	})
	r := runHostile(t, g.URL, t.TempDir(), "refund", "--invoice", "INV-X", "--amount", "10.00", "--yes")
	if r.code != ExitOutcomeUnknown {
		t.Fatalf("exit %d, want 7; stderr:\n%s", r.code, r.stderr)
	}
	if !strings.Contains(r.stderr, `the gateway answered status_code 100 but it names invoice "INV-Y", not the one sent`) ||
		strings.Contains(r.stderr, "no complete answer") {
		t.Errorf("stderr:\n%s", r.stderr)
	}
}

// TestRefundNestedSuccessAccepted (issue 23, defect 12): a refund success
// whose invoice_id sits under data (omnipay-sipay's recorded answer) is
// accepted where its fields agree: exit 0, journaled succeeded.
func TestRefundNestedSuccessAccepted(t *testing.T) {
	g := newHostileGateway(t, map[string]string{
		"/api/checkstatus": checkStatusOf("INV-20230101-001", "150.00", nil),
		"/api/refund":      `{"status_code":100,"status_description":"Refund successful.","data":{"invoice_id":"INV-20230101-001","refund_amount":"50.00"}}`,
	})
	r := runHostile(t, g.URL, t.TempDir(), "refund", "--invoice", "INV-20230101-001", "--amount", "50.00", "--yes")
	if r.code != ExitOK {
		t.Fatalf("exit %d, want 0; stderr:\n%s", r.code, r.stderr)
	}
	if a := lastAttempt(t, r.journal); a.Class() != journal.Succeeded {
		t.Errorf("journal: outcome %q, want succeeded", a.Class())
	}
}

// TestMissingMerchantKeyRefusedBeforeAnything: the client signs every
// money call with the merchant_key; a profile without one is refused
// before anything is sent or journaled, with the documented words (exit
// 2), whichever command meets it.
func TestMissingMerchantKeyRefusedBeforeAnything(t *testing.T) {
	for _, args := range [][]string{
		{"refund", "--invoice", "INV-1", "--amount", "10.00", "--yes"},
		{"preauth", "capture", "--invoice", "INV-1", "--yes"},
		{"complete", "--invoice", "INV-1", "--order-id", "VP1", "--yes"},
		{"walletpay", "--invoice", "INV-1", "--token", walletToken(), "--name", "Ada", "--surname", "Lovelace", "--email", "ada@example.com", "--yes"},
		{"status", "--invoice", "INV-1"},
		{"installments", "--bin", "435508", "--amount", "100", "--currency", "TRY"},
	} {
		t.Run(args[0], func(t *testing.T) {
			g := newHostileGateway(t, nil)
			home := t.TempDir()
			env := map[string]string{
				"HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, "config"), "XDG_CACHE_HOME": filepath.Join(home, "cache"),
				"XDG_STATE_HOME": filepath.Join(home, "state"), "PAYCLI_BASE_URL": g.URL + "/ccpayment", "PAYCLI_APP_ID": hostileAppID,
				"PAYCLI_APP_SECRET": hostileAppSecret,
			}
			ios, _, _, errOut := iostreams.Test()
			code := Run(context.Background(), args, ios, func(k string) (string, bool) { v, ok := env[k]; return v, ok })
			if code != ExitUsage || !strings.Contains(errOut.String(), "error: profile \"default\" has no merchant_key\n") ||
				!strings.Contains(errOut.String(), "PAYCLI_MERCHANT_KEY") {
				t.Errorf("exit %d, want 2; stderr:\n%s", code, errOut)
			}
			if sent := len(g.Requests()); sent != 0 {
				t.Errorf("%d requests sent, want none", sent)
			}
			if _, err := os.Stat(filepath.Join(home, "state", "paycli", journal.FileName)); err == nil {
				t.Errorf("a journal was written")
			}
		})
	}
}

// echoSecrets answers a request with status_code code and a description
// echoing the secrets it was sent, as a careless gateway may: app_secret,
// merchant_key and hash_key, as PHP escapes them ("\/").
func echoSecrets(code int) string {
	desc := "rejected app_secret=" + hostileAppSecret + " merchant_key={{merchant_key}} hash_key={{hash_key}}"
	return fmt.Sprintf(`{"status_code":%d,"status_description":"%s","data":{"error":"%s","order_no":"VP1"}}`, code, desc, desc)
}

// TestGatewayEchoesNoSecrets (issue 23, defect 7): a gateway text that
// echoes the request reaches neither stderr, stdout, batch JSON nor the
// journal with the profile's secrets or the hash_key that was sent.
func TestGatewayEchoesNoSecrets(t *testing.T) {
	for _, tc := range []struct {
		name, path string
		args       []string
		stdin      string
	}{
		{"refund", "/api/refund", []string{"refund", "--invoice", "INV-E", "--amount", "10.00", "--yes"}, ""},
		{"refund batch", "/api/refund", []string{"refund", "--batch", "-", "--yes"}, `{"invoice":"INV-E","amount":"10.00"}` + "\n"},
		{"walletpay", "/api/walletPay", []string{"walletpay", "--invoice", "INV-E", "--token", walletToken(), "--name", "Ada", "--surname", "Lovelace",
			"--email", "ada@example.com", "--yes", "-o", "json"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := newHostileGateway(t, map[string]string{
				"/api/checkstatus": checkStatusOf("INV-E", "150.00", nil),
				"/api/refund":      echoSecrets(49),
				"/api/walletPay":   echoSecrets(41),
			})
			home := t.TempDir()
			env := map[string]string{
				"HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, "config"), "XDG_CACHE_HOME": filepath.Join(home, "cache"),
				"XDG_STATE_HOME": filepath.Join(home, "state"), "PAYCLI_BASE_URL": g.URL + "/ccpayment", "PAYCLI_APP_ID": hostileAppID,
				"PAYCLI_APP_SECRET": hostileAppSecret, "PAYCLI_MERCHANT_KEY": hostileMerchantKey,
			}
			ios, in, out, errOut := iostreams.Test()
			in.WriteString(tc.stdin)
			code := Run(context.Background(), tc.args, ios, func(k string) (string, bool) { v, ok := env[k]; return v, ok })
			if code == ExitOK || g.Count("/ccpayment"+tc.path) != 1 {
				t.Fatalf("exit %d, %d requests; stderr:\n%s", code, g.Count("/ccpayment"+tc.path), errOut)
			}
			hk := fmt.Sprint(sentTo(t, g, tc.path, 0)["hash_key"])
			journalText, _ := os.ReadFile(filepath.Join(home, "state", "paycli", journal.FileName))
			shown := errOut.String() + out.String()
			for what, text := range map[string]string{"output": shown, "journal": string(journalText)} {
				if !strings.Contains(text, "rejected app_secret=•••") {
					t.Errorf("%s does not quote the gateway's (scrubbed) words:\n%s", what, text)
				}
				for _, secret := range []string{hostileAppSecret, hostileMerchantKey, hk, strings.ReplaceAll(hk, "/", `\/`)} {
					if strings.Contains(text, secret) {
						t.Errorf("%s holds the secret %q:\n%s", what, secret, text)
					}
				}
			}
		})
	}
}

// TestNoCurrencyInCheckStatusBlocksNothing (issue 23, defect 11): the
// gateway's documented check-status answer has no currency_code. A refund
// and a partial capture go ahead all the same; the refund request carries
// no currency, and the journal's record of the sale names it when there
// is one (its decimals are then checked).
func TestNoCurrencyInCheckStatusBlocksNothing(t *testing.T) {
	g := newHostileGateway(t, map[string]string{
		"/api/refund":         refundAnswer,
		"/api/confirmPayment": `{"status_code":100,"invoice_id":"H-1","transaction_status":"Completed","order_id":"VP1"}`,
		"/api/walletPay":      `{"status_code":100,"data":{"payment_status":1,"order_no":"VP9","invoice_id":"INV-C2"}}`,
	})
	for _, inv := range []string{"INV-C1", "INV-C2"} {
		g.AnswerTextFor(http.MethodPost, "/ccpayment/api/checkstatus", "invoice_id", inv, 200, checkStatusOf(inv, "150.00", map[string]any{"currency_code": nil}))
	}
	g.AnswerTextFor(http.MethodPost, "/ccpayment/api/checkstatus", "invoice_id", "H-1", 200, openHold("H-1", "100.00"))
	home := t.TempDir()
	r := runHostile(t, g.URL, home, "refund", "--invoice", "INV-C1", "--amount", "10.00", "--yes")
	if r.code != ExitOK || g.Count("/ccpayment/api/refund") != 1 {
		t.Fatalf("refund without a currency: exit %d, %d sent; stderr:\n%s", r.code, g.Count("/ccpayment/api/refund"), r.stderr)
	}
	sent := sentTo(t, g, "/api/refund", 0)
	if _, ok := sent["currency_code"]; ok || fmt.Sprint(sent["amount"]) != "10.00" {
		t.Errorf("refund sent as %v", sent)
	}
	if !strings.Contains(r.stderr, "Refund:   10.00\n") {
		t.Errorf("summary:\n%s", r.stderr)
	}
	// The journal knows the sale's currency (a walletpay of it), and the
	// refund reads it there: TRY's decimals are checked.
	if w := runHostile(t, g.URL, home, "walletpay", "--invoice", "INV-C2", "--token", walletToken(), "--name", "Ada", "--surname", "Lovelace",
		"--email", "ada@example.com", "--yes"); w.code != ExitOK {
		t.Fatalf("walletpay: exit %d\n%s", w.code, w.stderr)
	}
	r = runHostile(t, g.URL, home, "refund", "--invoice", "INV-C2", "--amount", "10.005", "--yes")
	if r.code != ExitUsage || !strings.Contains(r.stderr, "TRY amounts have 2") || g.Count("/ccpayment/api/refund") != 1 {
		t.Errorf("10.005 of a TRY sale: exit %d; stderr:\n%s", r.code, r.stderr)
	}
	r = runHostile(t, g.URL, home, "refund", "--invoice", "INV-C2", "--amount", "10.00", "--yes")
	if r.code != ExitOK || !strings.Contains(r.stderr, "Refund:   10.00 TRY\n") {
		t.Errorf("10.00 of a TRY sale: exit %d; stderr:\n%s", r.code, r.stderr)
	}
	// A partial capture of a hold whose check status names no currency.
	r = runHostile(t, g.URL, home, "preauth", "capture", "--invoice", "H-1", "--amount", "50", "--yes")
	if r.code != ExitOK || fmt.Sprint(sentTo(t, g, "/api/confirmPayment", 0)["total"]) != "50.00" {
		t.Errorf("capture without a currency: exit %d, sent %v; stderr:\n%s", r.code, sentTo(t, g, "/api/confirmPayment", 0), r.stderr)
	}
}

// TestAPIThreeDPageIsAnAnswer (issue 23, defect 13): the HTML page
// paySmart3D answers with (paycli's own sandbox's challenge) is the
// answer: `paycli api` prints it, journals the request succeeded and
// exits 0 — not "outcome unknown".
func TestAPIThreeDPageIsAnAnswer(t *testing.T) {
	base, _ := faultSandboxAt(t, "/none", "")
	home := t.TempDir()
	env := map[string]string{
		"HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, "config"), "XDG_CACHE_HOME": filepath.Join(home, "cache"),
		"XDG_STATE_HOME": filepath.Join(home, "state"), "PAYCLI_BASE_URL": base, "PAYCLI_APP_ID": sandbox.AppID,
		"PAYCLI_APP_SECRET": sandbox.AppSecret, "PAYCLI_MERCHANT_KEY": sandbox.MerchantKey,
	}
	args := []string{"api", "POST", "/api/paySmart3D", "--merchant-key", "--hash", "payment", "--yes",
		"-f", "invoice_id=3D-1", "-f", "total=10.00", "-f", "currency_code=TRY", "-f", "installments_number=1",
		"-f", "cc_holder_name=Ada Lovelace", "-f", "cc_no=" + sandbox.DefaultWalletCard, "-f", "expiry_month=12", "-f", "expiry_year=2099",
		"-f", "cvv=000", "-f", "name=Ada", "-f", "surname=Lovelace", "-f", `items=[{"name":"x","price":"10.00","quantity":1}]`,
		"-f", "return_url=https://merchant.invalid/ok", "-f", "cancel_url=https://merchant.invalid/no", "-f", "payment_completed_by=app"}
	ios, _, out, errOut := iostreams.Test()
	code := Run(context.Background(), args, ios, func(k string) (string, bool) { v, ok := env[k]; return v, ok })
	if code != ExitOK || !strings.Contains(out.String(), "<form") {
		t.Fatalf("exit %d, want 0 with the page on stdout; stderr:\n%s\nstdout:\n%.300s", code, errOut, out)
	}
	if a := lastAttempt(t, filepath.Join(home, "state", "paycli", journal.FileName)); a.Class() != journal.Succeeded {
		t.Errorf("journal: outcome %q, want succeeded", a.Class())
	}
}

// TestUnreadableAnswerSaysWhatArrived (issue 23, defect 13): an HTML page
// where JSON was due is still an unknown outcome, and the message says what
// was wrong with the complete answer that arrived, not that none did.
func TestUnreadableAnswerSaysWhatArrived(t *testing.T) {
	g := newHostileGateway(t, nil)
	g.AnswerTextOnce(http.MethodPost, "/ccpayment/api/walletPay", 200, "<html><body>Maintenance</body></html>", "Content-Type", "text/html")
	r := runHostile(t, g.URL, t.TempDir(), "walletpay", "--invoice", "HTML-1", "--token", walletToken(), "--name", "Ada", "--surname", "Lovelace",
		"--email", "ada@example.com", "--yes")
	if r.code != ExitOutcomeUnknown ||
		!strings.Contains(r.stderr, "outcome unknown for invoice HTML-1: the gateway answered HTTP 200 OK: the body is not JSON (text/html); it was not retried") {
		t.Errorf("an HTML page for walletPay: exit %d; stderr:\n%s", r.code, r.stderr)
	}
}

// TestCommissionsRefusalIsNotNoData (issue 23, defect 14): status_code 0
// with "Invalid currency code." is the gateway refusing the lookup: its
// text is shown, exit 4; only "No Data Found" is the empty result (exit 0).
func TestCommissionsRefusalIsNotNoData(t *testing.T) {
	for desc, want := range map[string]int{"Invalid currency code.": ExitRejected, " No Data Found": ExitOK} {
		g := newHostileGateway(t, map[string]string{
			"/api/commissions": fmt.Sprintf(`{"status_code":0,"status_description":%q}`, desc),
		})
		r := runHostile(t, g.URL, t.TempDir(), "commissions", "--currency", "TRY")
		if r.code != want {
			t.Errorf("%q: exit %d, want %d; stderr:\n%s", desc, r.code, want, r.stderr)
		}
		if want == ExitRejected && (!strings.Contains(r.stderr, `status_code 0 "Invalid currency code."`) || strings.Contains(r.stderr, "No commissions")) {
			t.Errorf("%q: stderr:\n%s", desc, r.stderr)
		}
	}
}
