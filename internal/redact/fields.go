package redact

import (
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
