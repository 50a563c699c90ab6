package sandboxcmd

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/paycli/paycli/internal/cmdutil"
	"github.com/paycli/paycli/internal/render"
	"github.com/paycli/paycli/internal/sandbox"
)

// paySandbox serves a sandbox over a fresh state for pay's tests, on the
// test factory's clock (pay dates the card's expiry by it).
func paySandbox(t *testing.T) *sandbox.Server {
	t.Helper()
	f, _ := testFactory(t, nil)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv, err := sandbox.StartServer(ln, sandbox.ServerOptions{Gateway: sandbox.Options{Now: f.Now}, StateDir: t.TempDir(), LockTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Shutdown(context.Background()) })
	return srv
}

func runPay(t *testing.T, srv *sandbox.Server, format render.Format, args ...string) (PayResult, string, error) {
	t.Helper()
	f, ios := testFactory(t, nil)
	out := ios.Out.(interface{ String() string })
	var ran *PayOptions
	cmd := NewCmdPay(f, func(ctx context.Context, o *PayOptions) error { ran = o; return nil })
	if err := runCmd(cmd, args...); err != nil {
		return PayResult{}, "", err
	}
	ran.Format = func() (render.Format, error) { return format, nil }
	ran.BaseURL = func(context.Context) (string, error) { return srv.BaseURL, nil }
	err := PayRun(context.Background(), ran)
	var res PayResult
	if format == render.JSON {
		_ = json.Unmarshal([]byte(out.String()), &res)
	}
	return res, out.String(), err
}

func TestPayMakesSales(t *testing.T) {
	srv := paySandbox(t)
	res, _, err := runPay(t, srv, render.JSON, "--amount", "150.00", "--currency", "try", "--invoice", "INV-P1", "--installments", "3")
	if err != nil || res.StatusCode != 100 || res.TransactionStatus != "Completed" || res.OrderID == "" || res.Installments != 3 ||
		res.Card != "435508******4358" {
		t.Fatalf("%+v %v", res, err)
	}
	res, _, err = runPay(t, srv, render.JSON, "--amount", "200", "--currency", "TRY", "--preauth")
	if err != nil || res.TransactionStatus != "Pre-Authorized" || res.TransactionType != "PreAuth" || !strings.HasPrefix(res.InvoiceID, "SBX-") {
		t.Fatalf("preauth: %+v %v", res, err)
	}
	res, _, err = runPay(t, srv, render.JSON, "--amount", "50", "--currency", "TRY", "--3d", "--completed-by", "merchant", "--webhook-key", "hook")
	if err != nil || res.TransactionStatus != "Pending" || res.StatusCode != 100 {
		t.Fatalf("3D completed by the merchant: %+v %v", res, err)
	}
	res, _, err = runPay(t, srv, render.JSON, "--amount", "50", "--currency", "TRY", "--3d", "--decline-3d")
	if k, _ := cmdutil.KindOf(err); k != cmdutil.KindDeclined || res.TransactionStatus != "Failed" {
		t.Fatalf("declined challenge: %+v %v", res, err)
	}
	_, text, err := runPay(t, srv, render.Table, "--amount", "10", "--currency", "TRY", "--card", "4355080000000518")
	if k, _ := cmdutil.KindOf(err); k != cmdutil.KindDeclined || !strings.Contains(text, "status:           Failed") ||
		strings.Contains(text, "4355080000000518") {
		t.Fatalf("declined card: %v\n%s", err, text)
	}
	for _, format := range []render.Format{render.JSON, render.Table} {
		_, text, err = runPay(t, srv, format, "--amount", "150.00", "--currency", "TRY", "--invoice", "INV-P1")
		if k, _ := cmdutil.KindOf(err); k != cmdutil.KindDuplicate || text != "" {
			t.Errorf("invoice used twice (%v): %v; stdout %q, want nothing", format, err, text)
		}
	}
	// A 3D payment the sandbox refuses answers the form posted to the
	// cancel_url; pay reads the refusal from it.
	_, _, err = runPay(t, srv, render.JSON, "--amount", "150.00", "--currency", "TRY", "--invoice", "INV-P1", "--3d")
	if k, _ := cmdutil.KindOf(err); k != cmdutil.KindDuplicate {
		t.Errorf("3D payment of an invoice used: %v", err)
	}
}

// TestPayMasksACardInvoice: an invoice id that is a card number is shown
// masked in the table, the JSON and the error of an invoice used twice; the
// sale is made, and found again, with the id whole.
func TestPayMasksACardInvoice(t *testing.T) {
	const card = "4111111111111111"
	srv := paySandbox(t)
	res, _, err := runPay(t, srv, render.JSON, "--amount", "10", "--currency", "TRY", "--invoice", card)
	if err != nil || res.InvoiceID != "411111******1111" || res.TransactionStatus != "Completed" {
		t.Errorf("JSON: %+v %v", res, err)
	}
	_, text, err := runPay(t, srv, render.Table, "--amount", "10", "--currency", "TRY", "--invoice", "INV-"+card)
	if err != nil || !strings.Contains(text, "invoice_id:       INV-411111******1111\n") || strings.Contains(text, card) {
		t.Errorf("table: %v\n%s", err, text)
	}
	_, _, err = runPay(t, srv, render.JSON, "--amount", "10", "--currency", "TRY", "--invoice", card)
	if k, _ := cmdutil.KindOf(err); k != cmdutil.KindDuplicate || err == nil || strings.Contains(err.Error(), card) ||
		!strings.Contains(err.Error(), "invoice 411111******1111 was already used") {
		t.Errorf("used twice: %v", err)
	}
}

func TestPayFlags(t *testing.T) {
	for _, args := range [][]string{
		{"--amount", "0", "--currency", "TRY"},
		{"--amount", "x", "--currency", "TRY"},
		{"--amount", "1", "--currency", "TR"},
		{"--amount", "1", "--currency", "TRY", "--card", "4355084355084359"},
		{"--amount", "1", "--currency", "TRY", "--card", "4355  0843 5508 4358"},
		{"--amount", "1", "--currency", "TRY", "--card", "4355 0843 5508 4358-"},
		{"--amount", "1", "--currency", "TRY", "--installments", "0"},
		{"--amount", "1", "--currency", "TRY", "--completed-by", "merchant"},
		{"--amount", "1", "--currency", "TRY", "--3d", "--completed-by", "bank"},
	} {
		f, _ := testFactory(t, nil)
		cmd := NewCmdPay(f, func(context.Context, *PayOptions) error { t.Fatalf("%v ran", args); return nil })
		if err := runCmd(cmd, args...); !isUsage(err) {
			t.Errorf("%v: %v, want a usage error", args, err)
		}
	}
}

// The link page's hint writes the test card in groups; pay takes it so.
func TestPayCardInGroups(t *testing.T) {
	srv := paySandbox(t)
	for _, card := range []string{"4355 0843 5508 4358", "4355-0843-5508-4358"} {
		res, _, err := runPay(t, srv, render.JSON, "--amount", "10", "--currency", "TRY", "--card", card)
		if err != nil || res.StatusCode != 100 || res.Card != "435508******4358" {
			t.Errorf("--card %q: %+v %v", card, res, err)
		}
	}
}

func TestServeNoPartialRefundsFlag(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want bool
	}{{nil, false}, {[]string{"--no-partial-refunds"}, true}} {
		got, err := parseServe(t, tt.args...)
		if err != nil || got.NoPartialRefunds != tt.want {
			t.Errorf("%v: %+v %v", tt.args, got, err)
		}
	}
}

func TestPayCardCompletion(t *testing.T) {
	got, _ := completeTestCard(nil, nil, "")
	if len(got) != len(sandbox.TestCards) || got[0] != "4355084355084358\tapproves" || got[len(got)-1] != "4355080000003009\trequires 3D" {
		t.Errorf("%q", got)
	}
}

// A sandbox that fails on the way (a reset connection) or answers a 5xx,
// as serve --faults does, is unavailable: exit 8 with how to look before
// paying again, whatever the body says; never exit 1, never a
// "status_code 0: " with no text. CSV has one value a cell.
func TestPayFaultsAreUnavailable(t *testing.T) {
	for _, tt := range []struct {
		name  string
		fault func(w http.ResponseWriter)
	}{
		{"504 with JSON", func(w http.ResponseWriter) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusGatewayTimeout)
			_, _ = w.Write([]byte(`{"status_code":0,"status_description":""}`))
		}},
		{"504 with a page", func(w http.ResponseWriter) {
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(http.StatusGatewayTimeout)
			_, _ = w.Write([]byte(`<html>Gateway Timeout</html>`))
		}},
		{"reset", func(w http.ResponseWriter) {
			conn, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				_ = conn.Close()
			}
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if strings.HasSuffix(r.URL.Path, "/api/token") {
					_, _ = w.Write([]byte(`{"status_code":100,"data":{"token":"t"}}`))
					return
				}
				tt.fault(w)
			}))
			defer srv.Close()
			_, text, err := runPay(t, &sandbox.Server{BaseURL: srv.URL}, render.Table, "--amount", "10", "--currency", "TRY", "--invoice", "INV-F1")
			if k, _ := cmdutil.KindOf(err); k != cmdutil.KindUnavailable || text != "" ||
				!strings.Contains(cmdutil.HintOf(err), "look with 'paycli status --sandbox --invoice ID' before paying again") {
				t.Errorf("%v (kind %v, hint %q), stdout %q", err, k, cmdutil.HintOf(err), text)
			}
		})
	}
	srv := paySandbox(t)
	_, text, err := runPay(t, srv, render.CSV, "--amount", "1000", "--currency", "TRY", "--invoice", "INV-CSV")
	lines := strings.Split(text, "\n")
	if err != nil || lines[0] != "invoice_id,order_id,status_code,status_description,transaction_status,transaction_type,amount,currency,installments,card" ||
		!strings.HasSuffix(lines[1], ",Auth,1000.00,TRY,1,435508******4358") {
		t.Errorf("csv: %v\n%s", err, text)
	}
}
