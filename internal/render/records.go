package render

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"io"
	"slices"
	"strings"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/pkg/twwidth"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"
)

// Records for a person or a script: an object's fields (WriteFields), CSV
// or TSV (WriteRecords), and tables (WriteTable), fitted to the terminal
// by the one rule below: the whole writer of a table in one file.

// WriteFields writes an object of a gateway answer as a two-column table
// of fields, as one indented JSON object, or as CSV/TSV with a header of
// names and one row. Card numbers in it are masked in every format
// (MaskFields), and the table makes control characters visible (Escape).
// table gives the table's colour and width; its values wrap to fit.
func WriteFields(w io.Writer, format Format, table TableOptions, fs []Field) error {
	fs = MaskFields(fs)
	switch format {
	case JSON:
		var indented bytes.Buffer
		if err := json.Indent(&indented, MarshalFields(fs), "", "  "); err != nil {
			return err
		}
		indented.WriteByte('\n')
		_, err := w.Write(indented.Bytes())
		return err
	case CSV, TSV:
		header := make([]string, len(fs))
		row := make([]string, len(fs))
		for i, f := range fs {
			header[i], row[i] = f.Name, f.Text
		}
		return WriteRecords(w, format, header, [][]string{row})
	}
	rows := make([][]string, len(fs))
	for i, f := range fs {
		rows[i] = []string{f.Name, f.Text}
	}
	table.Wrap = []int{1}
	return WriteTable(w, table, []string{"FIELD", "VALUE"}, rows)
}

// WriteRecords writes a header and rows as CSV (RFC 4180 quoting) or TSV;
// a nil header writes only the rows (the next records of a stream).
func WriteRecords(w io.Writer, f Format, header []string, rows [][]string) error {
	cw := csv.NewWriter(w)
	if f == TSV {
		cw.Comma = '\t'
	}
	if header != nil { // nil: more records of a stream whose header is out
		if err := cw.Write(header); err != nil {
			return err
		}
	}
	if err := cw.WriteAll(rows); err != nil {
		return err
	}
	return cw.Error()
}

// TableOptions shape a table.
type TableOptions struct {
	// Bold headers when colour is on.
	Palette Palette
	// RightAlign lists the columns (0-based) aligned right, e.g. numbers.
	RightAlign []int
	// RightAlignHeader aligns the headers of the RightAlign columns right
	// too, over their numbers; otherwise every header is aligned left.
	RightAlignHeader bool
	// Highlight, when set, picks the body cells (row and column 0-based)
	// drawn highlighted (bold green) when colour is on. Without colour
	// the table is byte-for-byte what it would be without Highlight.
	Highlight func(row, col int) bool
	// Colour, when set and colour is on, gives the colour of a body cell
	// (a Palette method such as Palette.Green; nil for none). Cells are
	// escaped before they are coloured, so colour is given here and never
	// inside a cell's text, where it would be shown as \x1b[…m.
	Colour func(row, col int) func(string) string
	// MaxWidth, when more than 0, is the width (in terminal columns) the
	// table must fit; a wider table is fitted by the one rule of records.go
	// (headers wrapped, Wrap columns wrapped, Drop columns left out, then
	// blocks). Output for a pipe has no width and is the whole table.
	MaxWidth int
	// KeepColumns, for a matrix, is how many leading columns name a row
	// (PROGRAM): a matrix that cannot fit otherwise is written as blocks
	// of its columns, one below the other, each repeating these. A table
	// without them is written one block per row instead. A block that
	// cannot fit (its kept columns and one more are wider) is written as
	// it is.
	KeepColumns int
	// Wrap lists the free-text columns (0-based) that may be wrapped at
	// their blanks to fit MaxWidth.
	Wrap []int
	// Drop lists the columns (0-based) of least value, first to go, that
	// are left out on a terminal too narrow for them.
	Drop []int
	// Shorten lists the free-text columns (0-based) that are cut to one
	// line ending in "…" to fit MaxWidth, rather than wrapped: a listing
	// stays one line per row, and its whole text is shown elsewhere.
	Shorten []int
}

// WriteTable writes a plain-bordered table through tablewriter. Cells are
// written as given (the header is not re-cased, numbers are not
// re-formatted), except that control characters are made visible
// (Escape): a cell may hold text from outside.
//
// With MaxWidth set, a table wider than that is fitted to it (see
// TableOptions.MaxWidth).
func WriteTable(w io.Writer, opts TableOptions, header []string, rows [][]string) error {
	header, rows = escapeCells(header), escapeRows(rows)
	whole, err := renderTable(opts, header, rows)
	if err != nil {
		return err
	}
	if opts.MaxWidth <= 0 || tableWidth(whole) <= opts.MaxWidth {
		_, err := w.Write(whole)
		return err
	}
	return fitTable(w, opts, header, rows)
}

// writeColumnBlocks writes a matrix wider than opts.MaxWidth as blocks of
// its columns, each repeating the first KeepColumns columns.
func writeColumnBlocks(w io.Writer, opts TableOptions, header []string, rows [][]string) error {
	keep := min(max(opts.KeepColumns, 0), len(header))
	if keep == len(header) {
		whole, err := renderTable(opts, header, rows)
		if err != nil {
			return err
		}
		_, err = w.Write(whole)
		return err
	}
	// Greedy: each block takes columns while it still fits.
	var blocks [][]byte
	var block []int
	var written []byte
	for c := keep; c < len(header); c++ {
		b, err := renderColumns(opts, header, rows, keep, append(block, c))
		if err != nil {
			return err
		}
		if tableWidth(b) > opts.MaxWidth && len(block) > 0 {
			blocks = append(blocks, written)
			block = []int{c}
			if written, err = renderColumns(opts, header, rows, keep, block); err != nil {
				return err
			}
			continue
		}
		block, written = append(block, c), b
	}
	blocks = append(blocks, written)
	for i, b := range blocks {
		if i > 0 {
			if _, err := io.WriteString(w, "\n"); err != nil {
				return err
			}
		}
		if _, err := w.Write(b); err != nil {
			return err
		}
	}
	return nil
}

// renderColumns renders the first keep columns and the columns cols of a
// table.
func renderColumns(opts TableOptions, header []string, rows [][]string, keep int, cols []int) ([]byte, error) {
	pick := make([]int, 0, keep+len(cols))
	for i := range keep {
		pick = append(pick, i)
	}
	pick = append(pick, cols...)
	at := make(map[int]int, len(pick)) // original column → column in the block
	for i, c := range pick {
		at[c] = i
	}
	sub := opts
	sub.RightAlign = nil
	for _, c := range opts.RightAlign {
		if i, ok := at[c]; ok {
			sub.RightAlign = append(sub.RightAlign, i)
		}
	}
	if opts.Highlight != nil {
		sub.Highlight = func(row, col int) bool { return opts.Highlight(row, pick[col]) }
	}
	if opts.Colour != nil {
		sub.Colour = func(row, col int) func(string) string { return opts.Colour(row, pick[col]) }
	}
	cells := func(r []string) []string {
		out := make([]string, len(pick))
		for i, c := range pick {
			if c < len(r) {
				out[i] = r[c]
			}
		}
		return out
	}
	subRows := make([][]string, len(rows))
	for i, r := range rows {
		subRows[i] = cells(r)
	}
	return renderTable(sub, cells(header), subRows)
}

// tableWidth is the display width of a rendered table's widest line.
func tableWidth(table []byte) int {
	width := 0
	for line := range bytes.Lines(table) {
		width = max(width, twwidth.Width(string(bytes.TrimSuffix(line, []byte("\n")))))
	}
	return width
}

// renderTable renders a table through tablewriter.
func renderTable(opts TableOptions, header []string, rows [][]string) ([]byte, error) {
	widthCacheOff.Do(func() { twwidth.SetCacheCapacity(0) })
	aligns := make([]tw.Align, len(header))
	for i := range aligns {
		aligns[i] = tw.AlignLeft
	}
	for _, i := range opts.RightAlign {
		if i >= 0 && i < len(aligns) {
			aligns[i] = tw.AlignRight
		}
	}
	headerAligns := make([]tw.Align, len(header))
	for i := range headerAligns {
		headerAligns[i] = tw.AlignLeft
		if opts.RightAlignHeader {
			headerAligns[i] = aligns[i]
		}
	}
	hdr := make([]string, len(header))
	for i, h := range header {
		// Line by line: tablewriter lays out each line of a wrapped
		// header on its own, and a colour must not run across them.
		lines := strings.Split(h, "\n")
		for j, l := range lines {
			lines[j] = opts.Palette.Bold(l)
		}
		hdr[i] = strings.Join(lines, "\n")
	}
	var buf bytes.Buffer
	t := tablewriter.NewTable(&buf,
		tablewriter.WithRenderer(renderer.NewBlueprint(tw.Rendition{
			Borders: tw.BorderNone,
			Symbols: tw.NewSymbols(tw.StyleNone),
			Settings: tw.Settings{
				Separators: tw.Separators{BetweenColumns: tw.Off, BetweenRows: tw.Off},
				Lines:      tw.Lines{ShowHeaderLine: tw.Off},
			},
		})),
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithHeaderAlignmentConfig(tw.CellAlignment{PerColumn: headerAligns}),
		tablewriter.WithRowAlignmentConfig(tw.CellAlignment{PerColumn: aligns}),
		tablewriter.WithRowAutoWrap(tw.WrapNone),
		tablewriter.WithHeaderAutoWrap(tw.WrapNone),
		tablewriter.WithPadding(tw.Padding{Left: "", Right: columnGap, Overwrite: true}),
		tablewriter.WithTrimSpace(tw.Off),
	)
	t.Header(hdr)
	body := rows
	if (opts.Highlight != nil || opts.Colour != nil) && opts.Palette.Enabled {
		body = make([][]string, len(rows))
		for ri, r := range rows {
			body[ri] = make([]string, len(r))
			for i, c := range r {
				if opts.Colour != nil {
					if colour := opts.Colour(ri, i); colour != nil {
						c = colour(c)
					}
				}
				if opts.Highlight != nil && opts.Highlight(ri, i) {
					c = opts.Palette.Highlight(c)
				}
				body[ri][i] = c
			}
		}
	}
	if err := t.Bulk(body); err != nil {
		return nil, err
	}
	if err := t.Render(); err != nil {
		return nil, err
	}
	// The column padding leaves trailing blanks; a person never sees them
	// but goldens, diffs and `cut` do.
	out := make([]byte, 0, buf.Len())
	for line := range bytes.Lines(buf.Bytes()) {
		out = appendTrimmedLine(out, line)
	}
	return out, nil
}

// escapeRows is rows with every cell escaped; rows itself when no cell
// needs it.
func escapeRows(rows [][]string) [][]string {
	return mapIfChanged(rows, func(r []string) ([]string, bool) {
		e := escapeCells(r)
		return e, len(r) > 0 && &e[0] != &r[0]
	})
}

// escapeCells is cells with every cell escaped; cells itself when no cell
// needs it.
func escapeCells(cells []string) []string {
	return mapIfChanged(cells, func(c string) (string, bool) {
		e := Escape(c)
		return e, e != c
	})
}

// mapIfChanged is xs with f applied to each element, in a new slice; xs
// itself when f changes none, so that the usual output, with nothing to
// escape, copies nothing. xs is never written to.
func mapIfChanged[T any](xs []T, f func(T) (T, bool)) []T {
	for i, x := range xs {
		if y, changed := f(x); changed {
			out := make([]T, len(xs))
			copy(out, xs[:i])
			out[i] = y
			for j := i + 1; j < len(xs); j++ {
				out[j], _ = f(xs[j])
			}
			return out
		}
	}
	return xs
}

// columnGap is the padding after each cell.
const columnGap = "  "

var ansiReset = []byte("\x1b[0m")

// appendTrimmedLine appends line without its trailing blanks (and the
// colour resets tablewriter puts after them), closing any colour the line
// opened.
func appendTrimmedLine(dst, line []byte) []byte {
	out := bytes.TrimRight(line, "\n")
	for {
		n := len(out)
		out = bytes.TrimRight(out, " ")
		out = bytes.TrimSuffix(out, ansiReset)
		if len(out) == n {
			break
		}
	}
	dst = append(dst, out...)
	if bytes.Contains(out, []byte("\x1b[")) {
		dst = append(dst, ansiReset...)
	}
	return append(dst, '\n')
}

// The one rule by which every table fits a terminal (TableOptions.MaxWidth),
// tried in order until the table fits:
//
//  1. the table as it is;
//  2. headers wrapped at their blanks (a header is never why a table is
//     too wide);
//  3. the free-text columns (TableOptions.Wrap) wrapped at their blanks,
//     no narrower than wrapMinWidth;
//  4. the low-value columns (TableOptions.Drop) left out, in that order,
//     while the columns to shorten (TableOptions.Shorten) count as
//     shortenWidths wide; then they are given the room left and cut to
//     it, on one line;
//  5. a matrix (TableOptions.KeepColumns) split into blocks of columns
//     that repeat the columns naming a row; any other table written as
//     one block per row, a line per column, values wrapped.
//
// Piped output never has a width and is always the whole table.

// wrapMinWidth is the narrowest a free-text column is wrapped to.
const wrapMinWidth = 16

// shortenWidths are the widths a column to shorten counts as while the
// low-value columns are dropped: room for a phrase first, so that a column
// of less value goes before the text is cut to a stub; when even that
// cannot fit, the narrower one, with every low-value column gone.
var shortenWidths = [...]int{24, 12}

// fitTable writes a table that is wider than opts.MaxWidth so that it fits,
// by the rule above. header and rows are escaped already.
func fitTable(w io.Writer, opts TableOptions, header []string, rows [][]string) error {
	for i, floor := range shortenWidths {
		if i > 0 && len(opts.Shorten) == 0 {
			break
		}
		f := newFitting(opts, header, rows)
		// Past the first width, every low-value column goes: the text is
		// what is left to read.
		f.dropEvery = i > 0
		f.wrapHeaders()
		for _, c := range opts.Shorten {
			if c >= 0 && c < len(f.widths) {
				f.widths[c] = min(f.widths[c], max(floor, textWidth(header[c])))
			}
		}
		f.base = slices.Clone(f.widths)
		f.wrapText()
		f.dropLowValue()
		if f.fits() {
			f.growShortened()
			return writeColumns(w, opts, header, rows, f.cols, f.widths)
		}
	}
	// 5. Blocks of columns, or one block per row.
	if opts.KeepColumns > 0 {
		return writeColumnBlocks(w, opts, header, rows)
	}
	return writeRecords(w, opts, header, rows)
}

// fitting is a table on its way to fit: the columns still shown and the
// width each is given.
type fitting struct {
	opts   TableOptions
	header []string
	rows   [][]string
	cols   []int
	// natural is a column's widest line; headerMin its narrowest with the
	// header wrapped; base its width before the free text is wrapped.
	natural, headerMin, base []int
	widths                   []int
	// dropEvery drops every low-value column, fitting or not.
	dropEvery bool
}

func newFitting(opts TableOptions, header []string, rows [][]string) *fitting {
	f := &fitting{opts: opts, header: header, rows: rows,
		cols: make([]int, len(header)), natural: make([]int, len(header)), headerMin: make([]int, len(header))}
	for c, h := range header {
		f.cols[c] = c
		f.natural[c] = textWidth(h)
		f.headerMin[c] = longestWord(h)
		for _, r := range rows {
			if c < len(r) {
				f.natural[c] = max(f.natural[c], textWidth(r[c]))
				f.headerMin[c] = max(f.headerMin[c], textWidth(r[c]))
			}
		}
	}
	f.widths = slices.Clone(f.natural)
	return f
}

func (f *fitting) total() int {
	sum := 0
	for _, c := range f.cols {
		sum += f.widths[c]
	}
	return sum + len(columnGap)*(len(f.cols)-1)
}

func (f *fitting) fits() bool { return f.total() <= f.opts.MaxWidth }

// wrapHeaders is step 2: headers wrapped, the widest surplus first.
func (f *fitting) wrapHeaders() {
	byHeaderSurplus := slices.Clone(f.cols)
	slices.SortStableFunc(byHeaderSurplus, func(a, b int) int {
		return (f.natural[b] - f.headerMin[b]) - (f.natural[a] - f.headerMin[a])
	})
	for _, c := range byHeaderSurplus {
		if f.fits() {
			break
		}
		f.widths[c] = f.headerMin[c]
	}
}

// wrapText is step 3: free text wrapped, in the order of opts.Wrap, each
// column straight to its narrowest; then the room left goes back to them
// in proportion to what each gave up. It starts again from base each time
// a column is dropped.
func (f *fitting) wrapText() {
	for _, c := range f.opts.Wrap {
		f.widths[c] = f.base[c]
	}
	var wrapped []int
	for _, c := range f.opts.Wrap {
		if f.fits() {
			break
		}
		if !slices.Contains(f.cols, c) {
			continue
		}
		f.widths[c] = min(f.widths[c], max(wrapMinWidth, longestWord(f.header[c])))
		wrapped = append(wrapped, c)
	}
	for _, c := range wrapped {
		f.widths[c] = max(wrappedWidth(f.rows, c, f.widths[c]), longestWord(f.header[c]))
	}
	if spare := f.opts.MaxWidth - f.total(); len(wrapped) > 0 && spare > 0 {
		given := 0
		for _, c := range wrapped {
			given += f.base[c] - f.widths[c]
		}
		for _, c := range wrapped {
			if given > 0 {
				f.widths[c] = min(f.base[c], f.widths[c]+spare*(f.base[c]-f.widths[c])/given)
			}
			f.widths[c] = max(wrappedWidth(f.rows, c, f.widths[c]), longestWord(f.header[c]))
		}
	}
}

// dropLowValue is step 4: the low-value columns left out, in order.
func (f *fitting) dropLowValue() {
	for _, c := range f.opts.Drop {
		if f.fits() && !f.dropEvery {
			break
		}
		if i := slices.Index(f.cols, c); i >= 0 && len(f.cols) > 1 {
			f.cols = slices.Delete(f.cols, i, i+1)
			f.wrapText()
		}
	}
}

// growShortened gives the room left to the columns to shorten, in order,
// each up to its whole text.
func (f *fitting) growShortened() {
	for _, c := range f.opts.Shorten {
		if spare := f.opts.MaxWidth - f.total(); spare > 0 && slices.Contains(f.cols, c) {
			f.widths[c] = min(f.natural[c], f.widths[c]+spare)
		}
	}
}

// writeColumns renders the columns cols of a table, each cell wrapped to
// its column's width.
func writeColumns(w io.Writer, opts TableOptions, header []string, rows [][]string, cols, widths []int) error {
	pick := func(r []string) []string {
		out := make([]string, len(cols))
		for i, c := range cols {
			switch {
			case c >= len(r):
			case slices.Contains(opts.Shorten, c):
				out[i] = shortenText(r[c], widths[c])
			default:
				out[i] = wrapText(r[c], widths[c])
			}
		}
		return out
	}
	sub := opts
	sub.RightAlign = nil
	for i, c := range cols {
		if slices.Contains(opts.RightAlign, c) {
			sub.RightAlign = append(sub.RightAlign, i)
		}
	}
	if opts.Highlight != nil {
		sub.Highlight = func(row, col int) bool { return opts.Highlight(row, cols[col]) }
	}
	if opts.Colour != nil {
		sub.Colour = func(row, col int) func(string) string { return opts.Colour(row, cols[col]) }
	}
	body := make([][]string, len(rows))
	for i, r := range rows {
		body[i] = pick(r)
	}
	out, err := renderTable(sub, pick(header), body)
	if err != nil {
		return err
	}
	_, err = w.Write(out)
	return err
}

// writeRecords writes each row as a block of "HEADER  value" lines, values
// wrapped to the width left, a blank line between rows; on a terminal too
// narrow for names and values side by side, each value goes under its
// name. Empty values are left out: they say nothing, and a block of them
// hides those that do.
func writeRecords(w io.Writer, opts TableOptions, header []string, rows [][]string) error {
	nameWidth := 0
	for _, h := range header {
		nameWidth = max(nameWidth, textWidth(h))
	}
	indent := nameWidth + len(columnGap)
	valueWidth := opts.MaxWidth - indent
	below := valueWidth < recordMinValueWidth
	if below {
		indent = len(columnGap)
		valueWidth = max(opts.MaxWidth-indent, 1)
	}
	var b bytes.Buffer
	for ri, r := range rows {
		if ri > 0 {
			b.WriteByte('\n')
		}
		for c, h := range header {
			if c >= len(r) || r[c] == "" {
				continue
			}
			if below {
				for _, l := range strings.Split(wrapText(h, opts.MaxWidth), "\n") {
					b.WriteString(opts.Palette.Bold(l))
					b.WriteByte('\n')
				}
				b.WriteString(strings.Repeat(" ", indent))
			} else {
				b.WriteString(opts.Palette.Bold(h))
				b.WriteString(strings.Repeat(" ", indent-textWidth(h)))
			}
			for i, line := range strings.Split(wrapText(r[c], valueWidth), "\n") {
				if i > 0 {
					b.WriteString(strings.Repeat(" ", indent))
				}
				if opts.Palette.Enabled && opts.Colour != nil {
					if colour := opts.Colour(ri, c); colour != nil {
						line = colour(line)
					}
				}
				if opts.Palette.Enabled && opts.Highlight != nil && opts.Highlight(ri, c) {
					line = opts.Palette.Highlight(line)
				}
				b.WriteString(line)
				b.WriteByte('\n')
			}
		}
	}
	_, err := w.Write(b.Bytes())
	return err
}

// recordMinValueWidth is the narrowest a value is written beside its name
// in a block per row.
const recordMinValueWidth = 12

// shortenText is s on one line no wider than width: its lines joined by
// blanks, and cut before the last column, which shows "…", if longer.
func shortenText(s string, width int) string {
	s = strings.Join(strings.Fields(s), " ")
	if textWidth(s) <= width {
		return s
	}
	used := 0
	for i, r := range s {
		rw := twwidth.Width(string(r))
		if used+rw > width-1 {
			return strings.TrimRight(s[:i], " ") + "…"
		}
		used += rw
	}
	return s
}

// wrapText breaks s into lines no wider than width at its blanks; a word
// wider than width is cut. Text that fits is returned as it is.
func wrapText(s string, width int) string {
	if width <= 0 || textWidth(s) <= width {
		return s
	}
	var lines []string
	for _, para := range strings.Split(s, "\n") {
		line := ""
		for _, word := range words(para) {
			for textWidth(word) > width {
				if line != "" {
					// The line's room takes the word's head if the word
					// has a separator there.
					if head, rest := cutWord(word, width-textWidth(line)-1, false); head != "" {
						lines, line, word = append(lines, line+" "+head), "", rest
						continue
					}
					lines, line = append(lines, line), ""
				}
				head, rest := cutWord(word, width, true)
				lines, word = append(lines, head), rest
			}
			switch {
			case line == "":
				line = word
			case textWidth(line)+1+textWidth(word) <= width:
				line += " " + word
			default:
				lines, line = append(lines, line), word
			}
		}
		lines = append(lines, line)
	}
	return strings.Join(lines, "\n")
}

// words splits text at its blanks, keeping a word that starts with a sign
// and a digit (a time's offset, "+03:00") with the word before it.
func words(text string) []string {
	var out []string
	for _, w := range strings.Fields(text) {
		if len(out) > 0 && len(w) > 1 && (w[0] == '+' || w[0] == '-') && w[1] >= '0' && w[1] <= '9' {
			out[len(out)-1] += " " + w
			continue
		}
		out = append(out, w)
	}
	return out
}

// cutWord splits a word wider than width after its last separator
// ('|', ',', '/', '&', ';', '-') that fits, or else after as many characters as
// fit: hash layouts and URLs break where a reader expects. Without hard,
// a word with no separator that fits is not cut ("" and s).
func cutWord(s string, width int, hard bool) (string, string) {
	if width <= 0 && !hard {
		return "", s
	}
	used, cut, lastSep := 0, len(s), 0
	for i, r := range s {
		rw := twwidth.Width(string(r))
		if used+rw > width && i > 0 {
			cut = i
			break
		}
		used += rw
		if strings.ContainsRune("|,/&;-", r) {
			lastSep = i + 1
		}
	}
	if cut == len(s) {
		return s, ""
	}
	switch {
	case lastSep > 0:
		cut = lastSep
	case !hard:
		return "", s
	}
	return s[:cut], s[cut:]
}

// wrappedWidth is the width column c of rows takes when its cells are
// wrapped to width: at most width, less when no line needs all of it.
func wrappedWidth(rows [][]string, c, width int) int {
	n := 0
	for _, r := range rows {
		if c < len(r) {
			n = max(n, textWidth(wrapText(r[c], width)))
		}
	}
	return n
}

// textWidth is the display width of the widest line of s.
func textWidth(s string) int {
	n := 0
	for _, line := range strings.Split(s, "\n") {
		n = max(n, twwidth.Width(line))
	}
	return n
}

// longestWord is the display width of the widest blank-separated word of s.
func longestWord(s string) int {
	n := 0
	for _, word := range strings.Fields(s) {
		n = max(n, twwidth.Width(word))
	}
	return n
}
