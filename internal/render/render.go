// Package render writes paycli's output: tables (tablewriter), JSON,
// CSV/TSV and colour. It is the only package that imports tablewriter and
// fatih/color; whether colour is on is decided once, in iostreams, and
// applied here to each colour rather than through fatih/color's global.
package render

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/fatih/color"
	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/pkg/twwidth"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"
)

// Format is an output format chosen with --output.
type Format string

const (
	Table Format = "table"
	JSON  Format = "json"
	CSV   Format = "csv"
	TSV   Format = "tsv"
)

// ParseFormat accepts the values of --output.
func ParseFormat(s string) (Format, error) {
	switch f := Format(s); f {
	case Table, JSON, CSV, TSV:
		return f, nil
	}
	return "", fmt.Errorf("unknown output format %q: use table, json, csv or tsv", s)
}

// Palette hands out colours that obey the colour decision.
type Palette struct{ Enabled bool }

// Color returns a colour with the given attributes, switched on or off as
// the palette says.
func (p Palette) Color(attrs ...color.Attribute) *color.Color {
	c := color.New(attrs...)
	if p.Enabled {
		c.EnableColor()
	} else {
		c.DisableColor()
	}
	return c
}

func (p Palette) Bold(s string) string   { return p.Color(color.Bold).Sprint(s) }
func (p Palette) Green(s string) string  { return p.Color(color.FgGreen).Sprint(s) }
func (p Palette) Red(s string) string    { return p.Color(color.FgRed).Sprint(s) }
func (p Palette) Yellow(s string) string { return p.Color(color.FgYellow).Sprint(s) }

// WriteJSON writes v as indented JSON with a trailing newline, without
// HTML escaping (so "<" and "&" in gateway texts stay readable).
func WriteJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// WriteJSONLine writes v as one line of JSON (JSON Lines).
func WriteJSONLine(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// WriteRecords writes a header and rows as CSV (RFC 4180 quoting) or TSV.
func WriteRecords(w io.Writer, f Format, header []string, rows [][]string) error {
	cw := csv.NewWriter(w)
	if f == TSV {
		cw.Comma = '\t'
	}
	if err := cw.Write(header); err != nil {
		return err
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
}

// Highlight is how tables mark a cell that stands out (the cheapest rate
// of a column): bold green.
func (p Palette) Highlight(s string) string { return p.Color(color.Bold, color.FgGreen).Sprint(s) }

// WriteTable writes a plain-bordered table. Cells are written as given: the
// header is not re-cased and numbers are not re-formatted.
//
// A table without colour whose cells are single lines of printable text
// is written by writeAligned, which lays it out exactly as tablewriter
// does at a fraction of the cost; anything else goes through tablewriter.
func WriteTable(w io.Writer, opts TableOptions, header []string, rows [][]string) error {
	if !opts.Palette.Enabled && alignable(header, rows) {
		return writeAligned(w, opts, header, rows)
	}
	return writeTablewriter(w, opts, header, rows)
}

// writeTablewriter writes a table through tablewriter.
func writeTablewriter(w io.Writer, opts TableOptions, header []string, rows [][]string) error {
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
	hdr := make([]any, len(header))
	for i, h := range header {
		hdr[i] = opts.Palette.Bold(h)
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
	t.Header(hdr...)
	for ri, r := range rows {
		cells := make([]any, len(r))
		for i, c := range r {
			if opts.Highlight != nil && opts.Palette.Enabled && opts.Highlight(ri, i) {
				c = opts.Palette.Highlight(c)
			}
			cells[i] = c
		}
		if err := t.Append(cells...); err != nil {
			return err
		}
	}
	if err := t.Render(); err != nil {
		return err
	}
	// The column padding leaves trailing blanks; a person never sees them
	// but goldens, diffs and `cut` do.
	for line := range bytes.Lines(buf.Bytes()) {
		if _, err := w.Write(trimLine(line)); err != nil {
			return err
		}
	}
	return nil
}

// alignable reports whether writeAligned can write the table: every row
// has the header's number of cells and no cell holds a control character
// (line breaks, tabs and escape sequences are tablewriter's to handle).
func alignable(header []string, rows [][]string) bool {
	if len(header) == 0 {
		return false
	}
	if !printable(header) {
		return false
	}
	for _, r := range rows {
		if len(r) != len(header) || !printable(r) {
			return false
		}
	}
	return true
}

func printable(cells []string) bool {
	for _, c := range cells {
		for i := 0; i < len(c); i++ {
			if b := c[i]; b < 0x20 || b == 0x7f {
				return false
			}
		}
	}
	return true
}

// cellWidth is the display width of a cell as tablewriter measures it:
// its twwidth package, which also knows wide and ambiguous characters
// (and the East Asian setting it reads from the environment).
func cellWidth(s string) int {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return twwidth.Width(s)
		}
	}
	return len(s) // printable ASCII, checked by alignable
}

// writeAligned writes what writeTablewriter writes for an alignable table
// without colour: each column as wide as its widest cell, cells padded on
// the left (right-aligned) or right, two blanks between columns, no
// trailing blanks, written in a few large pieces. TestWriteAlignedMatches
// holds it to tablewriter's bytes.
func writeAligned(w io.Writer, opts TableOptions, header []string, rows [][]string) error {
	n := len(header)
	right := make([]bool, n)
	for _, i := range opts.RightAlign {
		if i >= 0 && i < n {
			right[i] = true
		}
	}
	widths := make([]int, n)
	// Widths of all cells, header first, measured once.
	cellWidths := make([]int, n*(len(rows)+1))
	size := 0
	measure := func(line int, cells []string) {
		for i, c := range cells {
			cw := cellWidth(c)
			cellWidths[line*n+i] = cw
			widths[i] = max(widths[i], cw)
			size += len(c)
		}
	}
	measure(0, header)
	for ri, r := range rows {
		measure(ri+1, r)
	}
	lineWidth := 0
	for _, cw := range widths {
		lineWidth += cw + len(columnGap)
	}
	// The table goes out in pieces of about tableChunk bytes; a buffer
	// for the whole of a long table costs more than writing it.
	buf := make([]byte, 0, min(size+(lineWidth+1)*(len(rows)+1), tableChunk+2*lineWidth+1))
	writeLine := func(line int, cells []string, rightAligned func(int) bool) {
		start := len(buf)
		for i, c := range cells {
			pad := widths[i] - cellWidths[line*n+i]
			if rightAligned(i) {
				buf = appendBlanks(buf, pad)
				buf = append(buf, c...)
			} else {
				buf = append(buf, c...)
				buf = appendBlanks(buf, pad)
			}
			buf = append(buf, columnGap...)
		}
		end := len(buf)
		for end > start && buf[end-1] == ' ' {
			end--
		}
		buf = append(buf[:end], '\n')
	}
	writeLine(0, header, func(i int) bool { return opts.RightAlignHeader && right[i] })
	for ri, r := range rows {
		writeLine(ri+1, r, func(i int) bool { return right[i] })
		if len(buf) >= tableChunk {
			if _, err := w.Write(buf); err != nil {
				return err
			}
			buf = buf[:0]
		}
	}
	_, err := w.Write(buf)
	return err
}

// tableChunk is the size of the pieces writeAligned writes.
const tableChunk = 16 << 10

// columnGap is the padding writeTablewriter puts after each cell.
const columnGap = "  "

func appendBlanks(b []byte, n int) []byte {
	for ; n > 0; n-- {
		b = append(b, ' ')
	}
	return b
}

var ansiReset = []byte("\x1b[0m")

// trimLine drops trailing blanks (and the colour resets tablewriter puts
// after them), closing any colour the line opened.
func trimLine(line []byte) []byte {
	out := bytes.TrimRight(line, "\n")
	for {
		n := len(out)
		out = bytes.TrimRight(out, " ")
		out = bytes.TrimSuffix(out, ansiReset)
		if len(out) == n {
			break
		}
	}
	out = bytes.Clone(out)
	if bytes.Contains(out, []byte("\x1b[")) {
		out = append(out, ansiReset...)
	}
	return append(out, '\n')
}

// GroupThousands puts a comma between groups of three digits in the whole
// part of a decimal written in plain notation: "1017.50" becomes
// "1,017.50", "-1234567" becomes "-1,234,567". Anything else is returned
// unchanged. It is for tables only: JSON and CSV keep plain decimals.
func GroupThousands(s string) string {
	sign, rest := "", s
	if rest != "" && (rest[0] == '-' || rest[0] == '+') {
		sign, rest = rest[:1], rest[1:]
	}
	whole, frac := rest, ""
	if i := strings.IndexByte(rest, '.'); i >= 0 {
		whole, frac = rest[:i], rest[i:]
	}
	if whole == "" || strings.Trim(whole, "0123456789") != "" || strings.Trim(frac, ".0123456789") != "" {
		return s
	}
	var b strings.Builder
	b.WriteString(sign)
	for i, d := range whole {
		if i > 0 && (len(whole)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(d)
	}
	b.WriteString(frac)
	return b.String()
}
