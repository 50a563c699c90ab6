package refund

import (
	"fmt"

	"github.com/paycli/paycli/internal/cmdutil"
	"github.com/paycli/paycli/internal/journal"
	"github.com/paycli/paycli/internal/redact"
	"github.com/paycli/paycli/internal/render"
)

// KindRefund is the journal kind of `paycli refund`. Its intent's Ref is
// the refund_transaction_id, re-used by `paycli refund --retry`; a refund
// answered 101 (queued for the gateway team's approval) is Queued
// (docs/refund.md). Lines written before Queued existed hold such a refund
// as Succeeded with status_code 101.
const KindRefund = "refund"

// Kinds is everything the rest of paycli says about a refund
// (journal.Kind): check status settles it by its refund_transaction_id in
// refund_info (readRefund); it is named by that id ("refund RF1"); a
// refund of unknown outcome is sent again by it (`paycli refund
// --retry`), which the gateway makes at most once; reconcile says its
// outcome as it is; an invoice is described by its sale, with its count
// of refunds.
func Kinds() []journal.Kind {
	return []journal.Kind{{
		Name:       KindRefund,
		Read:       readRefund,
		Subject:    func(a journal.Attempt) string { return subject(a) },
		Says:       func(l journal.Learned) string { return l.Outcome },
		Resend:     cmdutil.RefundRetryCommandLine,
		ResendSafe: "the gateway makes a refund_transaction_id once",
		OnTheSale:  true,
		Refund:     true,
	}}
}

// subject names a refund in a sentence: "refund RF1", or "refund" for
// one without a refund_transaction_id.
func subject(a journal.Attempt) string {
	if a.Intent.Ref == "" {
		return KindRefund
	}
	return KindRefund + " " + a.Intent.Ref
}

// readRefund reads check status for a refund: refund_info listing its
// refund_transaction_id (the intent's Ref) → Succeeded (Pending while it
// waits for approval, Declined when refused), not listing it → NotFound,
// no sale with the invoice → NotFound (neither is final: journal.Settle);
// an answer without refund_info says nothing. The answer names the
// attempt itself (Identified).
func readRefund(a journal.Attempt, c journal.Check) journal.Finding {
	if f, ok := c.Unanswered(); ok {
		if f.Outcome == journal.NotFound {
			f.Message = "the gateway has no sale with this invoice"
		}
		return f
	}
	ref := a.Intent.Ref
	if ref == "" {
		return journal.Finding{Message: "the refund attempt has no refund_transaction_id to look for"}
	}
	if _, asked := c.Res.Extra["refund_info"]; !asked {
		return journal.Finding{Message: "the answer has no refund_info: it does not say whether the refund was made"}
	}
	refunds, err := c.Res.Refunds()
	if err != nil {
		return journal.Finding{Message: "the answer's refund_info cannot be read: " + err.Error()}
	}
	for _, r := range refunds {
		if r.RefundTransactionID != ref {
			continue
		}
		status := render.Escape(redact.Cards(r.Status))
		switch {
		case r.Waiting():
			// Still queued for the gateway team's approval: neither made
			// nor refused yet.
			return journal.Finding{Outcome: journal.Pending, Identified: true,
				Message: fmt.Sprintf("refund_info lists refund_transaction_id %s (%s): it still waits for approval", ref, status)}
		case r.Refused():
			return journal.Finding{Outcome: journal.Declined, Identified: true,
				Message: fmt.Sprintf("refund_info lists refund_transaction_id %s (%s): the refund was refused, nothing was refunded", ref, status)}
		}
		return journal.Finding{Outcome: journal.Succeeded, Identified: true,
			Message: fmt.Sprintf("refund_info lists refund_transaction_id %s (%s): the refund was made", ref, status)}
	}
	return journal.Finding{Outcome: journal.NotFound, Identified: true,
		Message: fmt.Sprintf("refund_info does not list refund_transaction_id %s", ref)}
}
