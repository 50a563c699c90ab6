package commission

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/shopspring/decimal"
)

// referenceRows is Rows as it was written before it sorted by precomputed
// keys: a stable sort of whole rows with lessProgram. Rows must place
// every schedule the same way.
func referenceRows(s Schedule, filter Filter, sale *Sale) ([]Row, []Warning, error) {
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
			if !filter.keepsEntry(&row.Entry) {
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
		placed := rows[start:]
		sort.SliceStable(placed, func(i, j int) bool {
			a, b := placed[i], placed[j]
			if ra, rb := kindRank(a.Kind), kindRank(b.Kind); ra != rb {
				return ra < rb
			}
			if a.Kind != KindRegular {
				return false
			}
			return lessProgram(a.Program(), b.Program())
		})
	}
	return rows, warnings, nil
}

func TestRowsPlaceAsReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	programs := []string{"Bonus", "bonus", "BONUS", "Axess", " axess ", "World", "", "Şok", "maximum", "Maximum"}
	titles := []string{"Regular Commission", "", "Save Card Token Payment Commission", "Foreign Card Commission", "Something else", "Tek Çekim"}
	rates := []string{"1.5000", "x", "0", "-", "2.25"}
	value := func() Value {
		v, err := ParseValue(rates[rng.IntN(len(rates))])
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	for i := range 300 {
		s := Schedule{}
		for range 1 + rng.IntN(4) {
			n := rng.IntN(5)
			for range rng.IntN(8) {
				e := Entry{
					Title:                        titles[rng.IntN(len(titles))],
					CardProgram:                  programs[rng.IntN(len(programs))],
					GetposCardProgram:            strings.ToUpper(programs[rng.IntN(len(programs))]),
					MerchantCommissionPercentage: value(),
					MerchantCommissionFixed:      value(),
					UserCommissionPercentage:     value(),
					UserCommissionFixed:          value(),
					Installment:                  n + rng.IntN(2),
				}
				if rng.IntN(2) == 0 {
					id := int64(rng.IntN(100))
					e.PosID = &id
				}
				s[n] = append(s[n], e)
			}
		}
		var filter Filter
		if rng.IntN(3) == 0 {
			filter.Installments = map[int]bool{1: true, 3: true}
		}
		if rng.IntN(3) == 0 {
			filter.Programs = []string{"bon", "WORLD"}
		}
		var sale *Sale
		if rng.IntN(2) == 0 {
			sale = &Sale{Amount: decimal.RequireFromString("1000.50"), MinorUnit: 2}
		}
		got, gotWarnings, gotErr := Rows(s, filter, sale)
		want, wantWarnings, wantErr := referenceRows(s, filter, sale)
		if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) || !reflect.DeepEqual(got, want) || !reflect.DeepEqual(gotWarnings, wantWarnings) {
			t.Fatalf("schedule %d: Rows differs from the reference\n got %v %v %v\nwant %v %v %v", i, got, gotWarnings, gotErr, want, wantWarnings, wantErr)
		}
	}
}
