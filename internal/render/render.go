// Package render writes paycli's output: tables (tablewriter), JSON,
// CSV/TSV and colour. It is the only package that imports tablewriter and
// fatih/color; whether colour is on is decided once, in iostreams, and
// applied here to each colour rather than through fatih/color's global.
package render

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/fatih/color"
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

// Highlight is how tables mark a cell that stands out (the cheapest rate
// of a column): bold green.
func (p Palette) Highlight(s string) string { return p.Color(color.Bold, color.FgGreen).Sprint(s) }

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
