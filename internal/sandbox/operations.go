package sandbox

import (
	"slices"
	"sync"
)

// The request fields of the operations the sandbox answers: the lists its
// handlers check (requireFields takes them from here, and the enumerated
// values are checked with fieldSpec.allows), and what its OpenAPI
// description (openapi.go) says. One table, so that the description
// cannot drift from what the handlers do.

// fieldSpec is what the sandbox accepts in one request field.
type fieldSpec struct {
	// typ is the JSON type: "string" (the default; numbers are accepted
	// too and read as their text), "array" or "object".
	typ string
	// pattern and enum restrict the text; format is OpenAPI's.
	pattern, format string
	enum            []string
	desc            string
	// number: a JSON number is accepted too (read as its text).
	number bool
}

// allows reports whether v is one of the field's enumerated values ("" is
// the default, allowed when the field is optional).
func (s fieldSpec) allows(v string) bool { return v == "" || slices.Contains(s.enum, v) }

// amountPattern is a plain decimal amount, as the handlers read one.
const amountPattern = `^[0-9]+(\.[0-9]+)?$`

// fieldSpecs maps a field's name to its spec (built on first use).
var fieldSpecs = sync.OnceValue(func() map[string]fieldSpec {
	return map[string]fieldSpec{
		"app_id":                 {desc: "the app's id (paycli sandbox credentials)"},
		"app_secret":             {desc: "the app's secret (paycli sandbox credentials)"},
		"merchant_key":           {desc: "the merchant key (paycli sandbox credentials)"},
		"hash_key":               {desc: "the request's hash_key, made with the app_secret in the operation's layout (docs/hash-keys.md)"},
		"invoice_id":             {desc: "the merchant's invoice id: at most 100 characters, without '|'"},
		"currency_code":          {pattern: `^[A-Za-z]{3}$`, desc: "ISO 4217 letters; the sandbox accepts the currencies of its commission schedule"},
		"total":                  {pattern: amountPattern, desc: "the amount, with at most the currency's decimals; fault amounts act out faults (docs/sandbox.md)", number: true},
		"amount":                 {pattern: amountPattern, desc: "the amount, with at most the currency's decimals; fault amounts act out faults (docs/sandbox.md)", number: true},
		"installments_number":    {pattern: `^[1-9][0-9]*$`, desc: "a count the card's program offers (getpos lists them)", number: true},
		"transaction_type":       {enum: []string{TypeAuth, TypePreAuth}, desc: "Auth (the default) or PreAuth"},
		"payment_completed_by":   {enum: []string{CompletedByApp, CompletedByMerchant}, desc: "app (the default) or merchant: who completes an approved 3D payment"},
		"commission_by":          {enum: []string{"merchant", "user"}, desc: "who pays the commission (merchant, the default, or user; case ignored)"},
		"decision":               {enum: []string{"approve", "decline"}, desc: "the buyer's answer to the sandbox's 3D challenge"},
		"cc_no":                  {pattern: `^[0-9 -]{12,23}$`, desc: "the card number, Luhn-valid; published test cards and fault cards choose the answer (docs/sandbox.md)"},
		"card_number":            {pattern: `^[0-9 -]{12,23}$`, desc: "the card number, Luhn-valid"},
		"credit_card":            {pattern: `^[0-9]{6,19}$`, desc: "the card's BIN (first 6 digits) or whole number", number: true},
		"cc_holder_name":         {desc: "the name on the card"},
		"card_holder_name":       {desc: "the name on the card"},
		"expiry_month":           {pattern: `^(0?[1-9]|1[0-2])$`, desc: "1 to 12", number: true},
		"expiry_year":            {pattern: `^[0-9]{2,4}$`, desc: "the year, 2 or 4 digits; the card must not be expired", number: true},
		"cvv":                    {pattern: `^[0-9]{3,4}$`, desc: "the card's security code", number: true},
		"name":                   {desc: "the payer's first name"},
		"surname":                {desc: "the payer's last name"},
		"bill_email":             {format: "email", desc: "the payer's e-mail address"},
		"bill_phone":             {pattern: `^[0-9]{10,15}$`, desc: "the payer's phone, 10 to 15 digits with the country code (905555555555)"},
		"wallet_transient_token": {desc: "a wallet token (paycli sandbox wallet-token); its amount and currency are the payment's"},
		"items":                  {typ: "array", desc: "a list of {name, price, quantity} adding up to the total (or a JSON string holding one)"},
		"invoice":                {typ: "object", desc: "the link's invoice (or a JSON string holding it)"},
		"max_installment":        {pattern: `^[1-9][0-9]*$`, number: true, desc: "the most installments the buyer may choose"},
		"return_url":             {format: "uri", desc: "http or https URL the buyer returns to after an approved 3D payment"},
		"cancel_url":             {format: "uri", desc: "http or https URL the buyer returns to after a refused 3D payment"},
		"status":                 {desc: "confirmPayment: 1 capture, 2 cancel; /payment/complete: complete or cancel", number: true},
		"order_id":               {desc: "the sandbox's order id of the sale"},
		"card_token":             {desc: "a saved card's token (saveCard's answer)"},
		"customer_number":        {desc: "the merchant's customer number the cards are saved for"},
		"id":                     {pattern: `^[1-9][0-9]*$`, desc: "a webhook delivery id (paycli sandbox webhooks)", number: true},
		"date":                   {desc: "getTransactions: the day (2021-04-20) for type daily, the hour (2021-04-20 21:00:00) for hourly"},
		"invoiceid":              {desc: "getTransactions: only this invoice id"},
		"currency_id":            {enum: []string{"1", "2", "3"}, number: true, desc: "getTransactions: 1 TRY, 2 USD, 3 EUR"},
		"paymentmethodid":        {enum: []string{"1", "2", "3"}, number: true, desc: "getTransactions: 1 card, 2 mobile, 3 wallet"},
		"payment_method":         {enum: []string{"1", "2", "3"}, number: true, desc: "alltransaction: 1 card, 2 mobile, 3 wallet"},
		"minamount":              {pattern: amountPattern, number: true, desc: "only rows whose product_price is at least this"},
		"maxamount":              {pattern: amountPattern, number: true, desc: "only rows whose product_price is at most this"},
		"transactionState":       {pattern: `^[0-9]+$`, number: true, desc: "a transaction_state_id: 1 Completed, 2 Failed, 3 Pending, 4 Refunded, 5 Partially Refunded, 6 Cancelled, 7 Pre-Authorized, 8 Awaiting Payment, 11 Chargebacked"},
		"type":                   {enum: []string{"daily", "hourly", "range"}, desc: "getTransactions: daily (the default), hourly or range"},
		"order_by_option":        {enum: []string{"1", "2"}, number: true, desc: "getTransactions: 1 by creation date (the default), 2 by modification date"},
		"from_date":              {desc: "getTransactions range: from this time (2021-04-20 21:00:00), gateway time"},
		"to_date":                {desc: "getTransactions range: to this time, its second included"},
		"page":                   {pattern: `^[1-9][0-9]*$`, number: true, desc: "the page, from 1 (alltransaction also takes ?page=)"},
		"page_limit":             {pattern: `^[1-9][0-9]*$`, number: true, desc: "rows a page, at most 1000 (alltransaction: 10 when absent; getTransactions: every row)"},
		"transaction_id":         {desc: "alltransaction: the sale's payment_id (the sandbox's order id)"},
		"date_range":             {desc: "alltransaction: two days, both included (2021-04-20 - 2021-04-21); all time when absent"},
		"billing_phone":          {desc: "alltransaction: the payer's phone as the payment sent it"},
		"billing_email":          {desc: "alltransaction: the payer's e-mail, case ignored"},
		"search_key":             {desc: "alltransaction: text found in the invoice id, order id, e-mail or phone"},
		"order":                  {enum: []string{"asc", "desc"}, desc: "alltransaction: by creation date, desc (the default) or asc"},
	}
})

// operation is one API operation: its path under Base, whether it needs a
// bearer token, and its fields (required in the order the handler checks
// them: the first missing one is named).
type operation struct {
	path     string
	summary  string
	auth     bool
	required []string
	optional []string
}

// Field lists shared by several operations and their handlers.
var (
	cardPaymentFields = []string{"merchant_key", "hash_key", "invoice_id", "total", "currency_code", "installments_number"}
	payerFields       = []string{"name", "surname"}
	cardOptional      = []string{"transaction_type", "items", "sale_web_hook_key", "invoice_description", "bill_email"}
	threeDTargets     = []string{"return_url", "cancel_url"}
	cardOptional3D    = []string{"transaction_type", "items", "sale_web_hook_key", "invoice_description", "bill_email", "payment_completed_by"}
	savedCardFields   = []string{"card_token", "customer_number"}
)

func concat(lists ...[]string) []string { return slices.Concat(lists...) }

var (
	opToken       = &operation{path: "/api/token", summary: "Get a bearer token for the app's credentials", required: []string{"app_id", "app_secret"}}
	opCommissions = &operation{path: "/api/commissions", summary: "Look up the commission schedule of a currency", auth: true,
		required: []string{"currency_code"}, optional: []string{"commission_by", "app_lang"}}
	opWalletPay = &operation{path: "/api/walletPay", summary: "Pay with a wallet token", auth: true,
		required: []string{"merchant_key", "hash_key", "invoice_id", "wallet_transient_token", "name", "surname", "bill_email"}}
	opCheckStatus = &operation{path: "/api/checkstatus", summary: "Read a sale's status (and resolve a pending one)", auth: true,
		required: []string{"merchant_key", "invoice_id", "hash_key"}, optional: []string{"show_refund_info"}}
	opRefund = &operation{path: "/api/refund", summary: "Refund a sale, in part or whole", auth: true,
		required: []string{"invoice_id", "amount", "app_id", "app_secret", "merchant_key", "hash_key"}, optional: []string{"refund_transaction_id", "refund_web_hook_key"}}
	opPaySmart2D = &operation{path: "/api/paySmart2D", summary: "Pay by card without 3D Secure (Auth or PreAuth)", auth: true,
		required: []string{"merchant_key", "hash_key", "invoice_id", "total", "currency_code", "installments_number",
			"cc_holder_name", "cc_no", "expiry_month", "expiry_year", "cvv", "name", "surname"}, optional: cardOptional}
	opPaySmart3D = &operation{path: "/api/paySmart3D", summary: "Pay by card with 3D Secure: answers the sandbox's challenge page (a browser form; no bearer token)",
		required: []string{"return_url", "cancel_url", "merchant_key", "hash_key", "invoice_id", "total", "currency_code", "installments_number",
			"cc_holder_name", "cc_no", "expiry_month", "expiry_year", "cvv", "name", "surname"}, optional: cardOptional3D}
	opConfirmPayment = &operation{path: "/api/confirmPayment", summary: "Capture (1) or cancel (2) a pre-authorization", auth: true,
		required: []string{"merchant_key", "invoice_id", "status", "hash_key"}, optional: []string{"total"}}
	opCompletePayment = &operation{path: "/payment/complete", summary: "Complete or cancel a 3D payment approved for the merchant to complete", auth: true,
		required: []string{"merchant_key", "invoice_id", "order_id", "status", "hash_key"}}
	opGetpos = &operation{path: "/api/getpos", summary: "List the installment options of a card and amount", auth: true,
		required: []string{"credit_card", "amount", "currency_code", "merchant_key"}, optional: []string{"commission_by"}}
	opChallenge = &operation{path: ChallengePath, summary: "Answer the sandbox's 3D challenge (its stand-in for the card issuer)",
		required: []string{"order_id", "decision"}}
	opInstallments = &operation{path: "/api/installments", summary: "List the installment counts the merchant offers", auth: true,
		required: []string{"merchant_key"}}
	opSaveCard = &operation{path: "/api/saveCard", summary: "Save a card for a customer", auth: true,
		required: []string{"merchant_key", "hash_key", "customer_number", "card_holder_name", "card_number", "expiry_month", "expiry_year"},
		optional: []string{"customer_name", "customer_email", "customer_phone"}}
	opEditCard = &operation{path: "/api/editCard", summary: "Change a saved card's expiry or holder", auth: true,
		required: []string{"merchant_key", "hash_key", "card_token", "customer_number"}, optional: []string{"expiry_month", "expiry_year", "card_holder_name"}}
	opDeleteCard = &operation{path: "/api/deleteCard", summary: "Delete a saved card", auth: true,
		required: []string{"merchant_key", "hash_key", "card_token", "customer_number"}}
	opGetCardTokens = &operation{path: "/api/getCardTokens", summary: "List a customer's saved cards", auth: true,
		required: []string{"merchant_key", "customer_number"}}
	opPayByCardToken = &operation{path: "/api/payByCardToken", summary: "Pay with a saved card, with 3D Secure (answers the challenge page)", auth: true,
		required: []string{"return_url", "cancel_url", "card_token", "customer_number", "merchant_key", "hash_key", "invoice_id", "total",
			"currency_code", "installments_number", "name", "surname"}, optional: cardOptional3D}
	opPurchaseLink = &operation{path: "/purchase/link", summary: "Make a payment link", auth: true,
		required: []string{"merchant_key", "invoice", "name", "surname"}, optional: []string{"currency_code"}}
	opLinkPage = &operation{path: LinkPath + "{id}", summary: "A payment link's page (GET) and its card form (POST, form-encoded)",
		optional: []string{"cc_holder_name", "cc_no", "expiry_month", "expiry_year", "cvv", "installments_number"}}
	opGetTransactions = &operation{path: "/api/getTransactions", summary: "List the ledger's transactions of a day, an hour or a range (§11.12; hash_key made with the merchant key)", auth: true,
		required: []string{"merchant_key", "hash_key"}, optional: []string{"date", "invoiceid", "currency_id", "paymentmethodid", "minamount", "maxamount",
			"transactionState", "type", "order_by_option", "from_date", "to_date", "page", "page_limit"}}
	opAllTransaction = &operation{path: "/api/alltransaction", summary: "List the ledger's transactions, filtered and paged (§11.15)", auth: true,
		optional: []string{"transaction_id", "invoice_id", "order_id", "payment_method", "transactionState", "date_range", "currency_code", "amount",
			"maxamount", "minamount", "billing_phone", "billing_email", "search_key", "order", "page", "page_limit"}}
	opWebhooks = &operation{path: WebhooksPath, summary: "List the sandbox's webhook deliveries (sandbox administration)"}
	opResend   = &operation{path: ResendPath, summary: "Send a webhook delivery again, now (sandbox administration)", required: []string{"id"}}
)

// linkInvoiceFields and linkInvoiceOptional are the fields of a payment
// link's invoice object.
var (
	linkInvoiceFields   = []string{"invoice_id", "total", "return_url", "cancel_url", "hash_key"}
	linkInvoiceOptional = []string{"currency_code", "items", "max_installment", "transaction_type", "sale_web_hook_key", "invoice_description",
		"bill_email", "bill_phone"}
)

// operations are every operation the table describes.
var operations = []*operation{opToken, opCommissions, opWalletPay, opCheckStatus, opRefund, opPaySmart2D, opPaySmart3D,
	opConfirmPayment, opCompletePayment, opGetpos, opChallenge, opInstallments, opSaveCard, opEditCard, opDeleteCard,
	opGetCardTokens, opPayByCardToken, opPurchaseLink, opLinkPage, opWebhooks, opResend, opGetTransactions, opAllTransaction}

// operationAt finds the operation of a route's path ("" under Base).
func operationAt(path string) *operation {
	for _, op := range operations {
		if Base+op.path == path {
			return op
		}
	}
	return nil
}
