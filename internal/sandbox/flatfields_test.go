package sandbox

import (
	"encoding/json"
	"maps"
	"testing"
)

// slowObjectFields is objectFields without its fast path.
func slowObjectFields(text string) (fields, bool) {
	var raw map[string]fieldValue
	if err := json.Unmarshal([]byte(text), &raw); err != nil {
		return nil, false
	}
	f := fields{}
	for k, v := range raw {
		if v.null || v.nested {
			return nil, false
		}
		f[k] = v.text
	}
	return f, true
}

var flatObjectSeeds = []string{
	`{}`, ` { } `, `{"a":"b"}`, `{"a":"b","a":"c"}`, "{\"a\" :\t\"b\" ,\n\"c\":\"\"}\r\n",
	`{"a":"b",}`, `{"a":"b"} x`, `{"a":"b\"c"}`, `{"a":1}`, `{"a":null}`, `{"a":["b"]}`, `{"a":"\u00e7"}`, `{"ç":"ğ"}`,
	"{\"a\":\"\xff\"}", "{\"a\":\"\x01\"}", `{"a":"b"`, `{"a"}`, `{"a":}`, `[]`, ``, `{"a":"b"}{}`,
	`{"merchant_key":"$2y$10$x","invoice_id":"WRK-1","hash_key":"ab:cd:ef","wallet_transient_token":"a.b.c","bill_email":"b@example.com"}`,
}

func TestFlatObject(t *testing.T) {
	for _, s := range flatObjectSeeds {
		checkFlatObject(t, s)
	}
	if f, ok := flatObject(`{"a":"b","a":"c","d":""}`); !ok || !maps.Equal(f, fields{"a": "c", "d": ""}) {
		t.Errorf("%v %v", f, ok)
	}
	for _, s := range []string{`{"a":1}`, `{"a":"b\"c"}`, `{"a":"b"} x`, "{\"a\":\"\xff\"}"} {
		if _, ok := flatObject(s); ok {
			t.Errorf("%q taken by the fast path", s)
		}
	}
}

// checkFlatObject: whatever the fast path takes, encoding/json reads the
// same.
func checkFlatObject(t *testing.T, s string) {
	f, ok := flatObject(s)
	if !ok {
		return
	}
	slow, sok := slowObjectFields(s)
	if !sok || !maps.Equal(f, slow) {
		t.Fatalf("%q: fast %v, encoding/json %v (%v)", s, f, slow, sok)
	}
	if all, msg := objectFields(s); msg != "" || !maps.Equal(all, f) {
		t.Fatalf("%q: objectFields %v %q", s, all, msg)
	}
}

func FuzzFlatObject(f *testing.F) {
	for _, s := range flatObjectSeeds {
		f.Add(s)
	}
	f.Fuzz(checkFlatObject)
}
