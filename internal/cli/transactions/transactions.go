// Package transactions implements `paycli transactions`: the gateway's
// ledger for a day, an hour or a range (getTransactions and
// alltransaction, docs/protocol.md), each page written as it comes.
package transactions

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/paycli/paycli/internal/cmdutil"
	"github.com/paycli/paycli/internal/gateway"
	"github.com/paycli/paycli/internal/money"
)

// Options are the inputs of `paycli transactions`.
type Options struct {
	cmdutil.Deps

	Date, From, To, By      string
	Hour                    int
	HasHour                 bool
	Invoice, Order          string
	State, Method, Currency string
	MinAmount, MaxAmount    string

	// Query is what the flags ask for, read by RunE.
	Query gateway.TransactionQuery
}

// NewCmdTransactions builds `paycli transactions`.
func NewCmdTransactions(f *cmdutil.Factory, runF func(context.Context, *Options) error) *cobra.Command {
	opts := &Options{Deps: cmdutil.DepsOf(f)}
	cmd := &cobra.Command{
		Use:   "transactions [--date DAY [--hour H] | --from DAY --to DAY [--by created|modified]]",
		Short: "List the gateway's transactions of a day, an hour or a range",
		Long: `List what the gateway holds: every sale of the profile's gateway account,
made by paycli, the merchant's site or the merchant panel, with its
amounts, commission, refunds, state and settlement date.

The day is today in the gateway's zone (Europe/Istanbul, UTC+3) unless
--date names another; the listing says which. Whole days are read with
alltransaction, page after page, each page written as it comes; an hour
(--hour), a range of moments or a range by modification (--by modified)
with getTransactions, in one answer. --order is alltransaction's only.

A refusal by the gateway's 2-second rule is waited out and said on
stderr; no page is read twice.

At 80 columns each transaction is one line: its time, invoice, method,
amount, state, refunded amount, commission, net and the day it settles
to the merchant (MM-DD). -o json prints one JSON object per transaction
(JSON Lines, docs/json-output.md), --jq filters each; -o csv and -o tsv
print every field.`,
		Example: `  paycli transactions
  paycli transactions --date 2026-03-14 --method wallet
  paycli transactions --date 2026-03-14 --hour 15
  paycli transactions --from 2026-03-01 --to 2026-03-14 --by modified -o csv
  paycli transactions --invoice INV-1 --jq '.transaction_state_label'`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.HasHour = cmd.Flags().Changed("hour")
			var err error
			if opts.Query, err = opts.query(opts.Now()); err != nil {
				return err
			}
			return cmdutil.Run(cmd, opts, runF, run)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.Date, "date", "", "the day to list, YYYY-MM-DD (default today in the gateway's zone)")
	fl.IntVar(&opts.Hour, "hour", 0, "only this hour of the day, 0-23 (getTransactions)")
	fl.StringVar(&opts.From, "from", "", "a range's first day or moment, YYYY-MM-DD or 'YYYY-MM-DD HH:MM[:SS]'")
	fl.StringVar(&opts.To, "to", "", "a range's last day or moment, as --from")
	fl.StringVar(&opts.By, "by", "created", "read a range by when transactions were created or last modified")
	fl.StringVar(&opts.Invoice, "invoice", "", "only this invoice id")
	fl.StringVar(&opts.Order, "order", "", "only this gateway order id (alltransaction)")
	fl.StringVar(&opts.State, "state", "", "only this state: completed, pending, chargebacked, or a transaction_state_id")
	fl.StringVar(&opts.Method, "method", "", "only this payment method: card, mobile or wallet")
	fl.StringVar(&opts.Currency, "currency", "", "only this currency: TRY, USD or EUR")
	fl.StringVar(&opts.MinAmount, "min-amount", "", "only amounts of at least this much")
	fl.StringVar(&opts.MaxAmount, "max-amount", "", "only amounts of at most this much")
	opts.AddJSONFlags(cmd)
	completeFlags(cmd)
	cmdutil.SetExits(cmd, cmdutil.Exits{Kinds: cmdutil.ExitsGateway})
	return cmd
}

func completeFlags(cmd *cobra.Command) {
	fixed := func(words ...string) func(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
		return cobra.FixedCompletions(words, cobra.ShellCompDirectiveNoFileComp)
	}
	_ = cmd.RegisterFlagCompletionFunc("by", fixed("created", "modified"))
	_ = cmd.RegisterFlagCompletionFunc("method", fixed("card", "mobile", "wallet"))
	_ = cmd.RegisterFlagCompletionFunc("state", fixed("completed", "pending", "chargebacked"))
	_ = cmd.RegisterFlagCompletionFunc("currency", fixed(money.GatewayCurrencies()...))
	for _, name := range []string{"date", "hour", "from", "to", "invoice", "order", "min-amount", "max-amount"} {
		_ = cmd.RegisterFlagCompletionFunc(name, cobra.NoFileCompletions)
	}
}

// query reads the flags into the listing's query; now is the injected
// clock, whose day in the gateway's zone is the default.
func (o *Options) query(now time.Time) (gateway.TransactionQuery, error) {
	q := gateway.TransactionQuery{InvoiceID: strings.TrimSpace(o.Invoice), OrderID: strings.TrimSpace(o.Order),
		MinAmount: o.MinAmount, MaxAmount: o.MaxAmount}
	if err := o.span(&q, now); err != nil {
		return q, err
	}
	if err := o.filters(&q); err != nil {
		return q, err
	}
	if q.Call() == gateway.EndpointGetTransactions && q.OrderID != "" {
		return q, cmdutil.UsageHint(fmt.Errorf("--order is filtered by whole days only, not with --hour, a range of moments or --by modified"),
			"Give --date or whole days (--from DAY --to DAY) with --order.")
	}
	return q, nil
}

// span reads --date, --hour, --from, --to and --by.
func (o *Options) span(q *gateway.TransactionQuery, now time.Time) error {
	ranged := o.From != "" || o.To != ""
	switch {
	case ranged && (o.Date != "" || o.HasHour):
		return cmdutil.UsageErrorf("--date and --hour list one day or hour; --from and --to a range: give one or the other")
	case ranged && (o.From == "" || o.To == ""):
		return cmdutil.UsageErrorf("a range needs both --from and --to")
	case o.By != "created" && o.By != "modified":
		return cmdutil.UsageErrorf("invalid --by %q: created or modified", o.By)
	case o.By == "modified" && !ranged:
		return cmdutil.UsageErrorf("--by modified reads a range: give --from and --to")
	case ranged:
		return o.rangeSpan(q)
	}
	q.Span, q.At = gateway.SpanDay, now.In(money.GatewayZone())
	if o.Date != "" {
		d, err := time.ParseInLocation(dayLayout, o.Date, money.GatewayZone())
		if err != nil {
			return cmdutil.UsageErrorf("invalid --date %q: write the day as YYYY-MM-DD", o.Date)
		}
		q.At = d
	}
	if o.HasHour {
		if o.Hour < 0 || o.Hour > 23 {
			return cmdutil.UsageErrorf("invalid --hour %d: an hour of the day, 0 to 23", o.Hour)
		}
		q.Span = gateway.SpanHour
		y, m, d := q.At.Date()
		q.At = time.Date(y, m, d, o.Hour, 0, 0, 0, money.GatewayZone())
	}
	return nil
}

const dayLayout = "2006-01-02"

func (o *Options) rangeSpan(q *gateway.TransactionQuery) error {
	from, fromDay, err := parseMoment("--from", o.From)
	if err != nil {
		return err
	}
	to, toDay, err := parseMoment("--to", o.To)
	if err != nil {
		return err
	}
	if to.Before(from) {
		return cmdutil.UsageErrorf("--to %s is before --from %s", o.To, o.From)
	}
	q.Span, q.From, q.To, q.WholeDays, q.ByModified = gateway.SpanRange, from, to, fromDay && toDay, o.By == "modified"
	return nil
}

// parseMoment reads a day or a moment in the gateway's zone; day says it
// was a day.
func parseMoment(flag, s string) (t time.Time, day bool, err error) {
	s = strings.TrimSpace(s)
	if t, err := time.ParseInLocation(dayLayout, s, money.GatewayZone()); err == nil {
		return t, true, nil
	}
	for _, layout := range []string{"2006-01-02 15:04:05", "2006-01-02 15:04", "2006-01-02T15:04:05", "2006-01-02T15:04"} {
		if t, err := time.ParseInLocation(layout, s, money.GatewayZone()); err == nil {
			return t, false, nil
		}
	}
	return time.Time{}, false, cmdutil.UsageErrorf("invalid %s %q: write YYYY-MM-DD or 'YYYY-MM-DD HH:MM[:SS]' (the gateway's zone)", flag, s)
}

// filters reads --state, --method, --currency and the amounts, each by
// the client's own reading.
func (o *Options) filters(q *gateway.TransactionQuery) error {
	var err error
	if o.State != "" {
		if q.State, err = gateway.TransactionStateID(o.State); err != nil {
			return cmdutil.UsageErrorf("invalid --state: %s", gateway.RefusalText(err))
		}
	}
	if o.Method != "" {
		if q.Method, err = gateway.ParsePaymentMethod(o.Method); err != nil {
			return cmdutil.UsageErrorf("invalid --method: %s", gateway.RefusalText(err))
		}
	}
	if o.Currency != "" {
		q.Currency = strings.ToUpper(strings.TrimSpace(o.Currency))
		if !slices.Contains(money.GatewayCurrencies(), q.Currency) {
			return cmdutil.UsageErrorf("invalid --currency %q: the gateway lists %s", o.Currency, strings.Join(money.GatewayCurrencies(), ", "))
		}
	}
	for _, a := range []struct{ flag, value string }{{"--min-amount", o.MinAmount}, {"--max-amount", o.MaxAmount}} {
		if a.value == "" {
			continue
		}
		if _, err := money.ParseAmount(a.value); err != nil {
			return cmdutil.UsageErrorf("invalid %s: %v", a.flag, err)
		}
	}
	if q.MinAmount != "" && q.MaxAmount != "" {
		lo, _ := money.ParseAmount(q.MinAmount)
		if hi, _ := money.ParseAmount(q.MaxAmount); hi.LessThan(lo) {
			return cmdutil.UsageErrorf("--max-amount %s is less than --min-amount %s", q.MaxAmount, q.MinAmount)
		}
	}
	return nil
}

// describe says which moments q covers, for the heading.
func describe(q gateway.TransactionQuery) string {
	const moment = "2006-01-02 15:04"
	switch q.Span {
	case gateway.SpanHour:
		return q.At.Format(moment) + "–" + q.At.Add(time.Hour).Format("15:04")
	case gateway.SpanRange:
		by := "created"
		if q.ByModified {
			by = "modified"
		}
		if q.WholeDays {
			return q.From.Format(dayLayout) + " to " + q.To.Format(dayLayout) + ", by " + by
		}
		return q.From.Format(moment) + " to " + q.To.Format(moment) + ", by " + by
	}
	return q.At.Format(dayLayout)
}
