package webhookcmd

import (
	"strings"
	"testing"

	"github.com/paycli/paycli/internal/render"
	"github.com/paycli/paycli/internal/webhook"
)

const (
	cardInvoice = "4111111111111111"
	maskedCard  = "411111******1111"
	otherCard   = "4012888888881881"
	maskedOther = "401288******1881"
	// lookAlikeNum is an order number whose digits pass the Luhn check.
	lookAlikeNum = "VP17953670015499073"
)

// cardSale is a sale webhook signed with an invoice id that is a card
// number (typed in the wrong column, say).
func cardSale(t *testing.T, invoice string) map[string]string {
	t.Helper()
	m, err := webhook.Sign(webhook.Sale, map[string]string{"status": "1", "total": "10.00", "invoice_id": invoice,
		"order_id": lookAlikeNum, "currency_code": "TRY"}, testSecret)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestVerifyMasksACardInvoice: `webhook verify` shows an invoice id that
// is a card number masked in its text, JSON and CSV output, and in
// the reason of an invoice_id that differs from the hash_key's; the order
// number stays whole.
func TestVerifyMasksACardInvoice(t *testing.T) {
	_, valid := encode(t, webhook.Form, cardSale(t, cardInvoice))
	altered := cardSale(t, otherCard)
	altered["invoice_id"] = cardInvoice
	_, invalid := encode(t, webhook.JSON, altered)
	input := valid + "\n" + invalid + "\n"
	for _, format := range []render.Format{render.Table, render.JSON, render.CSV} {
		out, _ := runVerify(t, format, input, testSecret)
		if strings.Contains(out, cardInvoice) || strings.Contains(out, otherCard) ||
			strings.Count(out, maskedCard) != 3 || !strings.Contains(out, maskedOther) || !strings.Contains(out, lookAlikeNum) {
			t.Errorf("%s:\n%s", format, out)
		}
	}
	out, _ := runVerify(t, render.Table, input, testSecret)
	if want := `line 2: sale ` + maskedCard + ` ` + lookAlikeNum + ` 10.00 TRY status=1 hash=INVALID (invoice_id differs: the body says "` +
		maskedCard + `", the hash_key "` + maskedOther + `")`; !strings.Contains(out, want) {
		t.Errorf("text:\n%s\nwant %s", out, want)
	}
}

// TestListenMasksACardInvoice: `webhook listen` prints an invoice id that
// is a card number masked, in every format and through --jq, while the
// webhook it forwards to the merchant's handler is the body as it arrived,
// byte for byte: the handler is the merchant's own, receiving the
// gateway's request.
func TestListenMasksACardInvoice(t *testing.T) {
	for _, tt := range []struct {
		format render.Format
		jq     string
	}{{render.Table, ""}, {render.JSON, ""}, {render.JSON, ".invoice_id"}, {render.CSV, ""}} {
		l := startListener(t, tt.format, true, func(o *ListenOptions) {
			if tt.jq != "" {
				o.JSON = jqFlags(t, tt.jq)
			}
		})
		ct, body := encode(t, webhook.Form, cardSale(t, cardInvoice))
		if code := l.post(t, ct, body); code != 200 {
			t.Errorf("%s %s: sender got %d", tt.format, tt.jq, code)
		}
		if err := l.stop(); err != nil {
			t.Fatal(err)
		}
		out := l.out.String() + l.err.String()
		if strings.Contains(out, cardInvoice) || !strings.Contains(out, maskedCard) {
			t.Errorf("%s %s: printed\n%s", tt.format, tt.jq, out)
		}
		l.mu.Lock()
		if len(l.bodies) != 1 || l.bodies[0] != body || !strings.Contains(body, "invoice_id="+cardInvoice) {
			t.Errorf("%s %s: the handler got %q, want the body as sent, %q", tt.format, tt.jq, l.bodies, body)
		}
		l.mu.Unlock()
	}
}
