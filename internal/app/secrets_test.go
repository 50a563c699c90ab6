package app

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/paycli/paycli/internal/iostreams"
	"github.com/paycli/paycli/internal/journal"
	"github.com/paycli/paycli/internal/sandbox"
)

// leakCreds are recognisable credentials that must never be shown: each is
// long and unlike anything paycli prints by itself, so a match is a leak.
func leakCredentials() sandbox.Credentials {
	return sandbox.Credentials{
		AppID:       "appid4f1c9e7b2d8a6c3e5f0b1d2a",
		AppSecret:   "appsecretQ7mZ2xK9vL4nR8tW1yB6",
		MerchantKey: "$2y$10$merchantkeyH3jP5sD8fG1kL0qZ",
	}
}

const (
	leakEmail     = "leak.check.payer@example.com"
	leakBadSecret = "wrongsecretT5uV8wX1yZ4aB7cD0e"
)

// spyGateway is the sandbox, with the test's credentials, behind a
// handler that remembers every secret the client sent or was given: the
// bearer tokens the token call issued and the hash_keys of requests. A
// fault can be armed for the next requests to one endpoint.
type spyGateway struct {
	url string

	mu      sync.Mutex
	bearers []string
	hashes  []string

	fault atomic.Pointer[[2]string] // endpoint, FaultHeader value
}

func newSpyGateway(t *testing.T) *spyGateway {
	t.Helper()
	store, err := sandbox.OpenStore(t.TempDir(), time.Second, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	spy := &spyGateway{}
	gw, err := sandbox.New(sandbox.Options{Now: time.Now, Store: store, Credentials: leakCredentials(), Faults: true,
		PickFault: func(r *http.Request) string {
			if f := spy.fault.Load(); f != nil && strings.HasSuffix(r.URL.Path, "/api/"+f[0]) {
				return f[1]
			}
			return ""
		}})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		spy.remember(body)
		if !strings.HasSuffix(r.URL.Path, "/api/token") {
			gw.ServeHTTP(w, r)
			return
		}
		rec := httptest.NewRecorder()
		gw.ServeHTTP(rec, r)
		var answer struct {
			Data struct {
				Token string `json:"token"`
			} `json:"data"`
		}
		if json.Unmarshal(rec.Body.Bytes(), &answer) == nil && answer.Data.Token != "" {
			spy.mu.Lock()
			spy.bearers = append(spy.bearers, answer.Data.Token)
			spy.mu.Unlock()
		}
		for k, v := range rec.Header() {
			w.Header()[k] = v
		}
		w.WriteHeader(rec.Code)
		_, _ = w.Write(rec.Body.Bytes())
	}))
	t.Cleanup(srv.Close)
	spy.url = srv.URL + sandbox.Base
	return spy
}

// remember keeps the hash_key of a request body (JSON or form).
func (s *spyGateway) remember(body []byte) {
	var fields map[string]any
	hk := ""
	if json.Unmarshal(body, &fields) == nil {
		hk, _ = fields["hash_key"].(string)
	} else if form, err := url.ParseQuery(string(body)); err == nil {
		hk = form.Get("hash_key")
	}
	if hk != "" {
		s.mu.Lock()
		s.hashes = append(s.hashes, hk)
		s.mu.Unlock()
	}
}

// luhn completes partial with its Luhn check digit.
func luhn(partial string) string {
	sum := 0
	for i := range len(partial) {
		d := int(partial[len(partial)-1-i] - '0')
		if i%2 == 0 {
			if d *= 2; d > 9 {
				d -= 9
			}
		}
		sum += d
	}
	return partial + strconv.Itoa((10-sum%10)%10)
}

// leakRun is one command of the scan and what it printed.
type leakRun struct {
	args           []string
	code           int
	stdout, stderr string
}

// TestSecretsNeverLeak runs every command — successes and failures, with
// --debug and --dry-run, through faults — with recognisable credentials, a
// recognisable payer e-mail and card, then scans everything paycli left
// where a person or a log collector could see it: stdout, stderr, the
// journal, the token cache and the config listing. The only secret allowed
// out is the bearer token `paycli token` prints on stdout (it is what the
// command is for); card numbers may appear masked (first 6 / last 4).
func TestSecretsNeverLeak(t *testing.T) {
	t.Parallel()
	spy := newSpyGateway(t)
	leakCreds := leakCredentials()
	home := t.TempDir()
	dirs := map[string]string{
		"HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, "config"), "XDG_CACHE_HOME": filepath.Join(home, "cache"),
		"XDG_STATE_HOME": filepath.Join(home, "state"),
	}
	// The profile is in a config file, as a merchant would keep it.
	cfgDir := filepath.Join(dirs["XDG_CONFIG_HOME"], "paycli")
	if err := os.MkdirAll(cfgDir, 0o700); err != nil {
		t.Fatal(err)
	}
	cfgFile := fmt.Sprintf("default_profile: live\nprofiles:\n  live:\n    base_url: %s\n    app_id: %s\n    app_secret: %q\n    merchant_key: %q\n",
		spy.url, leakCreds.AppID, leakCreds.AppSecret, leakCreds.MerchantKey)
	if err := os.WriteFile(filepath.Join(cfgDir, "config.yaml"), []byte(cfgFile), 0o600); err != nil {
		t.Fatal(err)
	}

	pan := luhn("435508" + "739182" + "045") // an AXESS card, 16 digits
	walletToken := func(amount string) string {
		tok, err := sandbox.IssueWalletToken(sandbox.WalletRequest{Amount: decimal.RequireFromString(amount), Currency: "TRY",
			CardNumber: pan, Wallet: sandbox.WalletDeviceVendor, TTL: time.Hour}, time.Now(), sandbox.NewTokenID())
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	paid, declined, pending := walletToken("150.00"), walletToken("20.41"), walletToken("30.69")
	// A wallet token pays once: the payment charged behind a reset needs its own.
	paid2 := walletToken("150.00")
	expired, err := sandbox.IssueWalletToken(sandbox.WalletRequest{Amount: decimal.RequireFromString("9.00"), Currency: "TRY",
		CardNumber: pan, Wallet: sandbox.WalletOther, TTL: time.Second}, time.Now().Add(-time.Hour), "jti-leak-expired")
	if err != nil {
		t.Fatal(err)
	}
	// apiPay is a 2D card payment through `paycli api`.
	apiPay := func(invoice string, extra ...string) []string {
		return append([]string{"api", "POST", "/api/paySmart2D", "--merchant-key", "--hash", "payment",
			"-f", "invoice_id=" + invoice, "-f", "total=10.00", "-F", "installments_number=1", "-f", "currency_code=TRY",
			"-f", "cc_holder_name=Ada Lovelace", "-f", "cc_no=" + pan, "-f", "expiry_month=12", "-f", "expiry_year=2099",
			"-f", "cvv=000", "-f", "name=Ada", "-f", "surname=Lovelace", "-f", "bill_email=" + leakEmail,
			"-f", `items=[{"name":"Book","price":"10.00","quantity":1}]`}, extra...)
	}
	secretFile := filepath.Join(home, "app_secret")
	if err := os.WriteFile(secretFile, []byte(leakCreds.AppSecret+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tokenFile := filepath.Join(home, "wallet-token.txt")
	if err := os.WriteFile(tokenFile, []byte(paid+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	batch := filepath.Join(home, "batch.jsonl")
	var lines []string
	for i, tok := range []string{walletToken("41.00"), walletToken("42.41"), "not-a-token", walletToken("43.00")} {
		lines = append(lines, fmt.Sprintf(`{"invoice":"LEAK-B%d","token":%q,"name":"Ada","surname":"Lovelace","email":%q}`, i, tok, leakEmail))
	}
	lines = append(lines, fmt.Sprintf(`{"invoice":"LEAK-B9","token":%q,"name":"Ada","surname":"Lovelace","email":"not an email %s"}`, paid, leakEmail))
	if err := os.WriteFile(batch, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}

	refundBatch := filepath.Join(home, "refunds.jsonl")
	if err := os.WriteFile(refundBatch, []byte(`{"invoice":"LEAK-1","amount":"5.00"}`+"\n"+`{"invoice":"LEAK-NONE","full":true}`+"\n"+`{"invoice":"LEAK-1","amount":"1.00"}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	// unknownRefund stands for the refund_transaction_id of the refund
	// left unknown by the step before the --retry.
	const unknownRefund = "{unknown refund}"
	pay := func(invoice, token string, extra ...string) []string {
		return append([]string{"walletpay", "--invoice", invoice, "--token", token, "--name", "Ada", "--surname", "Lovelace",
			"--email", leakEmail, "--yes"}, extra...)
	}
	type step struct {
		args     []string
		env      map[string]string // added to the environment
		stdin    string
		fault    [2]string // endpoint, header: armed for this step
		wantExit int
	}
	steps := []step{
		// configuration
		{args: []string{"config", "list"}},
		{args: []string{"config", "list", "-o", "json"}},
		{args: []string{"config", "list", "-o", "csv"}},
		{args: []string{"config", "get", "app_secret"}},
		{args: []string{"config", "get", "merchant_key", "-o", "json"}},
		{args: []string{"config", "get", "app_id"}},
		{args: []string{"config", "profiles"}},
		// No keyring here: the file in plain text (the keyring's own
		// scan is in internal/cli/configcmd), then the refusal without it.
		{args: []string{"config", "set", "app_secret", "-", "--profile", "spare", "--insecure-storage"}, stdin: leakBadSecret + "\n"},
		{args: []string{"config", "list", "--profile", "spare"}},
		{args: []string{"config", "set", "merchant_key", leakCreds.MerchantKey, "--profile", "spare", "--insecure-storage"}},
		{args: []string{"config", "set", "merchant_key", "-", "--profile", "spare"}, stdin: leakCreds.MerchantKey + "\n", wantExit: ExitUsage},
		{args: []string{"config", "get", "nonsense"}, wantExit: ExitUsage},
		{args: []string{"config", "init", "--profile", "fresh", "--base-url", spy.url, "--app-id", leakCreds.AppID,
			"--app-secret-stdin", "--merchant-key-stdin", "--insecure-storage"}, stdin: leakCreds.AppSecret + "\n" + leakCreds.MerchantKey + "\n"},
		// Secrets from a command and from a file, working and failing.
		{args: []string{"token", "--debug", "--refresh"}, env: map[string]string{"PAYCLI_APP_SECRET_CMD": "cat " + secretFile}},
		{args: []string{"config", "list"}, env: map[string]string{"PAYCLI_APP_SECRET_CMD": "cat " + secretFile}},
		{args: []string{"token", "--debug", "--refresh"}, env: map[string]string{"PAYCLI_APP_SECRET_CMD": "cat " + secretFile + " " + secretFile}, wantExit: ExitAuth},
		{args: []string{"token", "--debug", "--refresh"}, env: map[string]string{"PAYCLI_MERCHANT_KEY_CMD": "sh -c 'exit 4'"}, wantExit: ExitAuth},
		{args: []string{"token", "--debug", "--refresh"}, env: map[string]string{"PAYCLI_APP_SECRET_FILE": secretFile}},
		{args: []string{"token", "--debug", "--refresh"}, env: map[string]string{"PAYCLI_APP_SECRET_FILE": secretFile + ".missing"}, wantExit: ExitAuth},
		{args: []string{"config", "unset", "app_secret", "--profile", "spare"}},
		{args: []string{"config", "use", "live"}},
		{args: []string{"config", "path"}},
		{args: []string{"version", "--debug"}},
		{args: []string{"help", "exit-codes"}},
		{args: []string{"completion", "bash"}},
		{args: []string{"sandbox", "credentials", "--state", filepath.Join(home, "sbx")}},
		{args: []string{"sandbox", "wallet-token", "--amount", "5.00", "--currency", "TRY", "--card", pan}},
		{args: []string{"sandbox", "wallet-token", "--amount", "5.00", "--currency", "TRY", "--card", pan[:15] + "0"}, wantExit: ExitUsage},
		{args: []string{"sandbox", "reset", "--yes", "--state", filepath.Join(home, "sbx")}},
		// token
		{args: []string{"token"}},
		{args: []string{"token", "--debug", "--refresh"}},
		{args: []string{"token", "-o", "json"}},
		{args: []string{"token", "--debug", "--refresh"}, env: map[string]string{"PAYCLI_APP_SECRET": leakBadSecret}, wantExit: ExitAuth},
		{args: []string{"token", "--debug", "--refresh"}, fault: [2]string{"token", "status=503,body=html"}, wantExit: ExitUnavailable},
		// commissions
		{args: []string{"commissions", "--currency", "TRY", "--debug"}},
		{args: []string{"commissions", "--currency", "USD", "-o", "json"}},
		{args: []string{"commissions", "--currency", "GBP", "--debug"}}, // no data
		{args: []string{"commissions", "--currency", "TRY", "--debug"}, fault: [2]string{"commissions", "truncate=25"}, wantExit: ExitUnavailable},
		// walletpay: dry run, success, duplicate, decline, pending, faults, bad input
		{args: pay("LEAK-1", paid, "--dry-run")},
		{args: pay("LEAK-1", paid, "--dry-run", "--debug", "-o", "json")},
		{args: pay("LEAK-1", "@"+tokenFile, "--debug")},
		{args: pay("LEAK-1", paid, "-o", "json", "--debug"), wantExit: ExitDuplicate},
		{args: pay("LEAK-2", declined, "--debug"), wantExit: ExitDeclined},
		{args: pay("LEAK-3", pending, "--debug"), wantExit: ExitOutcomeUnknown},
		{args: pay("LEAK-4", "-", "--debug"), stdin: paid2 + "\n", fault: [2]string{"walletPay", "reset=after"}, wantExit: ExitOutcomeUnknown},
		{args: pay("LEAK-5", paid, "--debug"), fault: [2]string{"walletPay", "truncate=30"}, wantExit: ExitOutcomeUnknown},
		{args: pay("LEAK-6", paid, "--debug"), fault: [2]string{"walletPay", "status=500,body=html"}, wantExit: ExitOutcomeUnknown},
		{args: pay("LEAK-7", expired, "--debug"), wantExit: ExitUsage},
		{args: pay("LEAK-8", paid[:len(paid)-10]+"!!", "--debug"), wantExit: ExitUsage},
		{args: []string{"walletpay", "--invoice", "LEAK-9", "--token", paid, "--name", "Ada", "--surname", "Lovelace",
			"--email", "Payer <" + leakEmail + ">", "--yes", "--debug"}, wantExit: ExitUsage},
		{args: pay("LEAK-10", paid, "--debug"), env: map[string]string{"PAYCLI_APP_SECRET": leakBadSecret}, wantExit: ExitRejected}, // cached token, hash_key 90
		{args: pay("LEAK-11", paid, "--debug"), env: map[string]string{"PAYCLI_BASE_URL": "http://127.0.0.1:1/ccpayment"}, wantExit: ExitUnavailable},
		{args: []string{"walletpay", "--batch", batch, "--yes", "--debug"}, wantExit: ExitDeclined},
		{args: []string{"walletpay", "--batch", "-", "--yes", "-o", "json"}, stdin: strings.Join(lines, "\n"), wantExit: ExitRejected},
		// refund of LEAK-1 (150.00 paid with the card): dry runs, success,
		// refused locally, a drop after sending, the refusal of a new refund
		// while it is unknown, its --retry (104), a batch, a wrong secret
		{args: []string{"refund", "--invoice", "LEAK-1", "--amount", "10.00", "--dry-run", "--debug"}},
		{args: []string{"refund", "--invoice", "LEAK-1", "--amount", "10.00", "--dry-run", "-o", "json"}},
		{args: []string{"refund", "--invoice", "LEAK-1", "--amount", "10.00", "--yes", "--debug"}},
		{args: []string{"refund", "--invoice", "LEAK-1", "--amount", "10.00", "--yes", "--debug", "-o", "json"}},
		{args: []string{"refund", "--invoice", "LEAK-1", "--amount", "500.00", "--yes", "--debug"}, wantExit: ExitUsage},
		{args: []string{"refund", "--invoice", "LEAK-1", "--amount", "10.00", "--yes", "--debug"}, fault: [2]string{"refund", "reset=after"}, wantExit: ExitOutcomeUnknown},
		{args: []string{"refund", "--invoice", "LEAK-1", "--amount", "1.00", "--yes", "--debug"}, wantExit: ExitUsage},
		{args: []string{"refund", "--retry", unknownRefund, "--yes", "--debug"}, wantExit: ExitDuplicate},
		// The 104 settles nothing (issue 39): status, listing the refund, does.
		{args: []string{"status", "--invoice", "LEAK-1", "--debug"}},
		{args: []string{"refund", "--batch", refundBatch, "--yes", "--debug"}, wantExit: ExitRejected},
		{args: []string{"refund", "--invoice", "LEAK-1", "--full", "--yes", "--debug"}, env: map[string]string{"PAYCLI_APP_SECRET": leakBadSecret}, wantExit: ExitRejected},
		{args: []string{"refund", "--invoice", "LEAK-1", "--full", "--yes", "--debug"}, fault: [2]string{"refund", "status=500,body=html"}, wantExit: ExitOutcomeUnknown},
		// status and journal
		{args: []string{"status", "--invoice", "LEAK-1", "--debug"}},
		{args: []string{"status", "--invoice", "LEAK-4", "-o", "json", "--debug"}},
		{args: []string{"status", "--invoice", "LEAK-NONE", "--debug"}, wantExit: ExitRejected},
		{args: []string{"status", "--invoice", "LEAK-1", "--debug"}, fault: [2]string{"checkstatus", "reset=before"}, wantExit: ExitUnavailable},
		// paycli api: reads and a path that moves money, with secrets and a
		// card number in the body
		{args: []string{"api", "POST", "/api/commissions", "-f", "currency_code=TRY", "--debug", "--include"}},
		{args: []string{"api", "POST", "/api/checkstatus", "--merchant-key", "--hash", "checkstatus", "-f", "invoice_id=LEAK-1",
			"-f", "app_secret=" + leakCreds.AppSecret, "-f", "cc_no=" + pan, "--debug", "--include"}},
		{args: []string{"api", "POST", "/api/checkstatus", "--merchant-key", "-f", "invoice_id=LEAK-1", "--dry-run"}},
		{args: apiPay("LEAK-API-1", "--dry-run", "--debug")},
		{args: apiPay("LEAK-API-1", "--dry-run", "-o", "json")},
		{args: apiPay("LEAK-API-1", "--yes", "--debug")},
		{args: apiPay("LEAK-API-1", "--yes", "--debug"), wantExit: ExitDuplicate},
		{args: apiPay("LEAK-API-2", "--yes", "--debug"), fault: [2]string{"paySmart2D", "status=500,body=html"}, wantExit: ExitOutcomeUnknown},
		{args: []string{"journal"}},
		{args: []string{"journal", "-o", "json"}},
		{args: []string{"journal", "-o", "csv", "--invoice", "LEAK-1"}},
		// hash_key tools, which use app_secret
		{args: []string{"hash", "generate", "--layout", "checkstatus", "--invoice-id", "LEAK-1", "--debug"}},
		{args: []string{"hash", "generate", "--plaintext", "LEAK-1|x", "-o", "json"}},
		{args: []string{"hash", "validate", "not-a-hash-key", "--debug"}, wantExit: ExitUsage},
		{args: []string{"--debug", "nonsense"}, wantExit: ExitUsage},
	}

	var runs []leakRun
	for _, st := range steps {
		env := map[string]string{}
		for k, v := range dirs {
			env[k] = v
		}
		for k, v := range st.env {
			env[k] = v
		}
		if st.fault[0] != "" {
			f := st.fault
			spy.fault.Store(&f)
		}
		for i, a := range st.args {
			if a == unknownRefund {
				st.args = append([]string(nil), st.args...)
				st.args[i] = lastUnknownRefund(t, filepath.Join(dirs["XDG_STATE_HOME"], "paycli", journal.FileName))
			}
		}
		ios, in, out, errOut := iostreams.Test()
		in.WriteString(st.stdin)
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		code := Run(ctx, append(st.args, "--timeout", "5s"), ios, func(k string) (string, bool) { v, ok := env[k]; return v, ok })
		cancel()
		spy.fault.Store(nil)
		if code != st.wantExit {
			t.Errorf("paycli %s: exit %d, want %d; stderr:\n%s", strings.Join(st.args, " "), code, st.wantExit, errOut)
		}
		runs = append(runs, leakRun{args: st.args, code: code, stdout: out.String(), stderr: errOut.String()})
	}
	webhookRuns, webhookHashes := webhookLeakRuns(t, dirs, leakCreds.AppSecret, pan)
	runs = append(runs, webhookRuns...)

	// What must never appear, by name. The middles of the credentials are
	// what config.Mask never shows, so a partial leak is caught as well.
	secrets := map[string]string{
		"app_id":           leakCreds.AppID,
		"app_secret":       leakCreds.AppSecret,
		"merchant_key":     leakCreds.MerchantKey,
		"app_id middle":    leakCreds.AppID[4 : len(leakCreds.AppID)-4],
		"app_secret mid":   leakCreds.AppSecret[4 : len(leakCreds.AppSecret)-4],
		"merchant_key mid": leakCreds.MerchantKey[4 : len(leakCreds.MerchantKey)-4],
		"a wrong secret":   leakBadSecret[4 : len(leakBadSecret)-4],
		"bill_email":       leakEmail,
		"card number":      pan,
		"card middle":      pan[6:12],
	}
	for i, tok := range []string{paid, paid2, declined, pending, expired} {
		secrets[fmt.Sprintf("wallet token %d", i)] = tok
		secrets[fmt.Sprintf("wallet token %d signature", i)] = tok[strings.LastIndex(tok, ".")+1:]
	}
	spy.mu.Lock()
	if len(spy.bearers) < 2 || len(spy.hashes) < 5 {
		t.Fatalf("the gateway saw %d bearer tokens and %d hash_keys: the scan would prove little", len(spy.bearers), len(spy.hashes))
	}
	bearers := append([]string(nil), spy.bearers...)
	hashes := len(spy.hashes)
	for i, hk := range spy.hashes {
		secrets[fmt.Sprintf("hash_key %d", i)] = hk
	}
	for i, hk := range webhookHashes {
		secrets[fmt.Sprintf("webhook hash_key %d", i)] = hk
	}
	spy.mu.Unlock()
	for i, b := range bearers {
		secrets[fmt.Sprintf("bearer token %d", i)] = b
		secrets[fmt.Sprintf("bearer token %d signature", i)] = b[strings.LastIndex(b, ".")+1:]
	}

	findings := 0
	scan := func(where, text string, allowBearer bool) {
		for name, s := range secrets {
			if allowBearer && strings.HasPrefix(name, "bearer token") {
				continue
			}
			if strings.Contains(text, s) {
				findings++
				t.Errorf("%s holds the %s", where, name)
			}
		}
	}
	for _, r := range runs {
		cmdline := "paycli " + strings.Join(r.args, " ")
		// `paycli token` exists to print the bearer token on stdout.
		scan(cmdline+": stdout", r.stdout, r.args[0] == "token")
		scan(cmdline+": stderr", r.stderr, false)
	}
	// Files paycli wrote: the journal and anything else under the state
	// folder, and the token cache (which holds bearer tokens by design).
	for _, dir := range []struct {
		path        string
		allowBearer bool
	}{{dirs["XDG_STATE_HOME"], false}, {dirs["XDG_CACHE_HOME"], true}} {
		files := 0
		err := filepath.WalkDir(dir.path, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			files++
			scan(path, string(data), dir.allowBearer)
			return nil
		})
		if err != nil || files == 0 {
			t.Errorf("%s: %d files scanned, %v", dir.path, files, err)
		}
	}
	t.Logf("%d commands; %d secret values (%d bearer tokens, %d hash_keys) scanned for: %d findings",
		len(runs), len(secrets), len(bearers), hashes, findings)

	// Card numbers appear masked where they appear at all: the summary and
	// the journal show first 6 and last 4.
	journalText := ""
	for _, r := range runs {
		if r.args[0] == "journal" {
			journalText += r.stdout
		}
	}
	if masked := pan[:6] + "******" + pan[12:]; !strings.Contains(journalText, masked) {
		t.Errorf("the journal listing does not show the card masked as %s", masked)
	}
}

// lastUnknownRefund returns the refund_transaction_id of the last refund
// attempt in the journal at path whose outcome is unknown.
func lastUnknownRefund(t *testing.T, path string) string {
	t.Helper()
	attempts, _, err := journal.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	ref := ""
	for _, a := range attempts {
		if a.Intent.Kind == "refund" && a.Class() == journal.Unknown {
			ref = a.Intent.Ref
		}
	}
	if ref == "" {
		t.Fatal("the journal holds no refund of unknown outcome")
	}
	return ref
}
