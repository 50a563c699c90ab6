package sandbox

import (
	"bytes"
	"testing"
)

// TestCommissionsAnswersAreKeptPerLookup asks every lookup twice, in an
// order where a cache keyed too loosely (without the currency, payer or
// language) would hand one lookup another's answer: the second answer of
// each must equal the first, and differ from every other lookup's.
func TestCommissionsAnswersAreKeptPerLookup(t *testing.T) {
	fx := newFixture(t)
	seen := map[string]string{}
	for round := range 2 {
		for _, cur := range []string{"TRY", "USD"} {
			for _, by := range []string{"merchant", "user"} {
				for _, lang := range []string{"en", "tr", "de"} {
					name := cur + "/" + by + "/" + lang
					res := fx.authed("/api/commissions", map[string]string{"currency_code": cur, "commission_by": by, "app_lang": lang})
					if res.status() != 100 {
						t.Fatalf("%s: %s", name, res.Raw)
					}
					if round == 0 {
						seen[name] = string(res.Raw)
						continue
					}
					if !bytes.Equal(res.Raw, []byte(seen[name])) {
						t.Errorf("%s: second answer differs from the first", name)
					}
					for other, raw := range seen {
						// "de" is answered in English, like "en".
						if other != name && raw == string(res.Raw) && other != cur+"/"+by+"/en" && other != cur+"/"+by+"/de" {
							t.Errorf("%s answered like %s", name, other)
						}
					}
				}
			}
		}
	}
}
