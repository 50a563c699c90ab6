package gateway

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/paycli/paycli/internal/hashkey"
)

const (
	refundOK         = `{"status_code":100,"status_description":"Refund successful","order_no":"VP1","invoice_id":"INV-1","ref_no":"R1","refund_amount":"50.00"}`
	confirmOK        = `{"status_code":100,"status_description":"Success","transaction_status":"Completed","order_id":"VP1","invoice_id":"INV-1"}`
	completeOK       = `{"status_code":100,"status_description":"Success","data":{"sipay_status":1,"order_no":"VP1","order_id":"VP1","invoice_id":"INV-1","sipay_payment_method":"CARD","credit_card_no":"435508****4358","transaction_type":"Auth","payment_status":1,"payment_method":"card","auth_code":"A1","installment":1,"amount":"100.00","status":"complete","hash_key":"aa:bb:cc","md_status":"1"}}`
	getPOSOK         = `{"status_code":100,"status_description":"Success","data":[{"pos_id":7,"campaign_id":0,"allocation_id":"3","installments_number":1,"card_type":"CREDIT","card_program":"WORLD","card_scheme":"VISA","is_commercial":0,"payable_amount":"1000.00","hash_key":"h:k:v","amount_to_be_paid":1000,"currency_code":"TRY","currency_id":1,"title":"Single","user_commission_percentage":"0","issuer":"Bank"},{"pos_id":7,"installments_number":"6","card_program":"WORLD","payable_amount":"1060.00","amount_to_be_paid":"1000.00","currency_code":"TRY","title":"6 installments"}]}`
	installmentsOK   = `{"status_code":100,"status_description":"Success","installments":[1,2,"3",6,12]}`
	checkRefundsOK   = `{"status_code":100,"status_description":"Success","transaction_status":"Partially Refunded","order_id":"VP1","invoice_id":"INV-1","transaction_amount":"150.00","total_refunded_amount":"50.00","transaction_type":"Auth","payment_status":1,"currency_code":"TRY","cc_no":"435508****4358","installment":1,"refund_info":[{"amount":"50.00","refund_transaction_id":"RT-1","status":"Completed","ref_no":"R1","created_at":"2026-11-22 12:00:00","channel":"api"}]}`
	checkPreAuthOpen = `{"status_code":100,"status_description":"Success","transaction_status":"Pre-Authorized","order_id":"VP2","invoice_id":"INV-2","transaction_amount":"80.00","transaction_type":"PreAuth","refund_info":""}`
)

func refundReq() RefundRequest {
	return RefundRequest{InvoiceID: "INV-1", Amount: "50.00", RefundTransactionID: "RT-1"}
}

func confirmReq() ConfirmPaymentRequest {
	return ConfirmPaymentRequest{InvoiceID: "INV-1", Status: ConfirmCapture, Total: "80.00"}
}

func completeReq() CompletePaymentRequest {
	return CompletePaymentRequest{InvoiceID: "INV-1", OrderID: "VP1", Status: CompleteStatusComplete}
}

func getPOSReq() GetPOSRequest {
	return GetPOSRequest{BIN: "435508", Amount: "1000", CurrencyCode: "TRY"}
}

// callMerchantEndpoint calls one of the calls added for refunds,
// pre-authorizations, 3D completion and installments, by the name the fake
// gateway counts it under; getCardTokens (a read) and refundByDo (a refund
// through Do) go through Client.Do.
func callMerchantEndpoint(ctx context.Context, c *Client, name string) error {
	var err error
	switch name {
	case "refund":
		_, err = c.Refund(ctx, refundReq())
	case "confirmPayment":
		_, err = c.ConfirmPayment(ctx, confirmReq())
	case "payment/complete":
		_, err = c.CompletePayment(ctx, completeReq())
	case "getpos":
		_, err = c.GetPOS(ctx, getPOSReq())
	case "installments":
		_, err = c.Installments(ctx)
	case "getCardTokens":
		_, err = c.Do(ctx, Request{Method: "GET", Path: "/api/getCardTokens?customer_number=7"})
	case "refundByDo":
		_, err = c.Do(ctx, Request{Path: "api/refund", Body: []byte(`{"invoice_id":"INV-1"}`)})
	default:
		panic("unknown endpoint " + name)
	}
	return err
}

func TestMovesMoney(t *testing.T) {
	for p, want := range map[string]bool{
		"/api/walletPay": true, "api/walletpay": true, "/api/WALLETPAY/": true, "/api/refund?x=1": true,
		"/api/confirmPayment": true, "/payment/complete": true, "/api/paySmart2D": true, "/api/paySmart3D": true,
		"/api/payByCardToken": true, "/api/payByCardTokenNonSecure": true, "/api/x/../refund": true, "/api/%72efund": true,
		"/api/payNewThing": true, "/api/refundV2": true, "/index.php/api/refund": true, "/index.php/api/payNewThing": true,
		"/api/checkstatus": false, "/api/getpos": false, "/api/installments": false, "/api/commissions": false,
		"/api/token": false, "/api/getCardTokens": false, "/api/saveCard": false, "/purchase/link": false, "/payment": false,
	} {
		if got := MovesMoney(p); got != want {
			t.Errorf("MovesMoney(%q) = %v, want %v", p, got, want)
		}
	}
	// The client's own calls agree with MovesMoney.
	for _, ep := range knownEndpoints {
		money := map[string]bool{EndpointWalletPay: true, EndpointRefund: true, EndpointConfirmPayment: true, EndpointCompletePayment: true,
			EndpointPaySmart2D: true, EndpointPaySmart3D: true}[ep.name]
		// A payment link moves no money but is sent once like a payment.
		once := money || ep.name == EndpointPaymentLink
		if ep.movesMoney() != money || isPayment(ep.name) != once {
			t.Errorf("%s: movesMoney %v, sent once %v; want %v, %v", ep.name, ep.movesMoney(), isPayment(ep.name), money, once)
		}
		if once && ep.retries() {
			t.Errorf("%s is sent once but retries", ep.name)
		}
	}
}

// TestMoneyCallOf (issue 23, defect 9): a call is known by its
// operation's name after the path is normalised — case, a prefix
// (/index.php, /ccpayment), repeated slashes, dot segments, encoded
// slashes and dots, even encoded twice, backslashes, a segment's
// parameters — and confirmPayment and payment/complete by the status
// their body asks for.
func TestMoneyCallOf(t *testing.T) {
	for _, c := range []struct {
		path, body string
		want       MoneyCall
	}{
		{"/api/refund", "", MoneyRefund},
		{"/index.php/api/refund", "", MoneyRefund},
		{"/ccpayment/api/refund", "", MoneyRefund},
		{"/API/REFUND", "", MoneyRefund},
		{"/api//refund", "", MoneyRefund},
		{"/api/x/../refund", "", MoneyRefund},
		{"/api/x/%2e%2e/refund", "", MoneyRefund},
		{"/api%2Frefund", "", MoneyRefund},
		{"/api%252Frefund", "", MoneyRefund},
		{`\api\refund`, "", MoneyRefund},
		{"/index.php/api/refund;jsessionid=1?x=2#y", "", MoneyRefund},
		{"/index.php/api/walletPay", "", MoneyWalletPay},
		{"/api/confirmPayment", `{"invoice_id":"I","status":1}`, MoneyCapture},
		{"/index.php/api/confirmPayment", `{"status":"2"}`, MoneyReleaseHold},
		{"/api/confirmPayment", ``, MoneyCapture},
		{"/payment/complete", `{"status":"complete"}`, MoneyComplete},
		{"/index.php/payment/complete", `{"status":"CANCEL"}`, MoneyCompleteCancel},
		{"/api/paySmart2D", "", MoneyPayment},
		{"/index.php/api/paySmart3D", "", MoneyPayment},
		{"/api/payByCardTokenNonSecure", "", MoneyPayment},
		{"/api/checkstatus", "", NoMoney},
		{"/index.php/api/getpos", "", NoMoney},
		{"/purchase/link", "", NoMoney},
		{"/payment", "", NoMoney},
	} {
		if got := MoneyCallOf(c.path, []byte(c.body)); got != c.want {
			t.Errorf("MoneyCallOf(%q, %s) = %q, want %q", c.path, c.body, got, c.want)
		}
	}
}

// TestMoneyNeverSentTwiceAfter401 is the regression test of a walletPay
// sent twice by one command: a gateway that answers the first call 401 and
// any later one 100 must see exactly one call; the error says nothing was
// processed and to run the command again; the token is renewed, so the
// next run goes through.
func TestMoneyNeverSentTwiceAfter401(t *testing.T) {
	for _, name := range []string{"walletPay", "refund", "confirmPayment", "payment/complete", "refundByDo"} {
		t.Run(name, func(t *testing.T) {
			g := newGateway(t)
			path := map[string]string{"refundByDo": "refund"}[name]
			if path == "" {
				path = name
			}
			ok := map[string]string{"walletPay": walletPayOK, "refund": refundOK, "confirmPayment": confirmOK, "payment/complete": completeOK}[path]
			g.AnswerTextOnce(http.MethodPost, api(path), 401, `{"message":"Unauthenticated."}`)
			answerText(g, path, 200, ok)
			cache := &memCache{}
			c := newTestClient(t, g.URL+"/ccpayment", WithTokenCache(cache))
			ctx := context.Background()
			var err error
			if name == "walletPay" {
				_, err = c.WalletPay(ctx, walletPayReq())
			} else {
				err = callMerchantEndpoint(ctx, c, name)
			}
			if n := g.Count(api(path)); n != 1 {
				t.Fatalf("%d %s requests, want exactly 1", n, path)
			}
			var refused *TokenRefusedError
			var apiErr *APIError
			if !errors.Is(err, ErrUnauthorized) || errors.Is(err, ErrOutcomeUnknown) || !errors.As(err, &refused) || !errors.As(err, &apiErr) || apiErr.HTTPStatus != 401 {
				t.Fatalf("err = %v, want a TokenRefusedError matching ErrUnauthorized only", err)
			}
			for _, want := range []string{"processed nothing", "does not repeat", "run the command again"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not say %q", err, want)
				}
			}
			assertClean(t, err.Error())
			if n := g.Count(api("token")); n != 2 {
				t.Errorf("%d token calls, want 2 (the refused token renewed)", n)
			}
			// The next run (a new process: a new client on the same cache)
			// uses the renewed token and is sent once.
			c2 := newTestClient(t, g.URL+"/ccpayment", WithTokenCache(cache))
			if name == "walletPay" {
				_, err = c2.WalletPay(ctx, walletPayReq())
			} else {
				err = callMerchantEndpoint(ctx, c2, name)
			}
			if err != nil {
				t.Fatalf("next run: %v", err)
			}
			if g.Count(api(path)) != 2 || g.Count(api("token")) != 2 {
				t.Errorf("next run: %d %s requests and %d token calls, want 2 and 2", g.Count(api(path)), path, g.Count(api("token")))
			}
		})
	}
}

func TestMoneyRefusedTokenNotRenewed(t *testing.T) {
	g := newGateway(t)
	answerText(g, "refund", 401, `{}`)
	c := newTestClient(t, g.URL+"/ccpayment")
	if _, _, err := c.BearerToken(context.Background(), false); err != nil {
		t.Fatal(err)
	}
	answerText(g, "token", 503, `{}`)
	_, err := c.Refund(context.Background(), refundReq())
	var refused *TokenRefusedError
	if !errors.As(err, &refused) || refused.RenewErr == nil || !errors.Is(err, ErrUnauthorized) {
		t.Fatalf("err = %v", err)
	}
	if !strings.Contains(err.Error(), "a new token could not be fetched") || g.Count(api("refund")) != 1 {
		t.Errorf("err = %v after %d refunds", err, g.Count(api("refund")))
	}
}

func TestRefund(t *testing.T) {
	g := newGateway(t)
	answerText(g, "refund", 200, refundOK)
	c := newTestClient(t, g.URL+"/ccpayment")
	req := refundReq()
	req.RefundWebHookKey = "refund-hook"
	res, err := c.Refund(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if res.StatusCode != 100 || res.Queued || res.OrderNo != "VP1" || res.InvoiceID != "INV-1" || res.RefNo != "R1" ||
		res.StatusDescription != "Refund successful" || string(res.Extra["refund_amount"]) != `"50.00"` {
		t.Errorf("refund decoded as %+v", res)
	}
	r := g.Last(api("refund"))
	want := map[string]any{"invoice_id": "INV-1", "amount": 50.0, "app_id": testAppID, "app_secret": testAppSecret,
		"merchant_key": testMerchantKey, "hash_key": signed("50.00|INV-1|" + testMerchantKey), "refund_transaction_id": "RT-1", "refund_web_hook_key": "refund-hook"}
	if len(r.Fields) != len(want) {
		t.Errorf("body %v, want %v", r.Fields, want)
	}
	for k, v := range want {
		if s, ok := v.(signed); ok {
			if plain, err := hashkey.Decrypt(testAppSecret, fmt.Sprint(r.Fields[k])); err != nil || plain != string(s) {
				t.Errorf("body[%s] holds %q (%v), want %q", k, plain, err, s)
			}
			continue
		}
		if r.Fields[k] != v {
			t.Errorf("body[%s] = %v, want %v", k, r.Fields[k], v)
		}
	}
	// The amount goes out as a number with the text the hash_key used.
	if !strings.Contains(r.Raw, `"amount":50.00,`) || !strings.HasPrefix(r.Header.Get("Authorization"), "Bearer ") || r.Path != "/ccpayment/api/refund" {
		t.Errorf("refund sent as %s %s %s", r.Path, r.Header.Get("Authorization"), r.Raw)
	}
}

func TestRefundOutcomes(t *testing.T) {
	tests := []struct {
		name   string
		answer reply
		fault  http.HandlerFunc // a transport fault instead of an answer
		want   error            // nil: a plain rejection, or success when code is set
		code   int
		queued bool
		msg    string
	}{
		{"queued for approval", textReply(200, `{"status_code":101,"status_description":"Refund request created","order_no":"VP1","invoice_id":"INV-1","ref_number":"R9"}`), nil, nil, 101, true, ""},
		{"refund id used", textReply(200, `{"status_code":104,"status_description":"Refund transaction id must be unique"}`), nil, ErrRefundIDUsed, 0, false, `refund: status_code 104 "Refund transaction id must be unique"`},
		{"partial not allowed", textReply(200, `{"status_code":110,"status_description":"Partial refund not allowed"}`), nil, nil, 0, false, "status_code 110"},
		{"refund failed", textReply(200, `{"status_code":"49","status_description":"Refund failed for 4355084355084358"}`), nil, nil, 0, false, `status_code 49 "Refund failed for 435508******4358"`},
		{"no transaction", textReply(200, `{"status_code":31,"status_description":"Transaction not found"}`), nil, ErrNotFound, 0, false, "status_code 31"},
		{"500", pageReply(500), nil, ErrOutcomeUnknown, 0, false, "refund: HTTP 500"},
		{"503 never retried", textReply(503, `{}`), nil, ErrOutcomeUnknown, 0, false, "refund: HTTP 503"},
		{"reset mid-body", nil, resetMidBody, ErrOutcomeUnknown, 0, false, "refund: the request was sent but no complete response arrived"},
		{"truncated", textReply(200, `{"status_code":100,"invoice_id":"IN`), nil, ErrOutcomeUnknown, 0, false, "the body is truncated JSON"},
		{"not UTF-8", textReply(200, "{\"status_code\":100,\"invoice_id\":\"INV-1\xff\"}"), nil, ErrOutcomeUnknown, 0, false, "not valid UTF-8"},
		{"another invoice", textReply(200, `{"status_code":100,"order_no":"VP1","invoice_id":"INV-2\u001b[2J"}`), nil, ErrOutcomeUnknown, 100, false,
			`refund: the gateway answered status_code 100 but it names invoice "INV-2 [2J", not the one sent; the outcome is unknown`},
		{"no invoice", textReply(200, `{"status_code":100,"order_no":"VP1"}`), nil, ErrOutcomeUnknown, 100, false, `it names no invoice_id`},
		{"data not an object", textReply(200, `[100]`), nil, ErrOutcomeUnknown, 0, false, "refund: HTTP 200 OK"},
		{"status_code not a number", textReply(200, `{"status_code":"ok"}`), nil, ErrOutcomeUnknown, 0, false, "refund: HTTP 200 OK"},
	}
	sentinels := []error{ErrUnauthorized, ErrDuplicateInvoice, ErrDeclined, ErrPending, ErrOutcomeUnknown, ErrUnavailable, ErrNoData, ErrNotFound, ErrRefundIDUsed, ErrInvalidRequest}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var c *Client
			var count func() int
			if tt.fault != nil {
				f := newFaultServer(t, tt.fault)
				c, count = f.client(t), f.count
			} else {
				g := newGateway(t)
				tt.answer(g, "refund")
				c, count = newTestClient(t, g.URL+"/ccpayment"), func() int { return g.Count(api("refund")) }
			}
			res, err := c.Refund(context.Background(), refundReq())
			if n := count(); n != 1 {
				t.Errorf("%d refund requests, want 1", n)
			}
			for _, s := range sentinels {
				if got := errors.Is(err, s); got != (s == tt.want) {
					t.Errorf("errors.Is(err, %v) = %v; err: %v", s, got, err)
				}
			}
			if tt.want == nil && tt.code == 0 {
				var apiErr *APIError
				if !errors.As(err, &apiErr) {
					t.Fatalf("err = %v, want an *APIError", err)
				}
			}
			if tt.code != 0 {
				if res == nil || res.StatusCode != tt.code || res.Queued != tt.queued {
					t.Fatalf("result %+v, want status %d queued %v", res, tt.code, tt.queued)
				}
			}
			if tt.queued && (err != nil || res.RefNo != "R9") {
				t.Errorf("queued refund: %+v, %v", res, err)
			}
			if err != nil && !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("error %q\ndoes not contain %q", err, tt.msg)
			}
			if err != nil {
				assertClean(t, err.Error())
				if strings.ContainsRune(err.Error(), 0x1b) {
					t.Errorf("error %q holds an escape character", err)
				}
			}
		})
	}
}

func TestInvalidRequestsAreNeverSent(t *testing.T) {
	g := newGateway(t)
	c := newTestClient(t, g.URL+"/ccpayment")
	ctx := context.Background()
	badRefund := func(f func(*RefundRequest)) error { r := refundReq(); f(&r); _, err := c.Refund(ctx, r); return err }
	badConfirm := func(f func(*ConfirmPaymentRequest)) error {
		r := confirmReq()
		f(&r)
		_, err := c.ConfirmPayment(ctx, r)
		return err
	}
	badComplete := func(f func(*CompletePaymentRequest)) error {
		r := completeReq()
		f(&r)
		_, err := c.CompletePayment(ctx, r)
		return err
	}
	badGetPOS := func(f func(*GetPOSRequest)) error { r := getPOSReq(); f(&r); _, err := c.GetPOS(ctx, r); return err }
	for name, err := range map[string]error{
		"refund amount with comma":  badRefund(func(r *RefundRequest) { r.Amount = "50,00" }),
		"refund amount negative":    badRefund(func(r *RefundRequest) { r.Amount = "-1" }),
		"refund amount exponent":    badRefund(func(r *RefundRequest) { r.Amount = "1e3" }),
		"refund amount zero":        badRefund(func(r *RefundRequest) { r.Amount = "0.00" }),
		"refund without id":         badRefund(func(r *RefundRequest) { r.RefundTransactionID = "" }),
		"refund without invoice":    badRefund(func(r *RefundRequest) { r.InvoiceID = "" }),
		"confirm status 3":          badConfirm(func(r *ConfirmPaymentRequest) { r.Status = 3 }),
		"cancel with total":         badConfirm(func(r *ConfirmPaymentRequest) { r.Status = ConfirmCancel }),
		"confirm bad total":         badConfirm(func(r *ConfirmPaymentRequest) { r.Total = "eighty" }),
		"complete bad status":       badComplete(func(r *CompletePaymentRequest) { r.Status = "Complete" }),
		"complete without order id": badComplete(func(r *CompletePaymentRequest) { r.OrderID = "" }),
		"getpos full card":          badGetPOS(func(r *GetPOSRequest) { r.BIN = testCard }),
		"getpos seven digits":       badGetPOS(func(r *GetPOSRequest) { r.BIN = "4355084" }),
		"getpos five digits":        badGetPOS(func(r *GetPOSRequest) { r.BIN = "43550" }),
		"getpos letters":            badGetPOS(func(r *GetPOSRequest) { r.BIN = "43550a" }),
		"getpos spaced card":        badGetPOS(func(r *GetPOSRequest) { r.BIN = "4355 0843 5508 4358" }),
		"getpos amount":             badGetPOS(func(r *GetPOSRequest) { r.Amount = "" }),
	} {
		if !errors.Is(err, ErrInvalidRequest) {
			t.Errorf("%s: err = %v, want ErrInvalidRequest", name, err)
			continue
		}
		assertClean(t, err.Error())
		if strings.Contains(err.Error(), "0843") {
			t.Errorf("%s: error %q repeats card digits", name, err)
		}
	}
	if len(g.Requests()) != 0 {
		t.Errorf("%d requests sent, want none (not even a token call)", len(g.Requests()))
	}
}

func TestConfirmPayment(t *testing.T) {
	g := newGateway(t)
	answerText(g, "confirmPayment", 200, confirmOK)
	c := newTestClient(t, g.URL+"/ccpayment")
	ctx := context.Background()
	res, err := c.ConfirmPayment(ctx, confirmReq())
	if err != nil {
		t.Fatal(err)
	}
	if res.TransactionStatus != "Completed" || res.OrderID != "VP1" || res.InvoiceID != "INV-1" {
		t.Errorf("confirmPayment decoded as %+v", res)
	}
	if r := g.Last(api("confirmPayment")); !strings.Contains(r.Raw, `"total":80.00,"status":1,`) || r.Fields["merchant_key"] != testMerchantKey || r.Fields["invoice_id"] != "INV-1" {
		t.Errorf("capture sent as %s", r.Raw)
	}
	cancel := confirmReq()
	cancel.Status, cancel.Total = ConfirmCancel, ""
	answerText(g, "confirmPayment", 200, strings.Replace(confirmOK, `"Completed"`, `"Cancelled"`, 1))
	if _, err := c.ConfirmPayment(ctx, cancel); err != nil {
		t.Fatal(err)
	}
	if r := g.Last(api("confirmPayment")); strings.Contains(r.Raw, "total") || r.Fields["status"] != 2.0 {
		t.Errorf("cancel sent as %s", r.Raw)
	}
	answerText(g, "confirmPayment", 200, `{"status_code":100,"invoice_id":"INV-9"}`)
	res, err = c.ConfirmPayment(ctx, cancel)
	var inc *InconsistentError
	if !errors.Is(err, ErrOutcomeUnknown) || !errors.As(err, &inc) || res == nil || res.InvoiceID != "INV-9" {
		t.Errorf("an answer about another invoice: %+v, %v", res, err)
	}
}

func TestCompletePayment(t *testing.T) {
	g := newGateway(t)
	answerText(g, "payment/complete", 200, completeOK)
	c := newTestClient(t, g.URL+"/ccpayment")
	ctx := context.Background()
	res, err := c.CompletePayment(ctx, completeReq())
	if err != nil {
		t.Fatal(err)
	}
	if res.ServiceStatus != 1 || res.OrderID != "VP1" || res.PaymentStatus != 1 || !res.HasPaymentStatus || res.Amount.String() != "100.00" ||
		res.Status != "complete" || res.StatusDescription != "Success" || string(res.Extra["md_status"]) != `"1"` {
		t.Errorf("payment/complete decoded as %+v", res)
	}
	r := g.Last(api("payment/complete"))
	if r.Path != "/ccpayment/payment/complete" || r.Fields["order_id"] != "VP1" || r.Fields["status"] != "complete" || len(r.Fields) != 5 {
		t.Errorf("sent %s %v", r.Path, r.Fields)
	}
	for name, body := range map[string]string{
		"payment_status 0":  `{"status_code":100,"data":{"order_id":"VP1","invoice_id":"INV-1","payment_status":0}}`,
		"another order":     `{"status_code":100,"data":{"order_id":"VP2","invoice_id":"INV-1","payment_status":1}}`,
		"another invoice":   `{"status_code":100,"data":{"order_id":"VP1","invoice_id":"INV-2"}}`,
		"no data":           `{"status_code":100}`,
		"data not a object": `{"status_code":100,"data":"ok"}`,
	} {
		answerText(g, "payment/complete", 200, body)
		_, err := c.CompletePayment(ctx, completeReq())
		if !errors.Is(err, ErrOutcomeUnknown) {
			t.Errorf("%s: err = %v, want an unknown outcome", name, err)
		}
	}
}

func TestGetPOS(t *testing.T) {
	g := newGateway(t)
	g.AnswerTextOnce(http.MethodPost, api("getpos"), 503, `{}`) // a read: retried
	answerText(g, "getpos", 200, getPOSOK)
	c := newTestClient(t, g.URL+"/ccpayment")
	yes := true
	req := getPOSReq()
	req.Is2D, req.CommissionBy = &yes, "user"
	res, err := c.GetPOS(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Options) != 2 || g.Count(api("getpos")) != 2 {
		t.Fatalf("%d options after %d requests", len(res.Options), g.Count(api("getpos")))
	}
	o := res.Options[0]
	if o.PosID != 7 || o.AllocationID != 3 || o.InstallmentsNumber != 1 || o.CardProgram != "WORLD" || o.PayableAmount.String() != "1000.00" ||
		o.AmountToBePaid.String() != "1000" || o.CurrencyID != 1 || o.HashKey != "h:k:v" || string(o.Extra["issuer"]) != `"Bank"` {
		t.Errorf("option decoded as %+v", o)
	}
	if res.Options[1].InstallmentsNumber != 6 || res.StatusDescription != "Success" {
		t.Errorf("second option %+v", res.Options[1])
	}
	r := g.Last(api("getpos"))
	if r.Fields["credit_card"] != "435508" || r.Fields["is_2d"] != 1.0 || r.Fields["commission_by"] != "user" || !strings.Contains(r.Raw, `"amount":1000,`) {
		t.Errorf("getpos sent as %s", r.Raw)
	}
	for name, body := range map[string]string{
		"installments 0":   `{"status_code":100,"data":[{"installments_number":0}]}`,
		"installments 500": `{"status_code":100,"data":[{"installments_number":500}]}`,
		"data an object":   `{"status_code":100,"data":{"installments_number":0}}`,
		"amount garbage":   `{"status_code":100,"data":[{"installments_number":1,"payable_amount":"1.0.0"}]}`,
	} {
		answerText(g, "getpos", 200, body)
		if _, err := c.GetPOS(context.Background(), getPOSReq()); !errors.Is(err, ErrUnreadable) {
			t.Errorf("%s: err = %v, want an unreadable answer", name, err)
		}
	}
	answerText(g, "getpos", 200, `{"status_code":36,"status_description":"Pos not found"}`)
	if _, err := c.GetPOS(context.Background(), getPOSReq()); err == nil || !strings.Contains(err.Error(), "getpos: status_code 36") {
		t.Errorf("err = %v", err)
	}
}

func TestInstallments(t *testing.T) {
	g := newGateway(t)
	answerText(g, "installments", 200, installmentsOK)
	c := newTestClient(t, g.URL+"/ccpayment")
	res, err := c.Installments(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Installments; len(got) != 5 || got[2] != 3 || got[4] != 12 {
		t.Errorf("installments %v", got)
	}
	if r := g.Last(api("installments")); r.Fields["merchant_key"] != testMerchantKey || len(r.Fields) != 1 {
		t.Errorf("sent %v", r.Fields)
	}
	for _, body := range []string{`{"status_code":100,"installments":[0]}`, `{"status_code":100,"installments":[1.5]}`, `{"status_code":100,"installments":{"a":1}}`} {
		answerText(g, "installments", 200, body)
		if _, err := c.Installments(context.Background()); !errors.Is(err, ErrUnreadable) {
			t.Errorf("%s: err = %v", body, err)
		}
	}
}

func TestCheckStatusWithRefunds(t *testing.T) {
	g := newGateway(t)
	answerText(g, "checkstatus", 200, checkRefundsOK)
	c := newTestClient(t, g.URL+"/ccpayment")
	ctx := context.Background()
	res, err := c.CheckStatus(ctx, "INV-1")
	if err != nil {
		t.Fatal(err)
	}
	if r := g.Last(api("checkstatus")); r.Fields["show_refund_info"] != "Y" || r.Fields["invoice_id"] != "INV-1" || len(r.Fields) != 5 {
		t.Errorf("sent %v", r.Fields)
	}
	refunds, err := res.Refunds()
	ps, hasPS := res.PaymentStatus()
	if err != nil || res.TotalRefundedAmount.String() != "50.00" || res.TransactionAmount.String() != "150.00" || res.CurrencyCode() != "TRY" ||
		res.CardNo() != "435508****4358" || !hasPS || ps != 1 || res.PreAuthOpen() || len(refunds) != 1 {
		t.Fatalf("decoded as %+v (%v)", res, err)
	}
	ri := refunds[0]
	if ri.Amount.String() != "50.00" || ri.RefundTransactionID != "RT-1" || ri.Status != "Completed" || ri.RefNo != "R1" ||
		ri.CreatedAt != "2026-11-22 12:00:00" || string(ri.Extra["channel"]) != `"api"` {
		t.Errorf("refund_info decoded as %+v", ri)
	}
	answerText(g, "checkstatus", 200, checkPreAuthOpen)
	if res, err = c.CheckStatus(ctx, "INV-2"); err != nil || !res.PreAuthOpen() {
		t.Fatalf("an open pre-authorization: %+v, %v", res, err)
	}
	if refunds, err := res.Refunds(); refunds != nil || err != nil {
		t.Errorf("refund_info \"\": %v, %v", refunds, err)
	}
	if _, ok := res.PaymentStatus(); ok || res.CurrencyCode() != "" || res.CardNo() != "" {
		t.Errorf("absent fields read as present: %+v", res)
	}
	answerText(g, "checkstatus", 200, `{"status_code":100,"invoice_id":"INV-1","refund_info":[{"amount":"abc"}]}`)
	if _, err = c.CheckStatus(ctx, "INV-1"); !errors.Is(err, ErrUnavailable) {
		t.Errorf("a refund amount that is not a number: %v", err)
	}
}

func TestDo(t *testing.T) {
	g := newGateway(t)
	g.AnswerTextOnce(http.MethodGet, api("getCardTokens"), 200, `{"status_code":100,"data":[{"card_token":"ct"}]}`, "X-Trace", "t1")
	answerText(g, "saveCard", 422, `{"status_code":1,"status_description":"card_number required"}`)
	answerText(g, "refund", 502, `<html>`)
	answerText(g, "deleteCard", 503, `{}`)
	c := newTestClient(t, g.URL+"/ccpayment")
	ctx := context.Background()

	res, err := c.Do(ctx, Request{Method: "get", Path: "api/getCardTokens?customer_number=7"})
	if err != nil {
		t.Fatal(err)
	}
	r := g.Last(api("getCardTokens"))
	if res.StatusCode != 200 || res.Header.Get("X-Trace") != "t1" || !strings.Contains(string(res.Body), `"card_token":"ct"`) ||
		r.Method != "GET" || r.Query != "customer_number=7" || r.Raw != "" || r.Header.Get("Content-Type") != "" || !strings.HasPrefix(r.Header.Get("Authorization"), "Bearer ") {
		t.Errorf("GET: %+v, sent %+v", res, r)
	}
	// A rejection comes back as an answer, for the caller to show.
	res, err = c.Do(ctx, Request{Path: "/api/saveCard", Body: []byte("customer_number=7"), ContentType: "application/x-www-form-urlencoded"})
	if err != nil || res.StatusCode != 422 {
		t.Fatalf("saveCard: %+v, %v", res, err)
	}
	if err := res.Err(); err == nil || !strings.HasPrefix(err.Error(), "/api/saveCard: status_code 1") {
		t.Errorf("saveCard's answer read as %v", err)
	}
	if r := g.Last(api("saveCard")); r.Method != "POST" || r.Raw != "customer_number=7" || r.Header.Get("Content-Type") != "application/x-www-form-urlencoded" {
		t.Errorf("saveCard sent as %+v", r)
	}
	// A 5xx to a call that moves money is an unknown outcome; to another
	// call it is an answer. Neither is retried.
	res, err = c.Do(ctx, Request{Path: "/api/refund", Body: []byte(`{}`)})
	if !errors.Is(err, ErrOutcomeUnknown) || res == nil || res.StatusCode != 502 || g.Count(api("refund")) != 1 {
		t.Errorf("refund 502: %+v, %v, %d requests", res, err, g.Count(api("refund")))
	}
	if !strings.Contains(err.Error(), "/api/refund: HTTP 502") {
		t.Errorf("err = %v", err)
	}
	res, err = c.Do(ctx, Request{Path: "/api/deleteCard", Body: []byte(`{}`)})
	if err != nil || res.StatusCode != 503 || g.Count(api("deleteCard")) != 1 {
		t.Errorf("deleteCard 503: %+v, %v, %d requests", res, err, g.Count(api("deleteCard")))
	}

	for _, p := range []string{"", "/", "https://evil.example/api/refund", "//evil.example/api", "/api/../../steal", "api/./x", "/api/%zz"} {
		if _, err := c.Do(ctx, Request{Path: p}); !errors.Is(err, ErrInvalidRequest) {
			t.Errorf("path %q: err = %v, want ErrInvalidRequest", p, err)
		}
	}
	if _, err := c.Do(ctx, Request{Method: "CONNECT", Path: "/api/x"}); !errors.Is(err, ErrInvalidRequest) {
		t.Errorf("CONNECT: err = %v", err)
	}
}

func TestDoOutcomeUnknownAfterSending(t *testing.T) {
	f := newFaultServer(t, resetMidBody)
	c := f.client(t)
	if _, err := c.Do(context.Background(), Request{Path: "/api/refund"}); !errors.Is(err, ErrOutcomeUnknown) {
		t.Errorf("refund cut mid-body: %v", err)
	}
	if _, err := c.Do(context.Background(), Request{Path: "/api/getCardTokens"}); !errors.Is(err, ErrUnavailable) || errors.Is(err, ErrOutcomeUnknown) {
		t.Errorf("read cut mid-body: %v", err)
	}
	if f.countOf("refund") != 1 || f.countOf("getCardTokens") != 1 {
		t.Errorf("%d refunds, %d reads: want one each", f.countOf("refund"), f.countOf("getCardTokens"))
	}
}

// TestNewCallsRedacted: dry runs and debug logs of the new calls show no
// secret: app_id and app_secret travel in a refund's body.
func TestNewCallsRedacted(t *testing.T) {
	g := newGateway(t)
	for name, body := range map[string]string{"refund": refundOK, "confirmPayment": confirmOK, "payment/complete": completeOK, "getpos": getPOSOK, "installments": installmentsOK} {
		answerText(g, name, 200, body)
	}
	var log strings.Builder
	c := newTestClient(t, g.URL+"/ccpayment", WithLogger(debugLogger(&log)))
	ctx := context.Background()
	for _, name := range []string{"refund", "confirmPayment", "payment/complete", "getpos", "installments", "refundByDo"} {
		if name == "refundByDo" {
			answerText(g, "refund", 200, refundOK)
		}
		if err := callMerchantEndpoint(ctx, c, name); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	_, _ = c.Do(ctx, Request{Path: "/api/refund", Body: []byte(`{"app_secret":"` + testAppSecret + `","cc_no":"` + testCard + `"}`)})
	got := log.String()
	assertNoSecrets(t, got)
	for _, want := range []string{"/ccpayment/api/refund", "/ccpayment/payment/complete", `refund_transaction_id`} {
		if !strings.Contains(got, want) {
			t.Errorf("debug log lacks %q", want)
		}
	}
	dumps := []func() (RequestDump, error){
		func() (RequestDump, error) { return c.DryRun(refundReq()) },
		func() (RequestDump, error) { return c.DryRun(confirmReq()) },
		func() (RequestDump, error) { return c.DryRun(completeReq()) },
		func() (RequestDump, error) {
			return c.DryRun(Request{Path: "/api/refund?app_secret=" + testAppSecret, Body: []byte(`{"merchant_key":"` + testMerchantKey + `"}`)})
		},
		func() (RequestDump, error) {
			return c.DryRun(Request{Path: "/api/saveCard", ContentType: "application/x-www-form-urlencoded", Body: []byte("card_number=" + testCard + "&app_id=" + testAppID)})
		},
	}
	before := len(g.Requests())
	for i, dump := range dumps {
		d, err := dump()
		if err != nil {
			t.Fatal(err)
		}
		s := d.String()
		assertNoSecrets(t, s)
		if i == 0 && (!strings.Contains(s, "POST "+g.URL+"/ccpayment/api/refund") || !strings.Contains(s, `"refund_transaction_id": "RT-1"`) || !strings.Contains(s, `"amount": 50.00`)) {
			t.Errorf("refund dry run:\n%s", s)
		}
	}
	if len(g.Requests()) != before {
		t.Errorf("a dry run sent %d requests", len(g.Requests())-before)
	}
	if _, err := c.DryRun(RefundRequest{}); !errors.Is(err, ErrInvalidRequest) {
		t.Errorf("dry run of an empty refund: %v", err)
	}
}

// TestResponseErr: an answer of Do means what the same answer to the
// client's own calls means: the same sentinels, refund's 101 a success,
// a 5xx or a body without status_code to a call that moves money unknown.
func TestResponseErr(t *testing.T) {
	cases := []struct {
		path   string
		status int
		body   string
		want   error // nil: success; errAny: a plain rejection
	}{
		{"/api/commissions", 200, `{"status_code":100,"data":{}}`, nil},
		{"/api/checkstatus", 200, `{"status_code":31,"status_description":"no such transaction"}`, ErrNotFound},
		{"/api/commissions", 200, `{"status_code":30,"status_description":"Invalid credentials"}`, ErrUnauthorized},
		{"/api/paySmart2D", 200, `{"status_code":41,"status_description":"declined"}`, ErrDeclined},
		{"/api/paySmart2D", 200, `{"status_code":3}`, ErrDuplicateInvoice},
		{"/api/paySmart2D", 200, `{"status_code":69}`, ErrPending},
		{"/api/refund", 200, `{"status_code":104}`, ErrRefundIDUsed},
		{"/API/Refund/", 200, `{"status_code":101,"status_description":"queued"}`, nil},
		{"/api/getpos", 200, `{"status_code":101}`, errAny},
		{"/api/paySmart2D", 502, `<html>`, ErrOutcomeUnknown},
		{"/api/paySmart2D", 200, `{"data":{}}`, ErrOutcomeUnknown},
		{"/api/getpos", 503, `{}`, ErrUnavailable},
		{"/api/getpos", 200, `{"status_code":1,"status_description":"bad"}`, errAny},
	}
	for _, tc := range cases {
		name, err := CheckRequest(Request{Path: tc.path})
		if err != nil {
			t.Fatal(err)
		}
		res := &Response{StatusCode: tc.status, Header: http.Header{"Content-Type": {"application/json"}}, Body: []byte(tc.body), ep: endpoint{name: name, path: name}}
		got := res.Err()
		switch {
		case tc.want == nil && got != nil, tc.want != nil && got == nil:
			t.Errorf("%s %d %s: err = %v, want %v", tc.path, tc.status, tc.body, got, tc.want)
		case tc.want == errAny:
			var apiErr *APIError
			if !errors.As(got, &apiErr) || apiErr.Sentinel() != nil {
				t.Errorf("%s %s: err = %v, want a plain rejection", tc.path, tc.body, got)
			}
		case tc.want != nil && !errors.Is(got, tc.want):
			t.Errorf("%s %d %s: err = %v, want %v", tc.path, tc.status, tc.body, got, tc.want)
		}
	}
}

var errAny = errors.New("any rejection")

func TestCheckRequest(t *testing.T) {
	if name, err := CheckRequest(Request{Method: "post", Path: "api//refund/?x=1"}); err != nil || name != "/api/refund" {
		t.Errorf("name = %q, %v", name, err)
	}
	for _, p := range []string{"https://evil.example/api/refund", "//evil.example/api", "/api/../x"} {
		if _, err := CheckRequest(Request{Path: p}); !errors.Is(err, ErrInvalidRequest) {
			t.Errorf("%q: %v", p, err)
		}
	}
}

func TestCheckStatusPreAuth(t *testing.T) {
	for _, tc := range []struct {
		typ, status, want string
	}{
		{"PreAuth", "Pre-Authorized", PreAuthOpen},
		{"preauth", "Pre-Authorization", PreAuthOpen},
		{" PreAuth ", "PreAuthorized", PreAuthOpen},
		{"PreAuth", "Completed", PreAuthCaptured},
		{"PreAuth", "Partially Refunded", PreAuthCaptured},
		{"PostAuth", "Completed", PreAuthCaptured},
		{"PreAuth", "Cancelled", PreAuthCancelled},
		{"PreAuth", "Canceled", PreAuthCancelled},
		{"PreAuth", "Failed", PreAuthOther},
		{"PreAuth", "", PreAuthOther},
		{"Auth", "Completed", PreAuthNone},
		{"Auth", "Pre-Authorized", PreAuthNone},
		{"", "Pre-Authorized", PreAuthNone},
	} {
		r := &CheckStatusResult{TransactionType: tc.typ, TransactionStatus: tc.status}
		if got := r.PreAuth(); got != tc.want {
			t.Errorf("transaction_type %q, transaction_status %q: %q, want %q", tc.typ, tc.status, got, tc.want)
		}
		if r.PreAuthOpen() != (tc.want == PreAuthOpen) {
			t.Errorf("transaction_type %q, transaction_status %q: PreAuthOpen %v", tc.typ, tc.status, r.PreAuthOpen())
		}
	}
}

// A pending answer (69) to CheckStatus comes with its fields, so that a
// command can tell which step the sale waits for.
func TestCheckStatusWithRefundsPending(t *testing.T) {
	g := newGateway(t)
	answerText(g, "checkstatus", 200, `{"status_code":69,"status_description":"Order not yet processed","transaction_status":"Pending","order_id":"VP9","invoice_id":"INV-9","three_d_status":"awaiting_merchant_completion"}`)
	c := newTestClient(t, g.URL+"/ccpayment")
	res, err := c.CheckStatus(context.Background(), "INV-9")
	if !errors.Is(err, ErrPending) || res == nil || res.OrderID != "VP9" || string(res.Extra["three_d_status"]) != `"awaiting_merchant_completion"` {
		t.Fatalf("pending: %+v, %v", res, err)
	}
	answerText(g, "checkstatus", 200, `{"status_code":31,"status_description":"Transaction not found","order_id":"VP9"}`)
	if res, err := c.CheckStatus(context.Background(), "INV-9"); !errors.Is(err, ErrNotFound) || res != nil {
		t.Fatalf("not found: %+v, %v", res, err)
	}
}
