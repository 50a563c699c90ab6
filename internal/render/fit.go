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
//  4. the low-value columns (TableOptions.Drop) left out, in that order;
//  5. a matrix (TableOptions.KeepColumns) split into blocks of columns
//     that repeat the columns naming a row; any other table written as
//     one block per row, a line per column, values wrapped.
//
// Piped output never has a width and is always the whole table.

// wrapMinWidth is the narrowest a free-text column is wrapped to.
const wrapMinWidth = 16

// fitTable writes a table that is wider than opts.MaxWidth so that it fits,
// by the rule above. header and rows are escaped already.
func fitTable(w io.Writer, opts TableOptions, header []string, rows [][]string) error {
	width := opts.MaxWidth
	cols := make([]int, len(header))
	for i := range cols {
		cols[i] = i
	}
	natural := make([]int, len(header)) // widest line of the column
	headerMin := make([]int, len(header))
	for c, h := range header {
		natural[c] = textWidth(h)
		headerMin[c] = longestWord(h)
		for _, r := range rows {
			if c < len(r) {
				natural[c] = max(natural[c], textWidth(r[c]))
				headerMin[c] = max(headerMin[c], textWidth(r[c]))
			}
		}
	}
	widths := slices.Clone(natural)
	total := func() int {
		sum := 0
		for _, c := range cols {
			sum += widths[c]
		}
		return sum + len(columnGap)*(len(cols)-1)
	}
	fits := func() bool { return total() <= width }
	// 2. Headers wrapped, the widest surplus first.
	byHeaderSurplus := slices.Clone(cols)
	slices.SortStableFunc(byHeaderSurplus, func(a, b int) int {
		return (natural[b] - headerMin[b]) - (natural[a] - headerMin[a])
	})
	for _, c := range byHeaderSurplus {
		if fits() {
			break
		}
		widths[c] = headerMin[c]
	}
	// 3. Free text wrapped, in the order of opts.Wrap, each column straight
	// to its narrowest; then the room left goes back to them in proportion
	// to what each gave up.
	base := slices.Clone(widths)
	shrinkText := func() {
		for _, c := range opts.Wrap {
			widths[c] = base[c]
		}
		var wrapped []int
		for _, c := range opts.Wrap {
			if fits() {
				break
			}
			if !slices.Contains(cols, c) {
				continue
			}
			widths[c] = min(widths[c], max(wrapMinWidth, longestWord(header[c])))
			wrapped = append(wrapped, c)
		}
		for _, c := range wrapped {
			widths[c] = max(wrappedWidth(rows, c, widths[c]), longestWord(header[c]))
		}
		if spare := width - total(); len(wrapped) > 0 && spare > 0 {
			given := 0
			for _, c := range wrapped {
				given += base[c] - widths[c]
			}
			for _, c := range wrapped {
				if given > 0 {
					widths[c] = min(base[c], widths[c]+spare*(base[c]-widths[c])/given)
				}
				widths[c] = max(wrappedWidth(rows, c, widths[c]), longestWord(header[c]))
			}
		}
	}
	shrinkText()
	// 4. Low-value columns left out.
	for _, c := range opts.Drop {
		if fits() {
			break
		}
		if i := slices.Index(cols, c); i >= 0 && len(cols) > 1 {
			cols = slices.Delete(cols, i, i+1)
			shrinkText()
		}
	}
	if fits() {
		return writeColumns(w, opts, header, rows, cols, widths)
	}
	// 5. Blocks of columns, or one block per row.
	if opts.KeepColumns > 0 {
		return writeColumnBlocks(w, opts, header, rows)
	}
	return writeRecords(w, opts, header, rows)
}

// writeColumns renders the columns cols of a table, each cell wrapped to
// its column's width.
func writeColumns(w io.Writer, opts TableOptions, header []string, rows [][]string, cols, widths []int) error {
	pick := func(r []string) []string {
		out := make([]string, len(cols))
		for i, c := range cols {
			if c < len(r) {
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
