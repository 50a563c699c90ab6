package journalcmd

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/paycli/paycli/internal/cmdutil"
	"github.com/paycli/paycli/internal/iostreams"
	"github.com/paycli/paycli/internal/journal"
	"github.com/paycli/paycli/internal/render"
	"github.com/spf13/cobra"
)

// NoOperator is the BY cell of a file journal's totals: the file records
// no operator.
const NoOperator = "—"

// SummaryOptions are the inputs of `paycli journal summary`.
type SummaryOptions struct {
	cmdutil.Deps
	// Journal opens the journal the profile uses.
	Journal func() (journal.Store, error)
	// Since and Until bound the window (Until zero: until now); the
	// texts are as given, for messages.
	Since, Until         time.Time
	SinceText, UntilText string
	// Account names the profile's gateway account, whose attempts alone
	// are totalled unless AllAccounts (--all-accounts), which totals each
	// account apart; nil totals every attempt together.
	Account     func() (Account, error)
	AllAccounts bool
}

// NewCmdSummary builds `paycli journal summary`.
func NewCmdSummary(f *cmdutil.Factory, runF func(context.Context, *SummaryOptions) error) *cobra.Command {
	opts := &SummaryOptions{Deps: cmdutil.DepsOf(f), Journal: f.Journal, Account: accountFunc(f)}
	cmd := &cobra.Command{
		Use:   "summary --since WHEN [--until WHEN]",
		Short: "Total the attempts of a window by operator, kind and outcome",
		Long: `Total the money-moving attempts started in a window by operator, kind and
outcome: how many, and their amounts added up per currency. It is what a
desk lead asks at the end of a day: 'paycli journal summary --since today'.

--since and --until take what 'paycli journal' takes (24h, today,
yesterday, 2026-11-24, …); --until defaults to now.

It totals one gateway account, the profile's (under --sandbox, the
sandbox's: its amounts never enter a live account's totals), and says
which; --all-accounts totals each account apart, in rows of their own
(an ACCOUNT column; account in JSON and CSV).

With the desk's shared journal the BY column is the operator's database
role, as the database recorded it; a file journal records no operator, and
shows "—" (null in JSON). An attempt whose outcome is unknown counts as
unknown, whatever this machine's spool holds: the totals are the journal's.

With -o json the output is an array of objects with the keys operator,
kind, outcome, attempts, amounts (an array of {currency, amount}) and
unreadable_amounts (how many amounts paycli could not read, left out of
the totals). -o csv and tsv write one line per currency.`,
		Example: `  paycli journal summary --since today
  paycli journal summary --since yesterday --until yesterday -o csv
  paycli journal summary --since 2026-11-24 --jq '.[] | select(.outcome == "unknown")'`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if opts.SinceText == "" {
				return cmdutil.UsageHint(fmt.Errorf("missing --since"), "Say where the window starts: --since today, --since 24h, --since 2026-11-24.")
			}
			var err error
			if opts.Since, opts.Until, err = parseWindow(opts.Now, opts.SinceText, opts.UntilText); err != nil {
				return err
			}
			return cmdutil.Run(cmd, opts, runF, summaryRun)
		},
	}
	cmd.Flags().StringVar(&opts.SinceText, "since", "", "total the attempts started at or after `WHEN`: 24h, today, yesterday, 2026-11-24… (required)")
	cmd.Flags().StringVar(&opts.UntilText, "until", "", "total the attempts started before `WHEN` (a day is taken in whole; default now)")
	_ = cmd.RegisterFlagCompletionFunc("since", cobra.FixedCompletions([]string{"1h", "24h", "7d", "today", "yesterday"}, cobra.ShellCompDirectiveNoFileComp))
	_ = cmd.RegisterFlagCompletionFunc("until", cobra.FixedCompletions([]string{"now", "today", "yesterday"}, cobra.ShellCompDirectiveNoFileComp))
	addAccountFlag(cmd, &opts.AllAccounts)
	opts.AddJSONFlags(cmd)
	cmdutil.NoGateway(cmd)
	cmdutil.SetExits(cmd, cmdutil.Exits{Kinds: []cmdutil.Kind{cmdutil.KindUsage, cmdutil.KindUnavailable, cmdutil.KindJournalRefused}, Notes: map[cmdutil.Kind]string{
		cmdutil.KindUnavailable: "the profile's shared journal (PostgreSQL) cannot be reached",
	}})
	return cmd
}

// SummaryRecord is the JSON form of one row of totals; its fields are a
// stable interface.
type SummaryRecord struct {
	// Operator is the database role; null in a file journal.
	Operator   *string         `json:"operator"`
	Kind       string          `json:"kind"`
	Outcome    string          `json:"outcome"`
	Attempts   int             `json:"attempts"`
	Amounts    []journal.Total `json:"amounts"`
	Unreadable int             `json:"unreadable_amounts"`
	// Account is the gateway identity of the row's attempts, with
	// --all-accounts (which totals each account apart); absent otherwise.
	Account string `json:"account,omitempty"`
}

// summaryRun totals the window's attempts with the journal's own Summary
// (an SQL aggregation for the shared journal).
func summaryRun(ctx context.Context, opts *SummaryOptions) error {
	format, store, err := formatAndJournal(&opts.Deps, opts.Journal)
	if err != nil {
		return err
	}
	defer store.Close()
	shared := journal.RecordsOperators(store)
	scope := scopeOf(opts.AllAccounts, opts.Account)
	var records []SummaryRecord
	if scope.all && scope.why == "" && !opts.AllAccounts {
		// No account to choose by (a test's factory): the journal's own
		// totals of every attempt.
		rows, err := journal.SummaryOf(ctx, store, opts.Since, opts.Until)
		if err != nil {
			return readFailed(err)
		}
		records = summaryRecords(rows, shared)
	} else if records, err = accountSummary(ctx, store, opts, scope, shared); err != nil {
		return err
	}
	switch format {
	case render.JSON:
		return opts.JSON.Write(ctx, opts.IO.Out, records)
	case render.CSV, render.TSV:
		return writeSummaryRecords(opts.IO, format, records)
	}
	if len(records) == 0 {
		opts.IO.Notef("No payment attempts recorded %s.", windowText(opts.Since, opts.Until))
		return nil
	}
	if err := writeSummaryTable(opts.IO, records); err != nil {
		return err
	}
	opts.IO.Notef("%s", summaryFooter(records, opts.Since, opts.Until, shared))
	if note := scope.note(0, accountsIn(records)); note != "" {
		opts.IO.Notef("%s", note)
	}
	return nil
}

// accountSummary totals the window's attempts of the account scope names,
// or, with --all-accounts, of each account apart (a sandbox's amounts never
// add into a live account's): the window's attempts are read (the
// journal's Window) and totalled here.
func accountSummary(ctx context.Context, store journal.Store, opts *SummaryOptions, scope accountScope, shared bool) ([]SummaryRecord, error) {
	attempts, err := journal.WindowOf(ctx, store, opts.Since, opts.Until)
	if err != nil {
		return nil, readFailed(err)
	}
	byAccount := map[string][]journal.Attempt{}
	var accounts []string
	for _, a := range attempts {
		id := a.Intent.Gateway
		if !scope.holds(a.Intent) {
			continue
		}
		if !scope.all {
			id = scope.Identity // an earlier paycli's lines are the account's too
		}
		if _, seen := byAccount[id]; !seen {
			accounts = append(accounts, id)
		}
		byAccount[id] = append(byAccount[id], a)
	}
	slices.Sort(accounts)
	records := []SummaryRecord{}
	// Every account for want of a profile: an account column only when
	// there are several to tell apart (asked for, always).
	named := opts.AllAccounts || (scope.all && len(accounts) > 1)
	for _, id := range accounts {
		for _, r := range summaryRecords(journal.Summarize(byAccount[id]), shared) {
			if named {
				r.Account = id
				if id == "" {
					r.Account = "(none)"
				}
			}
			records = append(records, r)
		}
	}
	return records, nil
}

func summaryRecords(rows []journal.SummaryRow, shared bool) []SummaryRecord {
	out := make([]SummaryRecord, len(rows))
	for i, r := range rows {
		out[i] = SummaryRecord{Kind: r.Kind, Outcome: r.Outcome, Attempts: r.Attempts, Amounts: r.Amounts, Unreadable: r.Unreadable}
		if shared {
			out[i].Operator = &rows[i].Operator
		}
		if out[i].Amounts == nil {
			out[i].Amounts = []journal.Total{}
		}
	}
	return out
}

// writeSummaryTable writes a row per operator, kind and outcome, the
// amounts of its currencies in one cell.
func writeSummaryTable(ios *iostreams.IOStreams, records []SummaryRecord) error {
	header := []string{"BY", "KIND", "OUTCOME", "ATTEMPTS", "AMOUNT"}
	rows := make([][]string, len(records))
	for i, r := range records {
		amounts := make([]string, len(r.Amounts))
		for j, t := range r.Amounts {
			amounts[j] = render.Amount(t.Amount, t.Currency)
		}
		if r.Unreadable > 0 {
			amounts = append(amounts, fmt.Sprintf("(%s unreadable)", render.Count(r.Unreadable, "amount", "amounts")))
		}
		by := NoOperator
		if r.Operator != nil {
			by = *r.Operator
		}
		rows[i] = []string{by, r.Kind, r.Outcome, render.GroupThousands(strconv.Itoa(r.Attempts)), strings.Join(amounts, ", ")}
	}
	table := cmdutil.TableOptions(ios)
	table.RightAlign, table.RightAlignHeader = []int{3}, true
	table.Wrap = []int{4, 0}
	if len(records) > 0 && records[0].Account != "" {
		// --all-accounts: the account comes first, and no column is ever
		// dropped for it.
		header = slices.Insert(header, 0, "ACCOUNT")
		for i, r := range records {
			rows[i] = slices.Insert(rows[i], 0, r.Account)
		}
		table.RightAlign, table.Wrap = []int{4}, []int{5, 0}
	}
	return render.WriteTable(ios.Out, table, header, rows)
}

// writeSummaryRecords writes one line per row and currency, so that a
// spreadsheet adds amounts of one currency; a row without a readable
// amount is one line with none.
func writeSummaryRecords(ios *iostreams.IOStreams, format render.Format, records []SummaryRecord) error {
	header := []string{"operator", "kind", "outcome", "attempts", "currency", "amount", "unreadable_amounts", "account"}
	var rows [][]string
	for _, r := range records {
		line := []string{deref(r.Operator), r.Kind, r.Outcome, strconv.Itoa(r.Attempts), "", "", strconv.Itoa(r.Unreadable), r.Account}
		if len(r.Amounts) == 0 {
			rows = append(rows, line)
		}
		for _, t := range r.Amounts {
			l := append([]string(nil), line...)
			l[4], l[5] = t.Currency, t.Amount
			rows = append(rows, l)
		}
	}
	return render.WriteRecords(ios.Out, format, header, rows)
}

// summaryFooter says how many attempts the totals hold, by how many
// operators, over which window.
func summaryFooter(records []SummaryRecord, since, until time.Time, shared bool) string {
	attempts := 0
	operators := map[string]bool{}
	for _, r := range records {
		attempts += r.Attempts
		operators[deref(r.Operator)] = true
	}
	by := ""
	if shared {
		by = " by " + render.Count(len(operators), "operator", "operators")
	}
	noun := "attempts"
	if attempts == 1 {
		noun = "attempt"
	}
	return fmt.Sprintf("%s %s%s, %s.", render.GroupThousands(strconv.Itoa(attempts)), noun, by, windowText(since, until))
}

// windowText is the window in words: "since 2026-11-25 00:00 +03:00" or
// "from … to …".
func windowText(since, until time.Time) string {
	if until.IsZero() {
		return "since " + render.FormatTime(since, render.Table)
	}
	return "from " + render.FormatTime(since, render.Table) + " to " + render.FormatTime(until, render.Table)
}

// accountsIn counts the accounts of the summary's rows (one when they
// name none).
func accountsIn(records []SummaryRecord) int {
	seen := map[string]bool{}
	for _, r := range records {
		seen[r.Account] = true
	}
	return len(seen)
}
