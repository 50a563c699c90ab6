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
	total := 0
	for _, list := range s {
		total += len(list)
	}
	rows := make([]Row, 0, total)
	var warnings []Warning
	var keys []placeKey
	for _, n := range s.Installments() {
		if filter.Installments != nil && !filter.Installments[n] {
			continue
		}
		list := s[n]
		kinds := Classify(list)
		keys = keys[:0]
		for i := range list {
			e := &list[i]
			if e.Installment != n {
				warnings = append(warnings, Warning(fmt.Sprintf(
					"installment %d: the entry for %s says installment %d; shown under %d",
					n, describeEntry(*e, kinds[i]), e.Installment, n)))
			}
			if !filter.keepsEntry(e) {
				continue
			}
			k := placeKey{rank: kindRank(kinds[i]), at: i}
			if kinds[i] == KindRegular {
				k.exact = Row{Entry: *e}.Program()
				k.lower = strings.ToLower(k.exact)
			}
			keys = append(keys, k)
		}
		sortPlaceKeys(keys)
		for _, k := range keys {
			row := Row{Installment: n, Kind: kinds[k.at], Entry: list[k.at]}
			if sale != nil && n >= 1 {
				// Every error is about the sale, the same for any row, so
				// working them out in display order reports the same one.
				a, ok, err := ComputeAmounts(sale.Amount, n, RatesOf(row.Entry), sale.MinorUnit)
				if err != nil {
					return nil, nil, err
				}
				if ok {
					row.Amounts = &a
				}
			}
			rows = append(rows, row)
		}
	}
	if len(rows) == 0 {
		rows = nil
	}
	return rows, warnings, nil
}

// EntryFor finds the table's entry for a sale in n installments on a
// card of program: a regular entry of the same installment count whose
// card_program or getpos_card_program is program (ignoring case), or,
// for a program the table does not name (a card issued abroad), the
// foreign-card entry. `paycli installments` prices an option with it,
// and an audit checks a ledger row's commission with it.
func EntryFor(rows []Row, n int, program string) (Row, bool) {
	program = strings.TrimSpace(program)
	for _, r := range rows {
		if r.Installment != n || r.Kind != KindRegular {
			continue
		}
		if program != "" && (strings.EqualFold(program, strings.TrimSpace(r.Entry.CardProgram)) ||
			strings.EqualFold(program, strings.TrimSpace(r.Entry.GetposCardProgram))) {
			return r, true
		}
	}
	for _, r := range rows {
		if r.Installment == n && r.Kind == KindForeignCard && (program == "" || strings.EqualFold(program, "FOREIGN")) {
			return r, true
		}
	}
	return Row{}, false
}

// placeKey is what places a row within its installment count: regular
// first, by program name (lessProgram), then the other kinds in the
// gateway's order (at, the entry's index in its list).
type placeKey struct {
	rank         int
	lower, exact string
	at           int
}

// sortPlaceKeys sorts the keys of one installment's entries. The keys are
// worked out once per entry and the entries moved once: comparing rows
// directly lowered two names per comparison and swapped whole rows, which
// was most of the cost of a large lookup.
func sortPlaceKeys(keys []placeKey) {
	compare := func(a, b placeKey) int {
		if c := compareKeys(a.rank, a.lower, a.exact, b.rank, b.lower, b.exact); c != 0 {
			return c
		}
		return cmp.Compare(a.at, b.at) // stable: the gateway's order
	}
	if !slices.IsSortedFunc(keys, compare) {
		slices.SortFunc(keys, compare)
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

func (f Filter) keepsEntry(e *Entry) bool {
	if f.Programs == nil {
		return true
	}
	names := []string{strings.ToLower(e.CardProgram), strings.ToLower(e.GetposCardProgram)}
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
