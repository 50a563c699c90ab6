package commissionscmd

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/paycli/paycli/internal/commission"
	"github.com/paycli/paycli/internal/render"
	"github.com/shopspring/decimal"
)

// notOffered is what tables show for a value the gateway does not offer.
const notOffered = "–"

// kindLabel names a kind for people.
func kindLabel(k commission.Kind) string {
	switch k {
	case commission.KindRegular:
		return "regular"
	case commission.KindSavedCardToken:
		return "saved card token"
	case commission.KindForeignCard:
		return "foreign card"
	}
	return "other"
}

// tableValue is a figure in the long table: the gateway's text, "–" for a
// marker.
func tableValue(v commission.Value) string {
	if !v.Available() {
		return notOffered
	}
	return v.String()
}

// rateCell is a rate as a person reads it: "1.75%", "1.75% + 0.25", "–".
// The percentage has two decimals, more only when the gateway gave more
// digits than zeros ("1.7500" is 1.75%, "2.6" is 2.60%, "3.125" stays
// 3.125%: percentText); the fixed part
// is money, written with the currency's decimals ("0.5000" is 0.50 in
// TRY) unless the gateway gave it more precision than that. JSON and the
// long layout keep the gateway's text.
func rateCell(pct, fixed commission.Value, minorUnit int32) string {
	p, ok := pct.Decimal()
	if !ok {
		return notOffered
	}
	s := percentText(decimalString(pct.String(), p)) + "%"
	if f, ok := fixed.Decimal(); ok && !f.IsZero() {
		text := f.String()
		if f.Equal(f.Round(minorUnit)) {
			text = f.StringFixed(minorUnit)
		}
		s += " + " + render.GroupThousands(text)
	}
	return s
}

// percentText writes a percentage, trailing zeros already dropped, with
// at least two decimals, so that a column reads one way ("2.60%" beside
// "2.45%", "2.00%").
func percentText(s string) string {
	whole, frac, _ := strings.Cut(s, ".")
	if len(frac) >= 2 {
		return s
	}
	return whole + "." + frac + strings.Repeat("0", 2-len(frac))
}

// decimalString is d.String() for d parsed from text, read off the text
// when it is a plain decimal ("1.2500" is "1.25", "0.0000" is "0"), which
// spares formatting a big integer per cell; any other text (exponents,
// signs, blanks, leading zeros) goes to d.String().
// TestDecimalString holds the two to the same result.
func decimalString(text string, d decimal.Decimal) string {
	i := 0
	neg := strings.HasPrefix(text, "-")
	if neg {
		i++
	}
	whole := 0
	for i+whole < len(text) && text[i+whole] >= '0' && text[i+whole] <= '9' {
		whole++
	}
	if whole == 0 || whole > 1 && text[i] == '0' {
		return d.String()
	}
	end := i + whole
	if end < len(text) {
		if text[end] != '.' {
			return d.String()
		}
		frac := 0
		for end+1+frac < len(text) && text[end+1+frac] >= '0' && text[end+1+frac] <= '9' {
			frac++
		}
		if frac == 0 || end+1+frac != len(text) {
			return d.String()
		}
		end = len(text)
		for text[end-1] == '0' {
			end--
		}
		if text[end-1] == '.' {
			end--
		}
	}
	out := text[:end]
	if neg && strings.Trim(out[1:], "0.") == "" {
		return "0" // -0.00 is zero, which has no sign
	}
	return out
}

func sideRates(e commission.Entry, side string) (pct, fixed commission.Value) {
	if side == SideUser {
		return e.UserCommissionPercentage, e.UserCommissionFixed
	}
	return e.MerchantCommissionPercentage, e.MerchantCommissionFixed
}

// cost orders cells for highlighting: with amounts, what the side pays
// (the merchant's fee, or the buyer's surcharge); without, the
// percentage, then the fixed part.
type cost struct{ first, second decimal.Decimal }

func (c cost) less(d cost) bool {
	if cmp := c.first.Cmp(d.first); cmp != 0 {
		return cmp < 0
	}
	return c.second.LessThan(d.second)
}

func (c cost) equal(d cost) bool { return c.first.Equal(d.first) && c.second.Equal(d.second) }

func costOf(r *commission.Row, side string) (cost, bool) {
	if r.Amounts != nil {
		if side == SideUser {
			return cost{first: r.Amounts.BuyerTotal.Sub(r.Amounts.Amount)}, true
		}
		return cost{first: r.Amounts.MerchantFee}, true
	}
	pct, fixed := sideRates(r.Entry, side)
	p, ok := pct.Decimal()
	if !ok {
		return cost{}, false
	}
	f, _ := fixed.Decimal()
	return cost{first: p, second: f}, true
}

// matrixCell is one cell: the rate, or with an amount the buyer's total
// (left out when every cell's is the price: totalIsPrice) and the
// installments, the odd cent shown ("416.84 + 2×416.83") — and, when the
// matrix shows the merchant's side, the merchant's fee, which is what that
// side wants to compare.
func matrixCell(r *commission.Row, side string, minorUnit int32, totalIsPrice bool) string {
	if a := r.Amounts; a != nil {
		// Only the figures shown are formatted (Strings formats all six).
		money := func(d decimal.Decimal) string { return render.GroupThousands(d.StringFixed(a.MinorUnit)) }
		cell := installmentsText(r.Installment, money(a.FirstInstallmentAmount), money(a.InstallmentAmount))
		if !totalIsPrice {
			cell = money(a.BuyerTotal) + " / " + cell
		}
		if side == "merchant" {
			cell += ", fee " + money(a.MerchantFee)
		}
		return cell
	}
	if !r.Offered() {
		return notOffered
	}
	pct, fixed := sideRates(r.Entry, side)
	return rateCell(pct, fixed, minorUnit)
}

// installmentsText is how n installments are paid: "3×416.83" when they
// are equal, "416.84 + 2×416.83" when the first carries the odd cents,
// "625.26 + 625.25" for two.
func installmentsText(n int, first, each string) string {
	switch {
	case first == each:
		return strconv.Itoa(n) + "×" + each
	case n == 2:
		return first + " + " + each
	}
	return first + " + " + strconv.Itoa(n-1) + "×" + each
}

// totalIsPrice reports whether every priced regular row has the buyer pay
// the price itself (the merchant bears the commission): the matrix then
// says the total once, not in every cell, and its cells fit two to a block
// on an 80-column terminal.
func totalIsPrice(rows []commission.Row) bool {
	for _, r := range rows {
		if r.Kind == commission.KindRegular && r.Amounts != nil && !r.Amounts.BuyerTotal.Equal(r.Amounts.Amount) {
			return false
		}
	}
	return true
}

// writeMatrix prints the regular entries as programs × installment counts,
// then the special kinds of installment 1 in a small table. On a terminal
// narrower than the matrix (width > 0), the installment columns are split
// into blocks that fit, each repeating the PROGRAM column.
func writeMatrix(w io.Writer, palette render.Palette, width int, res *Result, side string) error {
	m, specials := matrixOf(res.Rows)
	if len(m.programs) > 0 {
		if err := m.write(w, palette, width, side, res.MinorUnit, res.Amount != nil && totalIsPrice(res.Rows)); err != nil {
			return err
		}
	}
	if len(specials) == 0 {
		return nil
	}
	if len(m.programs) > 0 {
		if _, err := fmt.Fprintln(w); err != nil {
			return err
		}
	}
	return writeSpecials(w, palette, width, specials, res)
}

// matrix is the regular entries by program and installment count, in
// the order the table shows them.
type matrix struct {
	programs []string
	columns  []int
	// Cells point into the rows: a row is a few hundred bytes, and
	// copying each into the map was most of the matrix's cost.
	cells map[string]map[int]*commission.Row
}

// matrixOf places the regular rows in a matrix and returns the special
// kinds of installment 1 apart.
func matrixOf(rows []commission.Row) (m matrix, specials []commission.Row) {
	m.cells = map[string]map[int]*commission.Row{}
	for i := range rows {
		r := &rows[i]
		if r.Kind != commission.KindRegular {
			if r.Installment == 1 {
				specials = append(specials, *r)
			}
			continue
		}
		p := r.Program()
		if m.cells[p] == nil {
			m.cells[p] = map[int]*commission.Row{}
			m.programs = append(m.programs, p)
		}
		if _, dup := m.cells[p][r.Installment]; dup {
			continue // the long layout shows both; a cell holds one
		}
		m.cells[p][r.Installment] = r
		if len(m.columns) == 0 || m.columns[len(m.columns)-1] != r.Installment {
			m.columns = append(m.columns, r.Installment)
		}
	}
	commission.SortPrograms(m.programs)
	return m, specials
}

// write prints the matrix, the cheapest cell of each column highlighted.
func (m matrix) write(w io.Writer, palette render.Palette, width int, side string, minorUnit int32, plainTotal bool) error {
	header := []string{"PROGRAM"}
	align := make([]int, 0, len(m.columns))
	for i, n := range m.columns {
		header = append(header, strconv.Itoa(n))
		align = append(align, i+1)
	}
	rows := make([][]string, len(m.programs))
	for i, p := range m.programs {
		row := []string{p}
		for _, n := range m.columns {
			r, ok := m.cells[p][n]
			if !ok {
				row = append(row, "")
				continue
			}
			row = append(row, matrixCell(r, side, minorUnit, plainTotal))
		}
		rows[i] = row
	}
	cheapest := cheapestCells(m.programs, m.columns, m.cells, side)
	return render.WriteTable(w, render.TableOptions{
		Palette:          palette,
		RightAlign:       align,
		RightAlignHeader: true,
		Highlight:        func(row, col int) bool { return col > 0 && cheapest[[2]int{row, col}] },
		MaxWidth:         width,
		KeepColumns:      1,
	}, header, rows)
}

// writeSpecials prints the special kinds of installment 1, with their
// amounts when the sale's amount was given.
func writeSpecials(w io.Writer, palette render.Palette, width int, specials []commission.Row, res *Result) error {
	header := []string{"KIND", "MERCHANT", "USER"}
	if res.Amount != nil {
		header = append(header, "MERCHANT FEE", "BUYER TOTAL")
	}
	rows := make([][]string, len(specials))
	for i, r := range specials {
		e := r.Entry
		row := []string{specialLabel(r), rateCell(e.MerchantCommissionPercentage, e.MerchantCommissionFixed, res.MinorUnit),
			rateCell(e.UserCommissionPercentage, e.UserCommissionFixed, res.MinorUnit)}
		if !r.Offered() {
			row[1], row[2] = notOffered, notOffered
		}
		if res.Amount != nil {
			if a := r.Amounts; a != nil {
				s := a.Strings()
				row = append(row, render.GroupThousands(s[1]), render.GroupThousands(s[3]))
			} else {
				row = append(row, notOffered, notOffered)
			}
		}
		rows[i] = row
	}
	align := []int{1, 2}
	if res.Amount != nil {
		align = append(align, 3, 4)
	}
	return render.WriteTable(w, render.TableOptions{Palette: palette, RightAlign: align, RightAlignHeader: true, MaxWidth: width, KeepColumns: 1}, header, rows)
}

// specialLabel names a non-regular entry: its kind, or for an entry paycli
// cannot place, its title.
func specialLabel(r commission.Row) string {
	if r.Kind == commission.KindOther && r.Entry.Title != "" {
		return r.Entry.Title
	}
	return kindLabel(r.Kind)
}

// cheapestCells marks, per column, the offered cells that cost least for
// the side shown, unless every offered cell of the column costs the same.
func cheapestCells(programs []string, columns []int, cells map[string]map[int]*commission.Row, side string) map[[2]int]bool {
	marked := map[[2]int]bool{}
	for ci, n := range columns {
		var best cost
		var at []int
		offered := 0
		for pi, p := range programs {
			r, ok := cells[p][n]
			if !ok || !r.Offered() {
				continue
			}
			c, ok := costOf(r, side)
			if !ok {
				continue
			}
			offered++
			switch {
			case len(at) == 0 || c.less(best):
				best, at = c, []int{pi}
			case c.equal(best):
				at = append(at, pi)
			}
		}
		// Nothing stands out in a column of one, or of equals.
		if offered < 2 || len(at) == offered {
			continue
		}
		for _, pi := range at {
			marked[[2]int{pi, ci + 1}] = true
		}
	}
	return marked
}

// writeLong prints one row per entry with all four figures as the gateway
// wrote them.
func writeLong(w io.Writer, palette render.Palette, width int, res *Result) error {
	header := []string{"INSTALLMENT", "KIND", "PROGRAM", "MERCHANT %", "MERCHANT FIXED", "USER %", "USER FIXED", "POS"}
	align := []int{0, 3, 4, 5, 6, 7}
	if res.Amount != nil {
		header = append(header, "MERCHANT FEE", "MERCHANT NET", "BUYER TOTAL", "INSTALLMENT AMOUNT", "FIRST INSTALLMENT")
		align = append(align, 8, 9, 10, 11, 12)
	}
	rows := make([][]string, len(res.Rows))
	for i, r := range res.Rows {
		e := r.Entry
		program := r.Program()
		if r.Kind == commission.KindOther && program == "" {
			program = e.Title
		}
		row := []string{strconv.Itoa(r.Installment), kindLabel(r.Kind), program,
			tableValue(e.MerchantCommissionPercentage), tableValue(e.MerchantCommissionFixed),
			tableValue(e.UserCommissionPercentage), tableValue(e.UserCommissionFixed), posID(e)}
		if res.Amount != nil {
			if a := r.Amounts; a != nil {
				s := a.Strings()
				for _, v := range s[1:] {
					row = append(row, render.GroupThousands(v))
				}
			} else {
				row = append(row, notOffered, notOffered, notOffered, notOffered, notOffered)
			}
		}
		rows[i] = row
	}
	// On a narrow terminal each block repeats what names the entry.
	return render.WriteTable(w, render.TableOptions{Palette: palette, RightAlign: align, RightAlignHeader: true, MaxWidth: width, KeepColumns: 3}, header, rows)
}
