package transactions

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/paycli/paycli/internal/cmdutil"
	"github.com/paycli/paycli/internal/config"
	"github.com/paycli/paycli/internal/gateway"
	"github.com/paycli/paycli/internal/iostreams"
	"github.com/paycli/paycli/internal/testkit/replay"
)

const (
	tokenPath = "/ccpayment/api/token"
	listPath  = "/ccpayment/api/alltransaction"
)

// testNow is 2022-01-23 10:00 in the gateway's zone, the day of the
// recorded pages.
var testNow = time.Date(2022, 1, 23, 7, 0, 0, 0, time.UTC)

type fixture struct {
	server *replay.Server
	slept  []time.Duration
	ios    *iostreams.IOStreams
	out    *bytes.Buffer
	errOut *bytes.Buffer
	now    time.Time
	output string
}

// newFixture is a recorded-answer server with the three transactions of
// alltransaction_page1/2.json, and streams on buffers.
func newFixture(t *testing.T) *fixture {
	fx := &fixture{server: replay.New(t), now: testNow, output: "table"}
	fx.server.Answer(http.MethodPost, tokenPath, 200, replay.Recorded("token.json"))
	fx.server.AnswerOnce(http.MethodPost, listPath, 200, replay.Recorded("alltransaction_page1.json"))
	fx.server.AnswerOnce(http.MethodPost, listPath, 200, replay.Recorded("alltransaction_page2.json"))
	fx.ios, _, fx.out, fx.errOut = iostreams.Test()
	return fx
}

func (fx *fixture) run(t *testing.T, args ...string) error {
	t.Helper()
	client, err := gateway.New(fx.server.URL+"/ccpayment", gateway.Credentials{AppID: "app", AppSecret: "secret", MerchantKey: "mk"},
		gateway.WithClock(func() time.Time { return fx.now }),
		gateway.WithSleep(func(_ context.Context, d time.Duration) error { fx.slept = append(fx.slept, d); return nil }))
	if err != nil {
		t.Fatal(err)
	}
	cfg := &config.Config{Profile: "live", BaseURL: fx.server.URL + "/ccpayment", Output: fx.output}
	f := &cmdutil.Factory{IOStreams: fx.ios, Now: func() time.Time { return fx.now },
		Config:  func() (*config.Config, error) { return cfg, nil },
		Gateway: func() (*gateway.Client, error) { return client, nil }}
	cmd := NewCmdTransactions(f, nil)
	cmd.SetArgs(args)
	cmd.SetOut(fx.out)
	cmd.SetErr(fx.errOut)
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	return cmd.ExecuteContext(context.Background())
}

func (fx *fixture) pagesAsked() string {
	var pages []string
	for _, r := range fx.server.Requests() {
		if r.Path == listPath {
			pages = append(pages, r.Query)
		}
	}
	return strings.Join(pages, " ")
}

// TestTableAt80Columns: one line per transaction, no wider than the
// terminal, the header once; the day, zone, profile and call before, the
// count and the gateway account after, on stderr.
func TestTableAt80Columns(t *testing.T) {
	fx := newFixture(t)
	fx.ios.SetStdoutTTY(true)
	fx.ios.SetTerminalWidth(80)
	if err := fx.run(t, "--date", "2022-01-23"); err != nil {
		t.Fatal(err)
	}
	want := "" +
		"TIME   INVOICE     METHOD    AMOUNT  STATE      REFUND   COMM       NET  SETTLES\n" +
		"10:15  INV-A1      card      100.00  completed    0.00   2.50     97.50\n" +
		"11:15  INV-A2      card      250.50  completed    0.00   6.26    244.24\n" +
		"12:15  INV-A3      card       40.00  pending      0.00   1.00     39.00\n"
	if fx.out.String() != want {
		t.Errorf("stdout:\n%s\nwant:\n%s", fx.out, want)
	}
	for _, line := range strings.Split(fx.out.String(), "\n") {
		if len([]rune(line)) > 80 {
			t.Errorf("line of %d columns: %q", len([]rune(line)), line)
		}
	}
	for _, said := range []string{"Transactions of 2022-01-23 (Europe/Istanbul, UTC+3), profile \"live\"", "by alltransaction",
		"3 transactions at the gateway account of merchant 98950."} {
		if !strings.Contains(fx.errOut.String(), said) {
			t.Errorf("stderr %q does not say %q", fx.errOut, said)
		}
	}
	if got := fx.pagesAsked(); got != "page=1 page=2" {
		t.Errorf("pages asked: %s", got)
	}
}

// TestJSONLinesAndCSV: -o json is one object per transaction, its
// moments in the gateway's zone and its amounts JSON numbers with the
// currency's decimals (100.00, 97.50); --jq filters each and keeps them;
// -o csv has one header and a record per transaction, amounts as in JSON.
func TestJSONLinesAndCSV(t *testing.T) {
	fx := newFixture(t)
	fx.output = "json"
	if err := fx.run(t, "--date", "2022-01-23"); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(fx.out.String()), "\n")
	var first map[string]any
	if len(lines) != 3 || json.Unmarshal([]byte(lines[0]), &first) != nil {
		t.Fatalf("json lines: %q", fx.out)
	}
	if first["created_at"] != "2022-01-23T10:15:00+03:00" || !strings.Contains(lines[0], `"gross":100.00,`) || !strings.Contains(lines[0], `"net":97.50,`) ||
		first["payment_method"] != "card" || first["settlement_date_bank"] != "" || first["invoice_id"] != "INV-A1" {
		t.Errorf("first object %v", first)
	}

	fx = newFixture(t)
	fx.output = "json"
	if err := fx.run(t, "--date", "2022-01-23", "--jq", ".merchant_commission"); err != nil {
		t.Fatal(err)
	}
	if got := fx.out.String(); got != "2.50\n6.26\n1.00\n" {
		t.Errorf("--jq: %q", got)
	}

	fx = newFixture(t)
	fx.output = "csv"
	if err := fx.run(t, "--date", "2022-01-23"); err != nil {
		t.Fatal(err)
	}
	records := strings.Split(strings.TrimSpace(fx.out.String()), "\n")
	if len(records) != 4 || !strings.HasPrefix(records[0], "created_at,invoice_id,") ||
		!strings.HasPrefix(records[2], "2022-01-23 11:15:00 +03:00,INV-A2,") || !strings.Contains(records[1], ",TRY,100.00,97.50,2.50,") {
		t.Errorf("csv:\n%s", fx.out)
	}
}

// TestDefaultDayIsTheGatewaysDay: at 22:30 UTC the gateway's day (UTC+3)
// is already the next one, and that is the day listed.
func TestDefaultDayIsTheGatewaysDay(t *testing.T) {
	fx := newFixture(t)
	fx.now = time.Date(2022, 1, 22, 22, 30, 0, 0, time.UTC)
	if err := fx.run(t); err != nil {
		t.Fatal(err)
	}
	if got := fx.server.Last(listPath).Fields["date_range"]; got != "2022-01-23 - 2022-01-23" {
		t.Errorf("date_range %v", got)
	}
	if !strings.Contains(fx.errOut.String(), "Transactions of 2022-01-23 (Europe/Istanbul, UTC+3)") {
		t.Errorf("stderr %q", fx.errOut)
	}
}

// TestRateLimitWaitedOutAndSaid: a page refused by the 2-second rule is
// waited for (2 s, as Retry-After says), said on stderr, and asked again;
// the page read before it is not.
func TestRateLimitWaitedOutAndSaid(t *testing.T) {
	fx := &fixture{server: replay.New(t), now: testNow, output: "table"}
	fx.server.Answer(http.MethodPost, tokenPath, 200, replay.Recorded("token.json"))
	fx.server.AnswerOnce(http.MethodPost, listPath, 200, replay.Recorded("alltransaction_page1.json"))
	fx.server.AnswerTextOnce(http.MethodPost, listPath, http.StatusTooManyRequests,
		`{"status_code":429,"status_description":"Too Many Attempts."}`, "Retry-After", "2")
	fx.server.AnswerOnce(http.MethodPost, listPath, 200, replay.Recorded("alltransaction_page2.json"))
	fx.ios, _, fx.out, fx.errOut = iostreams.Test()
	if err := fx.run(t, "--date", "2022-01-23"); err != nil {
		t.Fatal(err)
	}
	if got := fx.pagesAsked(); got != "page=1 page=2 page=2" {
		t.Errorf("pages asked: %s", got)
	}
	if len(fx.slept) != 1 || fx.slept[0] != 2*time.Second || !strings.Contains(fx.errOut.String(), "waiting 2s, then asking again") {
		t.Errorf("slept %v, stderr %q", fx.slept, fx.errOut)
	}
	if n := strings.Count(fx.out.String(), "INV-A"); n != 3 {
		t.Errorf("%d rows:\n%s", n, fx.out)
	}
}

// TestBadInput: each unusable flag is one line saying what is wrong, a
// usage error (exit 2), and nothing is sent.
func TestBadInput(t *testing.T) {
	for _, args := range [][]string{
		{"--date", "2022-13-01"},
		{"--date", "23.01.2022"},
		{"--hour", "24"},
		{"--from", "2022-01-01"},
		{"--from", "2022-01-02", "--to", "2022-01-01"},
		{"--date", "2022-01-01", "--from", "2022-01-01", "--to", "2022-01-02"},
		{"--by", "modified"},
		{"--by", "sideways", "--from", "2022-01-01", "--to", "2022-01-02"},
		{"--method", "cash"},
		{"--state", "refunded"},
		{"--currency", "GBP"},
		{"--min-amount", "1,5"},
		{"--min-amount", "10", "--max-amount", "5"},
		{"--hour", "3", "--order", "O-1"},
	} {
		fx := newFixture(t)
		err := fx.run(t, args...)
		var ce *cmdutil.Error
		if !errors.As(err, &ce) || ce.Kind != cmdutil.KindUsage || strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: %v, want one line, a usage error", args, err)
		}
		if n := len(fx.server.Requests()); n != 0 {
			t.Errorf("%q: %d requests sent", args, n)
		}
	}
}
