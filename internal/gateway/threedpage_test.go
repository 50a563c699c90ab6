package gateway

import (
	"context"
	"errors"
	"net/http"
	"os"
	"strings"
	"testing"
)

// TestThreeDPageRefusal (issue 34, item 1): the page paySmart3D answers a
// refused payment with — a form posted to the cancel_url carrying
// status_code 13, as omnipay-sipay recorded it (testdata/recorded) — is a
// rejection with the form's code and text, not the challenge; the
// recorded challenge page stays a success. A form whose status_code is not
// 100 is a refusal whatever URL it posts to, and one posted to the
// cancel_url is a refusal even without a code.
func TestThreeDPageRefusal(t *testing.T) {
	refusal, err := os.ReadFile("testdata/recorded/3d_refusal.html")
	if err != nil {
		t.Fatal(err)
	}
	challenge, err := os.ReadFile("testdata/recorded/3d_challenge.html")
	if err != nil {
		t.Fatal(err)
	}
	const cancelURL = "https://merchant.example/pay/failed"
	sentJSON := `{"invoice_id":"INV-3D-R1","return_url":"https://merchant.example/pay/done","cancel_url":"` + cancelURL + `"}`
	sentForm := "invoice_id=INV-3D-R1&cancel_url=" + strings.ReplaceAll(cancelURL, "/", "%2F")
	g := newGateway(t)
	c := newTestClient(t, g.URL+"/ccpayment")
	do := func(body string, p []byte) *Response {
		t.Helper()
		// The recorded pages, and the test's variations of them, as the gateway answers them.
		g.AnswerTextOnce(http.MethodPost, api("paySmart3D"), 200, string(p), "Content-Type", "text/html; charset=UTF-8")
		res, err := c.Do(context.Background(), Request{Path: "/api/paySmart3D", Body: []byte(body)})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}

	for _, sent := range []string{sentJSON, sentForm} {
		res := do(sent, refusal)
		var ae *APIError
		if err := res.Err(); !errors.As(err, &ae) || !ae.HasStatusCode || ae.StatusCode != 13 ||
			ae.Description != "The total of your items price(80.00) is not equal to the invoice total(10.00)." || ae.Sentinel() != nil {
			t.Errorf("refusal page (sent %s): Err = %v, want a rejection with status_code 13", sent, err)
		}
		if res.Page() {
			t.Errorf("refusal page read as the 3D challenge")
		}
		if res := do(sent, challenge); res.Err() != nil || !res.Page() {
			t.Errorf("challenge page: Err = %v, Page = %v", res.Err(), res.Page())
		}
	}
	// Another cancel_url, the code alone says it: 13 is a refusal, 100 is not.
	res := do(`{"cancel_url":"https://elsewhere.example/"}`, refusal)
	if err := res.Err(); err == nil || !strings.Contains(err.Error(), "status_code 13") {
		t.Errorf("status_code 13 to another URL: %v", err)
	}
	ok := []byte(strings.ReplaceAll(strings.ReplaceAll(string(refusal), "'13'", "'100'"), cancelURL, "https://acs.bank.example/3d"))
	if res := do(sentJSON, ok); res.Err() != nil || !res.Page() {
		t.Errorf("a form with status_code 100 to the bank: %v", res.Err())
	}
	// Posted to the cancel_url without a code: still a refusal (exit 4), no sentinel.
	bare := []byte(`<form action="` + cancelURL + `" method="post"><input type="hidden" name="invoice_id" value="INV-3D-R1"></form>`)
	res = do(sentJSON, bare)
	var ae *APIError
	if err := res.Err(); !errors.As(err, &ae) || ae.HasStatusCode || ae.Sentinel() != nil || res.Page() {
		t.Errorf("a form to the cancel_url without a code: %v", err)
	}
}

// FuzzReadPageForms: the page reader takes any bytes without panicking,
// and a form it reports has the inputs it read.
func FuzzReadPageForms(f *testing.F) {
	for _, name := range []string{"3d_refusal.html", "3d_challenge.html"} {
		if b, err := os.ReadFile("testdata/recorded/" + name); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte(`<form action=x><input name=status_code value=13><form action='y'>`))
	f.Fuzz(func(t *testing.T, page []byte) {
		forms := readPageForms(page)
		if len(forms) > maxPageForms {
			t.Fatalf("%d forms", len(forms))
		}
		_ = pageRefusal("/api/paySmart3D", 200, page, []byte(`{"cancel_url":"x"}`))
	})
}
