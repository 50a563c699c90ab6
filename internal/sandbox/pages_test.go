package sandbox

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPages renders every page with data full of what HTML must escape,
// and compares it with the golden file under testdata/pages. The goldens
// are what html/template wrote for the same data before the pages were
// written in Go (go test -update rewrites them): escaping is
// html/template's, and a return_url that is not http(s) becomes
// #ZgotmplZ, as html/template makes it.
func TestPages(t *testing.T) {
	result := challengeResult{URL: "https://merchant.test/ok?a=1&b=\"x\" y", StatusCode: 100, StatusDescription: "Payment <ok>",
		SipayStatus: 1, OrderNo: "VP1", OrderID: "VP1", InvoiceID: "INV'1", Status: "1", Total: "10.00", CurrencyCode: "TRY",
		TransactionType: "Auth", PaymentStatus: 1, PaymentCompletedBy: "app", HashKey: "a:b/c+d=="}
	jsResult := result
	jsResult.URL = "javascript:alert(1)"
	for _, tc := range []struct {
		golden string
		page   page
		data   any
	}{
		{"challenge", challengePage, map[string]string{"Action": Base + ChallengePath, "OrderID": "VP<1>&'\"", "Amount": "10.00",
			"Currency": "TRY", "Card": "435508******4358", "Installments": "3"}},
		{"result", resultPage, result},
		{"result-js", resultPage, jsResult},
		{"link", linkPage, linkView{Action: Base + LinkPath + "abc", InvoiceID: "Order <b>42</b>", Description: "For & you",
			Amount: "300.00", Currency: "TRY", Holder: "A \"B\"", Error: "bad <card>", Installments: []int{1, 2, 3}}},
		{"link-plain", linkPage, linkView{Action: Base + LinkPath + "abc", InvoiceID: "I", Amount: "1.00", Currency: "USD", Installments: []int{1}}},
		{"3derror", threeDErrorPage, threeDRefusal{URL: "https://merchant.test/cancel?a=1&b=2", InvoiceID: "INV'<1>",
			StatusCode: 13, StatusDescription: "Items do not add up to the \"total\" & more"}},
		{"linkdone", linkDonePage, map[string]string{"Title": "This link was used", "Text": "Paid <ok> & done"}},
	} {
		var b bytes.Buffer
		if err := tc.page(&b, tc.data); err != nil {
			t.Fatalf("%s: %v", tc.golden, err)
		}
		path := filepath.Join("testdata", "pages", tc.golden+".html")
		if *update {
			if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if b.String() != string(want) {
			t.Errorf("%s page differs from %s:\n%s", tc.golden, path, b.String())
		}
	}
	if err := challengePage(new(bytes.Buffer), result); err == nil || !strings.Contains(err.Error(), "challenge page was given") {
		t.Errorf("a page given another's data: %v", err)
	}
}

func TestPageURL(t *testing.T) {
	for in, want := range map[string]string{
		"https://m.test/ok?a=1&b=2":   "https://m.test/ok?a=1&amp;b=2",
		"HTTP://m.test/a b":           "HTTP://m.test/a%20b",
		"/ccpayment/api/x":            "/ccpayment/api/x",
		"https://m.test/%41%zz":       "https://m.test/%41%25zz",
		"javascript:alert(1)":         "#ZgotmplZ",
		" JavaScript:alert(1)":        "#ZgotmplZ",
		"data:text/html,<b>":          "#ZgotmplZ",
		"mailto:a@b.test":             "mailto:a@b.test",
		"https://m.test/'x'(y)+\"z\"": "https://m.test/%27x%27%28y%29&#43;%22z%22",
	} {
		if got := pageURL(in); got != want {
			t.Errorf("pageURL(%q) = %q, want %q", in, got, want)
		}
	}
}
