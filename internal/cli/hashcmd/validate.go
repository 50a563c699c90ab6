package hashcmd

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/paycli/paycli/internal/cmdutil"
	"github.com/paycli/paycli/internal/config"
	"github.com/paycli/paycli/internal/hashkey"
	"github.com/paycli/paycli/internal/iostreams"
	"github.com/paycli/paycli/internal/redact"
	"github.com/paycli/paycli/internal/render"
	"github.com/spf13/cobra"
)

// ValidateOptions are the inputs of `paycli hash validate`.
type ValidateOptions struct {
	cmdutil.Deps

	// HashKey is the value to decrypt; "-" reads one per line from stdin.
	HashKey string
	// Layout names the fields when set.
	Layout string
	// ShowSecrets prints the configured merchant_key on a terminal too.
	ShowSecrets bool
}

// NewCmdValidate builds `paycli hash validate`.
func NewCmdValidate(f *cmdutil.Factory, runF func(context.Context, *ValidateOptions) error) *cobra.Command {
	opts := &ValidateOptions{Deps: cmdutil.DepsOf(f)}
	cmd := &cobra.Command{
		Use:   "validate [HASH_KEY | -] [--layout LAYOUT]",
		Short: "Decrypt hash_key values and show their fields",
		Long: `Decrypt a hash_key with the configured app_secret and show its fields,
named after the layout's fields when --layout is given.

With - (or no argument, when stdin is not a terminal) it reads one hash_key
per line from stdin. Blank lines are skipped; line numbers count every
line. A line that does not decrypt is reported and the rest are still
processed; the exit code is then 2, as it is for input with no hash_key. With -o json the output is JSON Lines,
one object per hash_key in input order, and a failed line is written as
{"line": N, "error": "..."}.

JSON (one hash_key; with - each object also has "line"):
  {"plaintext": "...", "fields": ["..."], "layout": "...",
   "named": {"field": "..."}}
"layout" and "named" are there only with --layout.

On a terminal, the profile's merchant_key is masked wherever a hash_key
holds it (first and last four characters, enough to recognise it), and so
is a card number (a savecard hash_key holds one: first 6 and last 4
digits); --show-secrets prints them. Piped or redirected, the decrypted text is
written exactly as it is.`,
		Example: `  paycli hash validate "$HASH_KEY" --layout payment
  paycli hash validate - -o json < hash_keys.txt`,
		Args: cmdutil.MaximumArgs(1, "one hash_key, or - to read them from stdin"),
		RunE: func(cmd *cobra.Command, args []string) error {
			switch {
			case len(args) == 1:
				opts.HashKey = args[0]
			case !opts.IO.IsStdinTTY():
				opts.HashKey = "-"
			default:
				return cmdutil.UsageErrorf("missing hash_key: give it as an argument, or - to read hash_keys from stdin")
			}
			if opts.Layout != "" {
				if _, err := lookupLayout(opts.Layout); err != nil {
					return err
				}
			}
			return cmdutil.Run(cmd, opts, runF, validateRun)
		},
	}
	cmd.Flags().StringVar(&opts.Layout, "layout", "", "name the fields after this layout's: "+strings.Join(hashkey.LayoutNames(), ", "))
	cmd.Flags().BoolVar(&opts.ShowSecrets, "show-secrets", false, "on a terminal, print the configured merchant_key and card numbers instead of masking them")
	_ = cmd.RegisterFlagCompletionFunc("layout", layoutCompletion)
	opts.AddJSONFlags(cmd)
	cmdutil.SetExits(cmd, cmdutil.Exits{Kinds: append(cmdutil.ExitsLocal, cmdutil.KindAuth), Notes: map[cmdutil.Kind]string{
		cmdutil.KindUsage: "bad input: a hash_key that does not decrypt, or none on stdin",
		cmdutil.KindAuth:  "the app_secret could not be fetched from where the profile keeps it",
	}})
	return cmd
}

// decrypted is the JSON form of one decrypted hash_key. The schema is
// stable: fields may be added, never renamed or removed.
type decrypted struct {
	Line      int          `json:"line,omitempty"` // only when reading stdin
	Plaintext string       `json:"plaintext"`
	Fields    []string     `json:"fields"`
	Layout    string       `json:"layout,omitempty"`
	Named     *namedFields `json:"named,omitempty"`
}

// lineFailure is the JSON form of a line of stdin that did not decrypt.
type lineFailure struct {
	Line  int    `json:"line"`
	Error string `json:"error"`
}

// namedFields is a JSON object whose keys keep the layout's order.
type namedFields struct {
	names, values []string
}

func (n *namedFields) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, name := range n.names {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := json.Marshal(name)
		if err != nil {
			return nil, err
		}
		v, err := json.Marshal(n.values[i])
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// open decrypts one hash_key and, with a layout, names its fields.
func open(secret, hashKey string, layout *hashkey.Layout) (decrypted, error) {
	pt, err := hashkey.Decrypt(secret, hashKey)
	if err != nil {
		return decrypted{}, err
	}
	d := decrypted{Plaintext: pt, Fields: hashkey.Split(pt)}
	if layout != nil {
		if len(d.Fields) != len(layout.Fields) {
			return decrypted{}, &layoutMismatch{layout: layout.Name, want: len(layout.Fields), got: len(d.Fields)}
		}
		d.Layout = layout.Name
		d.Named = &namedFields{names: layout.Fields, values: d.Fields}
	}
	return d, nil
}

// masked hides the configured merchant_key and any card number wherever
// the decrypted hash_key holds them.
func (d decrypted) masked(merchantKey string) decrypted {
	hide := func(v string) string {
		if merchantKey != "" {
			v = strings.ReplaceAll(v, merchantKey, config.Mask(merchantKey))
		}
		// A savecard hash_key holds the card number: first 6 and last 4
		// only, as everywhere paycli shows a card.
		return redact.Cards(v)
	}
	d.Plaintext = hide(d.Plaintext)
	fields := make([]string, len(d.Fields))
	for i, f := range d.Fields {
		fields[i] = hide(f)
	}
	d.Fields = fields
	if d.Named != nil {
		d.Named = &namedFields{names: d.Named.names, values: fields}
	}
	return d
}

// openFor decrypts one hash_key for display. On a terminal, where a screen
// can be seen or shared, the merchant_key and any card number are masked
// as paycli masks them everywhere; a script reading the output gets the text as it is,
// which is what it asked to decrypt.
func openFor(opts *ValidateOptions, cfg *config.Config, secret, hashKey string, layout *hashkey.Layout) (decrypted, error) {
	d, err := open(secret, hashKey, layout)
	if err != nil || opts.ShowSecrets || !opts.IO.IsStdoutTTY() {
		return d, err
	}
	return d.masked(cfg.MerchantKey), nil
}

// layoutMismatch is a hash_key that decrypted but has another layout's
// number of fields.
type layoutMismatch struct {
	layout    string
	want, got int
}

func (e *layoutMismatch) Error() string {
	return fmt.Sprintf("layout %s has %d fields, the hash_key holds %d", e.layout, e.want, e.got)
}

func validateRun(ctx context.Context, opts *ValidateOptions) error {
	format, cfg, secret, err := opts.AppSecret("it is the key of every hash_key")
	if err != nil {
		return err
	}
	var layout *hashkey.Layout
	if opts.Layout != "" {
		l, err := lookupLayout(opts.Layout)
		if err != nil {
			return err
		}
		layout = &l
		if l.Key == hashkey.KeyMerchantKey {
			// getTransactions' hash_key is made with the merchant_key.
			if cfg.MerchantKey == "" {
				return cmdutil.UsageErrorf("layout %s is made with the merchant_key, and none is configured for profile %q", l.Name, cfg.Profile)
			}
			secret = cfg.MerchantKey
		}
	}
	if opts.HashKey == "-" {
		return validateLines(ctx, opts, cfg, format, secret, layout)
	}

	d, err := openFor(opts, cfg, secret, opts.HashKey, layout)
	var mismatch *layoutMismatch
	if errors.As(err, &mismatch) {
		return cmdutil.UsageHint(err, "The hash_key was made for another layout: 'paycli hash layouts' lists them; leave out --layout to see the fields numbered.")
	}
	if err != nil {
		return decryptError(cfg, err)
	}
	if format == render.JSON {
		return opts.JSON.Write(ctx, opts.IO.Out, d)
	}
	header, rows := fieldRows(d, layout)
	if format == render.CSV || format == render.TSV {
		return render.WriteRecords(opts.IO.Out, format, header, rows)
	}
	table := cmdutil.TableOptions(opts.IO)
	table.Wrap = []int{1}
	return render.WriteTable(opts.IO.Out, table, render.TableHeader(header), rows)
}

// fieldRows lays one hash_key's fields out as a two-column table, with
// the CSV header (render.TableHeader makes the table's).
func fieldRows(d decrypted, layout *hashkey.Layout) ([]string, [][]string) {
	rows := make([][]string, len(d.Fields))
	for i, v := range d.Fields {
		name := strconv.Itoa(i + 1)
		if layout != nil {
			name = layout.Fields[i]
		}
		rows[i] = []string{name, v}
	}
	if layout != nil {
		return []string{"field", "value"}, rows
	}
	return []string{"#", "value"}, rows
}

// validateLines decrypts one hash_key per line of stdin. JSON Lines are
// written as each line is read; tables and CSV are written at the end,
// with one row per line that decrypted (LINE and the layout's fields, or
// LINE and PLAINTEXT) and failures reported on stderr as they happen.
func validateLines(ctx context.Context, opts *ValidateOptions, cfg *config.Config, format render.Format, secret string, layout *hashkey.Layout) error {
	// CSV names the columns as JSON does; a table's header is the same
	// names in upper case.
	header := []string{"line", "plaintext"}
	if layout != nil {
		header = append([]string{"line"}, layout.Fields...)
	}
	var rows [][]string
	lineNo, total, failed, wrongKey := 0, 0, 0, 0
	for {
		text, err := nextLine(ctx, opts, lineNo+1)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		lineNo++
		if strings.TrimSpace(text) == "" {
			continue
		}
		total++
		d, err := openFor(opts, cfg, secret, text, layout)
		if err != nil {
			failed++
			if errors.Is(err, hashkey.ErrWrongKey) {
				wrongKey++
			}
			if format == render.JSON {
				err = opts.JSON.WriteLine(ctx, opts.IO.Out, lineFailure{Line: lineNo, Error: err.Error()})
			} else {
				_, err = fmt.Fprintf(opts.IO.ErrOut, "line %d: %v\n", lineNo, err)
			}
			if err != nil {
				return err
			}
			continue
		}
		d.Line = lineNo
		if format == render.JSON {
			if err := opts.JSON.WriteLine(ctx, opts.IO.Out, d); err != nil {
				return err
			}
			continue
		}
		row := []string{strconv.Itoa(lineNo)}
		if layout != nil {
			row = append(row, d.Fields...)
		} else {
			row = append(row, d.Plaintext)
		}
		rows = append(rows, row)
	}

	if total == 0 {
		return cmdutil.UsageHint(errors.New("stdin holds no hash_key"),
			"Give one hash_key per line on stdin, or the hash_key as an argument.")
	}
	if err := writeDecrypted(opts, format, header, rows); err != nil || failed == 0 {
		return err
	}
	hint := "Each failed line is reported above with its number."
	if format == render.JSON {
		hint = `Each failed line has an "error" field in the output.`
	}
	if wrongKey == failed {
		hint += " " + wrongKeyHint(cfg)
	}
	return &cmdutil.Error{
		Kind: cmdutil.KindUsage,
		Err:  fmt.Errorf("%d of %d lines did not decrypt", failed, total),
		Hint: hint,
	}
}

// nextLine reads line lineNo of stdin, io.EOF at its end.
func nextLine(ctx context.Context, opts *ValidateOptions, lineNo int) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	text, err := opts.IO.ReadLine()
	switch {
	case errors.Is(err, io.EOF):
		return "", err
	case errors.Is(err, iostreams.ErrLineTooLong):
		// Stop rather than skip: input without line breaks (a binary
		// file, /dev/zero) would otherwise be read to its end.
		return "", cmdutil.UsageHint(fmt.Errorf("line %d of stdin is longer than %d KiB: not a hash_key; the rest was not read", lineNo, iostreams.MaxLineBytes>>10),
			"Give one hash_key per line.")
	case err != nil:
		return "", fmt.Errorf("reading stdin: %w", err)
	}
	return text, nil
}

// writeDecrypted writes the rows of the lines that decrypted as a table
// or CSV/TSV (JSON Lines were written as they were read).
func writeDecrypted(opts *ValidateOptions, format render.Format, header []string, rows [][]string) error {
	switch format {
	case render.CSV, render.TSV:
		return render.WriteRecords(opts.IO.Out, format, header, rows)
	case render.Table:
		if len(rows) > 0 {
			table := cmdutil.TableOptions(opts.IO)
			table.RightAlign = []int{0}
			for c := 1; c < len(header); c++ {
				table.Wrap = append(table.Wrap, c)
			}
			return render.WriteTable(opts.IO.Out, table, render.TableHeader(header), rows)
		}
	}
	return nil
}
