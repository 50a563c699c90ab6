package commission

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// reflectResponse is DecodeResponse through encoding/json alone: the
// reference the fast path must agree with.
func reflectResponse(body []byte) (Schedule, error) {
	var env struct {
		Data reflectOnly `json:"data"`
	}
	err := json.Unmarshal(body, &env)
	return Schedule(env.Data), err
}

// reflectOnly decodes a Schedule without the fast path.
type reflectOnly Schedule

func (r *reflectOnly) UnmarshalJSON(data []byte) error {
	s, err := reflectSchedule(data)
	*r = reflectOnly(s)
	return err
}

// checkFastAgrees fails when the fast path returns something the
// reflective path would not. It reports whether the fast path took it.
func checkFastAgrees(t *testing.T, body []byte) bool {
	t.Helper()
	fast, ok := fastResponse(body)
	want, err := reflectResponse(body)
	if !ok {
		return false
	}
	if err != nil {
		t.Fatalf("fast path accepted %q, which encoding/json refuses: %v", body, err)
	}
	if !reflect.DeepEqual(fast, want) {
		t.Fatalf("fast path disagrees on %q:\n fast: %#v\n want: %#v", body, fast, want)
	}
	// The public entry points agree as well.
	got, err := DecodeResponse(body)
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("DecodeResponse(%q) = %#v, %v", body, got, err)
	}
	return true
}

func fixtureBodies(t testing.TB) [][]byte {
	paths, _ := filepath.Glob(filepath.Join("..", "sandbox", "testdata", "commissions", "*.json"))
	seed, _ := filepath.Glob(filepath.Join("..", "cli", "commissions", "testdata", "*.json"))
	var out [][]byte
	for _, p := range append(paths, seed...) {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, b)
	}
	if len(out) == 0 {
		t.Fatal("no fixture bodies found")
	}
	return out
}

// The shapes gateways send take the fast path; otherwise it buys nothing.
func TestFastDecodeTakesRealResponses(t *testing.T) {
	bodies := append(fixtureBodies(t),
		[]byte(`{"status_code":100,"data":`+sampleData+`}`),
		[]byte(`{"status_code":100,"status_description":"Success","data":`+string(benchSchedule())+`}`),
	)
	for _, body := range bodies {
		if !checkFastAgrees(t, body) {
			t.Errorf("fast path declined a well-formed response: %.120q", body)
		}
	}
}

// Odd but valid inputs either decode exactly as encoding/json does, or are
// declined; malformed ones are always declined.
func TestFastDecodeAgreesOrDeclines(t *testing.T) {
	entry := `{"card_program":"A","merchant_commission_percentage":"1.5","installment":2}`
	tests := []struct {
		name, body string
		fast       bool // whether the fast path must take it
	}{
		{"no data", `{"status_code":100}`, true},
		{"null data", `{"data":null}`, true},
		{"empty data", `{"data":{}}`, true},
		{"null list", `{"data":{"1":null}}`, true},
		{"empty list", `{"data":{"1":[]}}`, true},
		{"same count twice", `{"data":{"1":[` + entry + `],"01":[` + entry + `]," 1 ":[]}}`, true},
		{"repeated key", `{"data":{"1":[` + entry + `],"1":[]}}`, false},
		{"negative key", `{"data":{"-1":[]}}`, false},
		{"key beyond the bound", `{"data":{"2147483648":[]}}`, false},
		{"negative installment", `{"data":{"1":[{"card_program":"A","installment":-1}]}}`, false},
		{"installment beyond the bound", `{"data":{"1":[{"card_program":"A","installment":2147483648}]}}`, false},
		{"word key", `{"data":{"one":[]}}`, false},
		{"array form", `{"data":[[` + entry + `]]}`, false},
		{"Data in capitals", `{"Data":{"1":[]}}`, false},
		{"data twice", `{"data":{"1":[]},"data":{}}`, false},
		{"escaped key", `{"d\u0061ta":{}}`, false},
		{"escaped field", `{"data":{"1":[{"c\u0061rd_program":"A"}]}}`, false},
		{"repeated field", `{"data":{"1":[{"installment":3,"installment":null}]}}`, false},
		{"repeated extra", `{"data":{"1":[{"x":1,"x":[2, 3]}]}}`, true},
		{"extras of every kind", `{"data":{"1":[{"a":{"b":[1,{"c":null}]},"t":true,"f":false,"n":null,"s":"é\u00e9","e":-1.5e+3}]}}`, true},
		{"escapes in texts", `{"data":{"1":[{"title":"Tek \u00c7ekim \"x\"","card_program":"A\/B\tC"}]}}`, true},
		{"invalid UTF-8", "{\"data\":{\"1\":[{\"card_program\":\"A\xffB\"}]}}", true},
		{"numbers as texts", `{"data":{"1":[{"title":5,"card_program":-0.5e2,"pos_id":"  7 ","installment":"3"}]}}`, true},
		{"markers", `{"data":{"1":[{"merchant_commission_percentage":" x ","merchant_commission_fixed":"-","user_commission_percentage":null,"user_commission_fixed":""}]}}`, true},
		{"number forms", `{"data":{"1":[{"merchant_commission_percentage":0,"merchant_commission_fixed":-0.0,"user_commission_percentage":"+1.5","user_commission_fixed":"1e2"}]}}`, true},
		{"long exponent", `{"data":{"1":[{"merchant_commission_percentage":1e1000}]}}`, false},
		{"bad rate", `{"data":{"1":[{"merchant_commission_percentage":"abc"}]}}`, false},
		{"boolean rate", `{"data":{"1":[{"merchant_commission_percentage":true}]}}`, false},
		{"fractional pos_id", `{"data":{"1":[{"pos_id":1.5}]}}`, false},
		{"null entry", `{"data":{"1":[null]}}`, false},
		{"white space everywhere", " \t\r\n{ \"data\" : { \"2\" : [ { \"installment\" : 2 , \"pos_id\" : null } ] } } \n", true},
		{"leading zero", `{"data":{"1":[{"pos_id":01}]}}`, false},
		{"trailing comma", `{"data":{"1":[{"pos_id":1},]}}`, false},
		{"trailing text", `{"data":{}} x`, false},
		{"two documents", `{"data":{}}{}`, false},
		{"truncated", `{"data":{"1":[{"pos_id":1}`, false},
		{"control character", "{\"data\":{\"1\":[{\"title\":\"a\nb\"}]}}", false},
		{"bad escape", `{"data":{"1":[{"title":"a\qb"}]}}`, false},
		{"short unicode escape", `{"data":{"1":[{"title":"\u12"}]}}`, false},
		{"bare word", `{"data":{"1":[{"x":nul}]}}`, false},
		{"not an object", `[{"data":{}}]`, false},
		{"deep extra", `{"data":{"1":[{"x":` + strings.Repeat("[", 2000) + strings.Repeat("]", 2000) + `}]}}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if took := checkFastAgrees(t, []byte(tt.body)); took != tt.fast {
				t.Errorf("fast path took it: %v, want %v", took, tt.fast)
			}
		})
	}
}

// FuzzFastDecode checks the fast path's contract on any body: what it
// accepts, encoding/json decodes to the same schedule.
func FuzzFastDecode(f *testing.F) {
	for _, b := range fixtureBodies(f) {
		f.Add(b)
	}
	f.Add([]byte(`{"status_code":100,"data":` + sampleData + `}`))
	f.Add([]byte(`{"data":{"1":[{"x":1,"x":[2, 3]},{"title":"\u00c7","pos_id":"7"}],"01":null}}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		checkFastAgrees(t, body)
	})
}

func BenchmarkResponseDecode(b *testing.B) {
	body := []byte(`{"status_code":100,"status_description":"Success","data":` + string(benchSchedule()) + `}`)
	for _, bench := range []struct {
		name   string
		decode func([]byte) (Schedule, error)
	}{
		{"fast", DecodeResponse},
		{"reflect", reflectResponse},
	} {
		b.Run(bench.name, func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := bench.decode(body); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
