package gateway

import (
	"strings"

	"github.com/paycli/paycli/internal/commission"
)

// SaleState is where check status says a sale stands: its
// transaction_status read once, here, for every command (docs/protocol.md,
// Check status). Nothing outside the client reads the gateway's words.
type SaleState string

// The sale states check status names (Sale). The gateway's spellings are
// compared by their letters, ignoring case, blanks and punctuation
// ("Partially Refunded", "partially-refunded").
const (
	// SaleNoState: the answer has no transaction_status.
	SaleNoState SaleState = ""
	// SaleCompleted: the sale was taken (Completed, Success, Successful).
	SaleCompleted SaleState = "completed"
	// SaleRefunded: taken, then refunded whole.
	SaleRefunded SaleState = "refunded"
	// SalePartlyRefunded: taken, then refunded in part (Partially
	// Refunded, Partial Refunded).
	SalePartlyRefunded SaleState = "partly_refunded"
	// SaleFailed: nothing was taken (Failed, Fail).
	SaleFailed SaleState = "failed"
	// SalePending: not finished yet.
	SalePending SaleState = "pending"
	// SalePreAuthorized: a pre-authorization holding the money
	// (Pre-Authorized, Pre-Authorization).
	SalePreAuthorized SaleState = "pre_authorized"
	// SaleCancelled: cancelled or voided (Cancelled, Canceled, Voided,
	// Void).
	SaleCancelled SaleState = "cancelled"
	// SaleChargedBack: taken, then reversed by the card's bank
	// (Chargebacked: the ledger's transaction_state_label, §11.12).
	SaleChargedBack SaleState = "charged_back"
	// SaleOther: a transaction_status paycli does not understand.
	SaleOther SaleState = "other"
)

// SaleStateOf reads a transaction_status: the one table of the gateway's
// state words, which a money call's own answer extends with the words it
// may say of what it did (callStateOf). A voided sale is a cancelled one.
// "Approved" is not a taken sale here: the gateway says it of the bank's
// authorisation, and a pre-authorization so answered may still be held.
func SaleStateOf(transactionStatus string) SaleState {
	switch letters(transactionStatus) {
	case "":
		return SaleNoState
	case "completed", "success", "successful":
		return SaleCompleted
	case "refunded":
		return SaleRefunded
	case "partiallyrefunded", "partialrefunded":
		return SalePartlyRefunded
	case "failed", "fail":
		return SaleFailed
	case "pending":
		return SalePending
	case "preauthorized", "preauthorization":
		return SalePreAuthorized
	case "cancelled", "canceled", "voided", "void":
		return SaleCancelled
	case "chargebacked", "chargeback", "chargedback":
		return SaleChargedBack
	}
	return SaleOther
}

// Taken reports whether the state says the sale was taken: completed, or
// refunded in whole or in part after it was.
func (s SaleState) Taken() bool {
	return s == SaleCompleted || s == SaleRefunded || s == SalePartlyRefunded
}

// Sale is what a check-status answer says of the sale itself, with its
// amounts.
type Sale struct {
	State SaleState
	// Status is transaction_status as the gateway wrote it (trimmed), for
	// messages: clean it for a terminal before showing it.
	Status string
	// PaymentStatus is payment_status (1 for a paid sale), when
	// HasPaymentStatus.
	PaymentStatus    int
	HasPaymentStatus bool
	// Amount is transaction_amount, Refunded total_refunded_amount, as
	// the gateway wrote them.
	Amount, Refunded commission.Value
	// PreAuth is what became of it as a pre-authorization (PreAuthNone
	// for a sale).
	PreAuth string
	// awaitsMerchant: three_d_status awaiting_merchant_completion
	// (AwaitsMerchant).
	awaitsMerchant bool
}

// The questions every command asks of a sale, so that none compares the
// gateway's words or the SaleState constants itself
// (archtest.TestNoStateWordComparedOutsideTheClient).

// Taken reports whether the sale was taken: completed, or refunded in
// whole or in part after it was.
func (s Sale) Taken() bool { return s.State.Taken() }

// Failed reports whether the sale failed: nothing was taken.
func (s Sale) Failed() bool { return s.State == SaleFailed }

// Pending reports whether the sale is not finished yet.
func (s Sale) Pending() bool { return s.State == SalePending }

// Voided reports whether the sale was cancelled (voided) before it was
// settled: nothing was taken.
func (s Sale) Voided() bool { return s.State == SaleCancelled }

// PreAuthorized reports whether the transaction_status says a
// pre-authorization holds the money.
func (s Sale) PreAuthorized() bool { return s.State == SalePreAuthorized }

// Stateless reports whether the answer has no transaction_status.
func (s Sale) Stateless() bool { return s.State == SaleNoState }

// RefundedWhole reports whether the sale says it was refunded whole;
// PartlyRefunded, in part.
func (s Sale) RefundedWhole() bool  { return s.State == SaleRefunded }
func (s Sale) PartlyRefunded() bool { return s.State == SalePartlyRefunded }

// Refundable reports whether the sale may be refunded, as far as its
// state says (the amounts left are the refund's to work out): taken, not
// a pre-authorization still holding the money, and not contradicted by
// its payment_status.
func (s Sale) Refundable() bool {
	return s.Taken() && s.PreAuth != PreAuthOpen && !s.Contradicted()
}

// AwaitsMerchant reports whether it is a 3D sale the merchant has not
// completed or cancelled yet (three_d_status
// awaiting_merchant_completion).
func (s Sale) AwaitsMerchant() bool { return s.awaitsMerchant }

// Held, Captured and Released report what became of a pre-authorization
// (PreAuth): the money still held, taken, or released.
func (s Sale) Held() bool     { return s.PreAuth == PreAuthOpen }
func (s Sale) Captured() bool { return s.PreAuth == PreAuthCaptured }
func (s Sale) Released() bool { return s.PreAuth == PreAuthCancelled }

// IsPreAuth reports whether the transaction is a pre-authorization at
// all, whatever became of it.
func (s Sale) IsPreAuth() bool { return s.PreAuth != PreAuthNone }

// Contradicted reports whether the answer contradicts itself: a taken
// sale whose payment_status is not 1.
func (s Sale) Contradicted() bool {
	return s.State.Taken() && s.HasPaymentStatus && s.PaymentStatus != 1
}

// Sale reads what the answer says of the sale (Sale).
func (r *CheckStatusResult) Sale() Sale {
	s := Sale{
		State:    SaleStateOf(r.TransactionStatus),
		Status:   strings.TrimSpace(r.TransactionStatus),
		Amount:   r.TransactionAmount,
		Refunded: r.TotalRefundedAmount,
		PreAuth:  r.PreAuth(),
	}
	s.PaymentStatus, s.HasPaymentStatus = r.PaymentStatus()
	s.awaitsMerchant = r.AwaitsCompletion()
	return s
}

// AwaitsChallenge reports whether the answer says a 3D payment waits for
// the buyer to answer its challenge (three_d_status awaiting_challenge).
func (r *CheckStatusResult) AwaitsChallenge() bool {
	return letters(r.extraString("three_d_status")) == "awaitingchallenge"
}

// AwaitsCompletion reports whether the answer says a 3D payment waits
// for the merchant to complete or cancel it (three_d_status
// awaiting_merchant_completion; payment_completed_by merchant).
func (r *CheckStatusResult) AwaitsCompletion() bool {
	return letters(r.extraString("three_d_status")) == "awaitingmerchantcompletion"
}

// CompletedByGateway reports whether the answer says the gateway, not the
// merchant, completes the 3D payment (payment_completed_by app).
func (r *CheckStatusResult) CompletedByGateway() bool {
	return letters(r.extraString("payment_completed_by")) == "app"
}

// Waiting reports whether the refund is queued for the gateway team's
// approval; Refused, whether it was refused (RefundInfo.State).
func (ri RefundInfo) Waiting() bool { return ri.State() == RefundWaiting }
func (ri RefundInfo) Refused() bool { return ri.State() == RefundRefused }

// RefundState is where refund_info says one refund stands.
type RefundState string

// The refund states (RefundInfo.State).
const (
	// RefundMade: the refund was made (Completed, Success, or any status
	// naming neither a wait nor a refusal).
	RefundMade RefundState = "made"
	// RefundWaiting: queued for the gateway team's approval, neither made
	// nor refused yet (Pending, Waiting, Awaiting Approval, Queued).
	RefundWaiting RefundState = "waiting"
	// RefundRefused: refused, nothing refunded (Rejected, Declined,
	// Refused, Cancelled, Failed).
	RefundRefused RefundState = "refused"
)

// State reads the refund's status.
func (ri RefundInfo) State() RefundState {
	w := letters(ri.Status)
	has := func(parts ...string) bool {
		for _, p := range parts {
			if strings.Contains(w, p) {
				return true
			}
		}
		return false
	}
	switch {
	case has("pending", "wait", "approval", "queued"):
		return RefundWaiting
	case has("reject", "declin", "refused", "cancel", "fail"):
		return RefundRefused
	}
	return RefundMade
}
