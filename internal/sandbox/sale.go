package sandbox

import (
	"time"

	"github.com/shopspring/decimal"
)

// Kinds of payment. Every kind is stored as a Sale under its invoice_id,
// so an invoice id is used once across all of them.
const (
	KindWalletPay = "walletpay"
	KindCard2D    = "2d"
	KindCard3D    = "3d"
	// KindCardToken is a payment with a saved card's token; the store keeps
	// it like any card payment (CardBIN and CardLast4 of the saved card).
	KindCardToken = "card_token"
	// KindLink is a payment through a payment link (/purchase/link): the
	// sale exists from the link's creation, waiting for the buyer.
	KindLink = "link"
)

// Transaction types, as the gateway names them.
const (
	TypeAuth    = "Auth"
	TypePreAuth = "PreAuth"
)

// StateAwaiting3D is the state of a 3D sale whose challenge was not
// answered yet, and StateAwaitingCompletion that of a 3D sale completed by
// the merchant whose challenge was approved and which waits for
// /payment/complete. Neither has charged anything.
const (
	StateAwaiting3D         = "awaiting_3d"
	StateAwaitingCompletion = "awaiting_completion"
	// StateCancelled is a sale that ended without a charge at the
	// merchant's request: a 3D sale cancelled through /payment/complete.
	StateCancelled = "cancelled"
	// StateAwaitingPayment is a payment link's sale before the buyer has
	// entered a card on its page.
	StateAwaitingPayment = "awaiting_payment"
)

// Pre-authorization states.
const (
	PreAuthOpen      = "open"
	PreAuthCaptured  = "captured"
	PreAuthCancelled = "cancelled"
)

// Refund states. A refund whose amount ends in .01 waits for the gateway
// team's approval (status_code 101) and is approved by the next check
// status of its sale.
const (
	RefundCompleted       = "Completed"
	RefundPendingApproval = "Pending Approval"
)

// Sale is one payment as the sandbox remembers it, keyed by invoice_id,
// whatever its kind. Amounts are decimal strings with the currency's
// decimals. A card is only ever stored as its first six and last four
// digits.
type Sale struct {
	InvoiceID string `json:"invoice_id"`
	OrderID   string `json:"order_id"`
	// Kind is one of the Kind constants; sales stored before kinds existed
	// read as walletPay.
	Kind string `json:"kind,omitempty"`
	// TransactionType is TypeAuth or TypePreAuth.
	TransactionType string `json:"transaction_type,omitempty"`
	State           string `json:"state"`
	// Amount is the sale's total as requested (for a pre-authorization,
	// the amount held).
	Amount      string `json:"amount"`
	Currency    string `json:"currency"`
	Installment int    `json:"installment"`
	// Wallet is the wallet type of a walletPay sale.
	Wallet        string `json:"wallet,omitempty"`
	WalletTokenID string `json:"wallet_token_id,omitempty"`
	// WalletTokenIssuedAt is the token's iat (seconds), which keys the
	// spent-token set with its id (spentTokenKey); 0 for a token without.
	WalletTokenIssuedAt int64  `json:"wallet_token_iat,omitempty"`
	CardBIN             string `json:"card_bin"`
	CardLast4           string `json:"card_last4"`
	CardHolder          string `json:"card_holder,omitempty"`
	CardProgram         string `json:"card_program"`
	// BillEmail and BillPhone are the payer's, as the request sent them.
	BillEmail                    string `json:"bill_email,omitempty"`
	BillPhone                    string `json:"bill_phone,omitempty"`
	PosID                        int    `json:"pos_id,omitempty"`
	MerchantCommission           string `json:"merchant_commission"`
	UserCommission               string `json:"user_commission"`
	MerchantCommissionPercentage string `json:"merchant_commission_percentage"`
	MerchantCommissionFixed      string `json:"merchant_commission_fixed"`
	// UserCommissionPercentage and UserCommissionFixed are the buyer's
	// rates the sale was priced at (empty for a sale stored without them).
	UserCommissionPercentage string `json:"user_commission_percentage,omitempty"`
	UserCommissionFixed      string `json:"user_commission_fixed,omitempty"`
	AuthCode                 string `json:"auth_code,omitempty"`
	HostReferenceID          string `json:"host_reference_id,omitempty"`
	PaymentReasonCode        string `json:"payment_reason_code,omitempty"`
	PaymentReasonCodeDetail  string `json:"payment_reason_code_detail,omitempty"`
	// PreAuth is set for a pre-authorization.
	PreAuth *PreAuth `json:"pre_auth,omitempty"`
	// ThreeD is set for a 3D payment.
	ThreeD *ThreeD `json:"three_d,omitempty"`
	// Link is set for a sale made through a payment link.
	Link *Link `json:"link,omitempty"`
	// Refunds are the refunds answered for the sale, oldest first.
	Refunds []Refund `json:"refunds,omitempty"`
	// Chargeback is set once the card holder's bank took the sale back
	// (the admin chargeback event, docs/sandbox.md); the ledger lists the
	// sale as Chargebacked.
	Chargeback *Chargeback `json:"chargeback,omitempty"`
	// SaleWebHookKey and RefundWebHookKey are the web hook keys the
	// requests named; a delivery outbox reads them.
	SaleWebHookKey   string    `json:"sale_web_hook_key,omitempty"`
	RefundWebHookKey string    `json:"refund_web_hook_key,omitempty"`
	CreatedAt        time.Time `json:"created_at"`
	UpdatedAt        time.Time `json:"updated_at"`
}

// PreAuth is the state of a pre-authorization: Held is the amount held on
// the card; Captured what /api/confirmPayment took of it.
type PreAuth struct {
	State      string    `json:"state"`
	Held       string    `json:"held"`
	Captured   string    `json:"captured,omitempty"`
	ResolvedAt time.Time `json:"resolved_at,omitzero"`
}

// ThreeD is the state of a 3D payment: who completes it ("app": the
// gateway on an approved challenge; "merchant": /payment/complete), and
// where the buyer's browser goes after the challenge.
type ThreeD struct {
	CompletedBy string `json:"payment_completed_by"`
	ReturnURL   string `json:"return_url,omitempty"`
	CancelURL   string `json:"cancel_url,omitempty"`
}

// Link is what a payment link's page needs besides the sale: its id (the
// last element of the link's path), what it tells the buyer, and the most
// installments the buyer may choose.
type Link struct {
	ID             string `json:"id"`
	Description    string `json:"description,omitempty"`
	MaxInstallment int    `json:"max_installment"`
}

// Chargeback is a sale taken back by the card holder's bank: the amount
// taken back and the fee the gateway charged the merchant for it.
type Chargeback struct {
	Amount string    `json:"amount"`
	Fee    string    `json:"fee"`
	At     time.Time `json:"at"`
}

// Refund is one refund of a sale.
type Refund struct {
	// TransactionID is the caller's refund_transaction_id; the sandbox
	// makes one ("SBX-R" and the refund's number) when none was sent.
	TransactionID string `json:"refund_transaction_id"`
	Amount        string `json:"amount"`
	Status        string `json:"status"`
	RefNo         string `json:"ref_no"`
	// WebHookKey is the refund_web_hook_key the refund request named.
	WebHookKey string    `json:"web_hook_key,omitempty"`
	CreatedAt  time.Time `json:"created_at"`
	ApprovedAt time.Time `json:"approved_at,omitzero"`
}

// normalize fills in what a sale stored by an older sandbox implies.
func (s *Sale) normalize() {
	if s.Kind == "" {
		s.Kind = KindWalletPay
	}
	if s.TransactionType == "" {
		s.TransactionType = TypeAuth
	}
}

// Charged is what the sale took from the card: its amount once completed
// (for a pre-authorization, what was captured), else zero.
func (s *Sale) Charged() decimal.Decimal {
	if s.State != StateCompleted {
		return decimal.Zero
	}
	if s.PreAuth != nil {
		if s.PreAuth.State != PreAuthCaptured {
			return decimal.Zero
		}
		d, _ := decimal.NewFromString(s.PreAuth.Captured)
		return d
	}
	d, _ := decimal.NewFromString(s.Amount)
	return d
}

// Refunded is the sum of the sale's refunds, those waiting for approval
// included: their amount is no longer refundable.
func (s *Sale) Refunded() decimal.Decimal {
	total := decimal.Zero
	for _, r := range s.Refunds {
		d, _ := decimal.NewFromString(r.Amount)
		total = total.Add(d)
	}
	return total
}

// Refundable is what may still be refunded.
func (s *Sale) Refundable() decimal.Decimal {
	return s.Charged().Sub(s.Refunded())
}
