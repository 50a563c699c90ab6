//go:build unix

package app

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/paycli/paycli/internal/gateway"
	"github.com/paycli/paycli/internal/iostreams"
	"github.com/paycli/paycli/internal/journal"
	"github.com/paycli/paycli/internal/money"
	"github.com/paycli/paycli/internal/pgjournal"
	"github.com/paycli/paycli/internal/sandbox"
)

// ledgerDay is a day at the sandbox (issue 41) with every kind of
// difference the audit finds planted, and sales that agree, made through
// the real commands into the journal of rs (the file, or the shared one
// when rs.journalURL is set). from and to are the days it covers in the
// gateway's zone: a day that turns at midnight while it is made is
// covered whole.
type ledgerDay struct {
	rs       *refundSandbox
	from, to string
	// unknown is the attempt of the refund whose outcome the journal
	// holds as unknown, which the ledger lists made.
	unknown journal.Attempt
}

// The day's invoices, by what each plants.
const (
	invAgrees        = "AU-OK"    // a sale and a partial refund that agree
	invAgreesToo     = "AU-OK2"   // a sale that agrees
	invUnknownRefund = "AU-UNK"   // a refund answered by a dropped connection, made
	invJournalRefund = "AU-JONLY" // a refund in the journal only
	invChargeback    = "AU-CB"    // a sale charged back at the sandbox
	invOtherRate     = "AU-FEE"   // a sale charged another rate than the table's
	invSDK           = "AU-SDK"   // a sale made by the gateway's client, outside paycli
	journalOnlyRef   = "RF-JOURNAL-ONLY"
	journalOnlyID    = "jonly-1"
	auditTimeLimit   = 10 * time.Second
	auditExitDiffers = 11
)

// plantLedgerDay makes the day on a sandbox whose first refund is made
// and then answered with a dropped connection; journalURL, when set, is
// a shared journal to use instead of the home's file.
func plantLedgerDay(t *testing.T, journalURL string) *ledgerDay {
	t.Helper()
	start := time.Now().In(money.GatewayZone())
	rs := newRefundSandbox(t, "reset=after")
	rs.journalURL = journalURL
	d := &ledgerDay{rs: rs, from: start.Format(time.DateOnly)}

	rs.pay(t, invUnknownRefund, "150.00")
	if code, _, stderr := rs.run(t, "refund", "--invoice", invUnknownRefund, "--amount", "50.00", "--yes"); code != ExitOutcomeUnknown {
		t.Fatalf("the refund whose answer is lost: exit %d, want 7\n%s", code, stderr)
	}
	d.unknown = d.attempt(t, invUnknownRefund, func(a journal.Attempt) bool { return a.Intent.Kind == "refund" })
	if d.unknown.Class() != journal.Unknown {
		t.Fatalf("the refund whose answer is lost is %s, want unknown", d.unknown.Class())
	}

	rs.pay(t, invAgrees, "150.00")
	if code, _, stderr := rs.run(t, "refund", "--invoice", invAgrees, "--amount", "30.00", "--yes"); code != ExitOK {
		t.Fatalf("the partial refund: exit %d\n%s", code, stderr)
	}
	rs.pay(t, invAgreesToo, "80.00")

	rs.pay(t, invJournalRefund, "150.00")
	sale := d.attempt(t, invJournalRefund, func(a journal.Attempt) bool { return a.Intent.Kind == "walletpay" })
	refund := sale.Intent
	refund.Kind, refund.Attempt, refund.Ref, refund.Amount, refund.Time, refund.Deadline = "refund", journalOnlyID, journalOnlyRef, "20.00", time.Now(), time.Time{}
	d.append(t, refund, deskOutcome(refund, journal.Succeeded, 100))

	rs.pay(t, invChargeback, "100.00")
	hook := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	t.Cleanup(hook.Close)
	admin(t, rs.baseURL, sandbox.EventsPath, sandbox.EventRequest{Type: sandbox.EventChargeback, InvoiceID: invChargeback, URL: hook.URL})

	admin(t, rs.baseURL, sandbox.PlantRatePath, sandbox.PlantRateRequest{InvoiceID: invOtherRate, Percentage: "3.99"})
	rs.pay(t, invOtherRate, "200.00")

	client, err := gateway.New(rs.baseURL, gateway.Credentials{AppID: sandbox.AppID, AppSecret: sandbox.AppSecret, MerchantKey: sandbox.MerchantKey}, gateway.WithClock(time.Now))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := client.WalletPay(context.Background(), gateway.WalletPayRequest{InvoiceID: invSDK, WalletTransientToken: sandboxWalletToken(t, "120.00"),
		Name: "Ada", Surname: "Lovelace", BillEmail: "ada@example.com", Total: "120.00", CurrencyCode: "TRY"}); err != nil {
		t.Fatalf("the sale made outside paycli: %v", err)
	}
	d.to = time.Now().In(money.GatewayZone()).Format(time.DateOnly)
	return d
}

// admin posts body to the sandbox's admin path.
func admin(t *testing.T, baseURL, path string, body any) {
	t.Helper()
	if err := sandbox.CallAdmin(context.Background(), baseURL, http.MethodPost, path, body, nil); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// store opens the day's journal as paycli does: the home's file, or the
// shared one as its role, writing from this machine.
func (d *ledgerDay) store(t *testing.T) journal.Store {
	t.Helper()
	if d.rs.journalURL == "" {
		return journal.OpenFile(filepath.Join(d.rs.home, "state", "paycli", journal.FileName), time.Now)
	}
	s, err := pgjournal.Open(context.Background(), pgjournal.Options{URL: d.rs.journalURL, SpoolDir: t.TempDir(), Now: time.Now,
		OSUser: "ayse-os", Host: "desk-1", PID: 4242})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// attempt is the attempt of invoice that is.
func (d *ledgerDay) attempt(t *testing.T, invoice string, is func(journal.Attempt) bool) journal.Attempt {
	t.Helper()
	s := d.store(t)
	defer s.Close()
	attempts, err := s.Attempts(context.Background(), invoice)
	if err != nil {
		t.Fatal(err)
	}
	if i := slices.IndexFunc(attempts, is); i >= 0 {
		return attempts[i]
	}
	t.Fatalf("no such attempt on %s in the journal: %+v", invoice, attempts)
	return journal.Attempt{}
}

func (d *ledgerDay) append(t *testing.T, lines ...journal.Entry) {
	t.Helper()
	s := d.store(t)
	defer s.Close()
	for _, e := range lines {
		if err := s.Append(context.Background(), e); err != nil {
			t.Fatal(err)
		}
	}
}

// audit runs `paycli audit` over the day, with args, as JSON.
func (d *ledgerDay) audit(t *testing.T, args ...string) (int, auditJSON, string) {
	t.Helper()
	code, stdout, stderr := d.rs.run(t, append([]string{"audit", "--from", d.from, "--to", d.to, "-o", "json"}, args...)...)
	var out auditJSON
	if err := json.Unmarshal([]byte(stdout), &out); err != nil {
		t.Fatalf("audit -o json: %v\n%s\n%s", err, stdout, stderr)
	}
	return code, out, stderr
}

// auditJSON is what the test reads of `paycli audit -o json`.
type auditJSON struct {
	Differences []struct {
		Group, What, Invoice, Attempt string
		NeedsPerson                   bool `json:"needs_person"`
	} `json:"differences"`
	Settled []string `json:"settled"`
}

// found is the differences as "group/what/invoice", sorted.
func (a auditJSON) found() []string {
	var out []string
	for _, d := range a.Differences {
		out = append(out, d.Group+"/"+d.What+"/"+d.Invoice)
	}
	slices.Sort(out)
	return out
}

// TestAuditFindsEveryPlantedDifference (issue 41, what done looks like):
// a day at the sandbox with every kind of difference planted, and sales
// that agree, audited by the real command against the file journal and
// the shared one on PostgreSQL: the audit finds exactly those and exits
// 11; --settle records the unknown refund with the ledger's row as
// evidence (the database accepts the line), and the next audit no longer
// names it.
func TestAuditFindsEveryPlantedDifference(t *testing.T) {
	for _, shared := range []bool{false, true} {
		name := map[bool]string{false: "file", true: "shared"}[shared]
		t.Run(name, func(t *testing.T) {
			url := ""
			if shared {
				url = sharedAuditJournal(t)
			}
			d := plantLedgerDay(t, url)
			want := []string{
				"disagree/chargeback/" + invChargeback,
				"disagree/refund_missing/" + invJournalRefund,
				"fees/fee/" + invOtherRate,
				"ledger_names/settles/" + invUnknownRefund,
				"made_elsewhere/sale_elsewhere/" + invSDK,
			}
			code, res, stderr := d.audit(t)
			if got := res.found(); code != auditExitDiffers || !slices.Equal(got, want) {
				t.Fatalf("audit: exit %d, found\n%s\nwant exit 11 and\n%s\n%s", code, strings.Join(got, "\n"), strings.Join(want, "\n"), stderr)
			}

			code, res, stderr = d.audit(t, "--settle")
			if code != auditExitDiffers || !slices.Equal(res.Settled, []string{d.unknown.Intent.Attempt}) {
				t.Fatalf("audit --settle: exit %d, settled %v; want 11 (the rest still needs a person), %s\n%s", code, res.Settled, d.unknown.Intent.Attempt, stderr)
			}
			settled := d.attempt(t, invUnknownRefund, func(a journal.Attempt) bool { return a.Intent.Attempt == d.unknown.Intent.Attempt })
			line := settled.Reconciled
			if settled.Class() != journal.Succeeded || line == nil || line.Via != journal.ViaAudit || line.Evidence == nil ||
				line.Evidence.Fields["source"] != `"getTransactions"` || line.Evidence.Fields["refund_transaction_id"] != `"`+d.unknown.Intent.Ref+`"` ||
				line.OSUser == "" || line.Host == "" {
				t.Fatalf("the settled refund: %s, line %+v; want succeeded via audit, the ledger's row as evidence, its writer named", settled.Class(), line)
			}
			if shared && settled.Operator != "ayse" {
				t.Errorf("the settled refund's operator: %q, want ayse", settled.Operator)
			}

			code, res, stderr = d.audit(t)
			want = slices.DeleteFunc(want, func(s string) bool { return strings.HasPrefix(s, "ledger_names/") })
			if got := res.found(); code != auditExitDiffers || !slices.Equal(got, want) {
				t.Fatalf("audit after --settle: exit %d, found\n%s\nwant\n%s\n%s", code, strings.Join(got, "\n"), strings.Join(want, "\n"), stderr)
			}
		})
	}
}

// sharedAuditJournal is a shared journal on the package's PostgreSQL
// server, the role ayse granted, as `paycli journal init` makes it.
func sharedAuditJournal(t *testing.T) string {
	t.Helper()
	srv := deskPostgres.Start(t)
	db := srv.Database(t, deskOwner)
	srv.Role(t, "ayse")
	rs := &refundSandbox{home: t.TempDir()}
	if code, stdout, stderr := rs.run(t, "journal", "init", "--url", srv.URL(deskOwner, db), "--grant", "ayse"); code != ExitOK {
		t.Fatalf("journal init: exit %d\n%s\n%s", code, stdout, stderr)
	}
	return srv.URL("ayse", db)
}

// runAt is rs.run with stdout a terminal width columns wide.
func (rs *refundSandbox) runAt(t *testing.T, width int, args ...string) (int, string, string) {
	t.Helper()
	env := rs.env()
	ios, _, out, errOut := iostreams.Test()
	ios.SetStdoutTTY(true)
	ios.SetTerminalWidth(width)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	code := Run(ctx, append(args, "--timeout", auditTimeLimit.String()), ios, func(k string) (string, bool) { v, ok := env[k]; return v, ok })
	return code, out.String(), errOut.String()
}

// TestTransactionsListsTheDay (issue 41): `paycli transactions` of a day
// at the sandbox with sales, a partial refund and a chargeback lists each
// at 80 columns (its refunded amount in the fourth column from the end)
// and in -o json (JSON Lines, amounts with the currency's
// decimals); --invoice lists that invoice's only.
func TestTransactionsListsTheDay(t *testing.T) {
	d := plantLedgerDay(t, "")
	span := []string{"transactions", "--from", d.from, "--to", d.to}
	code, stdout, stderr := d.rs.runAt(t, 80, span...)
	if code != ExitOK {
		t.Fatalf("transactions: exit %d\n%s", code, stderr)
	}
	rows := map[string]string{}
	for _, line := range strings.Split(strings.TrimRight(stdout, "\n"), "\n") {
		if n := len([]rune(line)); n > 80 {
			t.Errorf("a line of %d columns at 80: %q", n, line)
		}
		if f := strings.Fields(line); len(f) > 2 {
			rows[f[1]] = line
		}
	}
	sales := []string{invUnknownRefund, invAgrees, invAgreesToo, invJournalRefund, invChargeback, invOtherRate, invSDK}
	for _, inv := range sales {
		if rows[inv] == "" {
			t.Errorf("no line for %s:\n%s", inv, stdout)
		}
	}
	if f := strings.Fields(rows[invAgrees]); len(f) < 9 || f[3] != "150.00" || f[len(f)-4] != "30.00" {
		t.Errorf("the partially refunded sale: %q, want 150.00 refunded 30.00", rows[invAgrees])
	}
	if f := strings.Fields(rows[invChargeback]); len(f) < 9 || f[3] != "100.00" || f[len(f)-4] != "100.00" {
		t.Errorf("the charged back sale: %q, want 100.00, all of it taken back", rows[invChargeback])
	}

	code, stdout, stderr = d.rs.run(t, append(span, "-o", "json")...)
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	if code != ExitOK || len(lines) != len(sales) {
		t.Fatalf("transactions -o json: exit %d, %d lines, want %d\n%s\n%s", code, len(lines), len(sales), stdout, stderr)
	}
	byInvoice := map[string]string{}
	for _, line := range lines {
		var row struct {
			Invoice string `json:"invoice_id"`
		}
		if err := json.Unmarshal([]byte(line), &row); err != nil {
			t.Fatalf("not a JSON line: %q", line)
		}
		byInvoice[row.Invoice] = line
	}
	for inv, want := range map[string][]string{
		invAgrees:     {`"gross":150.00,`, `"total_refunded_amount":30.00,`, `"transaction_state_id":5,`},
		invChargeback: {`"gross":100.00,`, `"total_refunded_amount":100.00,`, `"transaction_state_id":11,`},
		invAgreesToo:  {`"gross":80.00,`, `"net":78.60,`, `"merchant_commission":1.40,`},
	} {
		for _, w := range want {
			if !strings.Contains(byInvoice[inv], w) {
				t.Errorf("%s in JSON lacks %s: %s", inv, w, byInvoice[inv])
			}
		}
	}

	code, stdout, stderr = d.rs.run(t, append(span, "--invoice", invChargeback, "-o", "json")...)
	if lines := strings.Split(strings.TrimSpace(stdout), "\n"); code != ExitOK || len(lines) != 1 || !strings.Contains(lines[0], `"invoice_id":"`+invChargeback+`"`) {
		t.Errorf("--invoice %s: exit %d, want its one line\n%s\n%s", invChargeback, code, stdout, stderr)
	}
}
