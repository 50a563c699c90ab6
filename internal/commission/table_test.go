package commission

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/shopspring/decimal"
)

// seedData holds every representation docs/protocol.md (Commissions)
// describes:
// numeric strings, plain numbers, "x", "X", "-", "", null, missing fields,
// extra fields, no title, an empty card_program for the special kinds, an
// entry whose installment disagrees with its key, and a program missing
// from a higher installment.
const seedData = `{
 "2": [
  {"title":"Regular Commission","card_program":"World","merchant_commission_percentage":"3.5500","merchant_commission_fixed":"0.0000","user_commission_percentage":0,"user_commission_fixed":0,"currency_code":"TRY","installment":2,"pos_id":1022,"getpos_card_program":"WORLD"},
  {"card_program":"bonus","merchant_commission_percentage":3.49,"merchant_commission_fixed":0.25,"user_commission_percentage":"-","user_commission_fixed":"-","currency_code":"TRY","installment":3,"pos_id":"1021","getpos_card_program":"BONUS"}
 ],
 "1": [
  {"title":"Regular Commission","card_program":"World","merchant_commission_percentage":"1.8500","merchant_commission_fixed":"0.0000","user_commission_percentage":0,"user_commission_fixed":0,"currency_code":"TRY","installment":1,"pos_id":1022,"getpos_card_program":"WORLD","card_type":"credit","issuer_name":"Yapı Kredi"},
  {"title":"","card_program":"","merchant_commission_percentage":"2.1000","merchant_commission_fixed":"","user_commission_percentage":"-","user_commission_fixed":null,"currency_code":"TRY","installment":1},
  {"card_program":"","merchant_commission_percentage":"3.4900","merchant_commission_fixed":"0.5000","user_commission_percentage":"x","currency_code":"TRY","installment":1},
  {"title":"Regular Commission","card_program":"Axess","merchant_commission_percentage":"X","merchant_commission_fixed":"X","user_commission_percentage":"X","user_commission_fixed":"X","currency_code":"TRY","installment":1,"pos_id":1023,"getpos_card_program":"AXESS"},
  {"title":"Regular Commission","getpos_card_program":"BONUS","merchant_commission_percentage":"1.7900","installment":1,"pos_id":1021}
 ]
}`

func decodeSeed(t *testing.T) Schedule {
	t.Helper()
	var s Schedule
	if err := json.Unmarshal([]byte(seedData), &s); err != nil {
		t.Fatal(err)
	}
	return s
}

func TestRowsPlacesEveryRepresentation(t *testing.T) {
	rows, warnings, err := Rows(decodeSeed(t), Filter{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	type placed struct {
		n       int
		kind    Kind
		program string
		offered bool
	}
	want := []placed{
		{1, KindRegular, "Axess", false},
		{1, KindRegular, "BONUS", true}, // no card_program: getpos_card_program names it
		{1, KindRegular, "World", true},
		{1, KindSavedCardToken, "", true}, // untitled, placed by order
		{1, KindForeignCard, "", true},
		{2, KindRegular, "bonus", true}, // sorted ignoring case
		{2, KindRegular, "World", true},
	}
	if len(rows) != len(want) {
		t.Fatalf("%d rows, want %d: %+v", len(rows), len(want), rows)
	}
	for i, r := range rows {
		got := placed{r.Installment, r.Kind, r.Program(), r.Offered()}
		if got != want[i] {
			t.Errorf("row %d = %+v, want %+v", i, got, want[i])
		}
	}
	if len(warnings) != 1 || !strings.Contains(string(warnings[0]), `installment 2: the entry for program "bonus" says installment 3; shown under 2`) {
		t.Errorf("warnings = %q", warnings)
	}
	if rows[2].Entry.Extra["issuer_name"] == nil || rows[2].Entry.Extra["card_type"] == nil {
		t.Errorf("extra fields lost: %v", rows[2].Entry.Extra)
	}
	if p := rows[5].Entry.PosID; p == nil || *p != 1021 {
		t.Errorf("pos_id written as a string not read: %v", p)
	}
}

func TestRowsFilterAndAmounts(t *testing.T) {
	sale := &Sale{Amount: decimal.RequireFromString("1000"), MinorUnit: 2}
	rows, _, err := Rows(decodeSeed(t), Filter{Installments: map[int]bool{2: true}, Programs: []string{"BON"}}, sale)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1 || rows[0].Program() != "bonus" || rows[0].Installment != 2 {
		t.Fatalf("rows = %+v", rows)
	}
	// 1000 × 3.49 / 100 + 0.25 = 35.15; the user side is "-": 0.
	if a := rows[0].Amounts; a == nil || a.Strings() != [6]string{"1000.00", "35.15", "964.85", "1000.00", "500.00", "500.00"} {
		t.Errorf("amounts = %+v", a)
	}

	rows, _, err = Rows(decodeSeed(t), Filter{Installments: map[int]bool{1: true}}, sale)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if (r.Amounts != nil) != r.Offered() {
			t.Errorf("%s %v: amounts %v but offered %v", r.Program(), r.Kind, r.Amounts, r.Offered())
		}
	}
	if rows, _, _ := Rows(decodeSeed(t), Filter{Programs: []string{"nothing"}}, nil); len(rows) != 0 {
		t.Errorf("unmatched program filter kept %d rows", len(rows))
	}
}

func TestBadValueNamesInstallmentProgramAndField(t *testing.T) {
	tests := []struct{ data, want string }{
		{`{"1":[{"card_program":"A","merchant_commission_percentage":"1.0"}],"3":[{"card_program":"Bonus","merchant_commission_percentage":"1.5","user_commission_fixed":"n/a"}]}`,
			`installment 3, program "Bonus", field user_commission_fixed: commission value: "n/a" is neither a number nor a not-offered marker (x, X, -)`},
		{`{"1":[{"getpos_card_program":"WORLD","merchant_commission_percentage":true}]}`,
			`installment 1, program "WORLD", field merchant_commission_percentage: commission value: expected a number`},
		{`{"1":[{"title":"Foreign Card Commission","card_program":"","merchant_commission_fixed":"abc"}]}`,
			`installment 1, entry without a card program, field merchant_commission_fixed`},
		// Two bad fields: always the first by name.
		{`{"2":[{"card_program":"B","user_commission_percentage":"?","merchant_commission_fixed":"?"}]}`,
			`installment 2, program "B", field merchant_commission_fixed`},
	}
	for _, tt := range tests {
		var s Schedule
		err := json.Unmarshal([]byte(tt.data), &s)
		var fe *FieldError
		if !errors.As(err, &fe) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Unmarshal(%s)\n error = %v\n want it to contain %q", tt.data, err, tt.want)
		}
	}
}
