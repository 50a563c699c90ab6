//go:build unix

package app_test

import (
	"encoding/json"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/paycli/paycli/internal/sandbox"
)

// TestCommandsAgainstQNBpayShapes (issue 33, item 3): paycli's own
// commands work end to end against a sandbox answering in QNBpay's
// documented shapes (`sandbox serve --as qnbpay`: all-digit order ids,
// check status as an array of one object with numbers, refund's numeric
// order_no and invoice_id): a payment, its status, a refund and the
// refund seen in status; an unknown invoice exits 4. A profile made by
// `config init --gateway qnbpay --base-url URL` names QNBpay in config
// list and status while its URL overrides the gateway's.
func TestCommandsAgainstQNBpayShapes(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs paycli processes against a sandbox")
	}
	d := newDesk(t)
	base := d.background("", "sandbox", "serve", "--addr", "127.0.0.1:0", "--as", "qnbpay")

	if out, errOut, code := d.run("sandbox", "pay", "--amount", "25.00", "--currency", "TRY", "--invoice", "40001"); code != 0 {
		t.Fatalf("sandbox pay: exit %d\n%s%s", code, out, errOut)
	}
	var st struct {
		OrderID             json.Number `json:"order_id"`
		InvoiceID           string      `json:"invoice_id"`
		TransactionStatus   string      `json:"transaction_status"`
		TotalRefundedAmount json.Number `json:"total_refunded_amount"`
	}
	status := func(args ...string) {
		t.Helper()
		out, errOut, code := d.run(append([]string{"status", "40001", "-o", "json"}, args...)...)
		if code != 0 {
			t.Fatalf("status %v: exit %d\n%s%s", args, code, out, errOut)
		}
		if err := json.Unmarshal([]byte(out), &st); err != nil {
			t.Fatalf("status: %v\n%s", err, out)
		}
	}
	status("--sandbox")
	if !regexp.MustCompile(`^[0-9]{15}$`).MatchString(st.OrderID.String()) || st.InvoiceID != "40001" || st.TransactionStatus != "Completed" {
		t.Errorf("status: %+v", st)
	}
	if out, errOut, code := d.run("refund", "40001", "--amount", "5.00", "--yes", "--sandbox"); code != 0 {
		t.Fatalf("refund: exit %d\n%s%s", code, out, errOut)
	}
	status("--sandbox")
	if st.TotalRefundedAmount.String() != "5.00" && st.TotalRefundedAmount.String() != "5" {
		t.Errorf("after the refund: %+v", st)
	}
	if out, errOut, code := d.run("status", "NO-SUCH-1", "--sandbox"); code != 4 {
		t.Errorf("unknown invoice: exit %d\n%s%s", code, out, errOut)
	}

	init := exec.Command(d.bin, "config", "init", "--gateway", "qnbpay", "--base-url", base, "--app-id", sandbox.AppID,
		"--app-secret-stdin", "--merchant-key-stdin", "--insecure-storage")
	init.Env = d.env
	init.Stdin = strings.NewReader(sandbox.AppSecret + "\n" + sandbox.MerchantKey + "\n")
	if out, err := init.CombinedOutput(); err != nil {
		t.Fatalf("config init --gateway qnbpay: %v\n%s", err, out)
	}
	if out := d.piped("config", "list", "-o", "csv"); !strings.Contains(out, "gateway,qnbpay,file\n") || !strings.Contains(out, "base_url,"+base+",file\n") {
		t.Errorf("config list:\n%s", out)
	}
	_, errOut, code := d.run("status", "40001")
	if code != 0 || !strings.Contains(errOut, "Gateway: QNBpay, "+base) {
		t.Errorf("status with the profile: exit %d\n%s", code, errOut)
	}
	if _, errOut, code := d.run("config", "set", "gateway", "qnb"); code != 2 || !strings.Contains(errOut, "sipay, halkode, iqmoney, parolapara, paybull, qnbpay, vepara") {
		t.Errorf("config set gateway qnb: exit %d\n%s", code, errOut)
	}
}
