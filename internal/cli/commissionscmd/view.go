package commissionscmd

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/paycli/paycli/internal/commission"
	"github.com/paycli/paycli/internal/render"
	"github.com/shopspring/decimal"
)

// JSONOutput is the document `paycli commissions -o json` prints. Its
// fields are a stable interface (docs/json-output.md): fields may be
// added, never renamed or removed.
type JSONOutput struct {
	Currency     string            `json:"currency"`
	CommissionBy string            `json:"commission_by"`
	Installments []JSONInstallment `json:"installments"`
}

// JSONInstallment is the entries of one installment count.
type JSONInstallment struct {
	Installment int         `json:"installment"`
	Entries     []JSONEntry `json:"entries"`
}

// JSONEntry is one commission entry. Rates are the gateway's own text for
// the number, as a string; a not-offered marker is null.
type JSONEntry struct {
	Kind                         string                     `json:"kind"`
	Title                        string                     `json:"title"`
	CardProgram                  string                     `json:"card_program"`
	MerchantCommissionPercentage *string                    `json:"merchant_commission_percentage"`
	MerchantCommissionFixed      *string                    `json:"merchant_commission_fixed"`
	UserCommissionPercentage     *string                    `json:"user_commission_percentage"`
	UserCommissionFixed          *string                    `json:"user_commission_fixed"`
	Available                    bool                       `json:"available"`
	PosID                        *int64                     `json:"pos_id,omitempty"`
	GetposCardProgram            string                     `json:"getpos_card_program,omitempty"`
	Extra                        map[string]json.RawMessage `json:"extra,omitempty"`
	Amounts                      *JSONAmounts               `json:"amounts,omitempty"`
}

// JSONAmounts are the amounts of a sale, as decimal strings with exactly
// the currency's number of decimals.
type JSONAmounts struct {
	Amount                 string `json:"amount"`
	MerchantFee            string `json:"merchant_fee"`
	MerchantNet            string `json:"merchant_net"`
	BuyerTotal             string `json:"buyer_total"`
	InstallmentAmount      string `json:"installment_amount"`
	FirstInstallmentAmount string `json:"first_installment_amount"`
}

// NewJSONOutput builds the JSON document of a result.
func NewJSONOutput(res *Result) JSONOutput {
	doc := JSONOutput{Currency: res.Currency, CommissionBy: res.CommissionBy, Installments: []JSONInstallment{}}
	for _, r := range res.Rows {
		if n := len(doc.Installments); n == 0 || doc.Installments[n-1].Installment != r.Installment {
			doc.Installments = append(doc.Installments, JSONInstallment{Installment: r.Installment, Entries: []JSONEntry{}})
		}
		last := &doc.Installments[len(doc.Installments)-1]
		last.Entries = append(last.Entries, jsonEntry(r))
	}
	return doc
}

func jsonEntry(r commission.Row) JSONEntry {
	e := r.Entry
	out := JSONEntry{
		Kind:                         r.Kind.String(),
		Title:                        e.Title,
		CardProgram:                  e.CardProgram,
		MerchantCommissionPercentage: rateText(e.MerchantCommissionPercentage),
		MerchantCommissionFixed:      rateText(e.MerchantCommissionFixed),
		UserCommissionPercentage:     rateText(e.UserCommissionPercentage),
		UserCommissionFixed:          rateText(e.UserCommissionFixed),
		Available:                    r.Offered(),
		PosID:                        e.PosID,
		GetposCardProgram:            e.GetposCardProgram,
	}
	if len(e.Extra) > 0 {
		out.Extra = e.Extra
	}
	if a := r.Amounts; a != nil {
		s := a.Strings()
		out.Amounts = &JSONAmounts{s[0], s[1], s[2], s[3], s[4], s[5]}
	}
	return out
}

// writeJSON writes what render.WriteJSON(w, NewJSONOutput(res)) writes,
// byte for byte, without going through reflection: a 40-program lookup
// took ~1 ms in encoding/json (marshal, then a second pass to indent),
// as long as decoding it. TestWriteJSONMatchesEncoder and
// FuzzDecodeRender hold the two to the same bytes.
func writeJSON(w io.Writer, res *Result) error {
	// The document goes out in pieces of about jsonChunk bytes: a buffer
	// for the whole of a large lookup (hundreds of KB) cost more in
	// allocation and GC than the writing itself. Nothing in it can fail
	// once started (extra fields are JSON the decoder checked), so only
	// a failing writer leaves it incomplete, as it would in one piece.
	b := make([]byte, 0, jsonChunk+4<<10)
	flush := func(force bool) error {
		if len(b) < jsonChunk && !force {
			return nil
		}
		_, err := w.Write(b)
		b = b[:0]
		return err
	}
	b = append(b, "{\n  \"currency\": "...)
	b = render.AppendJSONString(b, res.Currency)
	b = append(b, ",\n  \"commission_by\": "...)
	b = render.AppendJSONString(b, res.CommissionBy)
	b = append(b, ",\n  \"installments\": ["...)
	if len(res.Rows) == 0 {
		b = append(b, "]\n}\n"...)
		return flush(true)
	}
	for i := range res.Rows {
		r := &res.Rows[i]
		if i == 0 || res.Rows[i-1].Installment != r.Installment {
			if i > 0 {
				b = append(b, indentEntries+"]"+indentInstallment+"},"...)
			}
			b = append(b, indentInstallment+"{"+indentEntries+"\"installment\": "...)
			b = strconv.AppendInt(b, int64(r.Installment), 10)
			b = append(b, ","+indentEntries+"\"entries\": ["...)
		} else {
			b = append(b, ',')
		}
		var err error
		if b, err = appendJSONEntry(b, r); err != nil {
			return err
		}
		if err := flush(false); err != nil {
			return err
		}
	}
	b = append(b, indentEntries+"]"+indentInstallment+"}\n  ]\n}\n"...)
	return flush(true)
}

// jsonChunk is the size of the pieces writeJSON writes.
const jsonChunk = 16 << 10

// JSON indentation of each level of the document.
const (
	indentInstallment = "\n    "
	indentEntries     = "\n      "
	indentEntry       = "\n        "
	indentEntryField  = "\n          "
	indentAmountField = "\n            "
)

// appendJSONEntry writes jsonEntry(r) at its place in the document.
func appendJSONEntry(b []byte, r *commission.Row) ([]byte, error) {
	e := &r.Entry
	field := func(name string) {
		b = append(b, indentEntryField+"\""...)
		b = append(b, name...)
		b = append(b, "\": "...)
	}
	rate := func(name string, v commission.Value) {
		field(name)
		if v.Available() {
			b = render.AppendJSONString(b, v.String())
		} else {
			b = append(b, "null"...)
		}
		b = append(b, ',')
	}
	b = append(b, indentEntry+"{"...)
	field("kind")
	b = render.AppendJSONString(b, r.Kind.String())
	b = append(b, ',')
	field("title")
	b = render.AppendJSONString(b, e.Title)
	b = append(b, ',')
	field("card_program")
	b = render.AppendJSONString(b, e.CardProgram)
	b = append(b, ',')
	rate("merchant_commission_percentage", e.MerchantCommissionPercentage)
	rate("merchant_commission_fixed", e.MerchantCommissionFixed)
	rate("user_commission_percentage", e.UserCommissionPercentage)
	rate("user_commission_fixed", e.UserCommissionFixed)
	field("available")
	b = strconv.AppendBool(b, r.Offered())
	if e.PosID != nil {
		b = append(b, ',')
		field("pos_id")
		b = strconv.AppendInt(b, *e.PosID, 10)
	}
	if e.GetposCardProgram != "" {
		b = append(b, ',')
		field("getpos_card_program")
		b = render.AppendJSONString(b, e.GetposCardProgram)
	}
	if len(e.Extra) > 0 {
		// Rare, and free-form: encoding/json writes it, indented to its
		// depth, as it would inside the whole document.
		var extra bytes.Buffer
		enc := json.NewEncoder(&extra)
		enc.SetEscapeHTML(false)
		enc.SetIndent(indentEntryField[1:], "  ")
		if err := enc.Encode(e.Extra); err != nil {
			return nil, err
		}
		b = append(b, ',')
		field("extra")
		b = append(b, bytes.TrimSuffix(extra.Bytes(), []byte("\n"))...)
	}
	if a := r.Amounts; a != nil {
		s := a.Strings()
		b = append(b, ',')
		field("amounts")
		b = append(b, '{')
		for i, name := range [...]string{"amount", "merchant_fee", "merchant_net", "buyer_total", "installment_amount", "first_installment_amount"} {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, indentAmountField+"\""...)
			b = append(b, name...)
			b = append(b, "\": "...)
			b = render.AppendJSONString(b, s[i])
		}
		b = append(b, indentEntryField+"}"...)
	}
	return append(b, indentEntry+"}"...), nil
}

// rateText is the gateway's text for a number, nil for a marker.
func rateText(v commission.Value) *string {
	if !v.Available() {
		return nil
	}
	s := v.String()
	return &s
}

// Records is the long layout for CSV and TSV: a header row named after
// the JSON fields, then one row per entry; not-offered values are empty
// cells, numbers keep the gateway's text, amounts are plain decimals.
func Records(res *Result) (header []string, rows [][]string) {
	header = []string{"installment", "kind", "title", "card_program", "getpos_card_program",
		"merchant_commission_percentage", "merchant_commission_fixed",
		"user_commission_percentage", "user_commission_fixed", "available", "pos_id"}
	if res.Amount != nil {
		header = append(header, "amount", "merchant_fee", "merchant_net", "buyer_total", "installment_amount", "first_installment_amount")
	}
	for _, r := range res.Rows {
		e := r.Entry
		row := []string{strconv.Itoa(r.Installment), r.Kind.String(), e.Title, e.CardProgram, e.GetposCardProgram,
			plain(e.MerchantCommissionPercentage), plain(e.MerchantCommissionFixed),
			plain(e.UserCommissionPercentage), plain(e.UserCommissionFixed),
			strconv.FormatBool(r.Offered()), posID(e)}
		if res.Amount != nil {
			if r.Amounts != nil {
				s := r.Amounts.Strings()
				row = append(row, s[:]...)
			} else {
				row = append(row, "", "", "", "", "", "")
			}
		}
		rows = append(rows, row)
	}
	return header, rows
}

func plain(v commission.Value) string {
	if !v.Available() {
		return ""
	}
	return v.String()
}

func posID(e commission.Entry) string {
	if e.PosID == nil {
		return ""
	}
	return strconv.FormatInt(*e.PosID, 10)
}

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
// The percentage drops trailing zeros ("1.7500" is 1.75%); the fixed part
// is money, written with the currency's decimals ("0.5000" is 0.50 in
// TRY) unless the gateway gave it more precision than that. JSON and the
// long layout keep the gateway's text.
func rateCell(pct, fixed commission.Value, minorUnit int32) string {
	p, ok := pct.Decimal()
	if !ok {
		return notOffered
	}
	s := decimalString(pct.String(), p) + "%"
	if f, ok := fixed.Decimal(); ok && !f.IsZero() {
		text := f.String()
		if f.Equal(f.Round(minorUnit)) {
			text = f.StringFixed(minorUnit)
		}
		s += " + " + render.GroupThousands(text)
	}
	return s
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
// and the installments — and, when the matrix shows the merchant's side,
// the merchant's fee, which is what that side wants to compare.
func matrixCell(r *commission.Row, side string, minorUnit int32) string {
	if a := r.Amounts; a != nil {
		// Only the figures shown are formatted (Strings formats all six).
		money := func(d decimal.Decimal) string { return render.GroupThousands(d.StringFixed(a.MinorUnit)) }
		cell := money(a.BuyerTotal) + " / " + strconv.Itoa(r.Installment) + "×" + money(a.InstallmentAmount)
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

// writeMatrix prints the regular entries as programs × installment counts,
// then the special kinds of installment 1 in a small table.
func writeMatrix(w io.Writer, palette render.Palette, res *Result, side string) error {
	var (
		programs []string
		columns  []int
		// Cells point into res.Rows: a row is a few hundred bytes, and
		// copying each into the map was most of the matrix's cost.
		cells    = map[string]map[int]*commission.Row{}
		specials []commission.Row
	)
	for i := range res.Rows {
		r := &res.Rows[i]
		if r.Kind != commission.KindRegular {
			if r.Installment == 1 {
				specials = append(specials, *r)
			}
			continue
		}
		p := r.Program()
		if cells[p] == nil {
			cells[p] = map[int]*commission.Row{}
			programs = append(programs, p)
		}
		if _, dup := cells[p][r.Installment]; dup {
			continue // the long layout shows both; a cell holds one
		}
		cells[p][r.Installment] = r
		if len(columns) == 0 || columns[len(columns)-1] != r.Installment {
			columns = append(columns, r.Installment)
		}
	}
	commission.SortPrograms(programs)

	written := false
	if len(programs) > 0 {
		header := []string{"PROGRAM"}
		align := make([]int, 0, len(columns))
		for i, n := range columns {
			header = append(header, strconv.Itoa(n))
			align = append(align, i+1)
		}
		rows := make([][]string, len(programs))
		for i, p := range programs {
			row := []string{p}
			for _, n := range columns {
				r, ok := cells[p][n]
				if !ok {
					row = append(row, "")
					continue
				}
				row = append(row, matrixCell(r, side, res.MinorUnit))
			}
			rows[i] = row
		}
		cheapest := cheapestCells(programs, columns, cells, side)
		err := render.WriteTable(w, render.TableOptions{
			Palette:          palette,
			RightAlign:       align,
			RightAlignHeader: true,
			Highlight:        func(row, col int) bool { return col > 0 && cheapest[[2]int{row, col}] },
		}, header, rows)
		if err != nil {
			return err
		}
		written = true
	}
	if len(specials) == 0 {
		return nil
	}
	if written {
		if _, err := fmt.Fprintln(w); err != nil {
			return err
		}
	}
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
	return render.WriteTable(w, render.TableOptions{Palette: palette, RightAlign: align, RightAlignHeader: true}, header, rows)
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
func writeLong(w io.Writer, palette render.Palette, res *Result) error {
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
	return render.WriteTable(w, render.TableOptions{Palette: palette, RightAlign: align, RightAlignHeader: true}, header, rows)
}
