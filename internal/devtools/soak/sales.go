package soak

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/shopspring/decimal"

	"github.com/paycli/paycli/internal/hashkey"
	"github.com/paycli/paycli/internal/sandbox"
)

// Card sales are what the refund and pre-authorization processes act on:
// completed 2D sales (Auth) to refund, and pre-authorizations (PreAuth) to
// capture, cancel and refund once captured. They are made before the
// faulty server starts, through a sandbox started in this process over
// the run's state, so that each exists before processes race for it.
// Whatever acts on them, the checker holds the sandbox's state to the
// rules of checkCardSale.

// cardSale is one sale of the card pool.
type cardSale struct {
	id string
	// amount is the sale's total; for a pre-authorization, what it holds.
	amount  decimal.Decimal
	preauth bool
	orderID string
}

// makeCardSales makes n card sales, every other one a pre-authorization.
func (r *run) makeCardSales(ctx context.Context, n int) error {
	if n == 0 {
		return nil
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	srv, err := sandbox.StartServer(ln, sandbox.ServerOptions{StateDir: r.sandboxDir, LockTimeout: 10 * time.Second, Gateway: sandbox.Options{Now: r.cfg.Now}})
	if err != nil {
		return fmt.Errorf("soak: start a sandbox for the card sales: %w", err)
	}
	defer srv.Shutdown(context.WithoutCancel(ctx))
	c := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{Proxy: nil}}
	defer c.CloseIdleConnections()
	var tok struct {
		StatusCode int `json:"status_code"`
		Data       struct {
			Token string `json:"token"`
		} `json:"data"`
	}
	if err := postJSON(ctx, c, srv.BaseURL+"/api/token", "", map[string]string{"app_id": sandbox.AppID, "app_secret": sandbox.AppSecret}, &tok); err != nil {
		return err
	}
	if tok.StatusCode != 100 || tok.Data.Token == "" {
		return fmt.Errorf("soak: sandbox token: status_code %d", tok.StatusCode)
	}
	year := strconv.Itoa(r.cfg.Now().Year() + 3)
	for i := range n {
		s := cardSale{
			id:      fmt.Sprintf("SOAK-%d-C%03d", r.cfg.Seed, i),
			amount:  decimal.New(int64(100+10*i), 0).Add(decimal.New(int64(i%100), -2)),
			preauth: i%2 == 1,
		}
		total, txType := s.amount.StringFixed(2), sandbox.TypeAuth
		if s.preauth {
			txType = sandbox.TypePreAuth
		}
		hk, err := hashkey.Generate(sandbox.AppSecret, hashkey.Join(total, "1", "TRY", sandbox.MerchantKey, s.id))
		if err != nil {
			return err
		}
		var ans struct {
			StatusCode int `json:"status_code"`
			Data       struct {
				OrderID string `json:"order_id"`
			} `json:"data"`
			OrderID string `json:"order_id"`
		}
		if err := postJSON(ctx, c, srv.BaseURL+"/api/paySmart2D", tok.Data.Token, map[string]string{
			"merchant_key": sandbox.MerchantKey, "hash_key": hk, "invoice_id": s.id, "invoice_description": "paycli soak",
			"total": total, "currency_code": "TRY", "installments_number": "1", "transaction_type": txType,
			"cc_holder_name": "Soak Tester", "cc_no": sandbox.DefaultWalletCard, "expiry_month": "12", "expiry_year": year, "cvv": "000",
			"name": "Soak", "surname": "Tester", "bill_email": "soak@example.com",
			"items": fmt.Sprintf(`[{"name":"Soak item","price":%q,"quantity":1}]`, total),
		}, &ans); err != nil {
			return err
		}
		s.orderID = cmp.Or(ans.Data.OrderID, ans.OrderID)
		if ans.StatusCode != 100 || s.orderID == "" {
			return fmt.Errorf("soak: card sale %s: status_code %d", s.id, ans.StatusCode)
		}
		r.cardSales = append(r.cardSales, s)
	}
	return nil
}

// postJSON posts body as JSON and decodes the JSON answer into out.
func postJSON(ctx context.Context, c *http.Client, url, bearer string, body, out any) error {
	data, err := json.Marshal(body)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(data))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	if bearer != "" {
		req.Header.Set("Authorization", "Bearer "+bearer)
	}
	resp, err := c.Do(req)
	if err != nil {
		return fmt.Errorf("soak: %w", err)
	}
	defer resp.Body.Close()
	ans, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return fmt.Errorf("soak: %s: %w", url, err)
	}
	if err := json.Unmarshal(ans, out); err != nil {
		return fmt.Errorf("soak: %s: HTTP %d, not a JSON answer", url, resp.StatusCode)
	}
	return nil
}

// checkCardSale holds one card sale's stored state to the rules no
// sequence of refunds, captures and cancels may break, whatever the
// processes said: the sale is still there, completed, with its order; its
// refunds never add up to more than it charged (for a pre-authorization,
// what was captured), no refund_transaction_id is applied twice; a
// pre-authorization still holds its amount, is open, captured once (at
// most the held amount, more than zero) or cancelled (nothing captured).
// refundIDs collects the refund ids of every sale, to find one applied to
// two sales.
func checkCardSale(cs cardSale, sale sandbox.Sale, stored bool, refundIDs map[string]string) []string {
	var problems []string
	add := func(format string, args ...any) {
		problems = append(problems, fmt.Sprintf("card sale %s: ", cs.id)+fmt.Sprintf(format, args...))
	}
	switch {
	case !stored:
		add("made before the run (order %s) but the sandbox has lost it", cs.orderID)
		return problems
	case sale.State != sandbox.StateCompleted || sale.OrderID != cs.orderID:
		add("made as a completed sale with order %s, stored as %s order %s", cs.orderID, sale.State, sale.OrderID)
	}
	if cs.preauth {
		p := sale.PreAuth
		if p == nil {
			add("made as a pre-authorization, stored as a sale")
			return problems
		}
		held, err := decimal.NewFromString(p.Held)
		if err != nil || !held.Equal(cs.amount) {
			add("holds %q, made to hold %s", p.Held, cs.amount.StringFixed(2))
		}
		captured, capErr := decimal.NewFromString(p.Captured)
		switch p.State {
		case sandbox.PreAuthOpen, sandbox.PreAuthCancelled:
			if p.Captured != "" {
				add("%s but captured %s", p.State, p.Captured)
			}
		case sandbox.PreAuthCaptured:
			if capErr != nil || !captured.IsPositive() || captured.GreaterThan(cs.amount) {
				add("captured %q of the %s held", p.Captured, cs.amount.StringFixed(2))
			}
		default:
			add("pre-authorization state %q", p.State)
		}
	}
	for _, rf := range sale.Refunds {
		amount, err := decimal.NewFromString(rf.Amount)
		if err != nil || !amount.IsPositive() || amount.Exponent() < -2 {
			add("refund %s of %q", rf.TransactionID, rf.Amount)
		}
		if other, dup := refundIDs[rf.TransactionID]; dup {
			add("refund %s applied twice (also to %s)", rf.TransactionID, other)
		}
		refundIDs[rf.TransactionID] = cs.id
	}
	if refunded, charged := sale.Refunded(), sale.Charged(); refunded.GreaterThan(charged) {
		add("refunded %s in %d refunds, more than the %s it charged", refunded.StringFixed(2), len(sale.Refunds), charged.StringFixed(2))
	}
	return problems
}
