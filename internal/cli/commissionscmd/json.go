package commissionscmd

import (
	"encoding/json"
	"io"

	"github.com/paycli/paycli/internal/commission"
	"github.com/paycli/paycli/internal/render"
)

// JSONOutput is the document `paycli commissions -o json` prints. Its
// fields are a stable interface (docs/json-output.md): fields may be
// added, never renamed or removed.
type JSONOutput struct {
	Currency     string            `json:"currency"`
	CommissionBy string            `json:"commission_by"`
	Installments []JSONInstallment `json:"installments"`
}

// JSONInstallment is the entries of one installment count.
type JSONInstallment struct {
	Installment int         `json:"installment"`
	Entries     []JSONEntry `json:"entries"`
}

// JSONEntry is one commission entry. Rates are the gateway's own text for
// the number, as a string; a not-offered marker is null.
type JSONEntry struct {
	Kind                         string                     `json:"kind"`
	Title                        string                     `json:"title"`
	CardProgram                  string                     `json:"card_program"`
	MerchantCommissionPercentage *string                    `json:"merchant_commission_percentage"`
	MerchantCommissionFixed      *string                    `json:"merchant_commission_fixed"`
	UserCommissionPercentage     *string                    `json:"user_commission_percentage"`
	UserCommissionFixed          *string                    `json:"user_commission_fixed"`
	Available                    bool                       `json:"available"`
	PosID                        *int64                     `json:"pos_id,omitempty"`
	GetposCardProgram            string                     `json:"getpos_card_program,omitempty"`
	Extra                        map[string]json.RawMessage `json:"extra,omitempty"`
	Amounts                      *JSONAmounts               `json:"amounts,omitempty"`
}

// JSONAmounts are the amounts of a sale, as decimal strings with exactly
// the currency's number of decimals.
type JSONAmounts struct {
	Amount                 string `json:"amount"`
	MerchantFee            string `json:"merchant_fee"`
	MerchantNet            string `json:"merchant_net"`
	BuyerTotal             string `json:"buyer_total"`
	InstallmentAmount      string `json:"installment_amount"`
	FirstInstallmentAmount string `json:"first_installment_amount"`
}

// NewJSONOutput builds the JSON document of a result.
func NewJSONOutput(res *Result) JSONOutput {
	doc := JSONOutput{Currency: res.Currency, CommissionBy: res.CommissionBy, Installments: []JSONInstallment{}}
	for _, r := range res.Rows {
		if n := len(doc.Installments); n == 0 || doc.Installments[n-1].Installment != r.Installment {
			doc.Installments = append(doc.Installments, JSONInstallment{Installment: r.Installment, Entries: []JSONEntry{}})
		}
		last := &doc.Installments[len(doc.Installments)-1]
		last.Entries = append(last.Entries, jsonEntry(r))
	}
	return doc
}

func jsonEntry(r commission.Row) JSONEntry {
	e := r.Entry
	out := JSONEntry{
		Kind:                         r.Kind.String(),
		Title:                        e.Title,
		CardProgram:                  e.CardProgram,
		MerchantCommissionPercentage: rateText(e.MerchantCommissionPercentage),
		MerchantCommissionFixed:      rateText(e.MerchantCommissionFixed),
		UserCommissionPercentage:     rateText(e.UserCommissionPercentage),
		UserCommissionFixed:          rateText(e.UserCommissionFixed),
		Available:                    r.Offered(),
		PosID:                        e.PosID,
		GetposCardProgram:            e.GetposCardProgram,
	}
	if len(e.Extra) > 0 {
		out.Extra = e.Extra
	}
	if a := r.Amounts; a != nil {
		s := a.Strings()
		out.Amounts = &JSONAmounts{s[0], s[1], s[2], s[3], s[4], s[5]}
	}
	return out
}

// writeJSON writes the JSON document of a result (-o json).
func writeJSON(w io.Writer, res *Result) error {
	return render.WriteJSON(w, NewJSONOutput(res))
}

// rateText is the gateway's text for a number, nil for a marker.
func rateText(v commission.Value) *string {
	if !v.Available() {
		return nil
	}
	s := v.String()
	return &s
}
