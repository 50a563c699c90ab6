package sandbox

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/paycli/paycli/internal/commission"
	"github.com/paycli/paycli/internal/hashkey"
	"github.com/shopspring/decimal"
)

// installmentOption is what one installment count of a card's program
// costs for one amount.
type installmentOption struct {
	Program     string // getpos name; "" for a foreign card
	PosID       int
	Installment int
	Rates       commission.Rates
	Amounts     commission.Amounts
}

// options prices amount in currency for the card whose first six digits
// are bin, for every installment count its program offers (only 1 for a
// card the schedule does not know: a foreign card, at the foreign-card
// rate). byUser puts the commission on the buyer (commission_by=user).
// The rates are read back from the sandbox's own commission lookup answer
// with internal/commission's decoder and priced with its ComputeAmounts, so
// getpos and card payments agree to the cent with `paycli commissions
// --amount` for the same program. ok is false for a currency the schedule
// does not have.
func (s *Schedule) options(currency, bin string, amount decimal.Decimal, byUser bool) (opts []installmentOption, ok bool, err error) {
	data, ok := s.Lookup(currency, byUser, "en")
	if !ok {
		return nil, false, nil
	}
	minor := minorUnit(currency)
	program, known := s.BINs[bin]
	debit := s.isDebit(bin)
	for _, n := range slices.Sorted(func(yield func(int) bool) {
		for k := range data {
			if !yield(k) {
				return
			}
		}
	}) {
		for _, ce := range data[n] {
			match := known && ce.GetposCardProgram == program && (!debit || n == 1)
			foreign := !known && n == 1 && ce.Title == textsFor("en").foreignCard
			if !match && !foreign {
				continue
			}
			raw, err := json.Marshal(ce)
			if err != nil {
				return nil, true, err
			}
			var e commission.Entry
			if err := json.Unmarshal(raw, &e); err != nil {
				return nil, true, fmt.Errorf("schedule %s %s: %w", currency, ce.CardProgram, err)
			}
			rates := commission.RatesOf(e)
			a, offered, err := commission.ComputeAmounts(amount, n, rates, minor)
			if err != nil {
				return nil, true, err
			}
			if !offered {
				continue
			}
			opt := installmentOption{Installment: n, Rates: rates, Amounts: a}
			if match {
				opt.Program = program
				if ce.PosID != nil {
					opt.PosID = *ce.PosID
				}
			}
			opts = append(opts, opt)
		}
	}
	return opts, true, nil
}

// option finds the option for n installments (ok false when not offered).
func findOption(opts []installmentOption, n int) (installmentOption, bool) {
	i := slices.IndexFunc(opts, func(o installmentOption) bool { return o.Installment == n })
	if i < 0 {
		return installmentOption{}, false
	}
	return opts[i], true
}

// offeredCounts lists the installment counts of opts, for messages.
func offeredCounts(opts []installmentOption) string {
	counts := make([]string, len(opts))
	for i, o := range opts {
		counts[i] = strconv.Itoa(o.Installment)
	}
	return strings.Join(counts, ", ")
}

// getposOption is one element of getpos's data, field for field (names,
// order and JSON types) as the gateway answers (docs/protocol.md, getpos):
// payable_amount a number, amount_to_be_paid a string with the currency's
// decimals, merchant_fee a number with up to four decimals, card_bank_id
// a string.
type getposOption struct {
	PosID              int         `json:"pos_id"`
	CampaignID         int         `json:"campaign_id"`
	AllocationID       int         `json:"allocation_id"`
	InstallmentsNumber int         `json:"installments_number"`
	CardType           string      `json:"card_type"`
	CardProgram        string      `json:"card_program"`
	CardScheme         string      `json:"card_scheme"`
	CardIsCommercial   bool        `json:"card_is_commercial"`
	PayableAmount      json.Number `json:"payable_amount"`
	HashKey            string      `json:"hash_key"`
	AmountToBePaid     string      `json:"amount_to_be_paid"`
	CurrencyCode       string      `json:"currency_code"`
	CurrencyID         int         `json:"currency_id"`
	Title              string      `json:"title"`
	MerchantFee        json.Number `json:"merchant_fee"`
	CardBankID         string      `json:"card_bank_id"`
	CardBankName       string      `json:"card_bank_name"`
}

// currencyID is the gateway's numeric id of a currency (0: none).
func currencyID(code string) int {
	switch code {
	case "TRY":
		return 1
	case "USD":
		return 2
	case "EUR":
		return 3
	}
	return 0
}

// cardScheme guesses a card's scheme from its first digits, named as
// getpos names it (MASTER_CARD, VISA, …).
func cardScheme(bin string) string {
	switch {
	case strings.HasPrefix(bin, "4"):
		return "VISA"
	case len(bin) >= 2 && bin[0] == '5' && bin[1] >= '1' && bin[1] <= '5', strings.HasPrefix(bin, "2"):
		return "MASTER_CARD"
	case strings.HasPrefix(bin, "9792"):
		return "TROY"
	case strings.HasPrefix(bin, "34"), strings.HasPrefix(bin, "37"):
		return "AMEX"
	}
	return "MASTER_CARD"
}

// cardType is getpos's card_type of a BIN.
func (s *Schedule) cardType(bin string) string {
	if s.isDebit(bin) {
		return "DEBIT_CARD"
	}
	return "CREDIT_CARD"
}

// merchantFee is what the merchant pays for an option: the amount times
// the merchant's percentage, plus the fixed part, to four decimals and
// written as a number, as getpos writes it (not rounded to the currency's
// minor unit; the commission table's arithmetic rounds that figure).
func merchantFee(amount decimal.Decimal, rates commission.Rates) json.Number {
	pct, okP := rates.MerchantPercentage.Decimal()
	fixed, okF := rates.MerchantFixed.Decimal()
	if !okP {
		pct = decimal.Zero
	}
	if !okF {
		fixed = decimal.Zero
	}
	return json.Number(amount.Mul(pct).Div(decimal.NewFromInt(100)).Add(fixed).Round(4).String())
}

// getpos serves POST /api/getpos: the installment options for the card
// whose first six digits are credit_card, for amount in currency_code. A
// longer credit_card is cut to six digits; the rest is never kept.
// payable_amount and amount_to_be_paid are what the buyer pays in total
// (the amount itself when the merchant bears the commission); hash_key is
// an opaque token of the option.
func (g *Gateway) getpos(w http.ResponseWriter, r *http.Request) {
	f, ok := g.readFields(w, r)
	if !ok || !f.requireFields(w, opGetpos.required...) {
		return
	}
	bin := f.get("credit_card")
	if len(bin) > 6 {
		bin = bin[:6]
	}
	if len(bin) != 6 || strings.Trim(bin, "0123456789") != "" {
		writeStatus(w, 1, "The credit card must hold the card number's first 6 digits.")
		return
	}
	if !g.verifyMerchant(w, f) {
		return
	}
	currency := strings.ToUpper(f.get("currency_code"))
	if !isUpperAlpha(currency, 3) {
		writeStatus(w, 1, "The currency code must be 3 letters.")
		return
	}
	amount, ok := parseAmount(w, "amount", f.get("amount"), currency)
	if !ok {
		return
	}
	by := strings.ToLower(f.get("commission_by"))
	if !fieldSpecs()["commission_by"].allows(by) {
		writeStatus(w, 1, "The selected commission by is invalid.")
		return
	}
	opts, known, err := g.opts.Schedule.options(currency, bin, amount, by == "user")
	if err != nil {
		writeInternal(w, err)
		return
	}
	if !known {
		writeStatus(w, 12, fmt.Sprintf("Invalid currency: %s is not accepted", currency))
		return
	}
	data := make([]getposOption, 0, len(opts))
	for _, o := range opts {
		total := o.Amounts.BuyerTotal.StringFixed(o.Amounts.MinorUnit)
		title := "Single payment"
		if o.Installment > 1 {
			title = strconv.Itoa(o.Installment)
		}
		hk, err := hashkey.Generate(g.opts.Credentials.AppSecret, hashkey.Join(total, strconv.Itoa(o.Installment), currency, strconv.Itoa(o.PosID)))
		if err != nil {
			writeInternal(w, err)
			return
		}
		program := o.Program
		if program == "" {
			program = "FOREIGN"
		}
		bank := g.opts.Schedule.Banks[o.Program]
		data = append(data, getposOption{PosID: o.PosID, InstallmentsNumber: o.Installment, CardType: g.opts.Schedule.cardType(bin),
			CardProgram: program, CardScheme: cardScheme(bin), PayableAmount: json.Number(o.Amounts.BuyerTotal.String()), HashKey: hk,
			AmountToBePaid: total, CurrencyCode: currency, CurrencyID: currencyID(currency), Title: title,
			MerchantFee: merchantFee(amount, o.Rates), CardBankID: bank.ID, CardBankName: bank.Name})
	}
	writeJSON(w, http.StatusOK, statusBody{StatusCode: 100, StatusDescription: "Installment options retrieved", Data: data})
}

// installments serves POST /api/installments: the installment counts the
// merchant may offer, every count some program offers in some currency,
// at the top level under "installments".
func (g *Gateway) installments(w http.ResponseWriter, r *http.Request) {
	f, ok := g.readFields(w, r)
	if !ok || !f.requireFields(w, opInstallments.required...) || !g.verifyMerchant(w, f) {
		return
	}
	seen := map[int]bool{}
	for _, cs := range g.opts.Schedule.Currencies {
		for _, p := range cs.Programs {
			for i, rate := range p.Rates {
				if !isMarker(rate) {
					seen[i+1] = true
				}
			}
		}
	}
	counts := make([]int, 0, len(seen))
	for n := range seen {
		counts = append(counts, n)
	}
	slices.Sort(counts)
	writeJSON(w, http.StatusOK, map[string]any{"status_code": 100, "status_description": "Installments retrieved", "installments": counts})
}
