package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/paycli/paycli/internal/cmdutil"
	"github.com/paycli/paycli/internal/gateway"
	"github.com/paycli/paycli/internal/redact"
	"github.com/paycli/paycli/internal/render"
)

// printer writes an answer: with --include the status line and headers
// first; then the body filtered by --jq, indented on a terminal, or as it
// came when piped. On a terminal the gateway's text is escaped
// (render.Escape), so that an answer cannot act on the terminal, and card
// numbers in it are masked (redact.Cards): the answer echoes the
// request (an invoice_id that is a card number typed in the wrong place).
// Piped, the answer is the gateway's bytes, for the program that reads it
// (docs/api.md).
type printer struct {
	opts *Options
}

func (p printer) print(ctx context.Context, res *gateway.Response) error {
	io := p.opts.IO
	tty := io.IsStdoutTTY()
	var out bytes.Buffer
	if p.opts.Include {
		fmt.Fprintf(&out, "HTTP %d %s\n", res.StatusCode, http.StatusText(res.StatusCode))
		names := make([]string, 0, len(res.Header))
		for name := range res.Header {
			names = append(names, name)
		}
		slices.Sort(names)
		for _, name := range names {
			fmt.Fprintf(&out, "%s: %s\n", render.Escape(name), render.Escape(gateway.RedactHeader(name, res.Header[name])))
		}
		out.WriteByte('\n')
	}
	switch {
	case p.opts.JSON.Filtering():
		if !json.Valid(res.Body) {
			return cmdutil.WithKind(cmdutil.KindUnexpected, &cmdutil.JQError{Err: errors.New("the answer is not JSON")}, "")
		}
		var filtered bytes.Buffer
		if err := p.opts.JSON.Write(ctx, &filtered, json.RawMessage(res.Body)); err != nil {
			return err
		}
		out.Write(terminalText(filtered.Bytes(), tty))
	case tty:
		body := res.Body
		var indented bytes.Buffer
		if json.Indent(&indented, body, "", "  ") == nil {
			body = indented.Bytes()
		}
		text := terminalText(body, true)
		out.Write(text)
		if len(text) > 0 && text[len(text)-1] != '\n' {
			out.WriteByte('\n')
		}
	default:
		out.Write(res.Body)
	}
	_, err := io.Out.Write(out.Bytes())
	return err
}

// terminalText masks card numbers in each line of text and escapes it for
// a terminal; piped output is left as it is.
func terminalText(b []byte, tty bool) []byte {
	if !tty {
		return b
	}
	lines := strings.Split(string(b), "\n")
	for i, l := range lines {
		lines[i] = render.Escape(redact.Cards(l))
	}
	return []byte(strings.Join(lines, "\n"))
}
