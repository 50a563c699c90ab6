package gateway

import (
	"bytes"
	"encoding/json"
)

// qnbpayDialect is QNBpay's, as its API pages show its answers
// (trgino/qnbpay-woocommerce docs/, commit 1007028; recorded in
// testdata/recorded/*_qnbpay*): check status and refusals as an array of
// one object, and order_id, order_no and invoice_id as JSON numbers.
func qnbpayDialect() Dialect {
	return Dialect{Member: "QNBpay", OneObjectArrays: true, NumericOrderIDs: true}
}

// oneObjectOf reports whether body is an array of exactly one object, and
// returns that object. An array of several, or of anything else, is not
// the protocol in any dialect.
func oneObjectOf(body []byte) (one []byte, ok bool) {
	if firstNonBlank(body) != '[' {
		return nil, false
	}
	var elems []json.RawMessage
	if json.Unmarshal(body, &elems) != nil || len(elems) != 1 {
		return nil, false
	}
	if one := bytes.TrimSpace(elems[0]); firstNonBlank(one) == '{' {
		return one, true
	}
	return nil, false
}

// numericOrderID names the first order reference QNBpay writes as a JSON
// number (order_id, order_no, invoice_id) that body, a JSON
// object, holds as a JSON number at any depth; "" when none. It scans the
// bytes: a key is a quoted name followed by a colon, which the text of a
// JSON string cannot hold unescaped.
func numericOrderID(body []byte) string {
	if firstNonBlank(body) != '{' {
		return ""
	}
	for _, field := range []string{"order_id", "order_no", "invoice_id"} {
		key := []byte(`"` + field + `"`)
		for rest := body; ; {
			i := bytes.Index(rest, key)
			if i < 0 {
				break
			}
			rest = bytes.TrimLeft(rest[i+len(key):], " \t\r\n")
			if len(rest) == 0 || rest[0] != ':' {
				continue
			}
			if c := firstNonBlank(rest[1:]); c == '-' || c >= '0' && c <= '9' {
				return field
			}
		}
	}
	return ""
}
