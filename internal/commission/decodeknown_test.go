package commission

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
)

// knownCases are schedules on which the struct path and the general path
// must agree, many of them made to trip the struct path: keys in another
// case, unknown and duplicated keys, escapes in keys, colons in values,
// blanks around colons, null values.
var knownCases = []string{
	`{"1":[{"title":"Regular Commission","card_program":"WORLD","merchant_commission_percentage":"1.5000","merchant_commission_fixed":"0.0000","user_commission_percentage":0.25,"user_commission_fixed":"x","currency_code":"TRY","installment":1,"pos_id":7,"getpos_card_program":"WORLD"}]}`,
	`{"1":[{"TITLE":"Regular Commission","card_program":"WORLD","merchant_commission_percentage":"1.5"}]}`,
	`{"1":[{"Title":"a","title":"b","card_program":"W"}]}`,
	`{"1":[{"title":"a","Title":"b","card_program":"W"}]}`,
	`{"1":[{"title":"a","title":"b"}]}`,
	`{"1":[{"t\u0069tle":"a","card_program":"W"}]}`,
	`{"1":[{"title":"a","issuer_name":"Bank","card_program":"W"}]}`,
	`{"1":[{"title":"12:30","card_program":"W"}]}`,
	`{"1":[{"title" : "a" ,	"card_program"
:"W"}]}`,
	`{"1":[{"title":null,"card_program":null,"pos_id":null,"merchant_commission_percentage":null}]}`,
	`{"1":[{"card_program":"W","extra":{"a":1}}]}`,
	`{"1":[{"card_program":"W","x\"title":"a"}]}`,
	`{"01":[{"card_program":"A"}]," 1":[{"card_program":"B"}],"2":[{}]}`,
	`{"1":[{"card_program":"W","installment":"3"}],"3":[]}`,
	`{"1":[{"pos_id":"x"}]}`, `{"1":[{"installment":-1}]}`, `{"1":[5]}`, `{"1":[null]}`, `{"x":[]}`, `{"1":{}}`,
	`{"1":[{"merchant_commission_percentage":"abc"}]}`,
}

// TestDecodeKnownMatchesGeneral: the struct path gives what reading every
// entry into a map gives, or declines and leaves it to that path.
func TestDecodeKnownMatchesGeneral(t *testing.T) {
	for _, c := range knownCases {
		checkKnownMatchesGeneral(t, []byte(c))
	}
	checkKnownMatchesGeneral(t, benchSchedule())
}

func checkKnownMatchesGeneral(t *testing.T, data []byte) {
	t.Helper()
	want, wantErr := decodeGeneral(bytes.Clone(data))
	if all, ok := decodeAllKnown(bytes.Clone(data)); ok && (wantErr != nil || !reflect.DeepEqual(all, want)) {
		t.Fatalf("%s: the one-pass path gives %#v, the general path %#v, %v", data, all, want, wantErr)
	}
	got, ok := decodeKnown(bytes.Clone(data))
	if !ok {
		return
	}
	if wantErr != nil {
		t.Fatalf("%s: the struct path accepted what the general path refuses (%v)", data, wantErr)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%s:\nstruct path  %#v\ngeneral path %#v", data, got, want)
	}
}

// TestDecodeKnownTakesPlainEntries: entries with only known keys, written
// as gateways write them, go through the struct path (it is what makes
// decoding cheap), and one with another key is still read whole.
func TestDecodeKnownTakesPlainEntries(t *testing.T) {
	var k knownEntry
	plain := []byte(`{"title":"Regular Commission","card_program":"WORLD","merchant_commission_percentage":"1.5000","installment":1,"pos_id":7}`)
	if !k.read(plain) {
		t.Fatal("a plain entry was not read through the struct path")
	}
	if k.read([]byte(`{"title":"a","issuer_name":"Bank"}`)) {
		t.Fatal("an entry with an unknown key was read through the struct path")
	}
	if _, ok := decodeAllKnown([]byte(`{"1":[` + string(plain) + `,` + string(plain) + `],"2":[` + string(plain) + `]}`)); !ok {
		t.Fatal("a schedule of plain entries was not read in one pass")
	}
	if _, ok := decodeAllKnown(benchSchedule()); ok {
		t.Fatal("a schedule with unknown keys was read in one pass")
	}
	if _, ok := decodeKnown(benchSchedule()); !ok {
		t.Fatal("a schedule with unknown keys was not read entry by entry")
	}
	var s Schedule
	if err := json.Unmarshal([]byte(`{"1":[{"TITLE":"x","card_program":"W","issuer_name":"Bank"}]}`), &s); err != nil {
		t.Fatal(err)
	}
	e := s[1][0]
	if e.Title != "" || string(e.Extra["TITLE"]) != `"x"` || string(e.Extra["issuer_name"]) != `"Bank"` || e.CardProgram != "W" {
		t.Fatalf("entry %#v", e)
	}
}

// FuzzDecodeKnown: on any input the struct path agrees with the general
// path or declines.
func FuzzDecodeKnown(f *testing.F) {
	for _, c := range knownCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkKnownMatchesGeneral(t, data)
	})
}
