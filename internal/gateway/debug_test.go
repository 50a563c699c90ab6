package gateway

import (
	"bytes"
	"context"
	"flag"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files")

// TestDebugLogRedaction runs a token call, a walletPay and a failed lookup
// with a debug logger and compares the log with testdata/debug.golden.
func TestDebugLogRedaction(t *testing.T) {
	g := newGateway(t)
	g.AnswerTextOnce(http.MethodPost, api("walletPay"), 200, strings.Replace(walletPayOK, `"wallet":"001"`, `"wallet":"001","card_holder_pan":"`+testCard+`","bill_email":"ada@example.com"`, 1),
		"Set-Cookie", "laravel_session=abcdefghijklmnopqrstuvwxyz")
	answerPage(g, "commissions", 500)
	var buf bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{
		Level: slog.LevelDebug,
		ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
			if len(groups) == 0 && a.Key == slog.TimeKey {
				return slog.Attr{}
			}
			return a
		},
	}))
	// A fixed random source: the hash_key the client makes, masked in the
	// log, is the same on every run.
	c := newTestClient(t, g.URL+"/ccpayment", WithLogger(logger), WithRandom(bytes.NewReader(bytes.Repeat([]byte{0xab}, 64))))
	ctx := context.Background()
	if _, err := c.WalletPay(ctx, walletPayReq()); err != nil {
		t.Fatal(err)
	}
	_, _ = c.Commissions(ctx, CommissionsRequest{CurrencyCode: "TRY"})

	got := buf.String()
	got = strings.ReplaceAll(got, g.URL, "http://gateway")
	got = regexp.MustCompile(`headers.Date="[^"]*"`).ReplaceAllString(got, `headers.Date="(date)"`)
	assertNoSecrets(t, got)
	tok, _, _ := c.BearerToken(ctx, false)
	for _, bad := range []string{"abcdefghijklmnopqrstuvwxyz", tok.Value, walletPayReq().WalletTransientToken} {
		if strings.Contains(got, bad) {
			t.Errorf("debug log leaks %q", bad)
		}
	}
	golden := filepath.Join("testdata", "debug.golden")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("debug log differs from %s (go test -update rewrites it):\n%s", golden, got)
	}
}

func TestRedactBody(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{"app_id":"short","app_secret":"app-secret-0123456789"}`, `{"app_id":"••••••••","app_secret":"app-••••6789"}`},
		{`{"cc_no":"4355 0843 5508 4358","n":4355084355084358,"amount":"100.00"}`, `{"amount":"100.00","cc_no":"4355 08** **** 4358","n":"435508******4358"}`},
		{`{"list":[{"token":"eyJhbGciOiJIUzI1NiJ9.e30.sig"}]}`, `{"list":[{"token":"eyJh••••.sig"}]}`},
		{`app_secret=app-secret-0123456789&merchant_key=mk-0123456789abc&x=1`, `app_secret=app-••••6789&merchant_key=mk-0••••9abc&x=1`},
		{`<p>card 4355-0843-5508-4358 "hash_key": "abc:def:ghijklmnop"</p>`, `<p>card 4355-08**-****-4358 "hash_key": "abc:••••mnop"</p>`},
		// Long digit runs that fail the Luhn check are not card numbers.
		{`order VP17000000000000001 at 2026-11-22 18:04:05`, `order VP17000000000000001 at 2026-11-22 18:04:05`},
		{`{"order_no":"4355084355084357","note":"card 4355084355084358 used"}`, `{"note":"card 435508******4358 used","order_no":"4355084355084357"}`},
		// A field that holds a card by name is masked even when the number
		// is mistyped.
		{`credit_card_no=4355084355084357&amount=1`, `credit_card_no=435508******4357&amount=1`},
		{`{"credit_card_no":"4355084355084357","pan":43550843550843}`, `{"credit_card_no":"435508******4357","pan":"435508****0843"}`},
		{`Get "https://merchant:s3cret@gw.example/ccpayment/api/token"`, `Get "https://xxxxx@gw.example/ccpayment/api/token"`},
		{``, ``},
	}
	for _, tt := range tests {
		if got := redactBody([]byte(tt.in)); got != tt.want {
			t.Errorf("redactBody(%s)\n got %s\nwant %s", tt.in, got, tt.want)
		}
	}
}

func TestRedactHeader(t *testing.T) {
	if got := redactHeader("Authorization", []string{"Bearer eyJhbGciOiJIUzI1NiJ9.e30.signature"}); got != "Bearer eyJh••••ture" {
		t.Errorf("Authorization logged as %q", got)
	}
	if got := redactHeader("Cookie", []string{"a=b"}); got != "••••••••" {
		t.Errorf("Cookie logged as %q", got)
	}
	if got := redactHeader("X-Note", []string{testCard}); got != "435508******4358" {
		t.Errorf("card in header logged as %q", got)
	}
	// A snapshot build's version holds a 14-digit date; it is no card.
	ua := "paycli/0.0.0-20261122160903-0123abcd4567"
	if got := redactHeader("User-Agent", []string{ua}); got != ua {
		t.Errorf("User-Agent logged as %q", got)
	}
}

func TestRedactURL(t *testing.T) {
	u, _ := url.Parse("https://merchant:s3cret@gw.example/ccpayment/api/x?merchant_key=mk-0123456789abc")
	if got, want := redactURL(u), "https://xxxxx@gw.example/ccpayment/api/x?merchant_key=mk-0%E2%80%A2%E2%80%A2%E2%80%A2%E2%80%A29abc"; got != want {
		t.Errorf("redactURL = %q, want %q", got, want)
	}
}

// A digit group just before a card once made one run of more than 19
// digits that was left whole, in the error line and in the debug log.
func TestCardNextToOtherDigitsIsMasked(t *testing.T) {
	const desc = "Card 7 4355084332124350 is blocked"
	if got, want := cleanDescription(desc), "Card 7 435508******4350 is blocked"; got != want {
		t.Errorf("cleanDescription = %q, want %q", got, want)
	}
	body := `{"status_code":41,"status_description":"` + desc + `"}`
	if got := redactBody([]byte(body)); strings.Contains(got, "4355084332124350") {
		t.Errorf("redactBody = %s", got)
	}
	if got := redactBody([]byte("status_description=" + desc)); strings.Contains(got, "4355084332124350") {
		t.Errorf("redactBody(form) = %s", got)
	}
}
