package sandbox

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/shopspring/decimal"
)

//go:embed data/schedule.json
var scheduleJSON []byte

// Schedule is the sandbox's commission table: per currency, the card
// programs with a percentage per installment, and the saved-card-token and
// foreign-card rates that apply to single payments. Values are kept as the
// raw JSON the gateway would send (a 4-decimal string, a plain number, or a
// marker "x", "X" or "-" meaning "not offered").
type Schedule struct {
	Currencies map[string]CurrencySchedule `json:"currencies"`
	// BINs maps a card's first six digits to its program (getpos name);
	// a BIN not listed is a foreign card.
	BINs map[string]string `json:"bins"`
	// Banks names the bank that issues each program's cards (getpos name).
	Banks map[string]Bank `json:"banks"`
	// DebitBINs are the BINs of debit cards, which pay in one installment.
	DebitBINs []string `json:"debit_bins"`
}

// Bank is a card's issuing bank as getpos names it: its Turkish EFT bank
// code (card_bank_id, a string in the gateway's answer) and name.
type Bank struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// currencyList names the schedule's currencies, for messages.
func (s *Schedule) currencyList() string {
	return strings.Join(slices.Sorted(maps.Keys(s.Currencies)), ", ")
}

// isDebit reports whether bin is a debit card's.
func (s *Schedule) isDebit(bin string) bool { return slices.Contains(s.DebitBINs, bin) }

// CurrencySchedule is the commission table of one currency.
type CurrencySchedule struct {
	Programs    []Program `json:"programs"`
	SavedCard   FlatRate  `json:"saved_card"`
	ForeignCard FlatRate  `json:"foreign_card"`
}

// Program is one card program's terminal and rates; Rates[i] applies to
// installment i+1 and the program stops where the list ends.
type Program struct {
	CardProgram       string            `json:"card_program"`
	GetposCardProgram string            `json:"getpos_card_program"`
	PosID             int               `json:"pos_id"`
	Fixed             json.RawMessage   `json:"fixed"`
	Rates             []json.RawMessage `json:"rates"`
}

// FlatRate is a single-payment rate without a terminal of its own.
type FlatRate struct {
	Rate  json.RawMessage `json:"rate"`
	Fixed json.RawMessage `json:"fixed"`
}

// DefaultSchedule returns the schedule embedded in the binary.
func DefaultSchedule() (*Schedule, error) {
	var s Schedule
	if err := json.Unmarshal(scheduleJSON, &s); err != nil {
		return nil, fmt.Errorf("embedded commission schedule: %w", err)
	}
	return &s, nil
}

// scheduleTexts are the texts of the commission lookup in one language.
type scheduleTexts struct{ ok, regular, savedCard, foreignCard string }

// textsFor returns the lookup's texts for app_lang: Turkish for "tr",
// English for anything else (as the gateway does).
func textsFor(lang string) scheduleTexts {
	if strings.EqualFold(lang, "tr") {
		return scheduleTexts{"Komisyonlar başarıyla getirildi", "Normal Komisyon", "Kayıtlı Kart Token ile Ödeme Komisyonu", "Yabancı Kart Komisyonu"}
	}
	return scheduleTexts{"Commissions retrieved successfully", "Regular Commission", "Save Card Token Payment Commission", "Foreign Card Commission"}
}

// commissionEntry is one element of the lookup's data arrays
// (docs/protocol.md, Commissions).
// Field order follows the gateway's responses.
type commissionEntry struct {
	Title                        string          `json:"title"`
	CardProgram                  string          `json:"card_program"`
	MerchantCommissionPercentage json.RawMessage `json:"merchant_commission_percentage"`
	MerchantCommissionFixed      json.RawMessage `json:"merchant_commission_fixed"`
	UserCommissionPercentage     json.RawMessage `json:"user_commission_percentage"`
	UserCommissionFixed          json.RawMessage `json:"user_commission_fixed"`
	CurrencyCode                 string          `json:"currency_code"`
	Installment                  int             `json:"installment"`
	PosID                        *int            `json:"pos_id,omitempty"`
	GetposCardProgram            string          `json:"getpos_card_program,omitempty"`
}

// isMarker reports whether a raw value is one of the "not offered" markers.
func isMarker(v json.RawMessage) bool {
	switch string(v) {
	case `"x"`, `"X"`, `"-"`:
		return true
	}
	return false
}

// zeroLike returns a zero written the way v is written: "0.0000" for a
// string, 0 for a number.
func zeroLike(v json.RawMessage) json.RawMessage {
	if strings.HasPrefix(string(v), `"`) {
		return json.RawMessage(`"0.0000"`)
	}
	return json.RawMessage(`0`)
}

// installmentTable is the data object of a commission lookup: entries per
// installment count. It marshals as an object keyed by the count as a
// decimal string, in numeric order ("1", "2", ... "12") as the gateway
// sends it, where a Go map would sort "10" before "2".
type installmentTable map[int][]commissionEntry

// MarshalJSON writes the table in numeric key order.
func (t installmentTable) MarshalJSON() ([]byte, error) {
	keys := make([]int, 0, len(t))
	for k := range t {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var buf bytes.Buffer
	buf.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			buf.WriteByte(',')
		}
		entries, err := json.Marshal(t[k])
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(&buf, "%q:", strconv.Itoa(k))
		buf.Write(entries)
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

// Lookup builds the data object of a commission lookup. byUser moves the
// commission to the user fields (commission_by=user); lang picks the texts.
// ok is false for an unknown currency.
func (s *Schedule) Lookup(currency string, byUser bool, lang string) (data installmentTable, ok bool) {
	cs, ok := s.Currencies[currency]
	if !ok {
		return nil, false
	}
	texts := textsFor(lang)
	data = installmentTable{}
	for _, p := range cs.Programs {
		for i, rate := range p.Rates {
			inst := i + 1
			e := commissionEntry{
				Title:             texts.regular,
				CardProgram:       p.CardProgram,
				CurrencyCode:      currency,
				Installment:       inst,
				PosID:             &p.PosID,
				GetposCardProgram: p.GetposCardProgram,
			}
			switch {
			case isMarker(rate):
				e.MerchantCommissionPercentage, e.MerchantCommissionFixed = rate, rate
				e.UserCommissionPercentage, e.UserCommissionFixed = rate, rate
			case byUser:
				e.MerchantCommissionPercentage, e.MerchantCommissionFixed = zeroLike(rate), zeroLike(p.Fixed)
				e.UserCommissionPercentage, e.UserCommissionFixed = rate, p.Fixed
			default:
				e.MerchantCommissionPercentage, e.MerchantCommissionFixed = rate, p.Fixed
				e.UserCommissionPercentage, e.UserCommissionFixed = json.RawMessage(`0`), json.RawMessage(`0`)
			}
			data[inst] = append(data[inst], e)
		}
	}
	for _, flat := range []struct {
		title string
		rate  FlatRate
	}{{texts.savedCard, cs.SavedCard}, {texts.foreignCard, cs.ForeignCard}} {
		e := commissionEntry{Title: flat.title, CardProgram: "", CurrencyCode: currency, Installment: 1}
		if byUser {
			e.MerchantCommissionPercentage, e.MerchantCommissionFixed = zeroLike(flat.rate.Rate), zeroLike(flat.rate.Fixed)
			e.UserCommissionPercentage, e.UserCommissionFixed = flat.rate.Rate, flat.rate.Fixed
		} else {
			e.MerchantCommissionPercentage, e.MerchantCommissionFixed = flat.rate.Rate, flat.rate.Fixed
			e.UserCommissionPercentage, e.UserCommissionFixed = json.RawMessage(`"-"`), json.RawMessage(`"-"`)
		}
		data[1] = append(data[1], e)
	}
	return data, true
}

// SingleRate is the merchant-borne rate that applies to a single payment
// with a card: the card program's installment-1 rate, or the foreign-card
// rate for a BIN the schedule does not know.
type SingleRate struct {
	Program    string // getpos name, or "" for a foreign card
	Percentage decimal.Decimal
	Fixed      decimal.Decimal
}

// RateForBIN finds the single-payment rate for a card. ok is false when the
// currency is not in the schedule.
func (s *Schedule) RateForBIN(currency, bin string) (SingleRate, bool, error) {
	cs, ok := s.Currencies[currency]
	if !ok {
		return SingleRate{}, false, nil
	}
	program := s.BINs[bin]
	for _, p := range cs.Programs {
		if p.GetposCardProgram != program || len(p.Rates) == 0 {
			continue
		}
		pct, err1 := rawDecimal(p.Rates[0])
		fixed, err2 := rawDecimal(p.Fixed)
		if err1 != nil || err2 != nil {
			return SingleRate{}, true, fmt.Errorf("schedule %s %s: installment 1 is not offered", currency, program)
		}
		return SingleRate{Program: program, Percentage: pct, Fixed: fixed}, true, nil
	}
	pct, err1 := rawDecimal(cs.ForeignCard.Rate)
	fixed, err2 := rawDecimal(cs.ForeignCard.Fixed)
	if err1 != nil || err2 != nil {
		return SingleRate{}, true, fmt.Errorf("schedule %s: foreign card rate is not a number", currency)
	}
	return SingleRate{Percentage: pct, Fixed: fixed}, true, nil
}

// rawDecimal reads a raw JSON number or decimal string.
func rawDecimal(v json.RawMessage) (decimal.Decimal, error) {
	s := string(v)
	if unq, err := strconv.Unquote(s); err == nil {
		s = unq
	}
	return decimal.NewFromString(s)
}
