package main

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"

	"github.com/paycli/paycli/internal/cmdutil"
	"github.com/paycli/paycli/internal/commission"
	"github.com/paycli/paycli/internal/config"
	"github.com/paycli/paycli/internal/gateway"
	"github.com/paycli/paycli/internal/journal"
	"github.com/paycli/paycli/internal/journalindex"
	"github.com/paycli/paycli/internal/ledger"
	"github.com/paycli/paycli/internal/pgjournal"
	"github.com/paycli/paycli/internal/sandbox"
	"github.com/paycli/paycli/internal/testkit/journalgen"
	"github.com/paycli/paycli/internal/testkit/pgtest"
)

// auditPlan is issue 41's scale: 1,000,000 journal lines over ten days,
// the busy day holding 100,000 attempts of the audited account.
var auditPlan = journalgen.Plan{Start: time.Date(2026, 11, 20, 21, 0, 0, 0, time.UTC), Days: 10, Lines: 1_000_000,
	Busy: 4, BusyAttempts: 100_000, Account: "acct-live", Other: "acct-other"}

// auditSharedSwitch, set, measures the shared (PostgreSQL) journal too.
// Not PAYCLI_*: the package's TestMain (userenv.Main) clears those.
const auditSharedSwitch = "BENCH_AUDIT_SHARED"

// auditRows is the gateway's day: the journal's sales that were made, and
// sales made elsewhere (the shop's site) up to this many.
const auditRows = 100_000

var auditKinds = journal.Kinds{{Name: "walletpay", Sale: true}, {Name: "preauth", Sale: true}, {Name: "refund", Refund: true}, {Name: "preauth-capture"}}

// dayOfSales builds, from the journal's lines as journalgen writes them,
// the sandbox's sales of the busy day: each sale the journal made (its
// refunds made with it, one sale in 500 charged back), then sales made
// elsewhere until the day holds auditRows.
type dayOfSales struct {
	plan  journalgen.Plan
	sales map[string]*sandbox.Sale
	order []string
}

// auditPrice is the rate the day's sales of one currency are charged:
// the sandbox's commission table's entry for one installment, as the
// audit reads it.
type auditPrice struct {
	program, percentage, fixed string
}

// auditPrices are the rates by currency: journalgen's sales are in TRY,
// USD and EUR, and each currency has its own table.
type auditPrices map[string]auditPrice

// auditCurrencies are the currencies journalgen writes.
var auditCurrencies = []string{"TRY", "USD", "EUR"}

// auditFeeEvery plants a fee difference: one journaled sale in this many
// is charged a point more than the table says.
const auditFeeEvery = 20_000

// pricesOf reads the tables the audit reads (the sandbox's commissions
// answer for each currency, through the client) and takes each one's
// first offered entry for a single payment.
func pricesOf(ctx context.Context, c *gateway.Client) (auditPrices, error) {
	prices := auditPrices{}
	for _, currency := range auditCurrencies {
		rows, err := benchTable(ctx, c, currency)
		if err != nil {
			return nil, err
		}
		i := slices.IndexFunc(rows, func(r commission.Row) bool { return r.Installment == 1 && r.Offered() })
		if i < 0 {
			return nil, fmt.Errorf("the sandbox's commission table prices no single payment in %s", currency)
		}
		r := rows[i]
		prices[currency] = auditPrice{program: r.Program(), percentage: r.Entry.MerchantCommissionPercentage.String(), fixed: r.Entry.MerchantCommissionFixed.String()}
	}
	return prices, nil
}

// benchTable is the commission table of a currency as `paycli audit`
// asks for it.
func benchTable(ctx context.Context, c *gateway.Client, currency string) ([]commission.Row, error) {
	com, err := c.Commissions(ctx, gateway.CommissionsRequest{CurrencyCode: currency})
	if err != nil {
		return nil, err
	}
	rows, _, err := commission.Rows(com.Schedule, commission.Filter{}, nil)
	return rows, err
}

// priced is a sale of the day at its currency's price, a point more
// when planted.
func (p auditPrices) priced(s sandbox.Sale, planted bool) sandbox.Sale {
	price := p[s.Currency]
	if planted {
		price.percentage = decimal.RequireFromString(price.percentage).Add(decimal.NewFromInt(1)).String()
	}
	s.Installment, s.CardProgram, s.MerchantCommissionPercentage, s.MerchantCommissionFixed = 1, price.program, price.percentage, price.fixed
	return s
}

func (d *dayOfSales) add(e journal.Entry, intentAt time.Time) {
	from, to := d.plan.Day(d.plan.Busy), d.plan.Day(d.plan.Busy+1)
	if e.Gateway != d.plan.Account || intentAt.Before(from) || !intentAt.Before(to) || e.Type == journal.TypeIntent {
		return
	}
	made := e.Outcome == journal.Succeeded
	switch e.Kind {
	case "walletpay", "preauth":
		if made {
			d.sales[e.Invoice] = &sandbox.Sale{InvoiceID: e.Invoice, OrderID: e.OrderNo, Kind: sandbox.KindWalletPay, State: sandbox.StateCompleted,
				Amount: e.Amount, Currency: e.Currency, CreatedAt: intentAt, UpdatedAt: intentAt}
			d.order = append(d.order, e.Invoice)
		}
	case "refund":
		if s, ok := d.sales[e.Invoice]; ok && made {
			s.Refunds = append(s.Refunds, sandbox.Refund{TransactionID: e.Ref, Amount: e.Amount, Status: sandbox.RefundCompleted, CreatedAt: e.Time})
		}
	}
}

// seed writes the day to store, every sale priced at its currency's
// price but the planted ones.
func (d *dayOfSales) seed(store *sandbox.Store, prices auditPrices) error {
	from := d.plan.Day(d.plan.Busy)
	return store.Seed(func(yield func(sandbox.Sale) bool) {
		for i, inv := range d.order {
			s := prices.priced(*d.sales[inv], i%auditFeeEvery == auditFeeEvery/2)
			if i%500 == 0 {
				s.Chargeback = &sandbox.Chargeback{Amount: s.Amount, Fee: "15.00", At: s.CreatedAt.Add(time.Hour)}
			}
			if !yield(s) {
				return
			}
		}
		for i := len(d.order); i < auditRows; i++ {
			at := from.Add(time.Duration(i) * 24 * time.Hour / auditRows)
			if !yield(prices.priced(sandbox.Sale{InvoiceID: fmt.Sprintf("SITE-%07d", i), OrderID: fmt.Sprintf("VP9%016d", i), Kind: sandbox.KindWalletPay,
				State: sandbox.StateCompleted, Amount: fmt.Sprintf("%d.50", 10+i%700), Currency: "TRY", CreatedAt: at, UpdatedAt: at}, false)) {
				return
			}
		}
	})
}

// BenchmarkAuditDay is issue 41's scale: `paycli audit`'s work for one
// day (ledger.Audit.Run with the real client, reading getTransactions
// from the real sandbox server on loopback) of 100,000 gateway
// transactions against the 100,000 attempts of that day in a journal of
// 1,000,000 lines: the file journal through its index, and the shared
// journal (PostgreSQL, fsync on). peak-RSS-MiB is the whole process's
// high-water mark during the audit, the sandbox server building its
// answer included. docs/performance.md, "Ledger audit (issue 41)".
func BenchmarkAuditDay(b *testing.B) {
	if testing.Short() {
		b.Skip("writes a million journal lines")
	}
	ctx := context.Background()
	day := &dayOfSales{plan: auditPlan, sales: map[string]*sandbox.Sale{}}
	dir := b.TempDir()
	path := filepath.Join(dir, journal.FileName)
	if _, err := auditPlan.WriteFile(path, day.add); err != nil {
		b.Fatal(err)
	}
	if _, _, err := journalindex.Lookup(path, "none"); err != nil { // the index built, as the first reader after an upgrade builds it
		b.Fatal(err)
	}

	now := auditPlan.Day(auditPlan.Busy + 2)
	clock := func() time.Time { return now }
	store, err := sandbox.OpenStore(b.TempDir(), time.Second, now)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { store.Close() })
	gw, err := sandbox.New(sandbox.Options{Store: store, Now: clock})
	if err != nil {
		b.Fatal(err)
	}
	srv := httptest.NewServer(gw)
	b.Cleanup(srv.Close)
	creds := sandbox.DefaultCredentials()
	cfg := &config.Config{Profile: "bench", BaseURL: srv.URL + sandbox.Base, AppID: creds.AppID, AppSecret: creds.AppSecret, MerchantKey: creds.MerchantKey}
	client := func() *gateway.Client { // as `paycli audit` builds it: cmdutil.NewGatewayClient, the configured (default) timeout
		c, err := cmdutil.NewGatewayClient(cfg, cmdutil.GatewayOptions{CacheDir: b.TempDir(), UserAgent: "paycli/bench", Now: clock})
		if err != nil {
			b.Fatal(err)
		}
		return c
	}
	prices, err := pricesOf(ctx, client())
	if err != nil {
		b.Fatal(err)
	}
	if err := day.seed(store, prices); err != nil {
		b.Fatal(err)
	}

	journals := map[string]func(yield func(journal.Attempt) error) error{
		"file": func(yield func(journal.Attempt) error) error {
			return journalindex.AccountAttempts(path, journal.Scope{Gateway: auditPlan.Account}, auditPlan.Day(auditPlan.Busy), auditPlan.Day(auditPlan.Busy+1), yield)
		},
	}
	if os.Getenv(auditSharedSwitch) != "" {
		journals["shared"] = sharedJournal(b, clock)
	}
	day = nil
	for _, name := range slices.Sorted(maps.Keys(journals)) {
		b.Run(name, func(b *testing.B) {
			var peak int64
			var res *ledger.Result
			for b.Loop() {
				// Each run its own client (its own token) and a fresh
				// 2-second window at the sandbox.
				now = now.Add(time.Minute)
				c := client()
				from, to := auditPlan.Day(auditPlan.Busy), auditPlan.Day(auditPlan.Busy+1)
				au := ledger.Audit{Kinds: auditKinds, Source: gateway.EndpointGetTransactions, Now: now,
					Table: func(ctx context.Context, currency string) ([]commission.Row, error) {
						return benchTable(ctx, c, currency)
					}}
				runtime.GC()
				debug.FreeOSMemory()
				cpu0, wall0 := processCPU(), time.Now()
				peak, _ = journalgen.PeakRSS(func() {
					res, err = au.Run(ctx, journals[name], c.Transactions(ctx, gateway.TransactionQuery{Span: gateway.SpanRange, From: from, To: to.Add(-time.Second)}))
				})
				if err != nil {
					b.Fatal(err)
				}
				if res.Rows != auditRows {
					b.Fatalf("%d ledger rows, want %d", res.Rows, auditRows)
				}
				b.Logf("%s: %.1f s wall, %.1f CPU s (the sandbox's included), peak RSS %d MiB, %d differences (%s), %d need a person",
					name, time.Since(wall0).Seconds(), (processCPU() - cpu0).Seconds(), peak>>20, len(res.Differences), kindsOf(res), res.NeedsPerson)
			}
			b.ReportMetric(float64(peak)/(1<<20), "peak-RSS-MiB")
			b.ReportMetric(float64(len(res.Differences)), "differences")
		})
	}
}

// kindsOf counts a result's differences by group and what:
// "fees/fee 5, made_elsewhere/sale_elsewhere 30000".
func kindsOf(res *ledger.Result) string {
	n := map[string]int{}
	for _, d := range res.Differences {
		n[string(d.Group)+"/"+d.What]++
	}
	var out []string
	for _, k := range slices.Sorted(maps.Keys(n)) {
		out = append(out, fmt.Sprintf("%s %d", k, n[k]))
	}
	return strings.Join(out, ", ")
}

// processCPU is the user and system time this process has used.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// sharedJournal fills a durable PostgreSQL journal with the plan's lines
// (COPY, as pgjournal's own scale benchmark does) and returns its day's
// reader.
func sharedJournal(b *testing.B, clock func() time.Time) func(yield func(journal.Attempt) error) error {
	ctx := context.Background()
	srv := pgtest.StartWith(b, pgtest.Options{Durable: true})
	db := srv.Database(b, "desk_admin")
	srv.Role(b, "ayse")
	admin, err := pgx.Connect(ctx, srv.URL("desk_admin", db))
	if err != nil {
		b.Fatal(err)
	}
	defer admin.Close(ctx)
	if _, err := pgjournal.Migrate(ctx, admin); err != nil {
		b.Fatal(err)
	}
	if err := pgjournal.Grant(ctx, admin, "ayse"); err != nil {
		b.Fatal(err)
	}
	if _, err := admin.Exec(ctx, "ALTER TABLE paycli.journal_lines DISABLE TRIGGER USER"); err != nil {
		b.Fatal(err)
	}
	rows := make(chan []any, 4096)
	var genErr error
	go func() {
		defer close(rows)
		_, genErr = auditPlan.Write(func(e journal.Entry, intentAt time.Time) error {
			entry, err := json.Marshal(e)
			rows <- []any{e.Attempt, e.Type, e.OpKind(), e.Gateway, e.Invoice, e.Outcome, e.Time, intentAt, entry}
			return err
		})
	}()
	cols := []string{"attempt", "type", "kind", "gateway", "invoice", "outcome", "at", "intent_at", "entry"}
	_, err = admin.CopyFrom(ctx, pgx.Identifier{"paycli", "journal_lines"}, cols, pgx.CopyFromFunc(func() ([]any, error) {
		return <-rows, nil
	}))
	for range rows {
		// drained when COPY stopped early
	}
	if err != nil || genErr != nil {
		b.Fatal(err, genErr)
	}
	if _, err := admin.Exec(ctx, "ALTER TABLE paycli.journal_lines ENABLE TRIGGER USER"); err != nil {
		b.Fatal(err)
	}
	if _, err := admin.Exec(ctx, "ANALYZE paycli.journal_lines"); err != nil {
		b.Fatal(err)
	}
	s, err := pgjournal.Open(ctx, pgjournal.Options{URL: srv.URL("ayse", db), Now: clock, PID: 1})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	return func(yield func(journal.Attempt) error) error {
		return s.AccountAttempts(ctx, journal.Scope{Gateway: auditPlan.Account}, auditPlan.Day(auditPlan.Busy), auditPlan.Day(auditPlan.Busy+1), yield)
	}
}
