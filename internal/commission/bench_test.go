package commission

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// benchSchedule is a commission response's data the size of a large real
// one: 12 installment counts, 12 card programs each, plus the saved-card
// and foreign-card entries on installment 1.
func benchSchedule() []byte {
	var b strings.Builder
	b.WriteString("{")
	for n := 1; n <= 12; n++ {
		if n > 1 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `"%d":[`, n)
		for p := range 12 {
			if p > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, `{"title":"Regular Commission","card_program":"PROG%d","merchant_commission_percentage":"%d.2500","merchant_commission_fixed":"0.0000","user_commission_percentage":0.5,"user_commission_fixed":"x","currency_code":"TRY","installment":%d,"pos_id":%d,"getpos_card_program":"PROG%d","issuer_name":"Bank"}`, p, n, n, p, p)
		}
		if n == 1 {
			b.WriteString(`,{"title":"Save Card Token Payment Commission","card_program":"","merchant_commission_percentage":"2.0000","merchant_commission_fixed":"-","user_commission_percentage":"-","user_commission_fixed":"-","currency_code":"TRY","installment":1}`)
			b.WriteString(`,{"title":"Foreign Card Commission","card_program":"","merchant_commission_percentage":3,"merchant_commission_fixed":0,"user_commission_percentage":"x","user_commission_fixed":"x","currency_code":"TRY","installment":1}`)
		}
		b.WriteString("]")
	}
	b.WriteString("}")
	return []byte(b.String())
}

func BenchmarkScheduleDecode(b *testing.B) {
	data := benchSchedule()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		var s Schedule
		if err := json.Unmarshal(data, &s); err != nil {
			b.Fatal(err)
		}
	}
}
