package journal

import (
	"testing"
	"time"
)

func TestSummarize(t *testing.T) {
	t0 := time.Date(2026, 11, 24, 9, 0, 0, 0, time.UTC)
	at := func(op, kind, amount, cur, outcome string) Attempt {
		a := Attempt{Intent: Entry{Type: TypeIntent, Kind: kind, Amount: amount, Currency: cur, Time: t0}, Operator: op}
		if outcome != "" {
			a.Outcome = &Entry{Type: TypeOutcome, Outcome: outcome}
		}
		return a
	}
	got := Summarize([]Attempt{
		at("mehmet", "refund", "50.00", "TRY", Succeeded),
		at("ayse", "refund", "10.50", "TRY", Succeeded),
		at("ayse", "refund", "20", "TRY", Succeeded),
		at("ayse", "refund", "5.00", "USD", Succeeded),
		at("ayse", "refund", "", "TRY", Succeeded),
		at("ayse", "refund", "7.00", "TRY", ""),      // no outcome: unknown
		at("ayse", "", "99.00", "TRY", Declined),     // a line from before kinds: walletpay
		at("ayse", "card-delete", "", "", Succeeded), // a desk action: no money, nothing unreadable
	})
	want := []struct {
		op, kind, outcome string
		n, unreadable     int
		amounts           string
	}{
		{"ayse", "card-delete", Succeeded, 1, 0, ""},
		{"ayse", "refund", Succeeded, 4, 1, "30.50 TRY, 5.00 USD"},
		{"ayse", "refund", Unknown, 1, 0, "7.00 TRY"},
		{"ayse", "walletpay", Declined, 1, 0, "99.00 TRY"},
		{"mehmet", "refund", Succeeded, 1, 0, "50.00 TRY"},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d rows: %+v", len(got), got)
	}
	for i, w := range want {
		g := got[i]
		var amounts string
		for j, a := range g.Amounts {
			if j > 0 {
				amounts += ", "
			}
			amounts += a.Amount + " " + a.Currency
		}
		if g.Operator != w.op || g.Kind != w.kind || g.Outcome != w.outcome || g.Attempts != w.n || g.Unreadable != w.unreadable || amounts != w.amounts {
			t.Errorf("row %d = %+v (%s), want %+v", i, g, amounts, w)
		}
	}
}

func TestInWindow(t *testing.T) {
	t0 := time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC)
	var all []Attempt
	for h := -2; h <= 26; h += 4 {
		all = append(all, Attempt{Intent: Entry{Attempt: string(rune('a' + h + 2)), Time: t0.Add(time.Duration(h) * time.Hour)}})
	}
	day := InWindow(all, t0, t0.Add(24*time.Hour))
	for _, a := range day {
		if a.Intent.Time.Before(t0) || !a.Intent.Time.Before(t0.Add(24*time.Hour)) {
			t.Errorf("%v is outside the day", a.Intent.Time)
		}
	}
	if len(day) != 6 || len(InWindow(all, time.Time{}, time.Time{})) != len(all) || len(InWindow(all, t0.Add(26*time.Hour), time.Time{})) != 1 {
		t.Errorf("day %d, all %d", len(day), len(all))
	}
}
