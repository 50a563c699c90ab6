package journal

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/paycli/paycli/internal/money"
	"github.com/shopspring/decimal"
)

// Lister is a journal that can list the attempts made in a time window:
// the file journal and the shared one alike.
type Lister interface {
	// Window returns the attempts whose intent was written at or after
	// since and before until (a zero time: unbounded), each whole.
	Window(ctx context.Context, since, until time.Time) ([]Attempt, error)
}

// Summarizer is a journal that totals the attempts of a time window
// (Summarize's rows): the file journal and the shared one alike.
type Summarizer interface {
	Summary(ctx context.Context, since, until time.Time) ([]SummaryRow, error)
}

// Summary totals the attempts whose intent falls in the window.
func (f *File) Summary(ctx context.Context, since, until time.Time) ([]SummaryRow, error) {
	attempts, err := f.Window(ctx, since, until)
	if err != nil {
		return nil, err
	}
	return Summarize(attempts), nil
}

// Window returns the attempts whose intent falls in the window.
func (f *File) Window(ctx context.Context, since, until time.Time) ([]Attempt, error) {
	all, err := f.Attempts(ctx)
	if err != nil {
		return nil, err
	}
	return InWindow(all, since, until), nil
}

// InWindow keeps the attempts whose intent was written at or after since
// and before until (a zero time: unbounded).
func InWindow(attempts []Attempt, since, until time.Time) []Attempt {
	out := make([]Attempt, 0, len(attempts))
	for _, a := range attempts {
		t := a.Intent.Time
		if (!since.IsZero() && t.Before(since)) || (!until.IsZero() && !t.Before(until)) {
			continue
		}
		out = append(out, a)
	}
	return out
}

// SummaryRow totals the attempts of one operator, kind and outcome: what
// a desk lead asks at the end of a day.
type SummaryRow struct {
	// Operator is who made them (Attempt.Operator); empty in a file
	// journal.
	Operator string `json:"operator"`
	Kind     string `json:"kind"`
	// Outcome is the attempts' class (Attempt.Class).
	Outcome  string `json:"outcome"`
	Attempts int    `json:"attempts"`
	// Amounts are the attempts' amounts added up per currency, in the
	// order of the currencies' codes; an amount paycli cannot read is
	// left out of its total and counted in Unreadable.
	Amounts    []Total `json:"amounts"`
	Unreadable int     `json:"unreadable_amounts,omitempty"`
}

// Total is an amount in one currency, written with the currency's
// decimals ("30.50"; as it adds up for a code paycli does not know).
type Total struct {
	Currency string `json:"currency"`
	Amount   string `json:"amount"`
}

// Summarize totals attempts by operator, kind and outcome, in that order.
func Summarize(attempts []Attempt) []SummaryRow {
	type key struct{ operator, kind, outcome string }
	rows := map[key]*SummaryRow{}
	sums := map[key]map[string]decimal.Decimal{}
	for _, a := range attempts {
		k := key{a.Operator, a.Intent.OpKind(), a.Class()}
		r := rows[k]
		if r == nil {
			r = &SummaryRow{Operator: k.operator, Kind: k.kind, Outcome: k.outcome}
			rows[k], sums[k] = r, map[string]decimal.Decimal{}
		}
		r.Attempts++
		if a.Intent.Amount == "" && a.Intent.Currency == "" {
			continue // a desk action (a card's deletion) moves no money: nothing to add, nothing unreadable
		}
		amount, err := decimal.NewFromString(a.Intent.Amount)
		if err != nil {
			r.Unreadable++
			continue
		}
		sums[k][a.Intent.Currency] = sums[k][a.Intent.Currency].Add(amount)
	}
	out := make([]SummaryRow, 0, len(rows))
	for k, r := range rows {
		for cur, sum := range sums[k] {
			r.Amounts = append(r.Amounts, TotalOf(cur, sum))
		}
		out = append(out, *r)
	}
	SortSummary(out)
	return out
}

// TotalOf is sum in currency, written with the currency's decimals (as it
// adds up for a code paycli does not know).
func TotalOf(currency string, sum decimal.Decimal) Total {
	text := sum.String()
	if c, ok := money.LookupCurrency(currency); ok {
		text = sum.StringFixed(c.MinorUnit)
	}
	return Total{Currency: currency, Amount: text}
}

// SortSummary puts rows in Summarize's order (operator, kind, outcome),
// and each row's amounts in the order of their currencies' codes.
func SortSummary(rows []SummaryRow) {
	for _, r := range rows {
		slices.SortFunc(r.Amounts, func(a, b Total) int { return strings.Compare(a.Currency, b.Currency) })
	}
	slices.SortFunc(rows, func(a, b SummaryRow) int {
		if c := strings.Compare(a.Operator, b.Operator); c != 0 {
			return c
		}
		if c := strings.Compare(a.Kind, b.Kind); c != 0 {
			return c
		}
		return strings.Compare(a.Outcome, b.Outcome)
	})
}

// WindowOf returns the attempts of store whose intent falls in the
// window: by its own query (Lister), or from all its attempts.
func WindowOf(ctx context.Context, store Store, since, until time.Time) ([]Attempt, error) {
	if l, ok := store.(Lister); ok {
		return l.Window(ctx, since, until)
	}
	all, err := store.Attempts(ctx)
	if err != nil {
		return nil, err
	}
	return InWindow(all, since, until), nil
}

// SummaryOf totals the attempts of store whose intent falls in the
// window: by its own aggregation (Summarizer), or from its attempts.
func SummaryOf(ctx context.Context, store Store, since, until time.Time) ([]SummaryRow, error) {
	if s, ok := store.(Summarizer); ok {
		return s.Summary(ctx, since, until)
	}
	attempts, err := WindowOf(ctx, store, since, until)
	if err != nil {
		return nil, err
	}
	return Summarize(attempts), nil
}
