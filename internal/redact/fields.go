package redact

import (
	"encoding/json"
	"slices"
	"strings"
)

// secretFields are the JSON fields (and form/query keys) whose values are
// masked wherever a request or answer is shown or kept: the credentials,
// the merchant key, hash keys, wallet tokens, the payer's e-mail and phone, bearer
// tokens in the token answer, and card security codes. The gateway client
// and the sandbox's request log both mask by this one list.
var secretFields = [...]string{
	"app_id",
	"app_secret",
	"merchant_key",
	"hash_key",
	"wallet_transient_token",
	"bill_email",
	"bill_phone",
	"customer_email",
	"customer_phone",
	"token",
	"authorization",
	"cvv",
	"cc_cvv",
}

// cardFields are the fields that hold a card number by name, in the
// gateway's answers and requests: their digit runs are masked whether or
// not they pass the Luhn check (a mistyped card is still a card):
// CardField. Card numbers anywhere else are found by Cards.
var cardFields = [...]string{
	"cc_no",
	"credit_card_no",
	"card_number",
	"card_no",
	"pan",
	"card_holder_pan",
}

// SecretFields returns the names of the fields that hold a secret.
func SecretFields() []string { return slices.Clone(secretFields[:]) }

// CardFields returns the names of the fields that hold a card number.
func CardFields() []string { return slices.Clone(cardFields[:]) }

// IsSecretField reports whether a field holds a secret by its name, case
// ignored.
func IsSecretField(name string) bool { return slices.Contains(secretFields[:], strings.ToLower(name)) }

// IsCardField reports whether a field holds a card number by its name,
// case ignored.
func IsCardField(name string) bool { return slices.Contains(cardFields[:], strings.ToLower(name)) }

// JSONValue masks a decoded JSON value (maps and slices in place, numbers
// read as json.Number): each string or number becomes mask(key, text), key
// being the name of the member it is the value of ("" at the top, an
// array's own for its elements). A number mask leaves alone stays a
// number. The gateway client's redaction and the sandbox's request log
// walk bodies with it, each with its own mask.
func JSONValue(v any, key string, mask func(key, text string) string) any {
	switch x := v.(type) {
	case map[string]any:
		for k, val := range x {
			x[k] = JSONValue(val, k, mask)
		}
		return x
	case []any:
		for i, val := range x {
			x[i] = JSONValue(val, key, mask)
		}
		return x
	case string:
		return mask(key, x)
	case json.Number:
		if m := mask(key, x.String()); m != x.String() {
			return m
		}
		return x
	}
	return v
}
