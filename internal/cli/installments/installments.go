// Package installments implements `paycli installments`: the
// installment options of a card (its first six digits) for an amount
// (/api/getpos), with what the buyer pays and what the merchant keeps, and
// with --active the merchant's active installment counts
// (/api/installments). Both are reads.
package installments

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/shopspring/decimal"
	"github.com/spf13/cobra"

	"github.com/paycli/paycli/internal/cardno"
	"github.com/paycli/paycli/internal/cmdutil"
	"github.com/paycli/paycli/internal/commission"
	"github.com/paycli/paycli/internal/gateway"
	"github.com/paycli/paycli/internal/money"
	"github.com/paycli/paycli/internal/render"
)

// BINLength is how many leading digits of a card number identify its
// issuer and program; getpos takes exactly these.
const BINLength = 6

// LongBINLength is the 8-digit BIN the card schemes now assign; getpos
// still takes 6, so such a BIN is sent as its first 6 digits.
const LongBINLength = 8

// Options are the inputs of `paycli installments`.
type Options struct {
	cmdutil.Deps

	// BIN is the card's first six digits (a longer --bin was cut to them).
	BIN string
	// Cut reports that --bin held a whole card number, cut to BIN.
	Cut bool
	// Long reports that --bin held an 8-digit BIN, sent as BIN.
	Long bool
	// Mistyped reports that the whole card number fails the Luhn check: a
	// digit is wrong, maybe one of the six used.
	Mistyped bool
	Amount   decimal.Decimal
	// By is sent as commission_by: merchant or user.
	By string
	// Active lists the merchant's active installment counts instead.
	Active bool
	// Counts keeps the options of these installment counts; nil keeps all.
	Counts map[int]bool
	// CountsText is --installments as given, for naming an item of it
	// the gateway does not offer.
	CountsText string
}

// NewCmdInstallments builds `paycli installments`.
func NewCmdInstallments(f *cmdutil.Factory, runF func(context.Context, *Options) error) *cobra.Command {
	opts := &Options{Deps: cmdutil.DepsOf(f)}
	var bin, amount, counts string
	cmd := &cobra.Command{
		Use:   "installments --bin DIGITS --amount AMOUNT [--currency CODE]",
		Short: "Show the installment options of a card for an amount",
		Long: `Show how a card can pay an amount: one row per installment count the
gateway offers for it (getpos), with the card program, the POS, what the
buyer pays in all and per installment, and the merchant's fee and net.

--bin takes the card's first 6 or 8 digits. getpos takes 6, so an 8-digit
BIN is sent as its first 6, and paycli says so on stderr. A whole card
number is accepted only to be cut to its first 6 digits, and paycli says so
on stderr: the rest is never sent, logged or stored. A whole number that fails the Luhn check is
still cut and looked up, with a warning on stderr that a digit is mistyped. Prefer giving the 6 digits: a card number on a
command line may stay in the shell's history.

What the buyer pays is the gateway's payable_amount, split into installments
as 'paycli commissions --amount' splits a total (each installment rounded
down to the currency's minor unit, the first one taking the remainder). The
merchant's fee is the option's merchant_fee when the gateway sends one, and
the net is the amount less that fee; a warning says when the commission
table's fee for the same program and installment count differs. The table
shows the fee in the currency's minor unit (4.1087 as 4.11, rounded half
away from zero) and the net as the amount less that, so the two add up;
-o json, csv and tsv keep the gateway's exact figures. Programs are named
as the commission table names them (Axess, where getpos says AXESS). Without a merchant_fee, the fee and net come
from the commission table, with the same arithmetic as 'paycli commissions
--amount' (see docs/commissions.md); they are empty when the table has no
entry for the option either, and a warning says so.

--installments shows only the counts listed: 1,3,6, 2-6 or 1,3-5,12, as
'paycli commissions --installments' takes them. A count (or a range with no
count) the gateway does not offer for the card and amount is bad input:
exit 2, with the counts it offers. When it offers none at all, stderr says
so and the command exits 0.

--active lists the installment counts the merchant has active
(/api/installments) instead.

-o json prints the options as one document (docs/json-output.md); --jq
filters it; -o csv and -o tsv print the table's rows.`,
		Example: `  paycli installments --bin 435508 --amount 1000 --currency TRY
  paycli installments --bin 435508 --amount 1000 --currency TRY --installments 3,6,9
  paycli installments --bin 435508 --amount 1000 --currency TRY --by user -o json
  paycli installments --bin 435508 --amount 250 --jq '.options[] | select(.installments == 6)'
  paycli installments --active`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := parseFlags(cmd, opts, bin, amount); err != nil {
				return err
			}
			if err := parseCounts(cmd, opts, counts); err != nil {
				return err
			}
			return cmdutil.Run(cmd, opts, runF, installmentsRun)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&bin, "bin", "", "the card's first 6 or 8 digits (sent as 6; a whole card number is cut to them)")
	fl.StringVar(&amount, "amount", "", "the sale's `DECIMAL` amount")
	// --currency sets the config key default_currency (config.Keys binds
	// it by flag name): flag > env > file.
	fl.String("currency", "", "ISO 4217 currency code, e.g. TRY (default: the profile's default_currency)")
	fl.StringVar(&opts.By, "by", "merchant", "who bears the commission, sent as commission_by: merchant or user")
	fl.BoolVar(&opts.Active, "active", false, "list the merchant's active installment counts instead")
	fl.StringVar(&counts, "installments", "", "installment counts to show, e.g. 1,3,6 or 2-6 (default: all)")
	opts.AddJSONFlags(cmd)
	_ = cmd.RegisterFlagCompletionFunc("by", cobra.FixedCompletions([]string{"merchant", "user"}, cobra.ShellCompDirectiveNoFileComp))
	_ = cmd.RegisterFlagCompletionFunc("currency", cmdutil.CompleteCurrency)
	for _, name := range []string{"bin", "amount", "installments"} {
		_ = cmd.RegisterFlagCompletionFunc(name, cobra.NoFileCompletions)
	}
	cmdutil.SetExits(cmd, cmdutil.Exits{Kinds: cmdutil.ExitsGateway})
	return cmd
}

// parseCounts reads --installments, when given.
func parseCounts(cmd *cobra.Command, opts *Options, counts string) error {
	if !cmd.Flags().Changed("installments") {
		return nil
	}
	var err error
	if opts.Counts, err = cmdutil.ParseInstallments(counts); err != nil {
		return cmdutil.UsageErrorf("invalid --installments %v", err)
	}
	opts.CountsText = counts
	return nil
}

// checkCounts refuses an --installments item that names no count the
// gateway offers for this card and amount (exit 2, with the counts it
// offers). When it offers none at all, there is nothing to name: the
// command says so instead.
func checkCounts(opts *Options, options []gateway.InstallmentOption) error {
	if opts.Counts == nil || len(options) == 0 {
		return nil
	}
	offered := map[int]bool{}
	for _, o := range options {
		offered[o.InstallmentsNumber] = true
	}
	none := cmdutil.UnofferedInstallments(opts.CountsText, func(n int) bool { return offered[n] })
	if len(none) == 0 {
		return nil
	}
	counts := slices.Sorted(maps.Keys(offered))
	return cmdutil.UsageHint(fmt.Errorf("invalid --installments: the gateway offers no installment count %s for this card and amount", strings.Join(none, ", ")),
		"It offers "+cmdutil.CountList(counts)+".")
}

// parseFlags checks what the flags say on their own. The --bin value is
// never quoted in an error: it may be a whole card number.
func parseFlags(cmd *cobra.Command, opts *Options, bin, amount string) error {
	if opts.Active {
		for _, name := range []string{"bin", "amount", "currency", "by", "installments"} {
			if cmd.Flags().Changed(name) {
				return cmdutil.UsageErrorf("--active lists the merchant's installment counts; it cannot be combined with --%s", name)
			}
		}
		return nil
	}
	if err := cmdutil.RequireFlags(cmd, " (or use --active)", "bin", "amount"); err != nil {
		return err
	}
	var err error
	if opts.BIN, opts.Cut, err = CutBIN(bin); err != nil {
		return cmdutil.UsageErrorf("invalid --bin: %v", err)
	}
	opts.Long = len(ungroup(bin)) == LongBINLength
	opts.Mistyped = opts.Cut && !cardno.Luhn(ungroup(bin))
	if opts.Amount, err = cmdutil.ParseAmount("amount", amount); err != nil {
		return err
	}
	switch by := strings.ToLower(strings.TrimSpace(opts.By)); by {
	case "merchant", "user":
		opts.By = by
	default:
		return cmdutil.UsageErrorf("invalid --by %q: use merchant or user", opts.By)
	}
	return nil
}

// CutBIN returns the first six digits of s: the six digits themselves,
// the first six of an 8-digit BIN, or those of a whole card number (12 to
// 19 digits, blanks and dashes between groups allowed), which it cuts (cut
// true). Its errors never quote s.
func CutBIN(s string) (bin string, cut bool, err error) {
	digits := ungroup(s)
	switch {
	case digits == "":
		return "", false, errors.New("empty; give the card's first 6 or 8 digits")
	case strings.Trim(digits, "0123456789") != "":
		return "", false, errors.New("not digits; give the card's first 6 or 8 digits")
	case len(digits) == BINLength:
		return digits, false, nil
	case len(digits) == LongBINLength:
		return digits[:BINLength], false, nil
	case len(digits) >= 12 && len(digits) <= 19:
		return digits[:BINLength], true, nil
	}
	return "", false, fmt.Errorf("%d digits; give the card's first 6 or 8 digits", len(digits))
}

// ungroup drops the blanks and dashes between a card number's groups.
func ungroup(s string) string {
	return strings.Map(func(r rune) rune {
		if r == ' ' || r == '-' {
			return -1
		}
		return r
	}, strings.TrimSpace(s))
}

// cutNotice is what installmentsRun says on stderr of a --bin it cut: a card number
// that fails the Luhn check was mistyped, and the six digits used may be
// the wrong ones, so the options are still shown (the first six may be
// right) but with the warning.
func cutNotice(opts *Options) string {
	if !opts.Cut {
		return ""
	}
	notice := fmt.Sprintf("Using only the card number's first %d digits (%s); the rest is not sent, logged or stored.\n", BINLength, opts.BIN)
	if opts.Mistyped {
		notice += fmt.Sprintf("warning: the card number fails the Luhn check, so a digit is mistyped; check that %s are its first %d digits.\n", opts.BIN, BINLength)
	}
	return notice
}

// installmentsRun looks the options up and prints them.
func installmentsRun(ctx context.Context, opts *Options) error {
	fmt.Fprint(opts.IO.ErrOut, opts.IO.WrapForStderr(cutNotice(opts)))
	if opts.Long {
		opts.IO.Notef("Sending the gateway the BIN's first %d digits (%s): getpos takes %d, not %d.", BINLength, opts.BIN, BINLength, LongBINLength)
	}
	cfg, err := opts.Config()
	if err != nil {
		return err
	}
	var cur money.Currency
	if !opts.Active {
		if cur, err = cmdutil.ResolveCurrency(cfg); err != nil {
			return err
		}
		if err := cmdutil.CheckAmountDecimals(opts.Amount, cur); err != nil {
			return err
		}
	}
	ctx, call, err := opts.Open(ctx, cmdutil.MerchantKey)
	if err != nil {
		return err
	}
	defer call.Close()
	format, client := call.Format, call.Client
	if opts.Active {
		active, err := client.Installments(ctx)
		if err != nil {
			return err
		}
		return writeActive(ctx, opts, format, active.Installments)
	}
	pos, err := client.GetPOS(ctx, gateway.GetPOSRequest{BIN: opts.BIN, Amount: opts.Amount.StringFixed(cur.MinorUnit),
		CurrencyCode: cur.Code, CommissionBy: opts.By})
	if err != nil {
		return err
	}
	// The merchant's side comes from the commission table, priced as
	// `paycli commissions --amount` prices it.
	var schedule commission.Schedule
	com, err := client.Commissions(ctx, gateway.CommissionsRequest{CurrencyCode: cur.Code, CommissionBy: opts.By, AppLang: strings.ToLower(cfg.Lang)})
	switch {
	case errors.Is(err, gateway.ErrNoData):
	case err != nil:
		return fmt.Errorf("the commission table, for the merchant's fee: %w", err)
	default:
		schedule = com.Schedule
	}
	options := pos.Options
	if err := checkCounts(opts, options); err != nil {
		return err
	}
	if opts.Counts != nil {
		options = slices.DeleteFunc(slices.Clone(options), func(o gateway.InstallmentOption) bool { return !opts.Counts[o.InstallmentsNumber] })
	}
	res, warnings, err := Price(options, schedule, opts.BIN, opts.Amount, cur, opts.By)
	if err != nil {
		return err
	}
	for _, w := range warnings {
		opts.IO.Warnf("%s", render.Escape(w))
	}
	if len(res.Options) == 0 {
		opts.IO.Notef("The gateway offers no installment option for this card and amount.")
	}
	if len(res.Options) == 0 && format == render.Table {
		return nil // a table of no rows says less than the line above
	}
	return write(ctx, opts, format, res)
}

// Result is the options of one card for one amount, priced.
type Result struct {
	BIN          string   `json:"bin"`
	Amount       string   `json:"amount"`
	Currency     string   `json:"currency"`
	CommissionBy string   `json:"commission_by"`
	Options      []Option `json:"options"`
}

// Option is one installment option. Amounts are decimal strings with the
// currency's decimals; MerchantFee and MerchantNet are empty when the
// commission table has no entry for the option.
type Option struct {
	Installments int
	Title        string
	CardProgram  string
	CardScheme   string
	PosID        int
	// BuyerTotal is the gateway's payable_amount.
	BuyerTotal             string
	InstallmentAmount      string
	FirstInstallmentAmount string
	MerchantFee            string
	MerchantNet            string
	// FeeSource says where MerchantFee comes from: FeeFromGateway (the
	// option's merchant_fee, as the gateway wrote it) or FeeFromTable (the
	// commission table); empty when neither has it.
	FeeSource string
	// TableMerchantFee is the commission table's fee for the option (empty
	// when the table has no entry), shown beside the gateway's.
	TableMerchantFee string
	// Program is the card program as a person sees it, spelt as the
	// commission table spells it ("Axess" where getpos says "AXESS"), so
	// that installments and commissions name it one way; the gateway's
	// spelling when the table has no entry for it.
	Program string
	// ShownFee and ShownNet are the merchant's fee in the currency's minor
	// unit (money.Shown) and the amount less that: what the table shows,
	// adding up to the amount; MerchantFee and MerchantNet keep the exact
	// figures for JSON and CSV.
	ShownFee, ShownNet string
}

// Where an option's merchant fee comes from.
const (
	FeeFromGateway = "gateway"
	FeeFromTable   = "commission_table"
)

// Price works out each option's installments from the gateway's
// payable_amount (commission.SplitInstallments) and the merchant's fee and
// net from the commission table's entry for the same program and
// installment count (commission.Rows with the sale: the arithmetic of
// `paycli commissions --amount`). Warnings say where the two disagree or
// the table has no entry.
func Price(options []gateway.InstallmentOption, schedule commission.Schedule, bin string, amount decimal.Decimal,
	cur money.Currency, by string) (*Result, []string, error) {
	rows, _, err := commission.Rows(schedule, commission.Filter{}, &commission.Sale{Amount: amount, MinorUnit: cur.MinorUnit})
	if err != nil {
		return nil, nil, err
	}
	res := &Result{BIN: bin, Amount: amount.StringFixed(cur.MinorUnit), Currency: cur.Code, CommissionBy: by, Options: []Option{}}
	p := &pricer{rows: rows, names: programNames(rows), amount: amount, cur: cur}
	for _, o := range options {
		res.Options = append(res.Options, p.option(o))
	}
	slices.SortStableFunc(res.Options, func(a, b Option) int { return a.Installments - b.Installments })
	return res, p.warnings, nil
}

// programNames is the table's name of each program, by either of its
// spellings, from any installment count: an option the table has no
// entry for is still named as the table names its program.
func programNames(rows []commission.Row) map[string]string {
	names := map[string]string{}
	for _, r := range rows {
		if r.Kind == commission.KindRegular {
			for _, p := range []string{r.Entry.CardProgram, r.Entry.GetposCardProgram} {
				if p = strings.ToUpper(strings.TrimSpace(p)); p != "" {
					names[p] = r.Program()
				}
			}
		}
	}
	return names
}

// pricer prices the options of one sale against the commission table's
// rows for it, gathering warnings.
type pricer struct {
	rows     []commission.Row
	names    map[string]string
	amount   decimal.Decimal
	cur      money.Currency
	warnings []string
}

func (p *pricer) warnf(format string, args ...any) {
	p.warnings = append(p.warnings, fmt.Sprintf(format, args...))
}

// option prices one option: the buyer's side from the gateway, the
// merchant's fee from the gateway (its figure wins) or else the table.
func (p *pricer) option(o gateway.InstallmentOption) Option {
	opt := Option{Installments: o.InstallmentsNumber, Title: o.Title, CardProgram: o.CardProgram, CardScheme: o.CardScheme, PosID: o.PosID,
		Program: strings.TrimSpace(o.CardProgram)}
	if name, ok := p.names[strings.ToUpper(opt.Program)]; ok {
		opt.Program = name
	}
	label := fmt.Sprintf("%s, %d installments", strings.TrimSpace(o.CardProgram), o.InstallmentsNumber)
	q := p.buyerSide(&opt, o, label)
	q.fee, q.hasFee = o.MerchantFee.Decimal()
	if q.hasFee {
		// The gateway's own figure wins; it keeps its digits (4.1087).
		// The gateway's digits, padded to the currency's decimals:
		// 4.1087 stays, 17.5 shows as 17.50.
		places := max(-q.fee.Exponent(), p.cur.MinorUnit)
		opt.MerchantFee, opt.MerchantNet, opt.FeeSource = q.fee.StringFixed(places), p.amount.Sub(q.fee).StringFixed(places), FeeFromGateway
	}
	row, found := entryFor(p.rows, o)
	p.tableSide(&opt, row, found, q, label)
	if fee, err := decimal.NewFromString(opt.MerchantFee); err == nil {
		shown := money.Round(fee, p.cur.MinorUnit)
		opt.ShownFee, opt.ShownNet = shown.StringFixed(p.cur.MinorUnit), p.amount.Sub(shown).StringFixed(p.cur.MinorUnit)
	}
	return opt
}

// quote is what the gateway says of an option: what the buyer pays and
// the merchant's fee, each when it says it.
type quote struct {
	total, fee       decimal.Decimal
	hasTotal, hasFee bool
}

// buyerSide sets the buyer's total and installments from the gateway's
// payable_amount (else amount_to_be_paid), rounded to the currency.
func (p *pricer) buyerSide(opt *Option, o gateway.InstallmentOption, label string) quote {
	minor := p.cur.MinorUnit
	total, ok := o.PayableAmount.Decimal()
	if !ok {
		total, ok = o.AmountToBePaid.Decimal()
	}
	if !ok {
		p.warnf("the gateway gave no payable_amount for %s", label)
		return quote{}
	}
	if !total.Equal(total.Round(minor)) {
		p.warnf("the gateway's payable_amount %s for %s has more decimals than %s has; shown rounded", total, label, p.cur.Code)
		total = total.Round(minor)
	}
	each, first := commission.SplitInstallments(total, o.InstallmentsNumber, minor)
	opt.BuyerTotal = total.StringFixed(minor)
	opt.InstallmentAmount, opt.FirstInstallmentAmount = each.StringFixed(minor), first.StringFixed(minor)
	return quote{total: total, hasTotal: true}
}

// tableSide sets the commission table's fee (the merchant's, when the
// gateway gave none) and warns where the table has no entry for the
// option or disagrees with the gateway.
func (p *pricer) tableSide(opt *Option, row commission.Row, found bool, q quote, label string) {
	switch {
	case !found && !q.hasFee:
		p.warnf("the commission table has no entry for %s: the merchant's fee is not shown", label)
	case found && row.Amounts == nil && !q.hasFee:
		p.warnf("the commission table does not offer %s: the merchant's fee is not shown", label)
	case found && row.Amounts != nil:
		s := row.Amounts.Strings()
		opt.TableMerchantFee = s[1]
		if !q.hasFee {
			opt.MerchantFee, opt.MerchantNet, opt.FeeSource = s[1], s[2], FeeFromTable
		} else if !q.fee.Round(p.cur.MinorUnit).Equal(row.Amounts.MerchantFee) {
			p.warnf("for %s the gateway's merchant_fee is %s, the commission table says %s", label, opt.MerchantFee, s[1])
		}
		if q.hasTotal && !row.Amounts.BuyerTotal.Equal(q.total) {
			p.warnf("for %s the gateway asks the buyer %s, the commission table says %s", label, opt.BuyerTotal, s[3])
		}
	}
}

// entryFor finds the commission table's entry for an option
// (commission.EntryFor: the one lookup an audit of the ledger's fees
// makes too).
func entryFor(rows []commission.Row, o gateway.InstallmentOption) (commission.Row, bool) {
	return commission.EntryFor(rows, o.InstallmentsNumber, o.CardProgram)
}

var header = []string{"INSTALLMENTS", "PROGRAM", "POS", "BUYER TOTAL", "PER INSTALLMENT", "FIRST INSTALLMENT", "MERCHANT FEE", "MERCHANT NET"}

// csvHeader names the same columns for CSV/TSV as -o json does.
var csvHeader = []string{"installments", "card_program", "pos_id", "buyer_total", "installment_amount", "first_installment_amount", "merchant_fee", "merchant_net"}

// record is the option's row: for a person (shown) grouped, the program
// spelt one way and the fee in minor units; for CSV/TSV the gateway's
// words and the exact fee.
func (o Option) record(shown bool) []string {
	pos := ""
	if o.PosID != 0 {
		pos = strconv.Itoa(o.PosID)
	}
	if !shown {
		return []string{strconv.Itoa(o.Installments), o.CardProgram, pos, o.BuyerTotal, o.InstallmentAmount,
			o.FirstInstallmentAmount, o.MerchantFee, o.MerchantNet}
	}
	g := render.GroupThousands
	return []string{strconv.Itoa(o.Installments), o.Program, pos, g(o.BuyerTotal), g(o.InstallmentAmount),
		g(o.FirstInstallmentAmount), g(o.ShownFee), g(o.ShownNet)}
}

// jsonOption is an option in -o json: amounts as JSON numbers with the
// currency's decimals, null where unknown.
type jsonOption struct {
	Installments           int          `json:"installments"`
	Title                  string       `json:"title"`
	CardProgram            string       `json:"card_program"`
	CardScheme             string       `json:"card_scheme"`
	PosID                  int          `json:"pos_id"`
	BuyerTotal             *jsonDecimal `json:"buyer_total"`
	InstallmentAmount      *jsonDecimal `json:"installment_amount"`
	FirstInstallmentAmount *jsonDecimal `json:"first_installment_amount"`
	MerchantFee            *jsonDecimal `json:"merchant_fee"`
	MerchantNet            *jsonDecimal `json:"merchant_net"`
	MerchantFeeSource      *string      `json:"merchant_fee_source"`
	TableMerchantFee       *jsonDecimal `json:"table_merchant_fee"`
}

// jsonDecimal writes a decimal string as a JSON number, digits kept.
type jsonDecimal string

func (d jsonDecimal) MarshalJSON() ([]byte, error) { return []byte(d), nil }

func number(s string) *jsonDecimal {
	if s == "" {
		return nil
	}
	d := jsonDecimal(s)
	return &d
}

func write(ctx context.Context, opts *Options, format render.Format, res *Result) error {
	out := opts.IO.Out
	switch format {
	case render.JSON:
		doc := struct {
			BIN          string       `json:"bin"`
			Amount       *jsonDecimal `json:"amount"`
			Currency     string       `json:"currency"`
			CommissionBy string       `json:"commission_by"`
			Options      []jsonOption `json:"options"`
		}{res.BIN, number(res.Amount), res.Currency, res.CommissionBy, []jsonOption{}}
		for _, o := range res.Options {
			var source *string
			if o.FeeSource != "" {
				source = &o.FeeSource
			}
			doc.Options = append(doc.Options, jsonOption{o.Installments, o.Title, o.CardProgram, o.CardScheme, o.PosID,
				number(o.BuyerTotal), number(o.InstallmentAmount), number(o.FirstInstallmentAmount), number(o.MerchantFee), number(o.MerchantNet),
				source, number(o.TableMerchantFee)})
		}
		return opts.JSON.Write(ctx, out, doc)
	case render.CSV, render.TSV:
		records := make([][]string, 0, len(res.Options))
		for _, o := range res.Options {
			records = append(records, o.record(false))
		}
		return render.WriteRecords(out, format, csvHeader, records)
	}
	records := make([][]string, 0, len(res.Options))
	for _, o := range res.Options {
		records = append(records, o.record(true))
	}
	opts.IO.Notef("%s for cards starting %s, commission by %s", render.Amount(res.Amount, res.Currency), res.BIN, res.CommissionBy)
	table := cmdutil.TableOptions(opts.IO)
	table.RightAlign = []int{0, 2, 3, 4, 5, 6, 7}
	table.Drop = []int{2} // the POS: the gateway's, not the buyer's or the merchant's
	return render.WriteTable(out, table, header, records)
}

// writeActive prints the merchant's active installment counts.
func writeActive(ctx context.Context, opts *Options, format render.Format, counts []int) error {
	if counts == nil {
		counts = []int{}
	}
	switch format {
	case render.JSON:
		return opts.JSON.Write(ctx, opts.IO.Out, struct {
			Installments []int `json:"installments"`
		}{counts})
	case render.CSV, render.TSV:
		records := make([][]string, len(counts))
		for i, n := range counts {
			records[i] = []string{strconv.Itoa(n)}
		}
		return render.WriteRecords(opts.IO.Out, format, []string{"installments"}, records)
	}
	if len(counts) == 0 {
		opts.IO.Notef("The merchant has no active installment counts.")
		return nil
	}
	parts := make([]string, len(counts))
	for i, n := range counts {
		parts[i] = strconv.Itoa(n)
	}
	_, err := fmt.Fprintln(opts.IO.Out, strings.Join(parts, " "))
	return err
}
