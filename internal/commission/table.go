package commission

import (
	"cmp"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/shopspring/decimal"
)

// Row is one entry of a commission lookup, placed: the installment count
// it is listed under, its kind, and (for a sale amount) what it costs.
type Row struct {
	// Installment is the key the entry is listed under, which wins over
	// the entry's own installment field when the two disagree.
	Installment int
	Kind        Kind
	Entry       Entry
	// Amounts is set when an amount was given and the entry is offered.
	Amounts *Amounts
}

// Program is the row's card program: card_program, or getpos_card_program
// when the gateway left card_program empty.
func (r Row) Program() string {
	if p := strings.TrimSpace(r.Entry.CardProgram); p != "" {
		return p
	}
	return strings.TrimSpace(r.Entry.GetposCardProgram)
}

// Offered reports whether the entry prices anything (Rates.Offered).
func (r Row) Offered() bool { return RatesOf(r.Entry).Offered() }

// Filter narrows a lookup to what was asked for.
type Filter struct {
	// Installments keeps only these installment counts; nil keeps all.
	Installments map[int]bool
	// Programs keeps only entries whose card_program or
	// getpos_card_program contains one of these, ignoring case; nil keeps
	// all. Entries without a program (saved card token, foreign card) do
	// not match any.
	Programs []string
}

// Sale asks for amounts: a price in a currency with MinorUnit decimals.
type Sale struct {
	Amount    decimal.Decimal
	MinorUnit int32
}

// Warning is something odd about the response that does not stop paycli
// from using it.
type Warning string

// Rows places the entries of a schedule: installments in ascending order;
// within one, the regular entries sorted by program name, then the
// saved-card-token, foreign-card and other entries in the gateway's order.
// The filter drops what was not asked for; sale, when not nil, adds the
// amounts to every offered row. An entry whose installment field disagrees
// with the key it is listed under stays under its key, with a warning.
func Rows(s Schedule, filter Filter, sale *Sale) ([]Row, []Warning, error) {
	var rows []Row
	var warnings []Warning
	for _, n := range s.Installments() {
		if filter.Installments != nil && !filter.Installments[n] {
			continue
		}
		list := s[n]
		kinds := Classify(list)
		start := len(rows)
		for i, e := range list {
			if e.Installment != n {
				warnings = append(warnings, Warning(fmt.Sprintf(
					"installment %d: the entry for %s says installment %d; shown under %d",
					n, describeEntry(e, kinds[i]), e.Installment, n)))
			}
			row := Row{Installment: n, Kind: kinds[i], Entry: e}
			if !filter.keeps(row) {
				continue
			}
			if sale != nil && n >= 1 {
				a, ok, err := ComputeAmounts(sale.Amount, n, RatesOf(e), sale.MinorUnit)
				if err != nil {
					return nil, nil, err
				}
				if ok {
					row.Amounts = &a
				}
			}
			rows = append(rows, row)
		}
		placeRows(rows[start:])
	}
	return rows, warnings, nil
}

// placeRows sorts one installment's rows: regular first, by program name
// (lessProgram), then the other kinds in the gateway's order. The sort
// keys are worked out once per row and the rows moved once: comparing
// rows directly lowered two names per comparison and swapped whole rows,
// which was most of the cost of a large lookup.
func placeRows(placed []Row) {
	type key struct {
		rank         int
		lower, exact string
		at           int
	}
	keys := make([]key, len(placed))
	sorted := true
	for i, r := range placed {
		k := key{rank: kindRank(r.Kind), at: i}
		if r.Kind == KindRegular {
			k.exact = r.Program()
			k.lower = strings.ToLower(k.exact)
		}
		keys[i] = k
		if i > 0 && compareKeys(keys[i-1].rank, keys[i-1].lower, keys[i-1].exact, k.rank, k.lower, k.exact) > 0 {
			sorted = false
		}
	}
	if sorted {
		return
	}
	slices.SortStableFunc(keys, func(a, b key) int {
		return compareKeys(a.rank, a.lower, a.exact, b.rank, b.lower, b.exact)
	})
	moved := slices.Clone(placed)
	for i, k := range keys {
		placed[i] = moved[k.at]
	}
}

// compareKeys orders by kind rank, then (regular rows carry names; the
// others compare equal and keep their order) as lessProgram does.
func compareKeys(rankA int, lowerA, exactA string, rankB int, lowerB, exactB string) int {
	if rankA != rankB {
		return cmp.Compare(rankA, rankB)
	}
	if c := strings.Compare(lowerA, lowerB); c != 0 {
		return c
	}
	return strings.Compare(exactA, exactB)
}

func (f Filter) keeps(r Row) bool {
	if f.Programs == nil {
		return true
	}
	names := []string{strings.ToLower(r.Entry.CardProgram), strings.ToLower(r.Entry.GetposCardProgram)}
	for _, p := range f.Programs {
		p = strings.ToLower(strings.TrimSpace(p))
		for _, name := range names {
			if p != "" && strings.Contains(name, p) {
				return true
			}
		}
	}
	return false
}

// kindRank orders kinds within an installment: regular first.
func kindRank(k Kind) int {
	switch k {
	case KindRegular:
		return 0
	case KindSavedCardToken:
		return 1
	case KindForeignCard:
		return 2
	}
	return 3
}

// lessProgram orders program names case-insensitively, then exactly, so
// that the order never depends on the gateway's.
func lessProgram(a, b string) bool {
	la, lb := strings.ToLower(a), strings.ToLower(b)
	if la != lb {
		return la < lb
	}
	return a < b
}

// SortPrograms sorts program names as Rows does.
func SortPrograms(names []string) {
	sort.SliceStable(names, func(i, j int) bool { return lessProgram(names[i], names[j]) })
}

func describeEntry(e Entry, k Kind) string {
	if p := strings.TrimSpace(e.CardProgram); p != "" {
		return fmt.Sprintf("program %q", p)
	}
	if p := strings.TrimSpace(e.GetposCardProgram); p != "" {
		return fmt.Sprintf("program %q", p)
	}
	return "the " + strings.ReplaceAll(k.String(), "_", " ") + " entry"
}
