package render

import (
	"bytes"
	"io"
	"slices"
	"strings"

	"github.com/olekukonko/tablewriter/pkg/twwidth"
)

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
