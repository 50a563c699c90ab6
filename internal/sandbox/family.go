package sandbox

import (
	"crypto/rand"
	"encoding/json"
	"fmt"
	"math/big"
	"net/http"
	"strings"
	"sync/atomic"
	"time"
)

// The gateways of the family the sandbox can answer as (Options.As),
// where their answers' documented shapes differ from the sandbox's own.
const (
	AsSipay  = "sipay"
	AsQNBpay = "qnbpay"
)

// AsNames lists the values of Options.As (`sandbox serve --as`).
func AsNames() []string { return []string{AsSipay, AsQNBpay} }

// dialect is how the sandbox writes its answers where the members of the
// family differ (Options.As): one implementation per member, in
// dialect_<member>.go. Adding a member is a case of dialectOf and its file.
type dialect interface {
	// newOrderIDs is the member's generator of order ids.
	newOrderIDs(now func() time.Time) func() string
	// writeCheckStatus answers check status with body, or, when body is
	// nil, with status_code 31 (no such sale).
	writeCheckStatus(w http.ResponseWriter, body *checkStatusBody)
	// shapeRefund sets the JSON types of a refund's answer.
	shapeRefund(a *refundAnswer)
	// shapeLedgerIDs sets the JSON types of a ledger row's ids
	// (getTransactions, alltransaction).
	shapeLedgerIDs(paymentID, invoiceID, orderID *wireText)
}

// dialectOf returns the dialect of Options.As; ok is false for a member
// the sandbox cannot answer as.
func dialectOf(as string) (d dialect, ok bool) {
	switch as {
	case "", AsSipay:
		return sipayDialect{}, true
	case AsQNBpay:
		return qnbpayDialect{}, true
	}
	return nil, false
}

// NewDigitOrderIDs returns a generator of order ids made of digits only,
// as QNBpay's (162435932934307): the Unix time in seconds and a 5-digit
// sequence that starts at a random point.
func NewDigitOrderIDs(now func() time.Time) func() string {
	start, err := rand.Int(rand.Reader, big.NewInt(100_000))
	if err != nil {
		start = big.NewInt(now().UnixNano() % 100_000)
	}
	var seq atomic.Int64
	seq.Store(start.Int64())
	return func() string {
		n := seq.Add(1) % 100_000
		return fmt.Sprintf("%010d%05d", now().Unix()%10_000_000_000, n)
	}
}

// wireText is a value written as a JSON string, or, with asNumber, as a
// JSON number when its text is one made of digits and at most one point
// (QNBpay writes ids and prices so); any other text stays a string.
type wireText struct {
	text     string
	asNumber bool
}

func textOf(s string) wireText { return wireText{text: s} }

func (v wireText) MarshalJSON() ([]byte, error) {
	if v.asNumber && strings.Trim(v.text, "0123456789.") == "" {
		if b, err := json.Marshal(json.Number(v.text)); err == nil {
			return b, nil
		}
	}
	return json.Marshal(v.text)
}
