package cmdutil

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"

	"github.com/itchyny/gojq"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/paycli/paycli/internal/render"
)

// JSONFlags serves -o json and --jq for one command, so that every command
// that prints data filters it the same way. A command registers it with
// AddJSONFlags, resolves its output format through Format and writes its
// JSON document through Write (or WriteLine for JSON Lines).
//
// --jq implies -o json: the format is JSON whatever the configuration says,
// and only an explicit -o of another format on the command line is refused.
// The expression is compiled before the command runs, so a bad one exits 2
// before anything is sent. A nil *JSONFlags behaves as a command without
// --jq.
type JSONFlags struct {
	expr string
	code *gojq.Code
}

// AddJSONFlags registers --jq on cmd and checks it before cmd runs (in
// PreRunE, chained before any PreRunE cmd already has).
func AddJSONFlags(cmd *cobra.Command) *JSONFlags {
	j := &JSONFlags{}
	cmd.Flags().StringVar(&j.expr, "jq", "", "filter the JSON output with a jq `EXPRESSION` (implies -o json)")
	_ = cmd.RegisterFlagCompletionFunc("jq", cobra.NoFileCompletions)
	next := cmd.PreRunE
	cmd.PreRunE = func(cmd *cobra.Command, args []string) error {
		if err := j.parse(cmd.Flags()); err != nil {
			return err
		}
		if next != nil {
			return next(cmd, args)
		}
		return nil
	}
	return j
}

func (j *JSONFlags) parse(fs *pflag.FlagSet) error {
	fl := fs.Lookup("jq")
	if fl == nil || !fl.Changed {
		return nil
	}
	if out := fs.Lookup("output"); out != nil && out.Changed && out.Value.String() != string(render.JSON) {
		return UsageErrorf("--jq filters JSON: it cannot be combined with -o %s", out.Value.String())
	}
	code, err := CompileJQ(j.expr)
	if err != nil {
		return err
	}
	j.code = code
	return nil
}

// CompileJQ compiles a jq expression; a bad one is a usage error.
func CompileJQ(expr string) (*gojq.Code, error) {
	q, err := gojq.Parse(expr)
	if err != nil {
		return nil, UsageErrorf("invalid --jq expression: %v", err)
	}
	code, err := gojq.Compile(q)
	if err != nil {
		return nil, UsageErrorf("invalid --jq expression: %v", err)
	}
	return code, nil
}

// Filtering reports whether --jq was given.
func (j *JSONFlags) Filtering() bool { return j != nil && j.code != nil }

// Format wraps the command's format resolver: JSON when --jq was given
// (without consulting resolve), otherwise whatever resolve says.
func (j *JSONFlags) Format(resolve func() (render.Format, error)) func() (render.Format, error) {
	return func() (render.Format, error) {
		if j.Filtering() {
			return render.JSON, nil
		}
		return resolve()
	}
}

// FlagOutputFormat resolves -o from cmd's command line alone: the format
// given with -o, else table. It serves the commands whose output is one
// value a script captures with $(…) (hash generate, config get, config
// path, sandbox wallet-token): they print JSON only when this command line
// asks for it, because an output format configured for the data commands
// (PAYCLI_OUTPUT, the config file) must not turn into JSON a value that
// scripts written before these commands had -o json read as it is.
func FlagOutputFormat(cmd *cobra.Command) func() (render.Format, error) {
	return func() (render.Format, error) {
		fl := cmd.Flags().Lookup("output")
		if fl == nil || !fl.Changed {
			return render.Table, nil
		}
		format, err := render.ParseFormat(fl.Value.String())
		if err != nil {
			return "", UsageErrorf("invalid --output: %v", err)
		}
		return format, nil
	}
}

// Write prints v as indented JSON (render.WriteJSON) or, with --jq, the
// filter's results, one per line: a string as its text, anything else as
// compact JSON, as `gh --jq` prints them. The results are buffered and
// written only once the whole program has succeeded, so a failing filter
// leaves stdout empty. A filter error is KindUnexpected (exit 1).
func (j *JSONFlags) Write(ctx context.Context, w io.Writer, v any) error {
	if !j.Filtering() {
		return render.WriteJSON(w, v)
	}
	return j.filter(ctx, w, v)
}

// WriteLine is Write for JSON Lines output: v as one compact line, or the
// filter's results for v, all or nothing for this value.
func (j *JSONFlags) WriteLine(ctx context.Context, w io.Writer, v any) error {
	if !j.Filtering() {
		return render.WriteJSONLine(w, v)
	}
	return j.filter(ctx, w, v)
}

// WriteFields is render.WriteFields with --jq applied to the JSON object
// of the fields. The filter is given the fields masked as render.WriteFields
// prints them (render.MaskFields): a filter picks values out, and must not
// pick out a card number -o json would not show.
func (j *JSONFlags) WriteFields(ctx context.Context, w io.Writer, format render.Format, table render.TableOptions, fs []render.Field) error {
	if format == render.JSON && j.Filtering() {
		return j.filter(ctx, w, render.MarshalFields(render.MaskFields(fs)))
	}
	return render.WriteFields(w, format, table, fs)
}

// JQError is a --jq filter that failed while running (error("…"), keys of
// a string, …). It comes wrapped in an *Error of KindUnexpected; a command
// whose outcome is already decided (a payment that went through) finds it
// with errors.As and keeps its own exit code.
type JQError struct{ Err error }

func (e *JQError) Error() string { return "--jq: " + e.Err.Error() }
func (e *JQError) Unwrap() error { return e.Err }

func jqFailed(err error) error {
	return WithKind(KindUnexpected, &JQError{Err: err}, "")
}

func (j *JSONFlags) filter(ctx context.Context, w io.Writer, v any) error {
	// gojq works on plain JSON values: go through the encoding once, numbers
	// kept as written (json.Number) so amounts and ids are not rounded.
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		return err
	}
	var buf bytes.Buffer
	iter := j.code.RunWithContext(ctx, doc)
	for {
		out, ok := iter.Next()
		if !ok {
			break
		}
		if err, isErr := out.(error); isErr {
			var halt *gojq.HaltError
			if errors.As(err, &halt) && halt.Value() == nil {
				break
			}
			return jqFailed(err)
		}
		if s, isString := out.(string); isString {
			buf.WriteString(s)
		} else {
			line, err := gojq.Marshal(out)
			if err != nil {
				return jqFailed(err)
			}
			buf.Write(line)
		}
		buf.WriteByte('\n')
	}
	_, err = w.Write(buf.Bytes())
	return err
}
