package render

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
