package gateway

// sipayDialect is Sipay's: its answers are JSON objects, and its order
// references strings, as its OpenAPI example (sipayEn.yaml) and official
// SDK (sipay-tr/sipay-php-sdk) show them. The members without pages of
// their own speak it too (DialectOf).
func sipayDialect() Dialect {
	return Dialect{Member: "Sipay"}
}
