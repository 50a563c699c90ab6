package sandbox

import (
	"context"
	"encoding/json"
	"fmt"
	"html/template"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/paycli/paycli/internal/hashkey"
	"github.com/paycli/paycli/internal/testkit/browsertest"
)

// returned is what reached the merchant's return_url or cancel_url.
type returned struct {
	path   string
	form   url.Values
	fields []string // the hash_key's fields, decrypted
}

// merchantSite is the merchant's side of a browser payment: a checkout
// page whose form posts the SDK's paySmart3D fields to the sandbox, and the
// return and cancel URLs, which record what reaches them.
type merchantSite struct {
	*httptest.Server
	got chan returned
}

var checkoutPage = template.Must(template.New("checkout").Parse(`<!doctype html><html><head><title>shop</title></head><body>
<form method="post" action="{{.Action}}">{{range $k, $v := .Fields}}<input type="hidden" name="{{$k}}" value="{{$v}}">{{end}}
<button id="checkout">Pay with 3D Secure</button></form></body></html>`))

func newMerchantSite(t *testing.T, sandboxBase string) *merchantSite {
	m := &merchantSite{got: make(chan returned, 4)}
	mux := http.NewServeMux()
	for _, path := range []string{"/ok", "/fail"} {
		mux.HandleFunc("POST "+path, func(w http.ResponseWriter, r *http.Request) {
			_ = r.ParseForm()
			ret := returned{path: path, form: r.PostForm}
			if plain, err := hashkey.Decrypt(AppSecret, r.PostForm.Get("hash_key")); err == nil {
				ret.fields = hashkey.Split(plain)
			}
			m.got <- ret
			fmt.Fprint(w, `<!doctype html><title>shop</title><p id="received">Thank you</p>`)
		})
	}
	// GET /checkout?invoice=…&card=…&by=… serves the SDK's form for a 3D payment.
	mux.HandleFunc("GET /checkout", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		invoice, total := q.Get("invoice"), "120.50"
		hk, _ := hashkey.Generate(AppSecret, strings.Join([]string{total, "1", "TRY", MerchantKey, invoice}, "|"))
		fields := map[string]string{"merchant_key": MerchantKey, "currency_code": "TRY", "cc_holder_name": "Ayşe Yılmaz",
			"cc_no": q.Get("card"), "expiry_month": "12", "expiry_year": "2099", "cvv": "000", "installments_number": "1",
			"items": `[{"name":"Tea","price":"120.50","quantity":1,"description":"d"}]`, "name": "Ayşe", "surname": "Yılmaz",
			"invoice_id": invoice, "total": total, "return_url": m.URL + "/ok", "cancel_url": m.URL + "/fail",
			"payment_completed_by": q.Get("by"), "transaction_type": "Auth", "hash_key": hk}
		_ = checkoutPage.Execute(w, map[string]any{"Action": sandboxBase + "/api/paySmart3D", "Fields": fields})
	})
	m.Server = httptest.NewServer(mux)
	t.Cleanup(m.Close)
	return m
}

// await returns what reached the merchant next.
func (m *merchantSite) await(t *testing.T) returned {
	t.Helper()
	select {
	case r := <-m.got:
		return r
	case <-time.After(30 * time.Second):
		t.Fatal("nothing reached the merchant's return or cancel URL")
		return returned{}
	}
}

// apiCall posts a JSON body to the sandbox with a fresh bearer token.
func apiCall(t *testing.T, base, path string, body any) map[string]any {
	t.Helper()
	post := func(path, auth string, body any) map[string]any {
		data, _ := json.Marshal(body)
		req, _ := http.NewRequest("POST", base+path, strings.NewReader(string(data)))
		req.Header.Set("Content-Type", "application/json")
		if auth != "" {
			req.Header.Set("Authorization", "Bearer "+auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var out map[string]any
		if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		return out
	}
	tok := post("/api/token", "", map[string]string{"app_id": AppID, "app_secret": AppSecret})
	return post(path, tok["data"].(map[string]any)["token"].(string), body)
}

// TestBrowserPages drives the sandbox's web pages in headless Chromium, on
// a phone-sized viewport: a 3D challenge approved and one declined from a
// merchant's checkout form, and a payment through a payment link; what
// reaches the merchant's return_url or cancel_url (status and a valid
// hash_key) and what check status says after are checked. The pages are
// served with a Content-Security-Policy that blocks every script, so they
// are known to work without JavaScript. Set PAYCLI_SCREENSHOT_DIR to keep
// a screenshot of each page.
func TestBrowserPages(t *testing.T) {
	t.Parallel() // a server, state folder and client of its own
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv, err := StartServer(ln, ServerOptions{Gateway: Options{Now: time.Now}, StateDir: t.TempDir(), LockTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Shutdown(context.Background())
	shop := newMerchantSite(t, srv.BaseURL)
	bctx := browsertest.Start(t, 390, 844)
	shots := os.Getenv("PAYCLI_SCREENSHOT_DIR")
	shot := func(name string) {
		if shots == "" {
			return
		}
		img, err := chromedp.Run(bctx, chromedp.FullScreenshot(100))
		if err != nil {
			t.Errorf("screenshot %s: %v", name, err)
			return
		}
		_ = os.WriteFile(filepath.Join(shots, name+".png"), img, 0o600)
	}
	// click presses a button that submits a form and waits for the next
	// page to show the element next.
	click := func(sel, next string) {
		t.Helper()
		resp, err := chromedp.RunResponse(bctx, chromedp.Click(chromedp.CSS(sel)))
		if err != nil {
			t.Fatalf("%s: %v", sel, err)
		}
		if resp.Status != 200 {
			t.Fatalf("%s: HTTP %d", sel, resp.Status)
		}
		if err := chromedp.Do(bctx, chromedp.WaitVisible(chromedp.CSS(next))); err != nil {
			t.Fatalf("after %s, waiting for %s: %v", sel, next, err)
		}
	}
	bodyText := func() string {
		text, err := chromedp.Run(bctx, chromedp.Text(chromedp.CSS("body")))
		if err != nil {
			t.Fatal(err)
		}
		return text
	}
	status := func(invoice string) map[string]any {
		hk, _ := hashkey.Generate(AppSecret, invoice+"|"+MerchantKey)
		return apiCall(t, srv.BaseURL, "/api/checkstatus", map[string]string{"merchant_key": MerchantKey, "invoice_id": invoice, "hash_key": hk})
	}
	checkReturn := func(ret returned, path, status, invoice, total string) {
		t.Helper()
		if ret.path != path || ret.form.Get("status") != status || ret.form.Get("invoice_id") != invoice {
			t.Fatalf("the merchant got %s %v, want %s with status %s for %s", ret.path, ret.form, path, status, invoice)
		}
		want := []string{status, total, invoice, ret.form.Get("order_id"), "TRY"}
		if strings.Join(ret.fields, "|") != strings.Join(want, "|") {
			t.Errorf("the return's hash_key holds %q, want %q", ret.fields, want)
		}
	}

	// A 3D payment approved at the challenge.
	if err := chromedp.Do(bctx, chromedp.Navigate(shop.URL+"/checkout?invoice=BR-3D-OK&card=4355080000003009&by=app")); err != nil {
		t.Fatal(err)
	}
	click("#checkout", "#approve")
	if text := bodyText(); !strings.Contains(text, "This is a sandbox") || !strings.Contains(text, "120.50 TRY") || strings.Contains(text, "4355080000003009") {
		t.Fatalf("challenge page: %q", text)
	}
	shot("challenge")
	click("#approve", "#continue")
	if text := bodyText(); !strings.Contains(text, "This is a sandbox") || !strings.Contains(text, "BR-3D-OK") {
		t.Fatalf("result page: %q", text)
	}
	shot("result")
	click("#continue", "#received")
	checkReturn(shop.await(t), "/ok", "1", "BR-3D-OK", "120.50")
	if st := status("BR-3D-OK"); st["transaction_status"] != "Completed" || st["payment_kind"] != KindCard3D {
		t.Errorf("check status after the approved challenge: %v", st)
	}

	// A 3D payment declined at the challenge.
	if err := chromedp.Do(bctx, chromedp.Navigate(shop.URL+"/checkout?invoice=BR-3D-NO&card=4355084355084358&by=app")); err != nil {
		t.Fatal(err)
	}
	click("#checkout", "#approve")
	click("#decline", "#continue")
	click("#continue", "#received")
	checkReturn(shop.await(t), "/fail", "0", "BR-3D-NO", "120.50")
	if st := status("BR-3D-NO"); st["transaction_status"] != "Failed" {
		t.Errorf("check status after the declined challenge: %v", st)
	}

	// A payment link, paid in 2 installments.
	hk, _ := hashkey.Generate(AppSecret, "300|TRY|"+MerchantKey+"|BR-LINK")
	inv, _ := json.Marshal(map[string]any{"invoice_id": "BR-LINK", "invoice_description": "Order 42", "total": 300,
		"items": []map[string]any{{"name": "Lamp", "price": 300, "quantity": 1}}, "max_installment": 3,
		"return_url": shop.URL + "/ok", "cancel_url": shop.URL + "/fail", "hash_key": hk})
	link := apiCall(t, srv.BaseURL, "/purchase/link", map[string]string{"merchant_key": MerchantKey, "invoice": string(inv),
		"currency_code": "TRY", "name": "Ayşe", "surname": "Yılmaz"})
	if link["status_code"] != float64(100) {
		t.Fatalf("purchase/link: %v", link)
	}
	if err := chromedp.Do(bctx, chromedp.Navigate(link["link"].(string))); err != nil {
		t.Fatal(err)
	}
	if text := bodyText(); !strings.Contains(text, "This is a sandbox") || !strings.Contains(text, "Pay 300.00 TRY") {
		t.Fatalf("link page: %q", text)
	}
	err = chromedp.Do(bctx,
		chromedp.SendKeys(chromedp.CSS("#holder"), "Ayşe Yılmaz"),
		chromedp.SendKeys(chromedp.CSS("#number"), "4355084355084358"),
		chromedp.SendKeys(chromedp.CSS("#month"), "12"),
		chromedp.SendKeys(chromedp.CSS("#year"), "2099"),
		chromedp.SendKeys(chromedp.CSS("#cvv"), "123"),
		chromedp.SetValue(chromedp.CSS("#inst"), "2"))
	if err != nil {
		t.Fatal(err)
	}
	shot("link")
	click("#pay", "#approve")
	click("#approve", "#continue")
	click("#continue", "#received")
	checkReturn(shop.await(t), "/ok", "1", "BR-LINK", "300.00")
	if st := status("BR-LINK"); st["transaction_status"] != "Completed" || st["installment"] != float64(2) || st["link_status"] != "used" {
		t.Errorf("check status after the link payment: %v", st)
	}
	if err := chromedp.Do(bctx, chromedp.Navigate(link["link"].(string))); err != nil {
		t.Fatal(err)
	}
	if text := bodyText(); !strings.Contains(text, "This link was used") {
		t.Errorf("a paid link's page: %q", text)
	}
	shot("link-used")
}
