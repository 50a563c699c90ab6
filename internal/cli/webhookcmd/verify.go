package webhookcmd

import (
	"bufio"
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/paycli/paycli/internal/cmdutil"
	"github.com/paycli/paycli/internal/render"
	"github.com/paycli/paycli/internal/webhook"
	"github.com/spf13/cobra"
)

// VerifyOptions are the inputs of `paycli webhook verify`.
type VerifyOptions struct {
	cmdutil.Deps

	// File holds the captured webhooks; "-" is stdin.
	File string
	// Open opens File (os.Open outside tests).
	Open func(name string) (io.ReadCloser, error)
}

// NewCmdVerify builds `paycli webhook verify`.
func NewCmdVerify(f *cmdutil.Factory, runF func(context.Context, *VerifyOptions) error) *cobra.Command {
	opts := &VerifyOptions{Deps: cmdutil.DepsOf(f),
		Open: func(name string) (io.ReadCloser, error) { return os.Open(name) }}
	cmd := &cobra.Command{
		Use:   "verify [FILE | -]",
		Short: "Check captured webhooks' hash_key offline",
		Long: `Check the hash_key of webhooks captured elsewhere (a log, a request
inspector, a production server) with the configured app_secret, without
network access.

The input holds one webhook body per line, form-encoded
(status=1&total=150.00&...) or a JSON object, or a single body: a JSON
object may then span several lines. Blank lines are skipped; line numbers
count every line. Each body is reported with the line it starts on, as

  line 1: sale INV-1001 VP17000000000000001 150.00 TRY status=1 hash=valid

or hash=INVALID with the reason (the field that differs, a hash_key that
does not decrypt with this app_secret, a body that is not a webhook). With
-o json each is a line of JSON: {"line": 1, "kind": "sale", ..., "hash":
"valid"}; --jq filters each line (and implies -o json). A body may be at
most 64 KiB.

Exit status: 0 when every webhook is valid, 4 when any is not, 2 when the
input cannot be read or holds no webhook.`,
		Example: `  paycli webhook verify captured.txt
  pbpaste | paycli webhook verify -
  paycli webhook verify captured.jsonl -o json
  paycli webhook verify captured.txt --jq 'select(.hash != "valid") | .invoice_id'`,
		Args: cmdutil.MaximumArgs(1, "one file, or - to read stdin"),
		RunE: func(cmd *cobra.Command, args []string) error {
			switch {
			case len(args) == 1:
				opts.File = args[0]
			case !opts.IO.IsStdinTTY():
				opts.File = "-"
			default:
				return cmdutil.UsageErrorf("missing input: give a file of captured webhooks, or - to read them from stdin")
			}
			return cmdutil.Run(cmd, opts, runF, verifyRun)
		},
	}
	opts.AddJSONFlags(cmd)
	cmdutil.SetExits(cmd, cmdutil.Exits{Kinds: []cmdutil.Kind{cmdutil.KindUsage, cmdutil.KindRejected}, Notes: map[cmdutil.Kind]string{cmdutil.KindRejected: "a webhook is invalid"}})
	return cmd
}

// checkedLine is the JSON form of one checked webhook.
type checkedLine struct {
	Line int `json:"line"`
	webhook.Verdict
}

// verifyRun checks each webhook body read, prints a verdict for each, and
// fails when one is invalid.
func verifyRun(ctx context.Context, opts *VerifyOptions) error {
	format, cfg, secret, err := opts.AppSecret("it is what checks a webhook's hash_key")
	if err != nil {
		return err
	}
	name, in := "stdin", opts.IO.In
	if opts.File != "-" {
		f, err := opts.Open(opts.File)
		if err != nil {
			return cmdutil.UsageErrorf("cannot read %s: %v", opts.File, unwrapPath(err))
		}
		defer f.Close()
		name, in = opts.File, f
	}
	out := newVerdictWriter(opts, format)
	var n tally
	err = readBodies(ctx, in, func(line int, body []byte) error {
		v, _ := webhook.Check("", body, secret)
		n.add(v)
		return out.write(ctx, line, shown(v))
	})
	if ferr := out.flush(); err == nil {
		err = ferr
	}
	var (
		tooLong *lineTooLongError
		readErr *readError
	)
	switch {
	case errors.As(err, &tooLong):
		return cmdutil.UsageHint(fmt.Errorf("%s: %w", name, err), "A webhook body is at most 64 KiB; is this a capture of webhook bodies, one per line?")
	case errors.As(err, &readErr):
		return cmdutil.UsageErrorf("cannot read %s: %v", name, readErr.err)
	case err != nil:
		return err
	case n.total == 0:
		return cmdutil.UsageHint(fmt.Errorf("%s holds no webhook body", name),
			"Give one body per line (form-encoded or a JSON object), or a single JSON object.")
	case n.invalid == 0:
		return nil
	}
	hint := "Each is reported above with its reason."
	if n.undecrypted > 0 && n.decrypted == 0 {
		hint += fmt.Sprintf(" None decrypted: check the app_secret (it came from %s); it must be the one of the merchant the webhooks were sent to.", secretSource(cfg))
	}
	return &cmdutil.Error{Kind: cmdutil.KindRejected, Err: fmt.Errorf("%d of %d webhooks are invalid", n.invalid, n.total), Hint: hint}
}

// tally counts the webhooks checked, the invalid ones, and those whose
// hash_key decrypted or not (none decrypting points at the app_secret).
type tally struct{ total, invalid, undecrypted, decrypted int }

func (t *tally) add(v webhook.Verdict) {
	t.total++
	switch {
	case v.Valid():
		t.decrypted++
	case strings.HasPrefix(v.Reason, webhook.ReasonNoDecrypt):
		t.invalid++
		t.undecrypted++
	case v.Field == "hash_key" && v.Reason == webhook.ReasonNoHashKey, v.Kind == "":
		t.invalid++
	default:
		t.invalid++
		t.decrypted++
	}
}

// verdictWriter writes one verdict per webhook in the output format: a
// JSON line, a CSV/TSV record under a header, or a line of text.
type verdictWriter struct {
	opts   *VerifyOptions
	format render.Format
	csv    *csv.Writer
	p      render.Palette
}

func newVerdictWriter(opts *VerifyOptions, format render.Format) *verdictWriter {
	w := &verdictWriter{opts: opts, format: format, p: opts.Palette()}
	if format == render.CSV || format == render.TSV {
		w.csv = csv.NewWriter(opts.IO.Out)
		if format == render.TSV {
			w.csv.Comma = '\t'
		}
		_ = w.csv.Write(append([]string{"line"}, verdictHeader...))
	}
	return w
}

func (w *verdictWriter) write(ctx context.Context, line int, v webhook.Verdict) error {
	switch w.format {
	case render.JSON:
		return w.opts.JSON.WriteLine(ctx, w.opts.IO.Out, checkedLine{Line: line, Verdict: v})
	case render.CSV, render.TSV:
		return w.csv.Write(append([]string{fmt.Sprint(line)}, verdictRecord(v)...))
	}
	_, err := fmt.Fprintf(w.opts.IO.Out, "line %d: %s\n", line, verdictText(v, w.p))
	return err
}

// flush writes out the CSV/TSV records still buffered.
func (w *verdictWriter) flush() error {
	if w.csv == nil {
		return nil
	}
	w.csv.Flush()
	return w.csv.Error()
}

func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

type lineTooLongError struct{ line int }

func (e *lineTooLongError) Error() string {
	return fmt.Sprintf("line %d is longer than %d KiB", e.line, webhook.MaxBodySize>>10)
}

type readError struct{ err error }

func (e *readError) Error() string { return e.err.Error() }
func (e *readError) Unwrap() error { return e.err }

// readBodies calls fn with each webhook body of r and the line it starts
// on. When the whole input is one JSON object (pretty-printed over several
// lines, say) it is one body; otherwise each non-blank line is one. No
// more than a body's limit is held in memory at a time.
func readBodies(ctx context.Context, r io.Reader, fn func(line int, body []byte) error) error {
	head, err := io.ReadAll(io.LimitReader(r, webhook.MaxBodySize+1))
	if err != nil {
		return &readError{err}
	}
	if len(head) <= webhook.MaxBodySize {
		trimmed := bytes.TrimSpace(head)
		if len(trimmed) > 0 && trimmed[0] == '{' && bytes.ContainsRune(trimmed, '\n') && json.Valid(trimmed) {
			first := 1 + bytes.Count(head[:bytes.IndexByte(head, '{')], []byte{'\n'})
			return fn(first, trimmed)
		}
	}
	br := bufio.NewReaderSize(io.MultiReader(bytes.NewReader(head), r), 64<<10)
	for line := 1; ; line++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		text, err := readLine(br, line)
		if errors.Is(err, io.EOF) && len(text) == 0 {
			return nil
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return err
		}
		if body := bytes.TrimSpace(text); len(body) > 0 {
			if err := fn(line, body); err != nil {
				return err
			}
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
	}
}

// readLine reads one line of at most a body's limit, without its newline.
func readLine(br *bufio.Reader, n int) ([]byte, error) {
	var line []byte
	for {
		chunk, err := br.ReadSlice('\n')
		line = append(line, chunk...)
		if len(line) > webhook.MaxBodySize+2 { // room for "\r\n"
			return nil, &lineTooLongError{line: n}
		}
		switch {
		case err == nil:
			return withinLimit(bytes.TrimRight(line, "\r\n"), n, nil)
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF):
			return withinLimit(line, n, io.EOF)
		default:
			return nil, &readError{err}
		}
	}
}

// withinLimit returns line and err, or a lineTooLongError when the line,
// without its line break, is longer than a body may be.
func withinLimit(line []byte, n int, err error) ([]byte, error) {
	if len(line) > webhook.MaxBodySize {
		return nil, &lineTooLongError{line: n}
	}
	return line, err
}
