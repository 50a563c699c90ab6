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
	"sync"

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
//
// The bytes are those of a json.Encoder with SetIndent("", "  "), which
// encodes compactly and then indents; but an Encoder indents into a buffer
// that starts empty and grows by doubling (a 1.2 MB commissions document
// went through twenty copies), where json.Indent sizes its buffer for the
// indented text up front.
func WriteJSON(w io.Writer, v any) error {
	var compact bytes.Buffer
	enc := json.NewEncoder(&compact)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	var out bytes.Buffer
	if err := json.Indent(&out, compact.Bytes(), "", "  "); err != nil {
		return err
	}
	_, err := w.Write(out.Bytes())
	return err
}

// WriteJSONLine writes v as one line of JSON (JSON Lines).
func WriteJSONLine(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
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
	// table must fit; a wider table is fitted by the one rule of fit.go
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

// Highlight is how tables mark a cell that stands out (the cheapest rate
// of a column): bold green.
func (p Palette) Highlight(s string) string { return p.Color(color.Bold, color.FgGreen).Sprint(s) }

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

// widthCacheOff turns off tablewriter's process-wide cache of cell widths
// (twwidth), once, before the first table. The cache pays off when a
// process measures the same strings many times; paycli renders a table or
// two per run, so nearly every lookup misses and pays for the miss, the
// insertion and the cache's lock on top of the measuring: with it off, the
// 40-program long table renders about 30 % faster (docs/performance.md,
// Commissions).
//
// twwidth.Width reads the cache without its lock, so turning it off while
// another goroutine measures would race: every twwidth call in paycli is
// in this package (the only one importing tablewriter) and comes after
// this Once, which orders the change before any measuring.
var widthCacheOff sync.Once

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
	for i, r := range rows {
		if e := escapeCells(r); len(r) > 0 && &e[0] != &r[0] {
			out := make([][]string, len(rows))
			copy(out, rows[:i])
			out[i] = e
			for j := i + 1; j < len(rows); j++ {
				out[j] = escapeCells(rows[j])
			}
			return out
		}
	}
	return rows
}

// escapeCells is cells with every cell escaped; cells itself when no cell
// needs it.
func escapeCells(cells []string) []string {
	for i, c := range cells {
		if e := Escape(c); e != c {
			out := make([]string, len(cells))
			copy(out, cells[:i])
			out[i] = e
			for j := i + 1; j < len(cells); j++ {
				out[j] = Escape(cells[j])
			}
			return out
		}
	}
	return cells
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

// TableHeader is the header of a table whose columns are the JSON fields
// names (the header of the same data as CSV): upper case, words apart
// ("invoice_id" is "INVOICE ID"), as every table header is written.
func TableHeader(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = strings.ToUpper(strings.ReplaceAll(n, "_", " "))
	}
	return out
}
