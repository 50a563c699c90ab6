package commission

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"
)

const sampleData = `{
  "1": [
    {"title": "Regular Commission", "card_program": "WORLD", "merchant_commission_percentage": "1.5000",
     "merchant_commission_fixed": "0.0000", "user_commission_percentage": 0, "user_commission_fixed": "-",
     "currency_code": "TRY", "installment": 1, "pos_id": 123, "getpos_card_program": "WORLD",
     "card_type": "credit", "issuer_name": "Bank A"},
    {"title": "Save Card Token Payment Commission", "card_program": "", "merchant_commission_percentage": "2.0000",
     "merchant_commission_fixed": "x", "user_commission_percentage": "x", "user_commission_fixed": "x",
     "currency_code": "TRY", "installment": 1},
    {"title": "Foreign Card Commission", "card_program": "", "merchant_commission_percentage": 3.25,
     "merchant_commission_fixed": 0, "user_commission_percentage": null, "user_commission_fixed": "",
     "currency_code": "TRY", "installment": 1}
  ],
  "3": [
    {"title": "Regular Commission", "card_program": "BONUS", "merchant_commission_percentage": "4.1000",
     "merchant_commission_fixed": "0.0000", "user_commission_percentage": "0.25", "user_commission_fixed": "0.0000",
     "currency_code": "TRY", "installment": 3, "pos_id": "77", "getpos_card_program": "BONUS"}
  ]
}`

func TestScheduleDecode(t *testing.T) {
	var s Schedule
	if err := json.Unmarshal([]byte(sampleData), &s); err != nil {
		t.Fatal(err)
	}
	if got := s.Installments(); !reflect.DeepEqual(got, []int{1, 3}) {
		t.Fatalf("Installments() = %v", got)
	}
	one := s[1]
	if len(one) != 3 {
		t.Fatalf("installment 1 has %d entries, want 3", len(one))
	}
	reg := one[0]
	if reg.CardProgram != "WORLD" || *reg.PosID != 123 || reg.GetposCardProgram != "WORLD" || reg.Installment != 1 {
		t.Errorf("regular entry decoded as %+v", reg)
	}
	if reg.MerchantCommissionPercentage.String() != "1.5000" || reg.UserCommissionFixed.Available() {
		t.Errorf("values decoded as %v / %v", reg.MerchantCommissionPercentage, reg.UserCommissionFixed)
	}
	if string(reg.Extra["card_type"]) != `"credit"` || string(reg.Extra["issuer_name"]) != `"Bank A"` {
		t.Errorf("extra fields: %v", reg.Extra)
	}
	if p := s[3][0].PosID; p == nil || *p != 77 {
		t.Errorf("pos_id written as a string: %v", p)
	}
	if got := Classify(one); !reflect.DeepEqual(got, []Kind{KindRegular, KindSavedCardToken, KindForeignCard}) {
		t.Errorf("Classify = %v", got)
	}
}

func TestEntryRoundTripKeepsEverything(t *testing.T) {
	var s Schedule
	if err := json.Unmarshal([]byte(sampleData), &s); err != nil {
		t.Fatal(err)
	}
	out, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	// Compare as generic JSON: every field and every value's exact token
	// (strings stay strings with their zeros, numbers stay numbers).
	var want, got map[string]any
	dec := func(b []byte, v *map[string]any) {
		d := json.NewDecoder(strings.NewReader(string(b)))
		d.UseNumber()
		if err := d.Decode(v); err != nil {
			t.Fatal(err)
		}
	}
	dec([]byte(sampleData), &want)
	dec(out, &got)
	// pos_id "77" is normalised to the number 77; the rest is unchanged.
	want["3"].([]any)[0].(map[string]any)["pos_id"] = json.Number("77")
	if !reflect.DeepEqual(got, want) {
		t.Errorf("round trip changed the data:\n got %s\nwant %s", out, sampleData)
	}
}

func TestEntryKind(t *testing.T) {
	pos := int64(1)
	tests := []struct {
		name  string
		entry Entry
		want  Kind
	}{
		{"regular title", Entry{Title: "Regular Commission"}, KindRegular},
		{"single payment title", Entry{Title: "Single Payment Commission"}, KindRegular},
		{"save card title", Entry{Title: "Save Card Token Payment Commission"}, KindSavedCardToken},
		{"foreign title", Entry{Title: " foreign card commission "}, KindForeignCard},
		{"turkish foreign", Entry{Title: "Yabancı Kart Komisyonu"}, KindForeignCard},
		{"untitled with program", Entry{CardProgram: "BONUS"}, KindRegular},
		{"untitled with pos", Entry{PosID: &pos}, KindRegular},
		{"unknown title with program", Entry{Title: "Campaign", CardProgram: "AXESS"}, KindRegular},
		{"untitled bare", Entry{Installment: 1}, KindOther},
		{"unknown title bare", Entry{Title: "Campaign"}, KindOther},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.entry.Kind(); got != tt.want {
				t.Errorf("Kind() = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestClassifyUntitled(t *testing.T) {
	pos := int64(9)
	tests := []struct {
		name    string
		entries []Entry
		want    []Kind
	}{
		{"both untitled, in gateway order",
			[]Entry{{CardProgram: "WORLD", PosID: &pos, Installment: 1}, {Installment: 1}, {Installment: 1}},
			[]Kind{KindRegular, KindSavedCardToken, KindForeignCard}},
		{"titled saved card leaves foreign for the untitled one",
			[]Entry{{Title: "Save Card Token Payment Commission", Installment: 1}, {Installment: 1}},
			[]Kind{KindSavedCardToken, KindForeignCard}},
		{"a third bare entry stays other",
			[]Entry{{Installment: 1}, {Installment: 1}, {Installment: 1}},
			[]Kind{KindSavedCardToken, KindForeignCard, KindOther}},
		{"not on installment 1",
			[]Entry{{Installment: 2}},
			[]Kind{KindOther}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Classify(tt.entries); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Classify = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestScheduleDecodeShapes(t *testing.T) {
	var s Schedule
	if err := json.Unmarshal([]byte(`[]`), &s); err != nil || len(s) != 0 {
		t.Errorf("empty array: %v, %v", s, err)
	}
	if err := json.Unmarshal([]byte(`[[{"installment": 2, "card_program": "A"}]]`), &s); err != nil || len(s[2]) != 1 {
		t.Errorf("array of lists: %v, %v", s, err)
	}
	if err := json.Unmarshal([]byte(`{"2": [{"card_program": "A"}]}`), &s); err != nil || s[2][0].Installment != 2 {
		t.Errorf("installment from key: %v, %v", s, err)
	}
	for _, tt := range []struct{ data, want string }{
		{`{"one": []}`, `key "one" is not an installment count`},
		{`{"1": [{"merchant_commission_fixed": "abc"}]}`, `field merchant_commission_fixed: commission value: "abc" is neither`},
		{`{"1": [{"installment": "1.5"}]}`, `field installment: "1.5" is not a whole number`},
		{`{"1": [{"title": {}}]}`, `field title: expected a string, got an object`},
		{`{"1": [null]}`, `expected an object, got null`},
	} {
		err := json.Unmarshal([]byte(tt.data), &s)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Unmarshal(%s) error = %v, want it to contain %q", tt.data, err, tt.want)
		}
	}
}

func TestKindNames(t *testing.T) {
	b, _ := json.Marshal([]Kind{KindRegular, KindSavedCardToken, KindForeignCard, KindOther})
	if string(b) != `["regular","saved_card_token","foreign_card","other"]` {
		t.Errorf("kinds encode as %s", b)
	}
}

// TestKnownFieldOrderIsSorted: isKnownField searches the names by halves,
// which finds them only in name order.
func TestKnownFieldOrderIsSorted(t *testing.T) {
	if !slices.IsSorted(knownFieldOrder[:]) {
		t.Errorf("knownFieldOrder is not in name order: %v", knownFieldOrder)
	}
	for _, name := range knownFieldOrder {
		if !isKnownField(name) {
			t.Errorf("isKnownField(%q) = false", name)
		}
	}
	if isKnownField("card_type") || isKnownField("") {
		t.Error("an unknown field is known")
	}
}
