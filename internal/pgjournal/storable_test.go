package pgjournal

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
	"unicode/utf8"

	"github.com/paycli/paycli/internal/gateway"
	"github.com/paycli/paycli/internal/journal"
)

// FuzzStorableLine: whatever text a line holds, what the journal stores
// holds no NUL (PostgreSQL refuses it), and reads back as the line was.
func FuzzStorableLine(f *testing.F) {
	for _, s := range []string{"", "Payment failed", "a\x00b", `\0`, `\\0`, "\x00\\", `\u0000`, "nul_escaped", "\x00nul_escaped"} {
		f.Add(s, s)
	}
	f.Fuzz(func(t *testing.T, message, invoice string) {
		if !utf8.ValidString(message) || !utf8.ValidString(invoice) {
			return // JSON would replace it; the gateway's text is decoded JSON
		}
		e := journal.Entry{Type: journal.TypeOutcome, Attempt: "a", Invoice: invoice, Message: message,
			Evidence: &journal.Evidence{StatusCode: 1, Fields: map[string]string{invoice: message}}}
		data, err := json.Marshal(e)
		if err != nil {
			t.Skip()
		}
		stored, err := storableLine(data)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(stored, []byte(`\u0000`)) {
			var v any
			_ = json.Unmarshal(stored, &v)
			if hasNUL(v) {
				t.Fatalf("stored with a NUL: %s", stored)
			}
		}
		var back journal.Entry
		if err := json.Unmarshal(readableLine(stored), &back); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(back, e) {
			t.Fatalf("read back %+v, want %+v", back, e)
		}
		if c := storableText(invoice); bytes.IndexByte([]byte(c), 0) >= 0 {
			t.Fatalf("column text with a NUL: %q", c)
		}
	})
}

// TestEvidenceIsScrubbed: a reconcile line's evidence keeps what says what
// became of the transaction, masks cards, and leaves out what names the
// payer.
func TestEvidenceIsScrubbed(t *testing.T) {
	t.Parallel()
	res := &gatewayAnswer
	ev := journal.EvidenceOf(res, nil)
	data, _ := json.Marshal(ev)
	for _, leak := range []string{"4355084355084358", "ayse@example.com", "Ayşe Yılmaz"} {
		if bytes.Contains(data, []byte(leak)) {
			t.Errorf("the evidence holds %q: %s", leak, data)
		}
	}
	if ev.StatusCode != 100 || ev.TransactionStatus != "Completed" || ev.Fields["refund_info"] == "" {
		t.Errorf("evidence %s", data)
	}
}

var gatewayAnswer = func() gateway.CheckStatusResult {
	var r gateway.CheckStatusResult
	if err := json.Unmarshal([]byte(`{"status_code":100,"status_description":"ok 4355084355084358","transaction_status":"Completed",
"order_id":"O-1","invoice_id":"INV-1","refund_info":[{"refund_transaction_id":"RF-1","status":"Completed"}],
"cc_no":"4355084355084358","payer_email":"ayse@example.com","cc_holder_name":"Ayşe Yılmaz","note":"card 4355084355084358"}`), &r); err != nil {
		panic(err)
	}
	return r
}()
