package sandbox

import (
	"bytes"
	"fmt"
	"testing"
	"time"
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

// TestKnownBearersBounded: past maxKnownBearers distinct tokens the
// gateway forgets what it remembered, and every token is still checked: a
// remembered token expires on time, a forged one is refused.
func TestKnownBearersBounded(t *testing.T) {
	fx := newFixture(t)
	now := fx.clock.Now()
	for i := range maxKnownBearers + 10 {
		tok, _, err := issueBearer(AppID, now, time.Minute, fmt.Sprint("jti-", i))
		if err != nil {
			t.Fatal(err)
		}
		if !fx.gw.bearerValid(tok, now) {
			t.Fatalf("token %d refused", i)
		}
		if !fx.gw.bearerValid(tok, now.Add(59*time.Second)) || fx.gw.bearerValid(tok, now.Add(time.Minute)) {
			t.Fatalf("token %d: remembered expiry is wrong", i)
		}
		if fx.gw.bearerValid(tok+"x", now) {
			t.Fatalf("token %d with a damaged signature accepted", i)
		}
	}
	n := 0
	fx.gw.knownBearers.Range(func(any, any) bool { n++; return true })
	if n > maxKnownBearers {
		t.Errorf("remembers %d tokens, bound is %d", n, maxKnownBearers)
	}
}
