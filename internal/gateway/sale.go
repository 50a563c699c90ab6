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
	// SaleCancelled: cancelled (Cancelled, Canceled).
	SaleCancelled SaleState = "cancelled"
	// SaleOther: a transaction_status paycli does not understand.
	SaleOther SaleState = "other"
)

// SaleStateOf reads a transaction_status.
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
	case "cancelled", "canceled":
		return SaleCancelled
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
	// AwaitsMerchant: a 3D sale the merchant has not completed or
	// cancelled yet (three_d_status awaiting_merchant_completion).
	AwaitsMerchant bool
}

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
	s.AwaitsMerchant = letters(r.extraString("three_d_status")) == "awaitingmerchantcompletion"
	return s
}

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
