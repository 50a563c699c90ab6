package commissionscmd

import (
	"strconv"

	"github.com/paycli/paycli/internal/commission"
)

// Records is the long layout for CSV and TSV: a header row named after
// the JSON fields, then one row per entry; not-offered values are empty
// cells, numbers keep the gateway's text, amounts are plain decimals.
func Records(res *Result) (header []string, rows [][]string) {
	header = []string{"installment", "kind", "title", "card_program", "getpos_card_program",
		"merchant_commission_percentage", "merchant_commission_fixed",
		"user_commission_percentage", "user_commission_fixed", "available", "pos_id"}
	if res.Amount != nil {
		header = append(header, "amount", "merchant_fee", "merchant_net", "buyer_total", "installment_amount", "first_installment_amount")
	}
	for _, r := range res.Rows {
		e := r.Entry
		row := []string{strconv.Itoa(r.Installment), r.Kind.String(), e.Title, e.CardProgram, e.GetposCardProgram,
			plain(e.MerchantCommissionPercentage), plain(e.MerchantCommissionFixed),
			plain(e.UserCommissionPercentage), plain(e.UserCommissionFixed),
			strconv.FormatBool(r.Offered()), posID(e)}
		if res.Amount != nil {
			if r.Amounts != nil {
				s := r.Amounts.Strings()
				row = append(row, s[:]...)
			} else {
				row = append(row, "", "", "", "", "", "")
			}
		}
		rows = append(rows, row)
	}
	return header, rows
}

func plain(v commission.Value) string {
	if !v.Available() {
		return ""
	}
	return v.String()
}

func posID(e commission.Entry) string {
	if e.PosID == nil {
		return ""
	}
	return strconv.FormatInt(*e.PosID, 10)
}
