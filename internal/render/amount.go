package render

import "fmt"

// Amount is the one way an amount is shown to a person (tables,
// summaries, messages): the whole part grouped by thousands, the decimals
// as given, then the currency code when there is one: "6,000.00 TRY".
// JSON, CSV and suggested command lines keep the plain decimal.
func Amount(value, currency string) string {
	if currency == "" {
		return GroupThousands(value)
	}
	if value == "" {
		return currency
	}
	return GroupThousands(value) + " " + currency
}

// Count is n with the noun that agrees with it: "1 invoice", "2 invoices".
func Count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
