package money

import (
	"fmt"
	"sort"
	"strings"
)

// Currency is an active ISO 4217 currency: its code, its minor unit (the
// number of decimals amounts are written with: 2 for TRY, 0 for JPY, 3 for
// KWD) and its English name.
type Currency struct {
	Code      string
	MinorUnit int32
	Name      string
}

// iso4217 is ISO 4217's list one (active currencies and funds) without the
// codes that have no minor unit (precious metals, XDR, testing codes),
// sorted by code. It is read, never written.
var iso4217 = [...]Currency{
	{"AED", 2, "UAE Dirham"},
	{"AFN", 2, "Afghani"},
	{"ALL", 2, "Lek"},
	{"AMD", 2, "Armenian Dram"},
	{"AOA", 2, "Kwanza"},
	{"ARS", 2, "Argentine Peso"},
	{"AUD", 2, "Australian Dollar"},
	{"AWG", 2, "Aruban Florin"},
	{"AZN", 2, "Azerbaijan Manat"},
	{"BAM", 2, "Convertible Mark"},
	{"BBD", 2, "Barbados Dollar"},
	{"BDT", 2, "Taka"},
	{"BGN", 2, "Bulgarian Lev"},
	{"BHD", 3, "Bahraini Dinar"},
	{"BIF", 0, "Burundi Franc"},
	{"BMD", 2, "Bermudian Dollar"},
	{"BND", 2, "Brunei Dollar"},
	{"BOB", 2, "Boliviano"},
	{"BOV", 2, "Mvdol"},
	{"BRL", 2, "Brazilian Real"},
	{"BSD", 2, "Bahamian Dollar"},
	{"BTN", 2, "Ngultrum"},
	{"BWP", 2, "Pula"},
	{"BYN", 2, "Belarusian Ruble"},
	{"BZD", 2, "Belize Dollar"},
	{"CAD", 2, "Canadian Dollar"},
	{"CDF", 2, "Congolese Franc"},
	{"CHE", 2, "WIR Euro"},
	{"CHF", 2, "Swiss Franc"},
	{"CHW", 2, "WIR Franc"},
	{"CLF", 4, "Unidad de Fomento"},
	{"CLP", 0, "Chilean Peso"},
	{"CNY", 2, "Yuan Renminbi"},
	{"COP", 2, "Colombian Peso"},
	{"COU", 2, "Unidad de Valor Real"},
	{"CRC", 2, "Costa Rican Colon"},
	{"CUP", 2, "Cuban Peso"},
	{"CVE", 2, "Cabo Verde Escudo"},
	{"CZK", 2, "Czech Koruna"},
	{"DJF", 0, "Djibouti Franc"},
	{"DKK", 2, "Danish Krone"},
	{"DOP", 2, "Dominican Peso"},
	{"DZD", 2, "Algerian Dinar"},
	{"EGP", 2, "Egyptian Pound"},
	{"ERN", 2, "Nakfa"},
	{"ETB", 2, "Ethiopian Birr"},
	{"EUR", 2, "Euro"},
	{"FJD", 2, "Fiji Dollar"},
	{"FKP", 2, "Falkland Islands Pound"},
	{"GBP", 2, "Pound Sterling"},
	{"GEL", 2, "Lari"},
	{"GHS", 2, "Ghana Cedi"},
	{"GIP", 2, "Gibraltar Pound"},
	{"GMD", 2, "Dalasi"},
	{"GNF", 0, "Guinean Franc"},
	{"GTQ", 2, "Quetzal"},
	{"GYD", 2, "Guyana Dollar"},
	{"HKD", 2, "Hong Kong Dollar"},
	{"HNL", 2, "Lempira"},
	{"HTG", 2, "Gourde"},
	{"HUF", 2, "Forint"},
	{"IDR", 2, "Rupiah"},
	{"ILS", 2, "New Israeli Sheqel"},
	{"INR", 2, "Indian Rupee"},
	{"IQD", 3, "Iraqi Dinar"},
	{"IRR", 2, "Iranian Rial"},
	{"ISK", 0, "Iceland Krona"},
	{"JMD", 2, "Jamaican Dollar"},
	{"JOD", 3, "Jordanian Dinar"},
	{"JPY", 0, "Yen"},
	{"KES", 2, "Kenyan Shilling"},
	{"KGS", 2, "Som"},
	{"KHR", 2, "Riel"},
	{"KMF", 0, "Comorian Franc"},
	{"KPW", 2, "North Korean Won"},
	{"KRW", 0, "Won"},
	{"KWD", 3, "Kuwaiti Dinar"},
	{"KYD", 2, "Cayman Islands Dollar"},
	{"KZT", 2, "Tenge"},
	{"LAK", 2, "Lao Kip"},
	{"LBP", 2, "Lebanese Pound"},
	{"LKR", 2, "Sri Lanka Rupee"},
	{"LRD", 2, "Liberian Dollar"},
	{"LSL", 2, "Loti"},
	{"LYD", 3, "Libyan Dinar"},
	{"MAD", 2, "Moroccan Dirham"},
	{"MDL", 2, "Moldovan Leu"},
	{"MGA", 2, "Malagasy Ariary"},
	{"MKD", 2, "Denar"},
	{"MMK", 2, "Kyat"},
	{"MNT", 2, "Tugrik"},
	{"MOP", 2, "Pataca"},
	{"MRU", 2, "Ouguiya"},
	{"MUR", 2, "Mauritius Rupee"},
	{"MVR", 2, "Rufiyaa"},
	{"MWK", 2, "Malawi Kwacha"},
	{"MXN", 2, "Mexican Peso"},
	{"MXV", 2, "Mexican Unidad de Inversion (UDI)"},
	{"MYR", 2, "Malaysian Ringgit"},
	{"MZN", 2, "Mozambique Metical"},
	{"NAD", 2, "Namibia Dollar"},
	{"NGN", 2, "Naira"},
	{"NIO", 2, "Cordoba Oro"},
	{"NOK", 2, "Norwegian Krone"},
	{"NPR", 2, "Nepalese Rupee"},
	{"NZD", 2, "New Zealand Dollar"},
	{"OMR", 3, "Rial Omani"},
	{"PAB", 2, "Balboa"},
	{"PEN", 2, "Sol"},
	{"PGK", 2, "Kina"},
	{"PHP", 2, "Philippine Peso"},
	{"PKR", 2, "Pakistan Rupee"},
	{"PLN", 2, "Zloty"},
	{"PYG", 0, "Guarani"},
	{"QAR", 2, "Qatari Rial"},
	{"RON", 2, "Romanian Leu"},
	{"RSD", 2, "Serbian Dinar"},
	{"RUB", 2, "Russian Ruble"},
	{"RWF", 0, "Rwanda Franc"},
	{"SAR", 2, "Saudi Riyal"},
	{"SBD", 2, "Solomon Islands Dollar"},
	{"SCR", 2, "Seychelles Rupee"},
	{"SDG", 2, "Sudanese Pound"},
	{"SEK", 2, "Swedish Krona"},
	{"SGD", 2, "Singapore Dollar"},
	{"SHP", 2, "Saint Helena Pound"},
	{"SLE", 2, "Leone"},
	{"SOS", 2, "Somali Shilling"},
	{"SRD", 2, "Surinam Dollar"},
	{"SSP", 2, "South Sudanese Pound"},
	{"STN", 2, "Dobra"},
	{"SVC", 2, "El Salvador Colon"},
	{"SYP", 2, "Syrian Pound"},
	{"SZL", 2, "Lilangeni"},
	{"THB", 2, "Baht"},
	{"TJS", 2, "Somoni"},
	{"TMT", 2, "Turkmenistan New Manat"},
	{"TND", 3, "Tunisian Dinar"},
	{"TOP", 2, "Pa'anga"},
	{"TRY", 2, "Turkish Lira"},
	{"TTD", 2, "Trinidad and Tobago Dollar"},
	{"TWD", 2, "New Taiwan Dollar"},
	{"TZS", 2, "Tanzanian Shilling"},
	{"UAH", 2, "Hryvnia"},
	{"UGX", 0, "Uganda Shilling"},
	{"USD", 2, "US Dollar"},
	{"USN", 2, "US Dollar (Next day)"},
	{"UYI", 0, "Uruguay Peso en Unidades Indexadas (UI)"},
	{"UYU", 2, "Peso Uruguayo"},
	{"UYW", 4, "Unidad Previsional"},
	{"UZS", 2, "Uzbekistan Sum"},
	{"VED", 2, "Bolivar Soberano"},
	{"VES", 2, "Bolivar Soberano"},
	{"VND", 0, "Dong"},
	{"VUV", 0, "Vatu"},
	{"WST", 2, "Tala"},
	{"XAF", 0, "CFA Franc BEAC"},
	{"XCD", 2, "East Caribbean Dollar"},
	{"XCG", 2, "Caribbean Guilder"},
	{"XOF", 0, "CFA Franc BCEAO"},
	{"XPF", 0, "CFP Franc"},
	{"YER", 2, "Yemeni Rial"},
	{"ZAR", 2, "Rand"},
	{"ZMW", 2, "Zambian Kwacha"},
	{"ZWG", 2, "Zimbabwe Gold"},
}

// Currencies returns the active ISO 4217 currencies, sorted by code. The
// slice is the caller's own.
func Currencies() []Currency {
	out := make([]Currency, len(iso4217))
	copy(out, iso4217[:])
	return out
}

// LookupCurrency finds a currency by its code, in any letter case.
func LookupCurrency(code string) (Currency, bool) {
	code = strings.ToUpper(strings.TrimSpace(code))
	i := sort.Search(len(iso4217), func(i int) bool { return iso4217[i].Code >= code })
	if i < len(iso4217) && iso4217[i].Code == code {
		return iso4217[i], true
	}
	return Currency{}, false
}

// GatewayCurrencies are the currencies the gateway documents and the
// sandbox prices (commissions, payments): the ones an error about a
// currency names, and completion offers first.
func GatewayCurrencies() []string { return []string{"TRY", "USD", "EUR"} }

// CheckCode refuses a code that is not an active ISO 4217 currency
// ("TRL", retired in 2005), naming the gateway's currencies; it returns
// the currency of one that is.
func CheckCode(code string) (Currency, error) {
	c, ok := LookupCurrency(code)
	if !ok {
		return Currency{}, fmt.Errorf("%s is not an ISO 4217 currency code; the gateway takes %s", shownText(code), strings.Join(GatewayCurrencies(), ", "))
	}
	return c, nil
}

// MinorUnit returns the number of decimals of a currency's amounts, and
// whether the currency is known.
func MinorUnit(code string) (int32, bool) {
	c, ok := LookupCurrency(code)
	return c.MinorUnit, ok
}
