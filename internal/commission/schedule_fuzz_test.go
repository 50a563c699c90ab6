package commission

import (
	"bytes"
	"encoding/json"
	"testing"
)

// FuzzSchedule feeds arbitrary JSON to the commission response decoder (the
// data object of a commission lookup). It must never panic; an accepted
// schedule has no negative installment count, encodes, and its encoding
// decodes to a schedule that encodes identically (decode∘encode is a fixed
// point after one pass). Seeds are in testdata/fuzz/FuzzSchedule.
func FuzzSchedule(f *testing.F) {
	for _, s := range []string{
		`{"1":[{"title":"Regular Commission","card_program":"WORLD","merchant_commission_percentage":"1.5000","merchant_commission_fixed":"0.0000","user_commission_percentage":0.25,"user_commission_fixed":"x","currency_code":"TRY","installment":1,"pos_id":7,"getpos_card_program":"WORLD","issuer_name":"Bank"}]}`,
		`{"2":[{"title":"Foreign Card Commission","merchant_commission_percentage":"-","installment":"2"}],"3":[]}`,
		`[[{"installment":1,"card_program":"BONUS"}],[{"installment":"4"}]]`,
		`[[{"installment":-1}]]`, `{"1":[{"installment":"-3"}]}`, `[]`, `null`, `{}`, `{" 6 ":[{}]}`, `{"x":[]}`, `{"1":{}}`, `[[null]]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var s Schedule
		if err := json.Unmarshal(data, &s); err != nil {
			return
		}
		for n, list := range s {
			if n < 0 {
				t.Fatalf("accepted installment count %d", n)
			}
			for _, e := range list {
				if e.Installment < 0 {
					t.Fatalf("accepted entry with installment %d", e.Installment)
				}
			}
		}
		first, err := json.Marshal(s)
		if err != nil {
			t.Fatalf("accepted schedule does not encode: %v", err)
		}
		var again Schedule
		if err := json.Unmarshal(first, &again); err != nil {
			t.Fatalf("encoding %s does not decode: %v", first, err)
		}
		second, err := json.Marshal(again)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(first, second) {
			t.Fatalf("round trip changed\n%s\ninto\n%s", first, second)
		}
	})
}
