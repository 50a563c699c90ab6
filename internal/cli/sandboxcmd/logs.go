package sandboxcmd

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/paycli/paycli/internal/cmdutil"
	"github.com/paycli/paycli/internal/pause"
	"github.com/paycli/paycli/internal/redact"
	"github.com/paycli/paycli/internal/render"
	"github.com/paycli/paycli/internal/sandbox"
	"github.com/spf13/cobra"
)

// LogsOptions are the inputs of `paycli sandbox logs`.
type LogsOptions struct {
	cmdutil.Deps
	StateDir string

	// Follow prints entries as they are written, until interrupted.
	Follow bool
	// Path, Statuses, Invoice and Refused select entries; Limit keeps the
	// last Limit of those the log holds (0: all).
	Path     string
	Statuses []int
	Invoice  string
	Refused  bool
	// RequestID selects the request answered with this X-Request-Id.
	RequestID string
	Limit     int
	// Wait sleeps between looks at the log while following.
	Wait func(context.Context) error
}

// logsPoll is how often --follow looks at the log.
const logsPoll = 200 * time.Millisecond

// NewCmdLogs builds `paycli sandbox logs`.
func NewCmdLogs(f *cmdutil.Factory, runF func(context.Context, *LogsOptions) error) *cobra.Command {
	opts := &LogsOptions{Deps: cmdutil.DepsOf(f), Wait: func(ctx context.Context) error { return pause.For(ctx, logsPoll) }}
	var state string
	cmd := &cobra.Command{
		Use:   "logs",
		Short: "Show the requests the sandbox answered, and why it refused any",
		Long: `Show the requests the sandbox answered, oldest first, one line each: time
(today's as a clock time, older ones as a date), method, path, HTTP status,
status_code, duration and invoice, and for every refusal why, in words: for a hash_key that does not match, which field differs and both
values (the hash_key says total 15.00, the wallet token's amount is 150.00);
for a missing or malformed field, its name; for a refused bearer token,
whether it is missing, malformed, another app's or expired, and when. The
answers themselves stay as terse as the gateway's.

The log is kept in the state folder, whether the sandbox runs as 'paycli
sandbox serve' or inside a --sandbox command, and survives restarts; it
holds the last 4 to 8 MiB of requests. It holds no secret: hash_keys,
tokens and keys are masked, and so are card numbers.

Each entry has the answer's X-Request-Id (REQUEST ID; --request-id picks
one), and with 'paycli sandbox serve --bodies' the request's and answer's
bodies, masked (-o json: request_body, answer_body).

On a terminal too narrow for every column the request id, method and
duration are left out and WHY is shortened to fit; -o json has it whole
(with --request-id ID, for one request).

--path, --status, --invoice and --refused select requests; -n shows the
last N of them (0: all). A --path no logged request went to is refused
(exit 2, with the paths the log holds); filters that match nothing print
no rows and say so on stderr, exit 0. -f keeps printing requests as they are answered,
until Ctrl-C. -o json prints one JSON object per request (JSON Lines), and
--jq filters each.`,
		Example: `  paycli sandbox logs
  paycli sandbox logs --refused -n 10
  paycli sandbox logs --path walletPay --status 68 -o json
  paycli sandbox logs --invoice INV-1001 --jq '.why'
  paycli sandbox logs --request-id req_0c1f2e3d4c5b6a798877 -o json
  paycli sandbox logs -f`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if opts.Limit < 0 {
				return cmdutil.UsageErrorf("invalid -n %d: want a count of requests, or 0 for all", opts.Limit)
			}
			for _, s := range opts.Statuses {
				if s < 0 {
					return cmdutil.UsageErrorf("invalid --status %d: want a status_code or an HTTP status", s)
				}
			}
			dir, err := stateDir(f, state)
			if err != nil {
				return err
			}
			opts.StateDir = dir
			return cmdutil.Run(cmd, opts, runF, logsRun)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&state, "state", "", "state folder of the sandbox (default <state dir>/paycli/sandbox)")
	fl.BoolVarP(&opts.Follow, "follow", "f", false, "keep printing requests as the sandbox answers them, until Ctrl-C")
	fl.StringVar(&opts.Path, "path", "", "only requests to this path (walletPay, /api/walletPay; case ignored)")
	fl.IntSliceVar(&opts.Statuses, "status", nil, "only answers with this `status_code` (or HTTP status, for answers without one, such as 401); repeat or separate with commas")
	fl.StringVar(&opts.Invoice, "invoice", "", "only requests about this invoice id")
	fl.StringVar(&opts.RequestID, "request-id", "", "only the request answered with this X-Request-Id")
	fl.BoolVar(&opts.Refused, "refused", false, "only refusals: HTTP errors and status codes other than 100 and 101")
	fl.IntVarP(&opts.Limit, "limit", "n", 50, "show the last `N` requests selected (0: all)")
	_ = cmd.RegisterFlagCompletionFunc("state", completeFolder)
	for _, name := range []string{"path", "status", "invoice", "request-id", "limit"} {
		_ = cmd.RegisterFlagCompletionFunc(name, cobra.NoFileCompletions)
	}
	opts.AddJSONFlags(cmd)
	cmdutil.SetExits(cmd, cmdutil.Exits{Kinds: cmdutil.ExitsLocal})
	return cmd
}

// logsRun prints the log, and follows it with --follow.
func logsRun(ctx context.Context, opts *LogsOptions) error {
	format, err := opts.Format()
	if err != nil {
		return err
	}
	p := &logPrinter{opts: opts, format: format}
	if !opts.Follow {
		entries, err := sandbox.ReadRequestLog(opts.StateDir)
		if err != nil {
			return fmt.Errorf("reading the sandbox's request log: %w", err)
		}
		if err := checkLoggedPath(opts, entries); err != nil {
			return err
		}
		return p.backlog(ctx, entries)
	}
	err = sandbox.FollowRequestLog(ctx, opts.StateDir, opts.Wait,
		func(entries []sandbox.LogEntry) error { return p.backlog(ctx, entries) },
		func(e sandbox.LogEntry) error {
			if !p.selects(e) {
				return nil
			}
			return p.print(ctx, e)
		})
	if errors.Is(err, context.Canceled) {
		return nil // Ctrl-C ends a follow
	}
	return err
}

// logPrinter prints entries in one format, the header once.
type logPrinter struct {
	opts    *LogsOptions
	format  render.Format
	started bool
}

func (p *logPrinter) selects(e sandbox.LogEntry) bool {
	o := p.opts
	if o.Refused && !e.Refused() {
		return false
	}
	if o.Invoice != "" && e.Invoice != redact.Invoice(o.Invoice) {
		return false
	}
	if o.RequestID != "" && e.RequestID != o.RequestID {
		return false
	}
	if o.Path != "" && !pathMatches(e.Path, o.Path) {
		return false
	}
	if len(o.Statuses) > 0 {
		code := e.HTTPStatus
		if e.StatusCode != nil {
			code = *e.StatusCode
		}
		found := false
		for _, s := range o.Statuses {
			found = found || s == code
		}
		if !found {
			return false
		}
	}
	return true
}

// checkLoggedPath refuses a --path no request in the log went to (exit 2,
// with the paths it holds): a misspelt path would otherwise read as "no
// requests". --follow waits for requests to come, so it is not checked.
func checkLoggedPath(opts *LogsOptions, entries []sandbox.LogEntry) error {
	if opts.Path == "" || len(entries) == 0 {
		return nil
	}
	var paths []string
	for _, e := range entries {
		if pathMatches(e.Path, opts.Path) {
			return nil
		}
		if !slices.Contains(paths, e.Path) {
			paths = append(paths, e.Path)
		}
	}
	slices.Sort(paths)
	return cmdutil.UsageHint(fmt.Errorf("invalid --path %q: no request in the sandbox's request log went to it", opts.Path),
		"The log holds requests to "+cmdutil.JoinAnd(paths)+"; --follow waits for requests still to come.")
}

// pathMatches reports whether a logged path is the one asked for: the
// whole path, the path under the base URL, or its last segments, with
// case ignored.
func pathMatches(path, want string) bool {
	path, want = strings.ToLower(path), strings.ToLower(strings.TrimSpace(want))
	want = strings.TrimSuffix(want, "/")
	if !strings.HasPrefix(want, "/") {
		want = "/" + want
	}
	return path == want || strings.HasSuffix(path, want)
}

// backlog prints the selected entries the log holds, the last Limit.
func (p *logPrinter) backlog(ctx context.Context, entries []sandbox.LogEntry) error {
	var selected []sandbox.LogEntry
	for _, e := range entries {
		if p.selects(e) {
			selected = append(selected, e)
		}
	}
	if n := p.opts.Limit; n > 0 && len(selected) > n {
		selected = selected[len(selected)-n:]
	}
	if len(selected) == 0 && !p.opts.Follow {
		what := "requests"
		if len(entries) > 0 {
			what = "requests that match"
		}
		p.opts.IO.Notef("No %s in the sandbox's request log (%s): it logs every request the sandbox answers, as 'paycli sandbox serve' or inside a --sandbox command.", what, p.opts.StateDir)
		return nil
	}
	if p.format == render.Table && !p.opts.Follow {
		rows := make([][]string, len(selected))
		for i, e := range selected {
			rows[i] = p.row(e)
		}
		topts := cmdutil.TableOptions(p.opts.IO)
		// WHY is the free text, shortened to keep a line per request;
		// METHOD and MS matter least at 80 columns.
		topts.RightAlign, topts.Shorten, topts.Drop = []int{3, 4, 5}, []int{8}, []int{7, 1, 5}
		return render.WriteTable(p.opts.IO.Out, topts, logHeader, rows)
	}
	for _, e := range selected {
		if err := p.print(ctx, e); err != nil {
			return err
		}
	}
	return nil
}

var logHeader = []string{"TIME", "METHOD", "PATH", "HTTP", "CODE", "MS", "INVOICE", "REQUEST ID", "WHY"}

// csvHeader adds the explanation's parts to the table's columns.
// New columns go at the end, so that a script reading one by its place
// goes on working.
var csvHeader = []string{"time", "method", "path", "http_status", "status_code", "duration_ms", "invoice", "why", "field", "got", "want", "fault",
	"request_id", "note", "request_body", "answer_body"}

func (p *logPrinter) row(e sandbox.LogEntry) []string {
	code := ""
	if e.StatusCode != nil {
		code = strconv.Itoa(*e.StatusCode)
	}
	why := e.Why
	if e.Fault != "" {
		why = strings.TrimSpace("fault " + e.Fault + "; " + why)
	}
	if e.Note != "" {
		why = strings.TrimSpace(why + " (note: " + e.Note + ")")
	}
	when := render.FormatTime(e.Time, p.format)
	if p.format == render.Table && p.opts.Now != nil {
		when = render.CompactTime(e.Time, p.opts.Now())
	}
	return []string{when, e.Method, e.Path, strconv.Itoa(e.HTTPStatus), code,
		strconv.FormatFloat(e.DurationMS, 'f', 1, 64), e.Invoice, e.RequestID, why}
}

// print writes one entry as it comes: a JSON line, a CSV record, or a
// line of text (a followed table cannot be aligned in advance).
func (p *logPrinter) print(ctx context.Context, e sandbox.LogEntry) error {
	out := p.opts.IO.Out
	switch p.format {
	case render.JSON:
		err := p.opts.JSON.WriteLine(ctx, out, e)
		var jqErr *cmdutil.JQError
		if p.opts.Follow && errors.As(err, &jqErr) {
			// A follow goes on: one entry the filter fails on is not the
			// end of the log.
			p.opts.IO.Warnf("%v", jqErr)
			return nil
		}
		return err
	case render.CSV, render.TSV:
		r := p.row(e)
		r[0] = e.Time.UTC().Format(time.RFC3339Nano)
		r[5] = strconv.FormatFloat(e.DurationMS, 'f', -1, 64)
		r = append(r[:7], e.Why, e.Field, e.Got, e.Want, e.Fault, e.RequestID, e.Note, e.RequestBody, e.AnswerBody)
		header := csvHeader
		if p.started {
			header = nil
		}
		p.started = true
		return render.WriteRecords(out, p.format, header, [][]string{r})
	}
	if !p.started {
		p.started = true
		if _, err := fmt.Fprintln(out, strings.Join(logHeader, "  ")); err != nil {
			return err
		}
	}
	r := p.row(e)
	for i := range r {
		r[i] = render.Escape(r[i])
		if r[i] == "" {
			r[i] = "-"
		}
	}
	_, err := fmt.Fprintln(out, strings.Join(r, "  "))
	return err
}
