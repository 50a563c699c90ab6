package app

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	linkcmd "github.com/paycli/paycli/internal/cli/link"
	"github.com/paycli/paycli/internal/journal"
	"github.com/paycli/paycli/internal/testkit/browsertest"
)

// TestLinkPaidInTheBrowserShowsInStatus: `paycli link create` against a
// running sandbox prints a link that a real Chromium opens and pays
// through (card form, 3D challenge, return to the merchant); before, `paycli
// status` shows the link waiting for its buyer, after, the sale completed
// through the link.
func TestLinkPaidInTheBrowserShowsInStatus(t *testing.T) {
	t.Parallel() // in process, a sandbox, shop and browser of its own
	rs := newRefundSandbox(t)
	returned := make(chan string, 1)
	shop := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = r.ParseForm()
		returned <- r.URL.Path + " status=" + r.PostForm.Get("status") + " invoice=" + r.PostForm.Get("invoice_id")
		fmt.Fprint(w, `<!doctype html><title>shop</title><p id="received">Thank you</p>`)
	}))
	t.Cleanup(shop.Close)

	code, stdout, stderr := rs.run(t, "link", "create", "BR-LINK-1", "--amount", "300", "--currency", "TRY",
		"--item", "Lamp:100:2", "--item", "Bulb:100", "--name", "Ayşe", "--surname", "Yılmaz", "--email", "ayse@example.com",
		"--phone", "+90 555 555 55 55", "--max-installments", "3", "--return-url", shop.URL+"/ok", "--cancel-url", shop.URL+"/fail", "--yes")
	if code != ExitOK {
		t.Fatalf("link create: exit %d\n%s", code, stderr)
	}
	link := strings.TrimSuffix(stdout, "\n")
	if !strings.HasPrefix(link, rs.baseURL+"/__sandbox/link/") {
		t.Fatalf("stdout %q: want the link alone", stdout)
	}
	status := func() map[string]any {
		t.Helper()
		code, stdout, stderr := rs.run(t, "status", "--invoice", "BR-LINK-1", "-o", "json")
		if code != ExitOK {
			t.Fatalf("status: exit %d\n%s", code, stderr)
		}
		var st map[string]any
		if err := json.Unmarshal([]byte(stdout), &st); err != nil {
			t.Fatal(err)
		}
		return st
	}
	if st := status(); st["transaction_status"] != "Awaiting Payment" || st["link_status"] != "awaiting_payment" {
		t.Fatalf("status before the customer pays: %v", st)
	}

	bctx := browsertest.Start(t, 390, 844)
	click := func(sel, next string) {
		t.Helper()
		if _, err := chromedp.RunResponse(bctx, chromedp.Click(chromedp.CSS(sel))); err != nil {
			t.Fatalf("%s: %v", sel, err)
		}
		if err := chromedp.Do(bctx, chromedp.WaitVisible(chromedp.CSS(next))); err != nil {
			t.Fatalf("after %s, waiting for %s: %v", sel, next, err)
		}
	}
	if err := chromedp.Do(bctx, chromedp.Navigate(link)); err != nil {
		t.Fatal(err)
	}
	if text, err := chromedp.Run(bctx, chromedp.Text(chromedp.CSS("body"))); err != nil || !strings.Contains(text, "Pay 300.00 TRY") {
		t.Fatalf("link page: %q %v", text, err)
	}
	err := chromedp.Do(bctx,
		chromedp.SendKeys(chromedp.CSS("#holder"), "Ayşe Yılmaz"),
		chromedp.SendKeys(chromedp.CSS("#number"), "4355084355084358"),
		chromedp.SendKeys(chromedp.CSS("#month"), "12"),
		chromedp.SendKeys(chromedp.CSS("#year"), "2099"),
		chromedp.SendKeys(chromedp.CSS("#cvv"), "123"),
		chromedp.SetValue(chromedp.CSS("#inst"), "2"))
	if err != nil {
		t.Fatal(err)
	}
	click("#pay", "#approve")
	click("#approve", "#continue")
	click("#continue", "#received")
	if got := <-returned; got != "/ok status=1 invoice=BR-LINK-1" {
		t.Errorf("the shop got %s", got)
	}

	st := status()
	if st["transaction_status"] != "Completed" || st["link_status"] != "used" || st["payment_kind"] != "link" || st["installment"] != json.Number("2") && st["installment"] != float64(2) {
		t.Errorf("status after the customer paid: %v", st)
	}
	attempts := rs.journal(t)
	if len(attempts) != 1 || attempts[0].Intent.Kind != linkcmd.KindLink || attempts[0].Class() != journal.Succeeded ||
		attempts[0].Outcome.Message != "link "+link+" for Ayşe Yılmaz" {
		t.Errorf("journal %+v", attempts)
	}
}
