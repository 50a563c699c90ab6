package sandbox

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// TestCommissionsGolden pins the whole lookup answer for every currency,
// commission_by and language. The goldens double as fixtures of real-looking
// gateway answers for client tests.
func TestCommissionsGolden(t *testing.T) {
	fx := newFixture(t)
	for _, cur := range []string{"TRY", "USD", "EUR"} {
		for _, by := range []string{"merchant", "user"} {
			for _, lang := range []string{"en", "tr"} {
				name := fmt.Sprintf("%s_%s_%s.json", strings.ToLower(cur), by, lang)
				t.Run(name, func(t *testing.T) {
					res := fx.authed("/api/commissions", map[string]string{"currency_code": cur, "commission_by": by, "app_lang": lang})
					var buf bytes.Buffer
					if err := json.Indent(&buf, res.Raw, "", "  "); err != nil {
						t.Fatal(err)
					}
					buf.WriteByte('\n')
					golden := filepath.Join("testdata", "commissions", name)
					if *update {
						if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
							t.Fatal(err)
						}
						if err := os.WriteFile(golden, buf.Bytes(), 0o644); err != nil {
							t.Fatal(err)
						}
					}
					want, err := os.ReadFile(golden)
					if err != nil {
						t.Fatalf("%v (run go test -update)", err)
					}
					if !bytes.Equal(buf.Bytes(), want) {
						t.Errorf("answer differs from %s (run go test -update if intended):\n%s", golden, buf.String())
					}
				})
			}
		}
	}
}

func TestCommissionsErrors(t *testing.T) {
	fx := newFixture(t)
	tests := []struct {
		name     string
		body     map[string]string
		wantCode int
		wantDesc string
	}{
		{"missing currency", map[string]string{"commission_by": "merchant"}, 1, "The currency code field is required."},
		{"two letters", map[string]string{"currency_code": "TR"}, 1, "The currency code must be 3 letters."},
		{"digits", map[string]string{"currency_code": "T1Y"}, 1, "The currency code must be 3 letters."},
		{"unknown currency", map[string]string{"currency_code": "GBP"}, 0, " No Data Found"},
		{"bad commission_by", map[string]string{"currency_code": "TRY", "commission_by": "bank"}, 1, "The selected commission by is invalid."},
		{"lower-case currency", map[string]string{"currency_code": "try"}, 100, "Commissions retrieved successfully"},
		{"no commission_by", map[string]string{"currency_code": "EUR"}, 100, "Commissions retrieved successfully"},
		{"Turkish", map[string]string{"currency_code": "EUR", "app_lang": "tr"}, 100, "Komisyonlar başarıyla getirildi"},
		{"unknown language", map[string]string{"currency_code": "EUR", "app_lang": "de"}, 100, "Commissions retrieved successfully"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := fx.authed("/api/commissions", tt.body)
			if res.Code != 200 || res.status() != tt.wantCode || res.desc() != tt.wantDesc {
				t.Fatalf("got HTTP %d %s", res.Code, res.Raw)
			}
		})
	}
}

func TestCommissionsGET(t *testing.T) {
	fx := newFixture(t)
	res := fx.call("GET", Base+"/api/commissions?currency_code=USD&commission_by=user&app_lang=tr", nil,
		map[string]string{"Authorization": "Bearer " + fx.bearer()})
	post := fx.authed("/api/commissions", map[string]string{"currency_code": "USD", "commission_by": "user", "app_lang": "tr"})
	if res.status() != 100 || !bytes.Equal(res.Raw, post.Raw) {
		t.Fatalf("GET answer differs from POST:\n%s\n%s", res.Raw, post.Raw)
	}
}

// TestScheduleRules checks the lookup's rules (docs/protocol.md,
// Commissions: each entry's installment equals its key, installment 1 holds
// the special kinds) on every answer, and that every representation of a
// value listed there occurs somewhere.
func TestScheduleRules(t *testing.T) {
	fx := newFixture(t)
	seen := map[string]bool{}
	for _, cur := range []string{"TRY", "USD", "EUR"} {
		merchant := fx.authed("/api/commissions", map[string]string{"currency_code": cur, "commission_by": "merchant"})
		user := fx.authed("/api/commissions", map[string]string{"currency_code": cur, "commission_by": "user"})
		var md, ud map[string][]map[string]any
		mustUnmarshal(t, merchant.Body["data"], &md)
		mustUnmarshal(t, user.Body["data"], &ud)
		programs := map[string]bool{}
		for key, entries := range md {
			n, err := strconv.Atoi(key)
			if err != nil || n < 1 || n > 12 {
				t.Fatalf("%s: key %q", cur, key)
			}
			if len(entries) > len(md["1"]) {
				t.Errorf("%s: installment %s has more entries than installment 1", cur, key)
			}
			for i, e := range entries {
				if e["installment"] != float64(n) {
					t.Errorf("%s[%s]: installment %v", cur, key, e["installment"])
				}
				if e["currency_code"] != cur {
					t.Errorf("%s[%s]: currency_code %v", cur, key, e["currency_code"])
				}
				_, hasPos := e["pos_id"]
				getpos, hasGetpos := e["getpos_card_program"].(string)
				regular := e["card_program"] != ""
				if regular != hasPos || regular != hasGetpos {
					t.Errorf("%s[%s] %v: pos_id/getpos_card_program only on regular entries", cur, key, e)
				}
				if regular {
					programs[getpos] = true
					if getpos != strings.ToUpper(getpos) {
						t.Errorf("getpos_card_program %q is not upper case", getpos)
					}
				} else if n != 1 {
					t.Errorf("%s[%s]: special entry beyond installment 1", cur, key)
				}
				for _, field := range []string{"merchant_commission_percentage", "merchant_commission_fixed", "user_commission_percentage", "user_commission_fixed"} {
					seen[representation(e[field])] = true
				}
				// commission_by=user moves the burden: the user's percentage
				// is the merchant's under commission_by=merchant.
				u := ud[key][i]
				if !isMarkerValue(e["merchant_commission_percentage"]) {
					if fmt.Sprint(u["user_commission_percentage"]) != fmt.Sprint(e["merchant_commission_percentage"]) {
						t.Errorf("%s[%s] %v: user pct %v, merchant pct %v", cur, key, e["card_program"], u["user_commission_percentage"], e["merchant_commission_percentage"])
					}
					if num(t, u["merchant_commission_percentage"]) != 0 {
						t.Errorf("%s[%s]: merchant pct %v under commission_by=user", cur, key, u["merchant_commission_percentage"])
					}
				}
			}
		}
		if len(programs) < 8 {
			t.Errorf("%s: %d card programs, want at least 8", cur, len(programs))
		}
		var specials int
		for _, e := range md["1"] {
			if e["card_program"] == "" {
				specials++
			}
		}
		if specials != 2 {
			t.Errorf("%s: installment 1 has %d saved-card/foreign entries, want 2", cur, specials)
		}
	}
	for _, rep := range []string{"4-decimal string", "number", `"x"`, `"X"`, `"-"`} {
		if !seen[rep] {
			t.Errorf("no value written as %s", rep)
		}
	}
	try := fx.authed("/api/commissions", map[string]string{"currency_code": "TRY"})
	data := try.data()
	if len(data) != 12 || len(data["12"].([]any)) >= len(data["1"].([]any)) {
		t.Errorf("TRY should run to 12 installments with some programs stopping earlier")
	}
}

func representation(v any) string {
	switch v := v.(type) {
	case float64:
		return "number"
	case string:
		if v == "x" || v == "X" || v == "-" {
			return strconv.Quote(v)
		}
		if i := strings.IndexByte(v, '.'); i >= 0 && len(v)-i-1 == 4 {
			return "4-decimal string"
		}
		return "string " + v
	}
	return fmt.Sprintf("%T", v)
}

func isMarkerValue(v any) bool { s, ok := v.(string); return ok && (s == "x" || s == "X" || s == "-") }

func num(t *testing.T, v any) float64 {
	t.Helper()
	switch v := v.(type) {
	case float64:
		return v
	case string:
		f, err := strconv.ParseFloat(v, 64)
		if err != nil {
			t.Fatalf("%q is not a number", v)
		}
		return f
	}
	t.Fatalf("%v is not a number", v)
	return 0
}

func mustUnmarshal(t *testing.T, v any, into any) {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, into); err != nil {
		t.Fatal(err)
	}
}

func TestRateForBIN(t *testing.T) {
	s, err := DefaultSchedule()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		cur, bin, program, pct, fixed string
		known                         bool
	}{
		{"TRY", "435508", "AXESS", "1.75", "0", true},
		{"TRY", "545616", "MAXIMUM", "1.99", "0.25", true},
		{"USD", "552879", "BONUS", "2.5", "0", true},
		{"TRY", "411111", "", "3.49", "0.5", true}, // not in the BIN table: foreign card
		{"GBP", "435508", "", "0", "0", false},
	}
	for _, tt := range tests {
		r, known, err := s.RateForBIN(tt.cur, tt.bin)
		if err != nil || known != tt.known {
			t.Fatalf("%s %s: known=%v err=%v", tt.cur, tt.bin, known, err)
		}
		if known && (r.Program != tt.program || r.Percentage.String() != tt.pct || r.Fixed.String() != tt.fixed) {
			t.Errorf("%s %s: got %+v", tt.cur, tt.bin, r)
		}
	}
	// Every program a BIN names offers installment 1 in every currency.
	for cur := range s.Currencies {
		for bin := range s.BINs {
			if _, _, err := s.RateForBIN(cur, bin); err != nil {
				t.Error(err)
			}
		}
	}
}
