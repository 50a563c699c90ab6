package gateway

import (
	"bytes"
	"fmt"
	"strings"
)

// Dialect is how one member of the family writes its answers where the
// members differ (docs/protocol.md, The family of gateways). The client
// reads every answer through the dialect of the member it talks to
// (WithGateway): a shape its dialect does not allow is refused as an
// answer that could not be read, not accepted because another member
// writes it. Each member's quirks, and the code that reads them, live in
// its own file (dialect_sipay.go, dialect_qnbpay.go).
type Dialect struct {
	// Member names the gateway for a person ("Sipay"); "" for the
	// dialect of a gateway paycli cannot name (anyMemberDialect).
	Member string
	// OneObjectArrays: an answer may come as an array of one object,
	// read as that object.
	OneObjectArrays bool
	// NumericOrderIDs: order_id, order_no and invoice_id may be JSON
	// numbers, read as their text.
	NumericOrderIDs bool
}

// DialectOf returns the dialect of the family member named name (the
// profile's gateway, family.Names), and anyMemberDialect for "" (a base
// URL that is no member's: the sandbox, a proxy). ok is false for any
// other name. Adding a member is a row here, beside its family row.
func DialectOf(name string) (d Dialect, ok bool) {
	switch strings.ToLower(strings.TrimSpace(name)) {
	case "":
		return anyMemberDialect(), true
	// Members that speak Sipay's dialect: their public clients
	// (tcgunel/omnipay-sipay) send and read them as Sipay, and no page
	// of theirs shows another shape.
	case "sipay", "halkode", "iqmoney", "parolapara", "paybull", "vepara":
		return sipayDialect(), true
	case "qnbpay":
		return qnbpayDialect(), true
	}
	return Dialect{}, false
}

// anyMemberDialect reads what any member writes: the union of the
// dialects. A base URL paycli cannot place may be any member (the sandbox
// answers as QNBpay with serve --as qnbpay), and refusing a member's
// documented answer would make a working gateway unusable; a shape no
// member writes is still refused.
func anyMemberDialect() Dialect {
	return Dialect{OneObjectArrays: true, NumericOrderIDs: true}
}

// read returns the answer to decode in place of a 2xx body, or a
// ShapeError when body is written in a shape the dialect does not allow.
func (d Dialect) read(body []byte) ([]byte, *ShapeError) {
	if one, isOne := oneObjectOf(body); isOne {
		if !d.OneObjectArrays {
			return body, d.foreign("is an array of one object")
		}
		body = one
	}
	if field := numericOrderID(body); field != "" && !d.NumericOrderIDs {
		return body, d.foreign("has " + field + " as a JSON number")
	}
	return body, nil
}

// unwrap is read for an answer that is not a success (an HTTP error
// status), in every dialect: its status_code is what the error is made
// of (a 69 or a duplicate must stay an unknown outcome, never a plain
// refusal), and its shape is reported by the error, never refused.
func (Dialect) unwrap(body []byte) []byte {
	if one, isOne := oneObjectOf(body); isOne {
		return one
	}
	return body
}

func (d Dialect) foreign(shape string) *ShapeError {
	return &ShapeError{Member: d.Member, Problem: fmt.Sprintf(
		"the answer %s, a shape %s does not write (if the gateway is another member of the family, set the profile's gateway)", shape, d.Member)}
}

// ShapeError is why an answer written in a shape the client's dialect
// does not allow was refused (APIError.DataErr): the app reads it as an
// answer that could not be read (ErrUnreadable), or for a payment as an
// unknown outcome.
type ShapeError struct {
	// Member is the dialect's gateway ("Sipay"); Problem says the shape.
	Member, Problem string
}

func (e *ShapeError) Error() string { return e.Problem }

// firstNonBlank is the first byte of b after JSON whitespace (0 if none).
func firstNonBlank(b []byte) byte {
	b = bytes.TrimLeft(b, " \t\r\n")
	if len(b) == 0 {
		return 0
	}
	return b[0]
}
