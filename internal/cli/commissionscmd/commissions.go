// Package commissionscmd implements `paycli commissions`: the gateway's
// commission table per installment count and card program, as a matrix a
// person reads at a glance, a long list, JSON or CSV/TSV, with the exact
// amounts of a sale when asked.
package commissionscmd

import (
	"context"
	"errors"
	"strings"

	"github.com/paycli/paycli/internal/cmdutil"
	"github.com/paycli/paycli/internal/commission"
	"github.com/paycli/paycli/internal/gateway"
	"github.com/paycli/paycli/internal/money"
	"github.com/paycli/paycli/internal/render"
	"github.com/shopspring/decimal"
	"github.com/spf13/cobra"
)

// Layouts of -o table.
const (
	LayoutMatrix = "matrix"
	LayoutLong   = "long"
)

// Sides: who bears a rate.
const (
	SideMerchant = "merchant"
	SideUser     = "user"
)

// Options are the inputs of `paycli commissions`.
type Options struct {
	cmdutil.Deps

	// By is sent as commission_by: merchant or user.
	By string
	// Installments keeps only these installment counts; nil keeps all.
	Installments map[int]bool
	// InstallmentsText is --installments as given, for naming an item of
	// it the gateway does not offer.
	InstallmentsText string
	// Programs keeps only entries whose program contains one of these.
	Programs []string
	// Amount, when set, asks for the amounts of a sale of this price.
	Amount *decimal.Decimal
	// Layout is matrix or long (-o table only).
	Layout string
	// Side is whose rates the matrix shows: merchant or user.
	Side string
	// Raw prints the gateway's response body unchanged.
	Raw bool
}

// NewCmdCommissions builds `paycli commissions`.
func NewCmdCommissions(f *cmdutil.Factory, runF func(context.Context, *Options) error) *cobra.Command {
	opts := &Options{Deps: cmdutil.DepsOf(f)}
	var (
		installments, amount string
		programs             []string
	)
	cmd := &cobra.Command{
		Use:   "commissions",
		Short: "Show commission rates per installment count and card program",
		Long: `Show the gateway's commission rates for a currency: per installment count
and card program, with the saved-card-token and foreign-card rates below.

The default view (-o table) is a matrix: one row per card program, one
column per installment count, each cell the rate with two decimals at
least ("1.75%", "2.60%", or "1.75% + 0.25" when there is a fixed part); "–" where the gateway lists
the program but does not offer it, an empty cell where the gateway does
not list the program for that installment count. On a terminal the
cheapest cell of each column is highlighted, and a table wider than the
terminal comes in blocks of installment columns that fit, each repeating
PROGRAM (COLUMNS sets the width; piped output is never split).
--side picks whose rates the matrix shows (default: the side named by
--by). --layout long lists every entry with all four figures, as the
gateway wrote them.

--amount works out what a sale costs: the merchant's fee and net, the
buyer's total and the installments, rounded to the currency's minor unit,
half away from zero (see docs/commissions.md for the formulas). Matrix
cells then show the buyer's total and the installments, the odd cents of
the first one shown: "1,082.50 / 180.45 + 5×180.41". When the buyer pays
the price itself in every cell, the total is said once on stderr and the
cells leave it out: "166.70 + 5×166.66, fee 82.50".

-o json prints a stable schema (docs/json-output.md); --jq filters it with
a jq expression (no jq needed; --jq implies -o json). -o csv and -o tsv print the long layout
for spreadsheets. --raw prints the gateway's response body unchanged.

A currency with no commissions ("No Data Found") is not an error: a note on
stderr, an empty result on stdout, exit 0.

A filter naming what the gateway's table does not have (--installments 13,
--program nosuch) is bad input: exit 2, with the counts or programs it has.
Filters that each name what exists but match nothing together print no
rows and say so on stderr, exit 0.`,
		Example: `  paycli commissions --currency TRY
  paycli commissions --currency TRY --amount 1000 --installments 1-6
  paycli commissions --currency TRY --program bonus --layout long
  paycli commissions --currency EUR --by user --amount 250
  paycli commissions --currency TRY --jq '.installments[].entries[] | select(.kind == "regular").card_program'
  paycli commissions --currency TRY -o csv > rates.csv`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := parseFlags(cmd, opts, installments, amount, programs); err != nil {
				return err
			}
			return cmdutil.Run(cmd, opts, runF, commissionsRun)
		},
	}
	fl := cmd.Flags()
	// --currency and --lang set the config keys default_currency and lang
	// (config.Keys binds them by flag name): flag > env > file.
	fl.String("currency", "", "ISO 4217 currency code, e.g. TRY (default: the profile's default_currency)")
	fl.String("lang", "", "language of the gateway's texts: tr or en (default: the profile's lang, en)")
	fl.StringVar(&opts.By, "by", SideMerchant, "who bears the commission, sent as commission_by: merchant or user")
	fl.StringVar(&installments, "installments", "", "installment counts to show, e.g. 1,3,6 or 2-6 (default: all)")
	fl.StringArrayVar(&programs, "program", nil, "show only card programs whose name contains `TEXT`, ignoring case (repeatable)")
	fl.StringVar(&amount, "amount", "", "work out fees, net and installments for a sale of this `DECIMAL` amount")
	fl.StringVar(&opts.Layout, "layout", LayoutMatrix, "table layout: matrix or long")
	fl.StringVar(&opts.Side, "side", "", "whose rates the matrix shows: merchant or user (default: --by)")
	fl.BoolVar(&opts.Raw, "raw", false, "print the gateway's response body unchanged")
	opts.AddJSONFlags(cmd)

	_ = cmd.RegisterFlagCompletionFunc("by", cobra.FixedCompletions([]string{SideMerchant, SideUser}, cobra.ShellCompDirectiveNoFileComp))
	_ = cmd.RegisterFlagCompletionFunc("side", cobra.FixedCompletions([]string{SideMerchant, SideUser}, cobra.ShellCompDirectiveNoFileComp))
	_ = cmd.RegisterFlagCompletionFunc("layout", cobra.FixedCompletions([]string{LayoutMatrix, LayoutLong}, cobra.ShellCompDirectiveNoFileComp))
	_ = cmd.RegisterFlagCompletionFunc("currency", cmdutil.CompleteCurrency)
	_ = cmd.RegisterFlagCompletionFunc("lang", cobra.FixedCompletions([]string{"en", "tr"}, cobra.ShellCompDirectiveNoFileComp))
	cmdutil.SetExits(cmd, cmdutil.Exits{Kinds: cmdutil.ExitsGateway})
	return cmd
}

// parseFlags validates what the flags say on their own; the currency,
// which may come from the configuration, is checked by commissionsRun before
// anything is sent.
func parseFlags(cmd *cobra.Command, opts *Options, installments, amount string, programs []string) error {
	var err error
	if opts.By, err = oneOf("by", opts.By, SideMerchant, SideUser); err != nil {
		return err
	}
	if opts.Layout, err = oneOf("layout", opts.Layout, LayoutMatrix, LayoutLong); err != nil {
		return err
	}
	if opts.Side != "" {
		if opts.Side, err = oneOf("side", opts.Side, SideMerchant, SideUser); err != nil {
			return err
		}
	}
	if cmd.Flags().Changed("installments") {
		if opts.Installments, err = cmdutil.ParseInstallments(installments); err != nil {
			return cmdutil.UsageErrorf("invalid --installments: %v", err)
		}
		opts.InstallmentsText = installments
	}
	for _, p := range programs {
		if strings.TrimSpace(p) == "" {
			return cmdutil.UsageErrorf("invalid --program: empty text")
		}
		opts.Programs = append(opts.Programs, p)
	}
	if cmd.Flags().Changed("amount") {
		d, err := cmdutil.ParseAmount("amount", amount)
		if err != nil {
			return err
		}
		opts.Amount = &d
	}
	if opts.Raw {
		for _, name := range []string{"installments", "program", "amount", "layout", "side", "jq"} {
			if cmd.Flags().Changed(name) {
				return cmdutil.UsageErrorf("--raw prints the gateway's body unchanged; it cannot be combined with --%s", name)
			}
		}
	}
	return nil
}

func oneOf(flag, value string, allowed ...string) (string, error) {
	v := strings.ToLower(strings.TrimSpace(value))
	for _, a := range allowed {
		if v == a {
			return v, nil
		}
	}
	return "", cmdutil.UsageErrorf("invalid --%s %q: use %s", flag, value, strings.Join(allowed, " or "))
}

// commissionsRun looks the commissions up and prints them.
func commissionsRun(ctx context.Context, opts *Options) error {
	cfg, err := opts.Config()
	if err != nil {
		return err
	}
	cur, err := cmdutil.ResolveCurrency(cfg)
	if err != nil {
		return err
	}
	if opts.Amount != nil {
		if err := cmdutil.CheckAmountDecimals(*opts.Amount, cur); err != nil {
			return err
		}
	}
	ctx, call, err := opts.Open(ctx, cmdutil.Credentials)
	if err != nil {
		return err
	}
	defer call.Close()
	format, client := call.Format, call.Client

	req := gateway.CommissionsRequest{CurrencyCode: cur.Code, CommissionBy: opts.By, AppLang: strings.ToLower(cfg.Lang)}
	var (
		body     []byte
		schedule commission.Schedule
	)
	if opts.Raw {
		body, err = client.CommissionsRaw(ctx, req)
	} else {
		// The client reads the body once, its data straight into the
		// schedule.
		var com *gateway.Commissions
		if com, err = client.Commissions(ctx, req); err == nil {
			schedule = com.Schedule
		}
	}
	if errors.Is(err, gateway.ErrNoData) {
		opts.IO.Notef("No commissions found for %s: the gateway has no data for this currency.", cur.Code)
		if opts.Raw {
			return nil
		}
		return write(ctx, opts, format, &Result{Currency: cur.Code, CommissionBy: opts.By, MinorUnit: cur.MinorUnit})
	}
	if apiErr := (*gateway.APIError)(nil); errors.As(err, &apiErr) && apiErr.DataErr != nil {
		return cmdutil.WithKind(cmdutil.KindRejected, &UnexpectedResponseError{Err: apiErr.DataErr},
			"The gateway answered with something that is not a commission table; --raw prints its answer as it came.")
	}
	if err != nil {
		return err
	}
	if opts.Raw {
		_, err := opts.IO.Out.Write(body)
		return err
	}
	if err := checkFilters(opts, schedule, cur.Code); err != nil {
		return err
	}
	res, warnings, err := newResult(schedule, cur, opts.By, commission.Filter{Installments: opts.Installments, Programs: opts.Programs}, opts.Amount)
	if err != nil {
		return err
	}
	for _, w := range warnings {
		opts.IO.Warnf("%s", render.Escape(string(w)))
	}
	if len(res.Rows) == 0 && res.Total > 0 {
		opts.IO.Notef("No entry matches --installments and --program together: the gateway lists each, but no program at those counts.")
	}
	return write(ctx, opts, format, res)
}

// Result is a decoded, filtered and placed commission lookup.
type Result struct {
	Currency     string
	CommissionBy string
	MinorUnit    int32
	// Rows are the entries to show, in order (commission.Rows).
	Rows []commission.Row
	// Total is how many entries the gateway sent, before filtering.
	Total int
	// Amount is the sale amount, when one was given.
	Amount *decimal.Decimal
}

// UnexpectedResponseError is a success response whose data paycli cannot
// read (a rate that is neither a number nor a marker, data of the wrong
// shape), naming the installment, program and field at fault. commissionsRun returns
// it as a rejection (exit 4): the gateway answered, and asking again would
// get the same answer.
type UnexpectedResponseError struct{ Err error }

func (e *UnexpectedResponseError) Error() string {
	return "commissions: unexpected response from the gateway: " + strings.TrimPrefix(e.Err.Error(), "commission data: ")
}

func (e *UnexpectedResponseError) Unwrap() error { return e.Err }

// Decode reads a commissions response body into a Result.
func Decode(body []byte, cur money.Currency, by string, filter commission.Filter, amount *decimal.Decimal) (*Result, []commission.Warning, error) {
	data, err := commission.DecodeResponse(body)
	if err != nil {
		return nil, nil, &UnexpectedResponseError{Err: err}
	}
	return newResult(data, cur, by, filter, amount)
}

// newResult filters and places a schedule and works out the amounts.
func newResult(data commission.Schedule, cur money.Currency, by string, filter commission.Filter, amount *decimal.Decimal) (*Result, []commission.Warning, error) {
	var sale *commission.Sale
	if amount != nil {
		sale = &commission.Sale{Amount: *amount, MinorUnit: cur.MinorUnit}
	}
	rows, warnings, err := commission.Rows(data, filter, sale)
	if err != nil {
		return nil, nil, err
	}
	total := 0
	for _, list := range data {
		total += len(list)
	}
	return &Result{Currency: cur.Code, CommissionBy: by, MinorUnit: cur.MinorUnit, Rows: rows, Total: total, Amount: amount}, warnings, nil
}

// write prints a result in the chosen format.
func write(ctx context.Context, opts *Options, format render.Format, res *Result) error {
	out := opts.IO.Out
	switch format {
	case render.JSON:
		if opts.JSON.Filtering() {
			return opts.JSON.Write(ctx, out, NewJSONOutput(res))
		}
		return writeJSON(out, res)
	case render.CSV, render.TSV:
		header, rows := Records(res)
		return render.WriteRecords(out, format, header, rows)
	}
	if len(res.Rows) == 0 {
		return nil
	}
	palette := render.Palette{Enabled: opts.IO.ColorEnabled()}
	width := opts.IO.TerminalWidth()
	if opts.Layout == LayoutLong {
		return writeLong(out, palette, width, res)
	}
	side := opts.Side
	if side == "" {
		side = res.CommissionBy
	}
	if res.Amount != nil && totalIsPrice(res.Rows) {
		cells := "installments"
		if side == SideMerchant {
			cells += ", merchant's fee"
		}
		opts.IO.Notef("Buyer pays %s in all; cells: %s.", render.Amount(res.Amount.StringFixed(res.MinorUnit), res.Currency), cells)
	}
	return writeMatrix(out, palette, width, res, side)
}
