// Package journalcmd implements `paycli journal`: the record of every
// money-moving attempt, in the profile's journal (the file on this machine,
// internal/journal, or the desk's shared one, internal/pgjournal);
// `paycli journal reconcile`, which asks the gateway about the attempts
// whose outcome is unknown and records what it learns; `journal summary`,
// the totals of a window; `journal import`, a file journal copied into the
// shared one; and `journal init`, the shared journal's schema.
package journalcmd

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/paycli/paycli/internal/cmdutil"
	"github.com/paycli/paycli/internal/invoiceid"
	"github.com/paycli/paycli/internal/iostreams"
	"github.com/paycli/paycli/internal/journal"
	"github.com/paycli/paycli/internal/journalindex"
	"github.com/paycli/paycli/internal/pgjournal"
	"github.com/paycli/paycli/internal/redact"
	"github.com/paycli/paycli/internal/render"
	"github.com/spf13/cobra"
)

// UnknownLabel is how `journal show` shows an intent without an outcome.
const UnknownLabel = "unknown — check status"

// SpooledLabel is how `journal show` shows an attempt whose outcome waits
// in this machine's spool for the shared journal.
const SpooledLabel = "pending — spooled, not yet in the shared journal"

// DefaultLimit is how many attempts the table shows without --limit: a
// screenful, the newest.
const DefaultLimit = 20

// Options are the inputs of `paycli journal`.
type Options struct {
	cmdutil.Deps
	// Journal opens the journal the profile uses: the file, or the desk's
	// shared journal (pgjournal.Store).
	Journal func() (journal.Store, error)

	Invoice string
	// Since and Until keep the attempts started at or after Since and
	// before Until; a zero time does not limit. SinceText and UntilText
	// are as given, for messages.
	Since, Until         time.Time
	SinceText, UntilText string
	// Outcomes and Kinds keep the attempts of these classes and kinds;
	// empty keeps all.
	Outcomes, Kinds []string
	// MoneyKinds are the kinds the money operations have
	// (cmdutil.Factory.Kinds): what --kind takes, and which of them
	// `journal reconcile` settles.
	MoneyKinds journal.Kinds
	// Operators keeps the attempts of these database roles (--operator,
	// or its old name --by); only a shared journal records them.
	Operators []string
	// Limit is how many attempts are shown, the newest; 0 shows every
	// one. LimitSet says --limit was given: without it only the table is
	// cut, to DefaultLimit.
	Limit    int
	LimitSet bool
	// Flags are the global flags that chose the profile (--profile,
	// --sandbox) of this command. The listing shows every profile's
	// attempts: the `journal reconcile` it suggests takes the flags of the
	// attempts' own (reconcileFlags).
	Flags []string
	// SandboxIdentity names the sandbox as the lines of --sandbox commands
	// do (cmdutil.Factory.SandboxIdentity); nil when there is none.
	SandboxIdentity func() (string, error)
	// Account names the profile's gateway account, whose attempts alone
	// are listed unless AllAccounts (--all-accounts); nil lists every one.
	Account     func() (Account, error)
	AllAccounts bool
	// scope is the account this run lists (scopeOf).
	scope accountScope
}

// NewCmdJournal builds `paycli journal`.
func NewCmdJournal(f *cmdutil.Factory, runF func(context.Context, *Options) error) *cobra.Command {
	opts := &Options{Deps: cmdutil.DepsOf(f), Journal: f.Journal, SandboxIdentity: f.SandboxIdentity, Account: accountFunc(f),
		MoneyKinds: f.Kinds()}
	cmd := &cobra.Command{
		Use:   "journal [INVOICE] [--since WHEN] [--until WHEN] [--limit N]",
		Short: "List the payments attempted from this machine, or by the desk",
		Long: `List the attempts recorded in the profile's journal, newest first: the
file <state dir>/paycli/journal.jsonl, or the desk's shared journal when the
profile names one (the journal key, PAYCLI_JOURNAL; always the file under
--sandbox). Each attempt is one line: when (today's as a clock time, older
ones as a date), which profile and gateway, the invoice, amount, masked
card, and the outcome (succeeded, queued, declined, duplicate, rejected,
unknown, not_sent, not_found) with the gateway's status_code, order number
and, for an attempt that did not succeed, the reason the gateway or paycli
gave (with the decline's payment_reason_code and the bank's error, when
the answer had them). A refund the gateway queued for approval (101) is
queued until 'paycli status' finds it made or refused. On a terminal too
narrow for every column the profile, card, code and order are left out and
the reason is shortened to fit; 'paycli journal show INVOICE' (or an
attempt id) shows each attempt whole, as does -o json.

The table shows the newest 20 attempts (--limit N for more, --limit 0 for
all) and says on stderr when it left older ones out; -o json, csv and tsv
list every attempt unless --limit is given, as a script wants the whole.

It lists one gateway account: the profile's (under --sandbox, the
sandbox's), and says which on stderr, with how many attempts of other
accounts it left out; --all-accounts lists them all.

--since and --until take a duration ago (30m, 24h, 1d, 2w), today,
yesterday, now, a date (2026-11-24) or a date and time (2026-11-24 15:04,
or RFC 3339 with its offset). Dates and times are read in your time zone
(TZ) unless written with an offset. A day given to --since starts at its
midnight; a day given to --until takes in the whole day, so
'--since yesterday --until yesterday' is all of yesterday. --outcome and
--kind take one value or several, comma-separated.

An attempt whose outcome was never recorded (paycli was killed mid-call) is
shown as "unknown — check status". 'paycli status --invoice ID' or
'paycli journal reconcile' asks the gateway what happened and records it:
the attempt then shows the learned outcome, marked "(reconciled)", and a
resumed batch acts on it. The footer names the invoices still unknown,
and the 'paycli journal reconcile' line of each profile they were made on
(with its --profile, or --sandbox); for a pre-authorization capture or
cancel, a 3D completion or an api call, which reconcile does not settle,
the 'paycli status' line of its invoice.

Lines the journal cannot read (a line torn by a failed write, a foreign
line) are left out with a warning naming their byte offsets.

With the shared journal a BY column names each attempt's operator (the
database role that recorded it), and --operator ROLE keeps one operator's
(or several: repeat it, or separate them with commas); a role that made no
attempt in the journal is refused (exit 2, with the roles that did), and a
file journal records no operator, so --operator is refused there. It was
called --by, which still works: 'commissions --by' names who pays the fee,
and one flag name should not mean two things, so the journal's says what it
keeps. Filters that match nothing list nothing and say so on stderr, exit
0. An outcome that waits in this machine's
spool for the shared journal (the database could not take it when it was
known) is shown as "pending — spooled, not yet in the shared journal";
the next paycli command that can write to the database writes it. A shared
journal that cannot be reached is exit 8.

With -o json the output is an array of objects with the keys attempt, kind,
time, finished_at, profile, base_url, gateway, invoice, amount, currency,
card, wallet, ref, outcome, outcome_recorded, status_code, order_no,
message, status_description, payment_reason_code,
payment_reason_code_detail, original_bank_error_code,
original_bank_error_description, reconciled, operator, os_user, host and
spooled_outcome (the last four null in a file journal). Times are RFC 3339 in your time zone, to the
second; 'paycli journal show' shows them the same way.`,
		Example: `  paycli journal
  paycli journal INV-1001
  paycli journal --since 24h -o json
  paycli journal --since yesterday --until yesterday --outcome declined
  paycli journal --since 2026-11-24 --kind refund
  paycli journal --jq '.[] | select(.outcome == "unknown") | .invoice'
  paycli journal --since today --operator ayse,mehmet
  paycli journal --limit 50
  paycli journal show INV-1001
  paycli journal summary --since today
  paycli journal reconcile`,
		Args: cmdutil.InvoiceArg,
		RunE: func(cmd *cobra.Command, args []string) error {
			var err error
			if opts.Since, opts.Until, err = parseWindow(opts.Now, opts.SinceText, opts.UntilText); err != nil {
				return err
			}
			if err := checkValues("--outcome", opts.Outcomes, journal.Classes); err != nil {
				return err
			}
			if err := checkValues("--kind", opts.Kinds, opts.MoneyKinds.Names()); err != nil {
				return err
			}
			if cmd.Flags().Changed("by") {
				// On stderr: cobra's deprecation notice goes to stdout.
				opts.IO.Warnf("--by is the old name of --operator (commissions' --by names who pays); use --operator")
			}
			for _, r := range opts.Operators {
				if strings.TrimSpace(r) == "" {
					return cmdutil.UsageErrorf("invalid --operator: an empty role name")
				}
			}
			if opts.LimitSet = cmd.Flags().Changed("limit"); opts.Limit < 0 {
				return cmdutil.UsageErrorf("invalid --limit %d: give how many attempts to show, or 0 for all", opts.Limit)
			}
			if cmd.Flags().Changed("invoice") {
				if err := invoiceid.Check(opts.Invoice); err != nil {
					return cmdutil.UsageErrorf("invalid --invoice: %w", err)
				}
			}
			flags, err := f.GatewayFlags(cmd)
			if err != nil {
				return err
			}
			opts.Flags = flags
			return cmdutil.Run(cmd, opts, runF, journalRun)
		},
	}
	cmd.Flags().StringVar(&opts.Invoice, "invoice", "", "only attempts for this invoice id")
	cmd.Flags().StringVar(&opts.SinceText, "since", "", "only attempts started at or after `WHEN`: 24h, 1d, today, yesterday, 2026-11-24…")
	cmd.Flags().StringVar(&opts.UntilText, "until", "", "only attempts started before `WHEN` (a day is taken in whole)")
	cmd.Flags().StringSliceVar(&opts.Outcomes, "outcome", nil, "only attempts with this `OUTCOME`: "+strings.Join(journal.Classes, ", "))
	cmd.Flags().StringSliceVar(&opts.Kinds, "kind", nil, "only attempts of this `KIND`: "+strings.Join(opts.MoneyKinds.Names(), ", "))
	cmd.Flags().StringSliceVar(&opts.Operators, "operator", nil, "only attempts made by this operator `ROLE` (a shared journal's database role)")
	// --by was the flag's first name; commissions' --by is who pays.
	cmd.Flags().StringSliceVar(&opts.Operators, "by", nil, "old name of --operator")
	_ = cmd.Flags().MarkHidden("by")
	cmd.Flags().IntVar(&opts.Limit, "limit", DefaultLimit, "show the newest `N` attempts; 0 shows all (-o json, csv and tsv: all unless given)")
	addAccountFlag(cmd, &opts.AllAccounts)
	_ = cmd.RegisterFlagCompletionFunc("outcome", cobra.FixedCompletions(journal.Classes, cobra.ShellCompDirectiveNoFileComp))
	_ = cmd.RegisterFlagCompletionFunc("kind", cobra.FixedCompletions(opts.MoneyKinds.Names(), cobra.ShellCompDirectiveNoFileComp))
	_ = cmd.RegisterFlagCompletionFunc("until", cobra.FixedCompletions([]string{"now", "today", "yesterday"}, cobra.ShellCompDirectiveNoFileComp))
	_ = cmd.RegisterFlagCompletionFunc("invoice", CompleteInvoice(f.JournalPath, f.Kinds))
	cmd.ValidArgsFunction = func(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		if len(args) > 0 || cmd.Flags().Changed("invoice") {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		return CompleteInvoice(f.JournalPath, f.Kinds)(cmd, args, toComplete)
	}
	_ = cmd.RegisterFlagCompletionFunc("since", cobra.FixedCompletions([]string{"1h", "24h", "7d", "today", "yesterday"}, cobra.ShellCompDirectiveNoFileComp))
	opts.AddJSONFlags(cmd)
	cmd.AddCommand(NewCmdReconcile(f, nil), NewCmdInit(f, nil), NewCmdSummary(f, nil), NewCmdImport(f, nil), NewCmdShow(f, nil), NewCmdSettle(f, nil))
	// It reads the journal and asks the gateway nothing: under --sandbox it
	// starts no sandbox.
	cmdutil.NoGateway(cmd)
	cmdutil.SetExits(cmd, cmdutil.Exits{Kinds: []cmdutil.Kind{cmdutil.KindUsage, cmdutil.KindUnavailable, cmdutil.KindJournalRefused}, Notes: map[cmdutil.Kind]string{
		cmdutil.KindUnavailable: "the profile's shared journal (PostgreSQL) cannot be reached",
	}})
	return cmd
}

// Record is the JSON form of one attempt; its fields are a stable
// interface. It is what is shown of the attempt: Invoice is shown as
// redact.Invoice shows it and the messages pass through the card masker
// (redact.Cards), so an invoice id that is a card number shows as its
// first 6 and last 4 digits, in every format; the journal file keeps it whole, and --invoice looks it up whole.
// Card is masked in the journal already; order numbers are the gateway's
// references, shown whole.
type Record struct {
	// sentAgain: the attempt's kind is settled by sending its command
	// again (journal.Kind.SentAgain), not by check status.
	sentAgain  bool
	Attempt    string       `json:"attempt"`
	Kind       string       `json:"kind"`
	Time       render.Time  `json:"time"`
	FinishedAt *render.Time `json:"finished_at"`
	Profile    string       `json:"profile"`
	BaseURL    string       `json:"base_url"`
	// Gateway is the gateway identity; empty on lines written before
	// lines carried it.
	Gateway  string `json:"gateway"`
	Invoice  string `json:"invoice"`
	Amount   string `json:"amount"`
	Currency string `json:"currency"`
	Card     string `json:"card"`
	Wallet   string `json:"wallet"`
	// Ref is the operation's own id for the attempt (a refund's
	// refund_transaction_id); null when it has none.
	Ref *string `json:"ref"`
	// Outcome is the attempt's class: from its outcome line, or from its
	// reconciliation when that line did not know.
	Outcome string `json:"outcome"`
	// OutcomeRecorded is false for an intent without an outcome line.
	OutcomeRecorded bool    `json:"outcome_recorded"`
	StatusCode      *int    `json:"status_code"`
	OrderNo         *string `json:"order_no"`
	Message         *string `json:"message"`
	// The gateway's and the bank's reasons for a refusal, as the outcome
	// line kept them; null when the answer carried none.
	StatusDescription            *string `json:"status_description"`
	PaymentReasonCode            *string `json:"payment_reason_code"`
	PaymentReasonCodeDetail      *string `json:"payment_reason_code_detail"`
	OriginalBankErrorCode        *string `json:"original_bank_error_code"`
	OriginalBankErrorDescription *string `json:"original_bank_error_description"`
	// Reconciled is what the gateway said later, or null.
	Reconciled *Reconciliation `json:"reconciled"`
	// Operator is the database role that made the attempt, OSUser and
	// Host where it was made from (as paycli said); null in a file
	// journal, which records none of them.
	Operator *string `json:"operator"`
	OSUser   *string `json:"os_user"`
	Host     *string `json:"host"`
	// Spooled is the outcome waiting in this machine's spool for the
	// shared journal (an attempt whose outcome the database could not take
	// when it was known); null otherwise. Outcome is "unknown" meanwhile,
	// as the desk sees it.
	Spooled *string `json:"spooled_outcome"`
	// SettledBy is the database role that wrote the line that settled the
	// attempt (its outcome, or another operator's reconciliation with the
	// gateway's answer); null in a file journal and while unsettled.
	SettledBy *string `json:"settled_by"`
	// Reason is why a desk action was taken (cards delete --reason); null
	// for payments.
	Reason *string `json:"reason"`
	// SettledByLead: the desk lead settled the attempt by hand (journal
	// settle; Reconciled says why and who), not the gateway's answer.
	SettledByLead bool `json:"settled_by_lead"`
}

// Reconciliation is the JSON form of a reconcile line.
type Reconciliation struct {
	// Outcome is succeeded, declined, not_found, pending or unknown.
	Outcome           string      `json:"outcome"`
	Time              render.Time `json:"time"`
	Via               string      `json:"via"`
	StatusCode        *int        `json:"status_code"`
	TransactionStatus *string     `json:"transaction_status"`
	OrderNo           *string     `json:"order_no"`
	Message           *string     `json:"message"`
	// Reason and By, on the desk lead's settlement (via journal settle):
	// why, and the OS user and host that wrote it (user@host); null
	// otherwise.
	Reason *string `json:"reason"`
	By     *string `json:"by"`
}

func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func recordOf(a journal.Attempt) Record {
	r := Record{
		Attempt: a.Intent.Attempt, Kind: a.Intent.OpKind(), Time: render.Time{Time: a.Intent.Time}, Profile: a.Intent.Profile,
		BaseURL: a.Intent.BaseURL, Gateway: a.Intent.Gateway, Invoice: redact.Invoice(a.Intent.Invoice), Amount: a.Intent.Amount,
		Currency: a.Intent.Currency, Card: redact.CardText(a.Intent.Card), Wallet: a.Intent.Wallet, Outcome: a.Class(),
		OutcomeRecorded: a.Recorded(), OrderNo: optional(a.OrderNo()), Ref: optional(a.Intent.Ref),
		Reason: optional(redact.Cards(a.Intent.Reason)), SettledByLead: a.SettledByLead(),
	}
	if o := a.Outcome; o != nil {
		t := render.Time{Time: o.Time}
		r.FinishedAt, r.StatusCode, r.Message = &t, o.StatusCode, optional(redact.Cards(o.Message))
		r.StatusDescription = optional(redact.Cards(o.StatusDescription))
		r.PaymentReasonCode = optional(redact.Cards(o.PaymentReasonCode))
		r.PaymentReasonCodeDetail = optional(redact.Cards(o.PaymentReasonCodeDetail))
		r.OriginalBankErrorCode = optional(redact.Cards(o.OriginalBankErrorCode))
		r.OriginalBankErrorDescription = optional(redact.Cards(o.OriginalBankErrorDescription))
	}
	if c := a.Reconciled; c != nil {
		r.Reconciled = &Reconciliation{Outcome: c.Outcome, Time: render.Time{Time: c.Time}, Via: c.Via, StatusCode: c.StatusCode,
			TransactionStatus: optional(c.TransactionStatus), OrderNo: optional(c.OrderNo), Message: optional(redact.Cards(c.Message))}
		if c.Via == journal.ViaSettle {
			r.Reconciled.Reason = optional(redact.Cards(c.Reason))
			if c.OSUser != "" || c.Host != "" {
				r.Reconciled.By = optional(c.OSUser + "@" + c.Host)
			}
		}
	}
	return r
}

// journalRun lists the attempts.
func journalRun(ctx context.Context, opts *Options) error {
	format, err := opts.Format()
	if err != nil {
		return err
	}
	l, err := readListing(ctx, opts)
	if err != nil {
		return err
	}
	opts.scope = scopeOf(opts.AllAccounts, opts.Account)
	records, footer := listRecords(opts, l)
	newestFirst(records)
	limit := opts.Limit
	if !opts.LimitSet && format != render.Table {
		limit = 0
	}
	total := len(records)
	if limit > 0 && total > limit {
		records = records[:limit]
	}
	switch {
	case format == render.JSON:
		err = opts.JSON.Write(ctx, opts.IO.Out, records)
	case len(records) == 0 && format == render.Table:
		opts.IO.Notef("No payment attempts recorded in %s%s.", render.Escape(l.where), filterNote(opts))
	default:
		err = writeRows(opts, format, l.shared, records)
	}
	if err != nil {
		return err
	}
	if len(records) < total {
		fmt.Fprintf(opts.IO.ErrOut, "Showing the newest %d of %d attempts; --limit N shows more, --limit 0 all.\n", len(records), total)
	}
	if note := opts.scope.note(footer.hidden, accountsOf(records)); note != "" {
		opts.IO.Notef("%s", note)
	}
	if footer.unknown != nil {
		opts.IO.Notef("%s", unknownFooter(footer.unknown, footer.reconcile, footer.checks))
	}
	if footer.resend {
		fmt.Fprintln(opts.IO.ErrOut, "A saved card's deletion of unknown outcome is settled by sending it again: the same 'paycli cards delete' (docs/cards.md).")
	}
	if l.spooled != nil {
		opts.IO.Notef("%s", spoolNote(l))
	}
	return nil
}

// listing is what `paycli journal` read: the attempts of the journal the
// profile uses, and where they come from.
type listing struct {
	attempts []journal.Attempt
	// where names the journal in messages: the file's path, or the shared
	// journal's URL (masked).
	where string
	// shared is true for the desk's shared journal, whose attempts say who
	// made them.
	shared bool
	// spooled holds, by attempt id and invoice, the outcomes waiting in
	// this machine's spool for the shared journal (journal.Spooler),
	// in spool; spoolErr is why they wait. Nil when none do.
	spooled  map[string]journal.Entry
	spool    string
	spoolErr error
}

// readListing reads the attempts the filters ask for from the journal the
// profile uses (Options.Journal), by what it can do: a journal file through
// the index beside it for an invoice (journal.Indexed), a journal with
// indexed queries through them (journal.InvoiceLister: the shared one),
// any other by its attempts.
func readListing(ctx context.Context, opts *Options) (*listing, error) {
	store, err := openJournal(opts.Journal)
	if err != nil {
		return nil, err
	}
	defer store.Close()
	if len(opts.Operators) > 0 && !journal.RecordsOperators(store) {
		return nil, cmdutil.UsageHint(fmt.Errorf("--operator needs a shared journal: this profile's journal is the file %s, which records no operators", render.Escape(journal.WhereOf(store))),
			"Leave out --operator, or point the profile at the desk's journal ('paycli config set journal URL', the desk's postgres:// URL).")
	}
	if err := checkOperators(ctx, opts, store); err != nil {
		return nil, err
	}
	if f, ok := store.(journal.Indexed); ok {
		return readFileListing(opts, f.IndexedFile())
	}
	return readIndexedListing(ctx, opts, store)
}

// checkOperators refuses a --operator ROLE that made no attempt in the journal
// (exit 2, with the roles that did): a misspelt name would otherwise list
// nothing, as if the role had been idle.
func checkOperators(ctx context.Context, opts *Options, store journal.Store) error {
	lister, ok := store.(journal.OperatorLister)
	if len(opts.Operators) == 0 || !ok {
		return nil
	}
	known, err := lister.Operators(ctx)
	if err != nil {
		return readFailed(err)
	}
	var unknown []string
	for _, r := range opts.Operators {
		if !slices.Contains(known, r) {
			unknown = append(unknown, r)
		}
	}
	if len(unknown) == 0 {
		return nil
	}
	hint := "The journal holds no attempts yet."
	if len(known) > 0 {
		hint = "Roles with attempts in the journal: " + strings.Join(known, ", ") + "."
	}
	return cmdutil.UsageHint(fmt.Errorf("invalid --operator: no attempt in the journal was made by %s", render.Escape(strings.Join(unknown, ", "))), hint)
}

// openJournal opens the profile's journal; a shared journal that cannot be
// reached is exit 8, with what to do.
func openJournal(open func() (journal.Store, error)) (journal.Store, error) {
	store, err := open()
	var login *pgjournal.LoginError
	if errors.As(err, &login) {
		return nil, cmdutil.WithKind(cmdutil.KindJournalRefused, err, login.Fix())
	}
	if errors.Is(err, journal.ErrUnavailable) {
		return nil, cmdutil.WithKind(cmdutil.KindUnavailable, err,
			"Check that the database runs and lets your role in (pg_hba.conf, the password in ~/.pgpass), or ask whoever runs it; then run the command again.")
	}
	return store, err
}

// formatAndJournal resolves the output format, then opens the journal: a
// bad -o is refused before the journal (perhaps a database) is reached.
func formatAndJournal(d *cmdutil.Deps, open func() (journal.Store, error)) (render.Format, journal.Store, error) {
	format, err := d.Format()
	if err != nil {
		return "", nil, err
	}
	store, err := openJournal(open)
	if err != nil {
		return "", nil, err
	}
	return format, store, nil
}

// readFailed is a read of the journal that failed: exit 8 when the shared
// journal stopped answering.
func readFailed(err error) error {
	if errors.Is(err, journal.ErrUnavailable) {
		return cmdutil.WithKind(cmdutil.KindUnavailable, err, "Run the command again once the database answers.")
	}
	return err
}

// readFileListing reads the journal file at path, every line, or an
// invoice's through the index; lines it cannot read are warned about.
func readFileListing(opts *Options, path string) (*listing, error) {
	var attempts []journal.Attempt
	var damage journal.Damage
	var err error
	if opts.Invoice != "" {
		attempts, damage, err = journalindex.Lookup(path, opts.Invoice)
	} else {
		attempts, damage, err = journal.ReadAll(path)
	}
	if err != nil {
		return nil, err
	}
	warnDamage(opts.IO, path, damage)
	return &listing{attempts: attempts, where: path}, nil
}

// readIndexedListing reads the invoice's or the window's attempts from a
// journal that is no file (the shared journal: its indexed queries,
// journal.InvoiceLister), and the outcomes this machine's spool still
// holds for it (journal.Spooler).
func readIndexedListing(ctx context.Context, opts *Options, store journal.Store) (*listing, error) {
	var attempts []journal.Attempt
	var err error
	if lister, ok := store.(journal.InvoiceLister); ok {
		attempts, err = lister.List(ctx, opts.Invoice, opts.Since, opts.Until)
	} else if opts.Invoice != "" {
		attempts, err = store.Attempts(ctx, opts.Invoice)
	} else {
		attempts, err = store.Attempts(ctx)
	}
	if err != nil {
		return nil, readFailed(err)
	}
	if _, ok := store.(journal.InvoiceLister); !ok {
		attempts = journal.InWindow(attempts, opts.Since, opts.Until)
	}
	l := &listing{attempts: attempts, where: journal.WhereOf(store), shared: journal.RecordsOperators(store)}
	s, ok := store.(journal.Spooler)
	if !ok {
		return l, nil
	}
	l.spoolErr = s.SpoolError()
	spooled, spool, err := s.Spooled()
	if err != nil {
		return nil, fmt.Errorf("reading the spool %s: %w", spool, err)
	}
	for _, e := range spooled {
		if e.Type != journal.TypeOutcome {
			continue // a reconciliation waits too, but tells no outcome of its own
		}
		if l.spooled == nil {
			l.spooled, l.spool = map[string]journal.Entry{}, spool
		}
		l.spooled[e.Attempt+"\x00"+e.Invoice] = e
	}
	return l, nil
}

// footer is what the listing says after its rows about the attempts it
// showed whose outcome is unknown: their invoices, the `journal
// reconcile` flags of each profile they were made on, and the `paycli
// status` lines of those reconcile does not settle (journal.Kinds.Reconcilable).
type footer struct {
	// hidden counts the attempts of other gateway accounts left out.
	hidden    int
	unknown   []string
	reconcile [][]string
	checks    []string
	// resend: a desk action of unknown outcome (journal.Kind.SentAgain), which
	// its own command settles when sent again.
	resend bool
}

// listRecords keeps the attempts the filters ask for, as records, and the
// footer of the unresolved ones among them.
func listRecords(opts *Options, l *listing) ([]Record, footer) {
	records := []Record{}
	// The footer names the unresolved attempts, by the rule `journal
	// reconcile` checks them by: an unknown attempt whose story a later
	// one told is not.
	open := map[string]bool{}
	for _, a := range journal.UnresolvedAll(l.attempts) {
		open[a.Intent.Attempt+"\x00"+a.Intent.Invoice] = true
	}
	var f footer
	seen, seenFlags, seenChecks := map[string]bool{}, map[string]bool{}, map[string]bool{}
	sandboxID := ""
	if opts.SandboxIdentity != nil {
		// Without it (no state folder), no line is taken for the sandbox's.
		sandboxID, _ = opts.SandboxIdentity()
	}
	for _, a := range l.attempts {
		if !kept(opts, a) {
			continue
		}
		if !opts.scope.holds(a.Intent) {
			f.hidden++
			continue
		}
		key := a.Intent.Attempt + "\x00" + a.Intent.Invoice
		r := recordOf(a)
		r.sentAgain = opts.MoneyKinds.SentAgain(a.Intent.OpKind())
		if l.shared {
			r.Operator, r.OSUser, r.Host = &a.Operator, &a.OSUser, &a.Host
			r.SettledBy = optional(a.SettledBy)
		}
		spooled, waits := l.spooled[key]
		if waits && !a.Recorded() {
			r.Spooled = &spooled.Outcome
		}
		records = append(records, r)
		if !open[key] || r.Spooled != nil {
			// A spooled outcome is written by the next command that can:
			// nothing to ask the gateway.
			continue
		}
		if inv := a.Intent.Invoice; !seen[inv] {
			seen[inv] = true
			f.unknown = append(f.unknown, inv)
		}
		if r.sentAgain {
			f.resend = true
			continue
		}
		flags := reconcileFlags(a.Intent, sandboxID, opts.Flags)
		if !opts.MoneyKinds.Reconcilable(a.Intent.OpKind()) {
			// reconcile would find nothing to do for it: the reader is
			// pointed at `paycli status` for that invoice instead.
			line, note := cmdutil.InvoiceCommandLine([]string{"status"}, a.Intent.Invoice, "its invoice id, kept whole in "+l.where, flags)
			if !seenChecks[line] {
				seenChecks[line] = true
				f.checks = append(f.checks, line+note)
			}
			continue
		}
		if key := strings.Join(flags, "\x00"); !seenFlags[key] {
			seenFlags[key] = true
			f.reconcile = append(f.reconcile, flags)
		}
	}
	return records, f
}

// accountsOf counts the gateway accounts the records were made on.
func accountsOf(records []Record) int {
	seen := map[string]bool{}
	for _, r := range records {
		seen[r.Gateway] = true
	}
	return len(seen)
}

// kept reports whether a passes the listing's filters.
func kept(opts *Options, a journal.Attempt) bool {
	switch {
	case opts.Invoice != "" && a.Intent.Invoice != opts.Invoice,
		!opts.Since.IsZero() && a.Intent.Time.Before(opts.Since),
		!opts.Until.IsZero() && !a.Intent.Time.Before(opts.Until),
		len(opts.Kinds) > 0 && !slices.Contains(opts.Kinds, a.Intent.OpKind()),
		len(opts.Outcomes) > 0 && !slices.Contains(opts.Outcomes, a.Class()),
		len(opts.Operators) > 0 && !slices.Contains(opts.Operators, a.Operator):
		return false
	}
	return true
}

// spoolNote says that outcomes wait in this machine's spool, where, and
// why, after a listing of the shared journal that found some.
func spoolNote(l *listing) string {
	what, them, attempts := fmt.Sprintf("%d outcomes wait", len(l.spooled)), "them", "their attempts"
	if len(l.spooled) == 1 {
		what, them, attempts = "1 outcome waits", "it", "its attempt"
	}
	why := ""
	if l.spoolErr != nil {
		why = " (" + l.spoolErr.Error() + ")"
	}
	return fmt.Sprintf("%s in %s for the shared journal%s: the next paycli command that can write to it writes %s; until then the desk sees %s as unknown.",
		what, render.Escape(l.spool), render.Escape(why), them, attempts)
}

// parseWindow reads --since and --until (either may be empty: unbounded)
// with one reading of the clock for both ends.
func parseWindow(clock func() time.Time, sinceText, untilText string) (since, until time.Time, err error) {
	now := sync.OnceValue(clock)
	if sinceText != "" {
		if since, err = cmdutil.ParseWhen(sinceText, now(), false); err != nil {
			return since, until, cmdutil.UsageErrorf("invalid --since %w", err)
		}
	}
	if untilText != "" {
		if until, err = cmdutil.ParseWhen(untilText, now(), true); err != nil {
			return since, until, cmdutil.UsageErrorf("invalid --until %w", err)
		}
	}
	if !since.IsZero() && !until.IsZero() && !since.Before(until) {
		return since, until, cmdutil.UsageHint(fmt.Errorf("--since %s is not before --until %s", sinceText, untilText),
			"Give --since the earlier moment; --until takes in the whole of a day it names.")
	}
	return since, until, nil
}

// maxNamed bounds how many unknown invoices the footer names.
const maxNamed = 10

// reconcileFlags are the gateway flags that make `paycli journal
// reconcile` check the attempt e: --sandbox for a line of a --sandbox
// command (journal.Entry.MadeInSandbox), else --profile with the line's
// profile, named even when it is the default one, as PAYCLI_PROFILE or
// default_profile may choose another. When this command runs in sandbox
// mode (given is this command's flags: --sandbox, or PAYCLI_SANDBOX set),
// a profile's line adds --sandbox=false, which overrides PAYCLI_SANDBOX.
func reconcileFlags(e journal.Entry, sandboxID string, given []string) []string {
	if e.MadeInSandbox(sandboxID) {
		return []string{"--sandbox"}
	}
	flags := []string{"--profile", e.Profile}
	if slices.Contains(given, "--sandbox") {
		flags = append(flags, "--sandbox=false")
	}
	return flags
}

// unknownFooter names the invoices whose outcome is unknown (masked, like
// every invoice shown) and the command that reconciles them all, which
// needs no invoice id: `paycli journal reconcile` with the flags of their
// profile (reconcileFlags), or one such line per profile, as reconcile
// checks one profile at a time; then the `paycli status` lines of the
// attempts reconcile does not settle (checks), which the reader settles by
// looking.
func unknownFooter(unknown []string, reconcile [][]string, checks []string) string {
	what := fmt.Sprintf("%d invoices have", len(unknown))
	if len(unknown) == 1 {
		what = "1 invoice has"
	}
	named := unknown
	more := ""
	if len(named) > maxNamed {
		named, more = named[:maxNamed], fmt.Sprintf(" and %d more", len(unknown)-maxNamed)
	}
	// The invoices come from the journal, a file anything may have
	// written to.
	named = slices.Clone(named)
	for i, inv := range named {
		named[i] = render.Escape(redact.Invoice(inv))
	}
	footer := fmt.Sprintf("%s an unknown outcome: %s%s.", what, strings.Join(named, ", "), more)
	switch len(reconcile) {
	case 0:
	case 1:
		footer += "\nAsk the gateway and record what it says with: " + render.Escape(cmdutil.ReconcileCommandLine(reconcile[0]))
	default:
		lines := make([]string, len(reconcile))
		for i, flags := range reconcile {
			lines[i] = "  " + render.Escape(cmdutil.ReconcileCommandLine(flags))
		}
		footer += fmt.Sprintf("\nThey were made on %d profiles; ask the gateway and record what it says with one command for each:\n", len(reconcile)) +
			strings.Join(lines, "\n")
	}
	if len(checks) > 0 {
		lines := make([]string, len(checks))
		for i, c := range checks {
			lines[i] = "  " + render.Escape(c)
		}
		footer += "\nreconcile does not settle an operation this paycli does not know (written by another version); see where each stands with:\n" +
			strings.Join(lines, "\n")
	}
	return footer
}

func warnDamage(ios *iostreams.IOStreams, path string, d journal.Damage) {
	if d.Lines == 0 {
		return
	}
	offs := make([]string, len(d.Offsets))
	for i, o := range d.Offsets {
		offs[i] = strconv.FormatInt(o, 10)
	}
	list := strings.Join(offs, ", ")
	if d.Lines > len(d.Offsets) {
		list += ", …"
	}
	lines, were := "lines", "were"
	if d.Lines == 1 {
		lines, were = "line", "was"
	}
	ios.Warnf("%d %s of %s could not be read and %s left out (torn or foreign; byte offsets %s)",
		d.Lines, lines, render.Escape(path), were, list)
}

// filterNote says which attempts the filters kept, for the message that
// none were.
func filterNote(opts *Options) string {
	var parts []string
	if opts.Invoice != "" {
		parts = append(parts, "for invoice "+render.Escape(redact.Invoice(opts.Invoice)))
	}
	if len(opts.Kinds) > 0 {
		parts = append(parts, "of kind "+strings.Join(opts.Kinds, " or "))
	}
	if len(opts.Outcomes) > 0 {
		parts = append(parts, "with outcome "+strings.Join(opts.Outcomes, " or "))
	}
	if len(opts.Operators) > 0 {
		parts = append(parts, "made by "+render.Escape(strings.Join(opts.Operators, " or ")))
	}
	if !opts.Since.IsZero() {
		parts = append(parts, "since "+render.FormatTime(opts.Since, render.Table))
	}
	if !opts.Until.IsZero() {
		parts = append(parts, "before "+render.FormatTime(opts.Until, render.Table))
	}
	if len(parts) == 0 {
		return ""
	}
	return " " + strings.Join(parts, ", ")
}

// checkValues is the usage error of a list flag holding a value not in
// allowed; nil when each is.
func checkValues(flag string, given, allowed []string) error {
	for _, v := range given {
		if !slices.Contains(allowed, v) {
			return cmdutil.UsageErrorf("invalid %s %q: use %s", flag, v, strings.Join(allowed, ", "))
		}
	}
	return nil
}

// outcomeCell is the listing's OUTCOME cell: outcomeText in a word or
// two, as a listing is one line per attempt; the footers below the table
// say what to do about the unknown and spooled ones.
func outcomeCell(r Record) string {
	switch {
	case r.Spooled != nil:
		return "pending (spooled)"
	case r.Outcome == journal.Queued:
		return journal.Queued
	case r.SettledByLead:
		return r.Outcome + " (settled by lead)"
	case r.Reconciled != nil && r.Outcome != journal.Unknown:
		return r.Outcome + " (reconciled)"
	case r.Reconciled != nil && r.Reconciled.Outcome == journal.Pending:
		return "unknown (pending)"
	}
	return r.Outcome
}

// outcomeText is the outcome as `journal show` says it: the class, marked
// when a reconciliation taught it, and why an unknown one is unknown.
func outcomeText(r Record) string {
	switch {
	case r.Spooled != nil:
		return SpooledLabel
	case r.Outcome == journal.Queued:
		return "queued — waits for approval"
	case r.SettledByLead:
		return r.Outcome + " — settled by the desk lead: " + deref(r.Reconciled.Reason)
	case r.Reconciled != nil && r.Outcome != journal.Unknown:
		return r.Outcome + " (reconciled)"
	case r.Reconciled != nil && r.Reconciled.Outcome == journal.Pending:
		return "unknown — still pending"
	case !r.OutcomeRecorded && r.sentAgain:
		// Check status knows nothing of a desk action: its own command,
		// sent again, settles it.
		return "unknown — send it again"
	case !r.OutcomeRecorded:
		return UnknownLabel
	}
	return r.Outcome
}

func writeRows(opts *Options, format render.Format, shared bool, records []Record) error {
	if format == render.CSV || format == render.TSV {
		return writeRecords(opts, format, records)
	}
	// by is the BY column's offset: the shared journal's tables name the
	// operator after the time.
	by := 0
	header := []string{"TIME", "PROFILE", "KIND", "INVOICE", "AMOUNT", "CARD", "OUTCOME", "CODE", "ORDER", "REASON"}
	if shared {
		by = 1
		header = slices.Insert(header, 1, "BY")
	}
	pal := render.Palette{Enabled: opts.IO.ColorEnabled()}
	today := opts.Now()
	rows := make([][]string, 0, len(records))
	outcomeColours := make([]func(string) string, 0, len(records)) // per row of rows
	for _, r := range records {
		var colour func(string) string
		switch {
		case r.Spooled != nil || r.Outcome == journal.Unknown || r.Outcome == journal.Queued:
			colour = pal.Yellow
		case r.Outcome == journal.Succeeded:
			colour = pal.Green
		case r.Outcome == journal.Declined:
			colour = pal.Red
		}
		outcomeColours = append(outcomeColours, colour)
		code, order := "", deref(r.OrderNo)
		if r.StatusCode != nil {
			code = strconv.Itoa(*r.StatusCode)
		}
		outcome := outcomeCell(r)
		switch {
		case shared && r.SettledByLead && r.SettledBy != nil:
			outcome = r.Outcome + " (settled by lead " + *r.SettledBy + ")"
		case shared && r.SettledBy != nil && *r.SettledBy != deref(r.Operator):
			outcome += " (settled by " + *r.SettledBy + ")" // another's reconciliation
		}
		row := []string{render.CompactTime(r.Time.Time, today), r.Profile, r.Kind, r.Invoice,
			render.Amount(r.Amount, r.Currency), r.Card, outcome, code, order, reason(r)}
		if shared {
			row = slices.Insert(row, 1, deref(r.Operator))
		}
		rows = append(rows, row)
	}
	// The outcome column is coloured by render, after it escapes the cells:
	// colour inside a cell's text would be shown escaped.
	colourOf := func(row, col int) func(string) string {
		if col != 6+by {
			return nil
		}
		return outcomeColours[row]
	}
	table := cmdutil.TableOptions(opts.IO)
	table.RightAlign, table.Colour = []int{4 + by}, colourOf
	// One line per attempt: the reason is cut to the room left (journal
	// show has it whole).
	table.Shorten = []int{9 + by}
	table.Drop = []int{1 + by, 5 + by, 7 + by, 8 + by} // profile, card, code, order: the reason and the invoice say more
	if opts.scope.all && accountsOf(records) > 1 {
		// Several accounts: the PROFILE column tells them apart, and is
		// never the one a narrow terminal loses.
		table.Drop = table.Drop[1:]
	}
	return render.WriteTable(opts.IO.Out, table, header, rows)
}

// newestFirst orders records by when their attempts started, the newest
// first; attempts started at the same moment keep the later written first.
func newestFirst(records []Record) {
	slices.Reverse(records)
	slices.SortStableFunc(records, func(a, b Record) int { return b.Time.Compare(a.Time.Time) })
}

// writeRecords writes the records as CSV or TSV: every field of the JSON
// form but the reconciliation's details, in columns whose order is
// stable (new ones are added at the end).
func writeRecords(opts *Options, format render.Format, records []Record) error {
	header := []string{"time", "profile", "base_url", "invoice", "amount", "currency", "card", "outcome", "outcome_recorded", "status_code",
		"order_no", "message", "attempt", "kind", "reconciled", "ref", "operator", "os_user", "host", "spooled_outcome",
		"status_description", "payment_reason_code", "payment_reason_code_detail", "original_bank_error_code", "original_bank_error_description", "reason"}
	rows := make([][]string, 0, len(records))
	for _, r := range records {
		code, reconciled := "", ""
		if r.StatusCode != nil {
			code = strconv.Itoa(*r.StatusCode)
		}
		if r.Reconciled != nil {
			reconciled = r.Reconciled.Outcome
		}
		rows = append(rows, []string{render.FormatTime(r.Time.Time, format), r.Profile, r.BaseURL, r.Invoice, r.Amount, r.Currency,
			r.Card, r.Outcome, strconv.FormatBool(r.OutcomeRecorded), code, deref(r.OrderNo), deref(r.Message), r.Attempt, r.Kind, reconciled,
			deref(r.Ref), deref(r.Operator), deref(r.OSUser), deref(r.Host), deref(r.Spooled),
			deref(r.StatusDescription), deref(r.PaymentReasonCode), deref(r.PaymentReasonCodeDetail), deref(r.OriginalBankErrorCode), deref(r.OriginalBankErrorDescription), deref(r.Reason)})
	}
	return render.WriteRecords(opts.IO.Out, format, header, rows)
}

// reason is the REASON cell: why an attempt did not succeed, as the
// gateway (or paycli) said it; what a reconciliation learned outranks the
// outcome line. Empty for a success.
func reason(r Record) string {
	if r.Outcome == journal.Succeeded {
		return ""
	}
	if r.Spooled != nil {
		return "the outcome is " + *r.Spooled
	}
	if r.SettledByLead {
		return "settled by the desk lead: " + deref(r.Reconciled.Reason)
	}
	if c := r.Reconciled; c != nil && c.Message != nil {
		return *c.Message
	}
	if r.StatusDescription != nil {
		// The gateway's own words first: the listing shortens the cell,
		// and the code is in its own column.
		return *r.StatusDescription + declineReasons(r)
	}
	return deref(r.Message) + declineReasons(r)
}

// declineReasons are the reason codes and texts the answer carried beyond
// its status_code, for the REASON cell: "; payment_reason_code 51
// (Insufficient funds); bank 05 (Do not honor)".
func declineReasons(r Record) string {
	var b strings.Builder
	pair := func(name string, code, text *string) {
		if code == nil && text == nil {
			return
		}
		b.WriteString("; " + name)
		if code != nil {
			b.WriteString(" " + *code)
		}
		if text != nil {
			b.WriteString(" (" + *text + ")")
		}
	}
	pair("payment_reason_code", r.PaymentReasonCode, r.PaymentReasonCodeDetail)
	pair("bank error", r.OriginalBankErrorCode, r.OriginalBankErrorDescription)
	return b.String()
}

// deref is *s, or "" for nil.
func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
