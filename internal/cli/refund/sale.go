package refund

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/shopspring/decimal"

	"github.com/paycli/paycli/internal/cmdutil"
	"github.com/paycli/paycli/internal/gateway"
	"github.com/paycli/paycli/internal/journal"
	"github.com/paycli/paycli/internal/money"
	"github.com/paycli/paycli/internal/redact"
	"github.com/paycli/paycli/internal/render"
	"github.com/paycli/paycli/internal/saleop"
)

// sale is what check status says about the sale a refund is taken from.
type sale struct {
	Amount decimal.Decimal
	// Currency is the sale's currency: check status's currency_code, or
	// the one the journal recorded for the invoice; "" when neither names
	// one (the gateway's documented answer has none, and a refund request
	// carries no currency).
	Currency string
	// Minor is the currency's number of decimals (ISO 4217); for a sale
	// whose currency is not named, the decimals of its transaction_amount,
	// which only shape how amounts are written.
	Minor        int32
	MinorFromISO bool
	// Card is the card as the gateway shows it; Date the sale's date as
	// the gateway writes it ("" when it sends none).
	Card, Date string
	// Refunded is what is already refunded, refunds waiting for approval
	// included; Refunds lists those check status lists, Unlisted those
	// the journal records as made that it does not list yet.
	Refunded decimal.Decimal
	Refunds  []gateway.RefundInfo
	Unlisted []journal.Attempt
}

// Remaining is what can still be refunded.
func (s sale) Remaining() decimal.Decimal { return s.Amount.Sub(s.Refunded) }

// money writes an amount with the currency's decimals: "50.00". A figure
// of the gateway's with more decimals than that (150.005 TRY) is written
// as it is: rounded, it would say more or less than the gateway did.
func (s sale) money(d decimal.Decimal) string { return money.Exact(d, s.Minor) }

// HasRef reports whether the sale lists a refund with this
// refund_transaction_id.
func (s sale) HasRef(ref string) bool {
	for _, r := range s.Refunds {
		if r.RefundTransactionID == ref {
			return true
		}
	}
	return false
}

// cardDisplay shows a masked card for a person (render.Card) when the
// gateway's text holds its first 6 and last 4 digits; otherwise the text
// with any card number in it masked.
func cardDisplay(card string) string {
	if strings.TrimSpace(card) == "" {
		return "(not shown by the gateway)"
	}
	return render.CardOf(card)
}

func notRefundable(invoice, why, hint string) error {
	return cmdutil.WithKind(cmdutil.KindRejected, fmt.Errorf("invoice %s cannot be refunded: %s; nothing was sent", redact.Invoice(invoice), why), hint)
}

// saleOf reads a check-status answer (with refund info) into a sale, or
// says why it cannot be refunded. Both the sandbox's and the gateway's
// words are understood (docs/refund.md, "When a sale can be refunded"): no
// pre-authorization still holding the money (gateway.Sale's PreAuth open:
// transaction_type PreAuth with status Pre-Authorized; a captured one,
// Completed, can be refunded), and a sale the client says may be refunded
// (gateway.Sale.Refundable: taken — completed, partly or fully refunded —,
// a payment_status of 1 when the answer has one), in the sale's words
// (saleop.Outcome) when it may not. A fully refunded sale is refused here
// too.
func saleOf(invoice, statusLine string, r *gateway.CheckStatusResult, currency string, made []journal.Attempt) (sale, error) {
	state := r.Sale()
	s, unreadable := readSale(r, state, currency, made)
	if state.Held() {
		return s, notRefundable(invoice, "it is a pre-authorization that still holds the money",
			"Capture it first (a capture can then be refunded), or cancel it to release the money.")
	}
	// What the sale's reading says is why it may not be refunded.
	if !state.Refundable() {
		_, says := saleop.Outcome(state)
		return s, notRefundable(invoice, says, "")
	}
	if unreadable != nil {
		return s, notRefundable(invoice, unreadable.Error(), "See its refunds with: "+statusLine)
	}
	if why := s.disagreement(state); why != "" {
		return s, notRefundable(invoice, why, "See its refunds with: "+statusLine)
	}
	if s.Currency != "" && !s.MinorFromISO {
		return s, notRefundable(invoice, fmt.Sprintf("the gateway names no known currency (%q)", render.Escape(redact.Cards(s.Currency))), "")
	}
	if !s.Amount.IsPositive() {
		return s, notRefundable(invoice, "the gateway gives no positive transaction_amount", "")
	}
	if !s.Remaining().IsPositive() {
		return s, notRefundable(invoice, fmt.Sprintf("it is already fully refunded (%s of %s)",
			render.Amount(s.money(s.Refunded), s.Currency), render.Amount(s.money(s.Amount), s.Currency)), "See its refunds with: "+statusLine)
	}
	return s, nil
}

// readSale reads the facts of a check-status answer with refund info, and
// the refunds of the sale the journal records as made (made, oldest
// first). What is refunded is the larger of total_refunded_amount and the
// refunds refund_info lists together with the made ones it does not list
// yet (a refund answered 101 waits for the gateway team's approval, and
// may be listed only then): what remains refundable must never be
// overstated. A refund figure that cannot be read is an error, the sale's
// facts read so far with it: what remains is then not known. currency
// stands in for an answer without currency_code (the journal's).
func readSale(r *gateway.CheckStatusResult, state gateway.Sale, currency string, made []journal.Attempt) (sale, error) {
	s := sale{Currency: strings.ToUpper(strings.TrimSpace(r.CurrencyCode())), Card: r.CardNo(), Date: saleDate(r)}
	if s.Currency == "" {
		s.Currency = strings.ToUpper(strings.TrimSpace(currency))
	}
	s.Amount, _ = state.Amount.Decimal()
	s.Minor, s.MinorFromISO = money.MinorUnit(s.Currency)
	if !s.MinorFromISO {
		s.Minor = max(-s.Amount.Exponent(), 0)
	}
	refunds, err := r.Refunds()
	if err != nil {
		return s, fmt.Errorf("its refund_info cannot be read (%v)", err)
	}
	s.Refunds = refunds
	// A refund is never negative: an amount below 0 from the gateway is
	// not allowed to make more refundable than was sold.
	sum := decimal.Zero
	listed := map[string]bool{}
	var unreadable error
	for i, ri := range refunds {
		d, ok := ri.Amount.Decimal()
		if !ok && unreadable == nil {
			unreadable = fmt.Errorf("refund %d of its refund_info has the amount %q", i+1, render.Escape(redact.Cards(ri.Amount.String())))
		}
		if ok && d.IsPositive() {
			sum = sum.Add(d)
		}
		listed[ri.RefundTransactionID] = true
	}
	for _, a := range made {
		if listed[a.Intent.Ref] {
			continue
		}
		d, err := decimal.NewFromString(a.Intent.Amount)
		if err != nil && unreadable == nil {
			unreadable = fmt.Errorf("the journal's refund %s has the amount %q", a.Intent.Ref, render.Escape(redact.Cards(a.Intent.Amount)))
		}
		if err == nil && d.IsPositive() {
			sum = sum.Add(d)
			s.Unlisted = append(s.Unlisted, a)
		}
	}
	s.Refunded = sum
	total, ok := state.Refunded.Decimal()
	switch {
	case !ok && !state.Refunded.IsNull() && unreadable == nil:
		unreadable = fmt.Errorf("its total_refunded_amount is %q", render.Escape(redact.Cards(state.Refunded.String())))
	case ok && total.GreaterThan(sum):
		s.Refunded = total
	}
	if unreadable != nil {
		return s, fmt.Errorf("the gateway's refund figures cannot be read: %w, so what remains refundable is not known", unreadable)
	}
	return s, nil
}

// disagreement says how the sale's state disagrees with its
// refund figures, "" when it does not: Refunded while some remains, or
// Partially Refunded while nothing is refunded. A Completed sale with
// refunds is not one: the status may lag behind them, and they are
// counted.
func (s sale) disagreement(state gateway.Sale) string {
	var why string
	switch {
	case state.RefundedWhole():
		if s.Remaining().IsPositive() {
			why = fmt.Sprintf("its refunds add up to %s of the %s sale", render.Amount(s.money(s.Refunded), s.Currency), render.Amount(s.money(s.Amount), s.Currency))
		}
	case state.PartlyRefunded():
		if !s.Refunded.IsPositive() {
			why = "it lists no refund"
		}
	}
	if why == "" {
		return ""
	}
	return fmt.Sprintf("the gateway's answer contradicts itself: transaction_status %q, but %s, so what remains refundable is not known", render.Escape(redact.Cards(state.Status)), why)
}

// madeRefunds are the refunds of invoice the journal records as made in
// scope (the run's account): succeeded (answered 100 or 101, or settled
// so), or answered 104 to a re-send of an id an earlier attempt sent; each
// refund_transaction_id once, oldest first.
func madeRefunds(attempts []journal.Attempt, scope journal.Scope, invoice string) []journal.Attempt {
	var out []journal.Attempt
	seen := map[string]bool{}
	for i, a := range attempts {
		ref := a.Intent.Ref
		if a.Intent.Invoice != invoice || ref == "" || seen[ref] || !scope.InScope(a) || !made(a, attempts[:i]) {
			continue
		}
		seen[ref] = true
		out = append(out, a)
	}
	return out
}

// saleDate is the sale's date as the gateway writes it.
func saleDate(r *gateway.CheckStatusResult) string {
	for _, k := range []string{"created_at", "transaction_date", "date"} {
		var s string
		if raw, ok := r.Extra[k]; ok && json.Unmarshal(raw, &s) == nil && s != "" {
			if t, ok := gateway.ParseTime(s); ok {
				return render.FormatTime(t, render.Table)
			}
			return render.Escape(s)
		}
	}
	return ""
}
