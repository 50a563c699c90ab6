package pgjournal

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/paycli/paycli/internal/gateway"
	"github.com/paycli/paycli/internal/journal"
	"github.com/paycli/paycli/internal/testkit/kindtest"
	"github.com/paycli/paycli/internal/testkit/pgtest"
)

// psqlAs runs one SQL statement through psql as role (a real operator's
// session, not paycli's), and returns its output and error.
func psqlAs(t *testing.T, srv *pgtest.Server, db, role, sql string) (string, error) {
	t.Helper()
	psql, err := exec.LookPath("psql")
	if err != nil {
		t.Fatalf("psql not found: %v", err)
	}
	out, err := exec.Command(psql, "-X", "-q", "-v", "ON_ERROR_STOP=1", "-v", "VERBOSITY=verbose", "-d", srv.URL(role, db), "-c", sql).CombinedOutput()
	return string(out), err
}

// insertSQL is the INSERT an operator would type for line e.
func insertSQL(e journal.Entry) string {
	data, _ := json.Marshal(e)
	q := func(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
	return fmt.Sprintf(`INSERT INTO paycli.journal_lines (attempt, type, kind, gateway, invoice, outcome, at, intent_at, entry)
VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s)`, q(e.Attempt), q(e.Type), q(e.OpKind()), q(e.Gateway), q(e.Invoice), q(e.Outcome),
		q(e.Time.Format(time.RFC3339Nano)), q(e.Time.Format(time.RFC3339Nano)), q(string(data)))
}

// TestUnsettledBlocksEveryKind (defect 1): an attempt of any kind whose
// outcome is unknown (a capture killed after it was sent) makes the
// database refuse an intent of every other kind on the invoice, from
// paycli and from psql; a retry of the very same refund is the one
// narrowing.
func TestUnsettledBlocksEveryKind(t *testing.T) {
	t.Parallel()
	srv := pg.Start(t)
	db, _ := deskDB(t, srv)
	ayse := openAs(t, srv, db, "ayse", "desk-1", 101)
	mehmet := openAs(t, srv, db, "mehmet", "desk-2", 202)
	ctx := context.Background()
	capture := of(intent("cap-1", "INV-1", ""), "preauth-capture")
	if err := ayse.Append(ctx, capture); err != nil { // killed -9 after sending: no outcome
		t.Fatal(err)
	}
	// Every kind, one the database has never heard of included: the rule
	// names none.
	kinds := []string{"walletpay", "refund", "preauth-capture", "preauth-cancel",
		"complete", "complete-cancel", "api", "a-new-kind"}
	for i, kind := range kinds {
		e := of(intent(fmt.Sprintf("m-%d", i), "INV-1", "RF-9"), kind)
		if err := mehmet.Append(ctx, e); !errors.Is(err, journal.ErrUnsettled) {
			t.Errorf("%s on an invoice with an unknown capture: %v, want ErrUnsettled", kind, err)
		}
	}
	// The same through psql, as the operator role.
	out, err := psqlAs(t, srv, db, "mehmet", insertSQL(of(intent("psql-1", "INV-1", ""), "preauth-cancel")))
	if err == nil || !strings.Contains(out, "PC001") {
		t.Errorf("psql INSERT of a cancel: %v\n%s", err, out)
	}
	// Another account's invoice of the same number is free.
	other := intent("o-1", "INV-1", "")
	other.Gateway = "gw-2"
	if err := mehmet.Append(ctx, other); err != nil {
		t.Errorf("the same invoice on another account: %v", err)
	}
	// Settled (a reconciliation with the gateway's answer), it unblocks.
	if err := mehmet.Append(ctx, settled(capture, journal.Declined)); err != nil {
		t.Fatal(err)
	}
	if err := mehmet.Append(ctx, of(intent("m-after", "INV-1", ""), "preauth-cancel")); err != nil {
		t.Errorf("a cancel once the capture is settled: %v", err)
	}

	// A refund of unknown outcome: its retry (the same ref) goes, another refund does not.
	rf := intent("rf-1", "INV-2", "RF-1")
	for _, e := range []journal.Entry{rf, outcome(rf, journal.Unknown, 0)} {
		if err := ayse.Append(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	if err := mehmet.Append(ctx, intent("rf-2", "INV-2", "RF-2")); !errors.Is(err, journal.ErrUnsettled) {
		t.Errorf("another refund: %v, want ErrUnsettled", err)
	}
	if err := mehmet.Append(ctx, intent("rf-1-retry", "INV-2", "RF-1")); err != nil {
		t.Errorf("the retry of the same refund: %v", err)
	}
	// The narrowing names no kind (migration 004): an attempt of a kind the
	// database has never heard of is re-sent by its ref as a refund is;
	// another kind with the same ref is not its re-send.
	newKind := intent("n-1", "INV-4", "NK-1")
	newKind.Kind = "a-new-kind"
	for _, e := range []journal.Entry{newKind, outcome(newKind, journal.Unknown, 0)} {
		if err := ayse.Append(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	if err := mehmet.Append(ctx, intent("n-2", "INV-4", "NK-1")); !errors.Is(err, journal.ErrUnsettled) {
		t.Errorf("a refund with the new kind's ref: %v, want ErrUnsettled", err)
	}
	resend := intent("n-1-again", "INV-4", "NK-1")
	resend.Kind = "a-new-kind"
	if err := mehmet.Append(ctx, resend); err != nil {
		t.Errorf("the re-send of the new kind's attempt: %v", err)
	}
	// A refund queued for approval (101) blocks until check status settles it.
	q := intent("q-1", "INV-3", "RF-Q")
	for _, e := range []journal.Entry{q, outcome(q, "queued", 101)} {
		if err := ayse.Append(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	if err := ayse.Append(ctx, intent("q-2", "INV-3", "RF-Q2")); !errors.Is(err, journal.ErrUnsettled) {
		t.Errorf("a refund beside a queued one: %v, want ErrUnsettled", err)
	}
	if err := ayse.Append(ctx, settled(q, journal.Succeeded)); err != nil {
		t.Fatal(err)
	}
	if err := ayse.Append(ctx, intent("q-3", "INV-3", "RF-Q3")); err != nil {
		t.Errorf("a refund once the queued one is settled: %v", err)
	}
}

// TestUnsettledAgreesWithGo: the database's definition of an unsettled
// attempt (paycli.unsettled_attempts) and Go's (journal.UnresolvedAll)
// agree on a table of histories, written as they stand (the rule's
// trigger off), and the trigger refuses a new intent exactly when Go
// finds one unresolved.
func TestUnsettledAgreesWithGo(t *testing.T) {
	t.Parallel()
	srv := pg.Start(t)
	db, admin := deskDB(t, srv)
	ayse := openAs(t, srv, db, "ayse", "desk-1", 101)
	ctx := context.Background()
	code := func(c int) func(journal.Entry) journal.Entry {
		return func(e journal.Entry) journal.Entry { e.StatusCode = &c; return e }
	}
	via := func(v string) func(journal.Entry) journal.Entry {
		return func(e journal.Entry) journal.Entry {
			e.Via = v
			if v == journal.ViaSettle {
				e.Reason, e.Evidence = "the gateway's support says so", nil
			}
			return e
		}
	}
	type line struct {
		attempt, typ, kind, ref, class string
		opt                            []func(journal.Entry) journal.Entry
	}
	histories := map[string][]line{
		"intent alone":                {{"a", "intent", "walletpay", "", "", nil}},
		"succeeded":                   {{"a", "intent", "walletpay", "", "", nil}, {"a", "outcome", "walletpay", "", "succeeded", nil}},
		"unknown":                     {{"a", "intent", "refund", "R", "", nil}, {"a", "outcome", "refund", "R", "unknown", nil}},
		"empty outcome":               {{"a", "intent", "refund", "R", "", nil}, {"a", "outcome", "refund", "R", "", nil}},
		"reconciled not_found":        {{"a", "intent", "walletpay", "", "", nil}, {"a", "reconcile", "walletpay", "", "not_found", nil}},
		"reconciled pending":          {{"a", "intent", "walletpay", "", "", nil}, {"a", "reconcile", "walletpay", "", "pending", nil}},
		"settled then pending":        {{"a", "intent", "walletpay", "", "", nil}, {"a", "reconcile", "walletpay", "", "succeeded", nil}, {"a", "reconcile", "walletpay", "", "pending", nil}},
		"declined then unknown":       {{"a", "intent", "walletpay", "", "", nil}, {"a", "outcome", "walletpay", "", "declined", nil}, {"a", "outcome", "walletpay", "", "unknown", nil}},
		"retry 104 tells nothing":     {{"a", "intent", "refund", "R", "", nil}, {"b", "intent", "refund", "R", "", nil}, {"b", "outcome", "refund", "R", "duplicate", []func(journal.Entry) journal.Entry{code(104)}}},
		"retry succeeded tells":       {{"a", "intent", "refund", "R", "", nil}, {"b", "intent", "refund", "R", "", nil}, {"b", "outcome", "refund", "R", "succeeded", []func(journal.Entry) journal.Entry{code(100)}}},
		"retry declined":              {{"a", "intent", "refund", "R", "", nil}, {"b", "intent", "refund", "R", "", nil}, {"b", "outcome", "refund", "R", "declined", nil}},
		"retry reconciled made":       {{"a", "intent", "refund", "R", "", nil}, {"b", "intent", "refund", "R", "", nil}, {"b", "reconcile", "refund", "R", "succeeded", nil}},
		"retry settled not made":      {{"a", "intent", "refund", "R", "", nil}, {"b", "intent", "refund", "R", "", nil}, {"b", "reconcile", "refund", "R", "not_found", []func(journal.Entry) journal.Entry{via(journal.ViaSettle)}}},
		"not_found by status":         {{"a", "intent", "refund", "R", "", nil}, {"a", "outcome", "refund", "R", "unknown", nil}, {"a", "reconcile", "refund", "R", "not_found", []func(journal.Entry) journal.Entry{via(journal.ViaStatus)}}},
		"not_found by reconcile":      {{"a", "intent", "walletpay", "", "", nil}, {"a", "reconcile", "walletpay", "", "not_found", []func(journal.Entry) journal.Entry{via(journal.ViaReconcile)}}},
		"settled not made by lead":    {{"a", "intent", "refund", "R", "", nil}, {"a", "outcome", "refund", "R", "unknown", nil}, {"a", "reconcile", "refund", "R", "not_found", []func(journal.Entry) journal.Entry{via(journal.ViaSettle)}}},
		"settled made by lead":        {{"a", "intent", "preauth-capture", "", "", nil}, {"a", "reconcile", "preauth-capture", "", "succeeded", []func(journal.Entry) journal.Entry{via(journal.ViaSettle)}}},
		"queued":                      {{"a", "intent", "refund", "R", "", nil}, {"a", "outcome", "refund", "R", "queued", []func(journal.Entry) journal.Entry{code(101)}}},
		"queued, retry answered 104":  {{"a", "intent", "refund", "R", "", nil}, {"a", "outcome", "refund", "R", "queued", []func(journal.Entry) journal.Entry{code(101)}}, {"b", "intent", "refund", "R", "", nil}, {"b", "outcome", "refund", "R", "duplicate", []func(journal.Entry) journal.Entry{code(104)}}},
		"queued, settled by lead":     {{"a", "intent", "refund", "R", "", nil}, {"a", "outcome", "refund", "R", "queued", []func(journal.Entry) journal.Entry{code(101)}}, {"a", "reconcile", "refund", "R", "succeeded", []func(journal.Entry) journal.Entry{via(journal.ViaSettle)}}},
		"retry rejected 30":           {{"a", "intent", "refund", "R", "", nil}, {"b", "intent", "refund", "R", "", nil}, {"b", "outcome", "refund", "R", "rejected", []func(journal.Entry) journal.Entry{code(30)}}},
		"retry rejected 49":           {{"a", "intent", "refund", "R", "", nil}, {"b", "intent", "refund", "R", "", nil}, {"b", "outcome", "refund", "R", "rejected", []func(journal.Entry) journal.Entry{code(49)}}},
		"other ref does not tell":     {{"a", "intent", "refund", "R", "", nil}, {"b", "intent", "refund", "S", "", nil}, {"b", "outcome", "refund", "S", "succeeded", nil}},
		"later decline tells nothing": {{"a", "intent", "walletpay", "", "", nil}, {"b", "intent", "walletpay", "", "", nil}, {"b", "outcome", "walletpay", "", "declined", nil}},
		"later sale tells":            {{"a", "intent", "walletpay", "", "", nil}, {"b", "intent", "walletpay", "", "", nil}, {"b", "outcome", "walletpay", "", "succeeded", nil}},
		"later duplicate":             {{"a", "intent", "walletpay", "", "", nil}, {"b", "intent", "walletpay", "", "", nil}, {"b", "outcome", "walletpay", "", "duplicate", nil}},
		"other kind does not tell":    {{"a", "intent", "preauth-capture", "", "", nil}, {"b", "intent", "preauth-cancel", "", "", nil}, {"b", "outcome", "preauth-cancel", "", "succeeded", nil}},
		"earlier does not tell":       {{"b", "intent", "walletpay", "", "", nil}, {"b", "outcome", "walletpay", "", "succeeded", nil}, {"a", "intent", "walletpay", "", "", nil}},
		"reconcile before intent":     {{"a", "reconcile", "walletpay", "", "succeeded", nil}, {"a", "intent", "walletpay", "", "", nil}},
		"outcome without intent":      {{"a", "outcome", "walletpay", "", "unknown", nil}},
		"not_sent":                    {{"a", "intent", "refund", "R", "", nil}, {"a", "outcome", "refund", "R", "not_sent", nil}},
		"unknown then reconciled ok":  {{"a", "intent", "refund", "R", "", nil}, {"a", "outcome", "refund", "R", "unknown", nil}, {"a", "reconcile", "refund", "R", "succeeded", nil}},
	}
	if _, err := admin.Exec(ctx, "ALTER TABLE paycli.journal_lines DISABLE TRIGGER journal_lines_verify"); err != nil {
		t.Fatal(err)
	}
	names := make([]string, 0, len(histories))
	for name := range histories {
		names = append(names, name)
	}
	slices.Sort(names)
	blocks := map[string]bool{}
	for n, name := range names {
		h := histories[name]
		inv := fmt.Sprintf("INV-%d", n)
		var entries []journal.Entry
		for i, l := range h {
			e := intent(inv+"-"+l.attempt, inv, l.ref)
			e.Type, e.Kind, e.Outcome, e.Time = l.typ, l.kind, l.class, t0.Add(time.Duration(i)*time.Second)
			if l.typ == journal.TypeReconcile {
				e.Evidence = &journal.Evidence{StatusCode: 100}
			}
			for _, f := range l.opt {
				e = f(e)
			}
			entries = append(entries, e)
		}
		if res, err := ayse.Import(ctx, entries); err != nil || len(res.Refused) > 0 {
			t.Fatalf("%s: %+v, %v", name, res, err)
		}
		attempts, err := ayse.Attempts(ctx, inv)
		if err != nil {
			t.Fatal(err)
		}
		var goSays []string
		for _, a := range journal.UnresolvedAll(attempts) {
			goSays = append(goSays, a.Intent.Attempt)
		}
		rows, err := admin.Query(ctx, "SELECT attempt FROM paycli.unsettled_attempts('gw-1', $1)", inv)
		if err != nil {
			t.Fatal(err)
		}
		sqlSays, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			t.Fatal(err)
		}
		slices.Sort(goSays)
		slices.Sort(sqlSays)
		if !slices.Equal(goSays, sqlSays) {
			t.Errorf("%s: Go finds %q unresolved, the database %q", name, goSays, sqlSays)
		}
		blocks[name] = len(goSays) > 0
	}
	if _, err := admin.Exec(ctx, "ALTER TABLE paycli.journal_lines ENABLE TRIGGER journal_lines_verify"); err != nil {
		t.Fatal(err)
	}
	for n, name := range names {
		inv := fmt.Sprintf("INV-%d", n)
		blocked := blocks[name]
		err := ayse.Append(ctx, of(intent(inv+"-new", inv, ""), "walletpay"))
		if blocked != errors.Is(err, journal.ErrUnsettled) || (!blocked && err != nil) {
			t.Errorf("%s: a new intent: %v; Go finds unresolved: %v", name, err, blocked)
		}
	}
}

// TestConcurrentIntentsOneWins: ten sessions writing an intent on one
// invoice at once (no lock taken, raw INSERTs): the database lets one in.
func TestConcurrentIntentsOneWins(t *testing.T) {
	t.Parallel()
	srv := pg.Start(t)
	db, _ := deskDB(t, srv)
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make([]error, 10)
	start := make(chan struct{})
	for i := range 10 {
		conn := connect(t, srv.URL([]string{"ayse", "mehmet"}[i%2], db))
		wg.Go(func() {
			<-start
			e := of(intent(fmt.Sprintf("c-%d", i), "INV-RACE", ""), "walletpay")
			data, _ := json.Marshal(e)
			_, errs[i] = conn.Exec(ctx, insertLine, e.Attempt, e.Type, e.Kind, e.Gateway, e.Invoice, "", e.Time, data, "", "")
		})
	}
	close(start)
	wg.Wait()
	ok := 0
	for _, err := range errs {
		var pgErr *pgconn.PgError
		switch {
		case err == nil:
			ok++
		case !errors.As(err, &pgErr) || pgErr.Code != stateUnsettled:
			t.Errorf("refused otherwise: %v", err)
		}
	}
	if ok != 1 {
		t.Errorf("%d intents written, want 1", ok)
	}
}

// TestForgedSettlementRefused (defect 4): an operator with only the rights
// journal init grants cannot settle another's unknown attempt with an
// outcome line, by psql or by import; a reconcile line that settles needs
// the gateway's answer; the invoice stays blocked; and the listing says
// who settled an attempt.
func TestForgedSettlementRefused(t *testing.T) {
	t.Parallel()
	srv := pg.Start(t)
	db, _ := deskDB(t, srv)
	ayse := openAs(t, srv, db, "ayse", "desk-1", 101)
	mehmet := openAs(t, srv, db, "mehmet", "desk-2", 202)
	ctx := context.Background()
	rf := intent("att-1", "INV-1", "RF-1")
	for _, e := range []journal.Entry{rf, outcome(rf, journal.Unknown, 0)} {
		if err := ayse.Append(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	forged := outcome(rf, journal.Declined, 41)
	forged.Time = rf.Time.Add(time.Minute)
	if out, err := psqlAs(t, srv, db, "mehmet", insertSQL(forged)); err == nil || !strings.Contains(out, "PC002") {
		t.Errorf("psql INSERT of a forged outcome: %v\n%s", err, out)
	}
	noEvidence := forged
	noEvidence.Type = journal.TypeReconcile
	if out, err := psqlAs(t, srv, db, "mehmet", insertSQL(noEvidence)); err == nil || !strings.Contains(out, "PC003") {
		t.Errorf("psql INSERT of a reconcile line without evidence: %v\n%s", err, out)
	}
	orphan := outcome(intent("att-orphan", "INV-1", "RF-1"), journal.Declined, 41)
	res, err := mehmet.Import(ctx, []journal.Entry{forged, noEvidence, orphan, intent("att-2", "INV-2", "")})
	if err != nil || res.Written != 1 || len(res.Refused) != 3 {
		t.Fatalf("import of forged lines: %+v, %v; want 1 written, 3 refused", res, err)
	}
	if err := mehmet.Append(ctx, intent("att-3", "INV-1", "RF-3")); !errors.Is(err, journal.ErrUnsettled) {
		t.Errorf("after the forgeries, a second refund: %v, want ErrUnsettled", err)
	}
	got, _ := mehmet.Attempts(ctx, "INV-1")
	if len(got) != 1 || got[0].Class() != journal.Unknown || got[0].SettledBy != "" {
		t.Errorf("INV-1: %+v", got)
	}
	// A not_found from check status (an older paycli's line) is taken,
	// and settles nothing (issue 39): the gateway may still make it.
	if err := mehmet.Append(ctx, settled(rf, journal.NotFound)); err != nil {
		t.Fatal(err)
	}
	if err := mehmet.Append(ctx, intent("att-4", "INV-1", "RF-4")); !errors.Is(err, journal.ErrUnsettled) {
		t.Errorf("after a not_found from check status, a second refund: %v, want ErrUnsettled", err)
	}
	// The owner of the attempt may write its outcome; anyone may settle it
	// with the gateway's answer, and is named.
	later := settled(rf, journal.Declined)
	later.Time = later.Time.Add(time.Minute)
	if err := mehmet.Append(ctx, later); err != nil {
		t.Fatal(err)
	}
	got, _ = ayse.Attempts(ctx, "INV-1")
	if len(got) != 1 || got[0].Class() != journal.Declined || got[0].SettledBy != "mehmet" || got[0].Operator != "ayse" {
		t.Errorf("after mehmet's reconciliation: %+v", got)
	}
}

// TestSandboxLinesRefused (defect 5): the database refuses a sandbox line,
// by its gateway identity or, for an older line, its sandbox profile at a
// loopback address, from psql and from Import.
func TestSandboxLinesRefused(t *testing.T) {
	t.Parallel()
	srv := pg.Start(t)
	db, _ := deskDB(t, srv)
	ayse := openAs(t, srv, db, "ayse", "desk-1", 101)
	ctx := context.Background()
	now := intent("s-1", "SBX-1", "")
	now.Gateway = "sandbox-0123abcd"
	old := intent("s-2", "SBX-2", "")
	old.Gateway, old.Profile, old.BaseURL = "0123456789abcdef", "sandbox", "http://127.0.0.1:43127"
	live := intent("l-1", "LIVE-1", "")
	live.BaseURL = "http://127.0.0.1:8080/ccpayment" // a live gateway on loopback is not the sandbox
	for _, e := range []journal.Entry{now, old} {
		if !IsSandboxLine(e) {
			t.Errorf("IsSandboxLine(%s) = false", e.Attempt)
		}
		if out, err := psqlAs(t, srv, db, "ayse", insertSQL(e)); err == nil || !strings.Contains(out, "journal_lines_not_sandbox") {
			t.Errorf("psql INSERT of sandbox line %s: %v\n%s", e.Attempt, err, out)
		}
	}
	if IsSandboxLine(live) {
		t.Error("a live line at a loopback address is taken for the sandbox's")
	}
	res, err := ayse.Import(ctx, []journal.Entry{now, old, live})
	if err != nil || res.Written != 1 || len(res.Refused) != 2 || !res.Refused[0].Err.Sandbox() || !res.Refused[1].Err.Sandbox() {
		t.Fatalf("import: %+v, %v", res, err)
	}
}

// TestClockSkewDoesNotSettleInFlight (defect 3): a writer whose clock is
// ten minutes slow writes a refund still in flight; another operator's
// reconciliation, on a right clock, finds the gateway has no such refund
// yet, and must not settle it not_found.
func TestClockSkewDoesNotSettleInFlight(t *testing.T) {
	t.Parallel()
	srv := pg.Start(t)
	db, admin := deskDB(t, srv)
	ctx := context.Background()
	slow, right := skewedClocks(t, admin)
	var warned []string
	open := func(role string, now func() time.Time) *Store {
		return openStore(t, srv, db, role, Options{Now: now, PID: 1, Warn: func(m string) { warned = append(warned, m) }})
	}
	ayse := open("ayse", slow)
	// The slow clock stands still while the database's runs on: on a busy
	// machine the skew measured is ten minutes and a second or two.
	if len(warned) != 1 || !regexp.MustCompile(`clock is 10m\d+s behind`).MatchString(warned[0]) {
		t.Errorf("warnings for a slow clock: %q", warned)
	}
	mehmet := open("mehmet", right)
	rf := intent("att-1", "INV-1", "RF-1")
	rf.Time, rf.Deadline = slow(), slow().Add(30*time.Second)
	if err := ayse.Append(ctx, rf); err != nil { // sent; in flight
		t.Fatal(err)
	}
	attempts, err := mehmet.Attempts(ctx, "INV-1")
	if err != nil || len(attempts) != 1 {
		t.Fatal(attempts, err)
	}
	answer := &gateway.CheckStatusResult{StatusCode: 100, InvoiceID: "INV-1", TransactionStatus: "Completed",
		Extra: map[string]json.RawMessage{"refund_info": json.RawMessage(`[]`)}}
	l := journal.Settle(kindtest.Paycli().For(attempts[0]).Read, attempts[0], answer, nil, mehmet.DatabaseTime(right()))
	if l.Outcome == journal.NotFound || l.After.IsZero() {
		t.Errorf("a refund in flight read on the database's clock: %+v, want 'may still be in flight'", l)
	}
}

// TestSynchronousCommitForced (defect 8): on a database whose default is
// synchronous_commit=off, a transaction writing a line commits with it on.
func TestSynchronousCommitForced(t *testing.T) {
	t.Parallel()
	srv := pg.Start(t)
	db, admin := deskDB(t, srv)
	ctx := context.Background()
	srv.Exec(t, "postgres", fmt.Sprintf("ALTER DATABASE %s SET synchronous_commit = off", db))
	conn := connect(t, srv.URL("ayse", db))
	tx, err := conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx) //nolint:errcheck
	e := intent("att-1", "INV-1", "")
	data, _ := json.Marshal(e)
	if _, err := tx.Exec(ctx, insertLine, e.Attempt, e.Type, e.Kind, e.Gateway, e.Invoice, "", e.Time, data, "", ""); err != nil {
		t.Fatal(err)
	}
	var setting string
	if err := tx.QueryRow(ctx, "SELECT current_setting('synchronous_commit')").Scan(&setting); err != nil || setting != "on" {
		t.Errorf("synchronous_commit in a transaction that wrote a line: %q, %v", setting, err)
	}
	warnings, err := ServerWarnings(ctx, admin)
	if err != nil {
		t.Fatal(err)
	}
	_ = warnings // the database's default is per database; the server's is on here
}

// TestNULIsStored (defect 11): a gateway text holding a NUL is stored and
// read back as it was; an import of a file holding such a line writes it
// and the rest.
func TestNULIsStored(t *testing.T) {
	t.Parallel()
	srv := pg.Start(t)
	db, _ := deskDB(t, srv)
	ayse := openAs(t, srv, db, "ayse", "desk-1", 101)
	ctx := context.Background()
	in := intent("att-1", "INV-1", "RF-1")
	out := outcome(in, journal.Declined, 41)
	out.Message = "Payment failed\x00 \\0 and a backslash \\"
	if err := ayse.Append(ctx, in); err != nil {
		t.Fatal(err)
	}
	if err := ayse.Append(ctx, out); err != nil {
		t.Fatalf("an outcome with a NUL: %v", err)
	}
	got, err := ayse.Attempts(ctx, "INV-1")
	if err != nil || len(got) != 1 || got[0].Outcome == nil || got[0].Outcome.Message != out.Message {
		t.Fatalf("read back: %+v, %v", got, err)
	}
	in2 := intent("att-2", "INV-2", "")
	out2 := outcome(in2, journal.Rejected, 99)
	out2.Message = "\x00"
	res, err := ayse.Import(ctx, []journal.Entry{in2, out2, intent("att-3", "INV-3", "")})
	if err != nil || res.Written != 3 {
		t.Fatalf("import: %+v, %v", res, err)
	}
}

// TestRefusedSpoolLineSetAside (defect 11): a spooled line the database
// refuses (not an outage) is set aside and reported, and the spool's
// other lines are written; Open is not "unavailable".
func TestRefusedSpoolLineSetAside(t *testing.T) {
	t.Parallel()
	srv := pg.Start(t)
	db, _ := deskDB(t, srv)
	ayse := openAs(t, srv, db, "ayse", "desk-1", 101)
	ctx := context.Background()
	a, b := intent("att-1", "INV-1", "RF-1"), intent("att-2", "INV-2", "RF-2")
	for _, e := range []journal.Entry{a, b} {
		if err := ayse.Append(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	spool := filepath.Join(t.TempDir(), "spool.jsonl")
	j, err := journal.Open(spool)
	if err != nil {
		t.Fatal(err)
	}
	// mehmet's spool holds an outcome of ayse's attempt (refused), then his own line.
	mine := intent("att-3", "INV-3", "")
	mehmetNow := openAs(t, srv, db, "mehmet", "desk-2", 202)
	if err := mehmetNow.Append(ctx, mine); err != nil {
		t.Fatal(err)
	}
	for _, e := range []journal.Entry{outcome(a, journal.Succeeded, 100), outcome(mine, journal.Succeeded, 100)} {
		if err := j.Append(e); err != nil {
			t.Fatal(err)
		}
	}
	_ = j.Close()
	var warned []string
	s := openStore(t, srv, db, "mehmet", Options{Spool: spool, PID: 5, Warn: func(m string) { warned = append(warned, m) }})
	if s.SpoolError() != nil || len(warned) == 0 || !strings.Contains(warned[len(warned)-1], "refused") {
		t.Errorf("spool error %v, warnings %q", s.SpoolError(), warned)
	}
	if got, _ := s.Attempts(ctx, "INV-3"); len(got) != 1 || got[0].Class() != journal.Succeeded {
		t.Errorf("mehmet's own outcome was not written: %+v", got)
	}
	if entries, _, err := journal.Entries(spool + ".refused"); err != nil || len(entries) != 1 || entries[0].Attempt != "att-1" {
		t.Errorf("set aside: %+v, %v", entries, err)
	}
	if _, err := os.Stat(spool); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the spool is still there: %v", err)
	}
}

// TestSpoolKeyedByDatabase (defect 12): an outcome spooled by a store that
// reached the database as 127.0.0.1 is written by one that reaches it as
// localhost; a spool named by an older paycli from the URL is written too.
func TestSpoolKeyedByDatabase(t *testing.T) {
	t.Parallel()
	srv := pg.Start(t)
	db, _ := deskDB(t, srv)
	ctx := context.Background()
	dir := t.TempDir()
	byIP := srv.URL("ayse", db)
	byName := strings.Replace(byIP, "127.0.0.1", "localhost", 1)
	open := func(url string) *Store {
		s, err := Open(ctx, Options{URL: url, SpoolDir: dir, Now: func() time.Time { return t0 }, PID: 3})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = s.Close() })
		return s
	}
	first := open(byIP)
	a, b := intent("att-1", "INV-1", ""), intent("att-2", "INV-2", "")
	for _, e := range []journal.Entry{a, b} {
		if err := first.Append(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	_, spool, _ := first.Spooled()
	write := func(path string, e journal.Entry) {
		j, err := journal.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := j.Append(e); err != nil {
			t.Fatal(err)
		}
		_ = j.Close()
	}
	write(spool, outcome(a, journal.Succeeded, 100))                  // spooled under 127.0.0.1
	write(SpoolPath(dir, byName), outcome(b, journal.Succeeded, 100)) // an older paycli's, by URL
	second := open(byName)
	if _, path, _ := second.Spooled(); path != spool {
		t.Errorf("spool by localhost %s, by 127.0.0.1 %s", path, spool)
	}
	got, err := second.Attempts(ctx, "INV-1", "INV-2")
	if err != nil || len(got) != 2 || got[0].Class() != journal.Succeeded || got[1].Class() != journal.Succeeded {
		t.Errorf("after the open by localhost: %+v, %v", got, err)
	}
}

// TestLoginAndRoleRefusals: a role without the journal's grants is told
// so (a *LoginError naming the grant), not "no journal" nor "unavailable".
func TestLoginAndRoleRefusals(t *testing.T) {
	t.Parallel()
	srv := pg.Start(t)
	db, _ := deskDB(t, srv)
	srv.Role(t, "stranger")
	_, err := Open(context.Background(), Options{URL: srv.URL("stranger", db), Now: func() time.Time { return t0 }})
	var login *LoginError
	if !errors.As(err, &login) || login.Password || !strings.Contains(login.Fix(), "--grant") || errors.Is(err, journal.ErrUnavailable) {
		t.Errorf("a role without grants: %v", err)
	}
	_, err = Open(context.Background(), Options{URL: srv.URL("nobody-at-all", db), Now: func() time.Time { return t0 }})
	if !errors.As(err, &login) || !login.Password {
		t.Errorf("a role the server does not know: %v", err)
	}
	srv.RequirePassword(t, "ayse_pw", "right-pw")
	srv.Exec(t, db, "GRANT USAGE ON SCHEMA paycli TO ayse_pw")
	wrong := strings.Replace(srv.URL("ayse_pw", db), "ayse_pw@", "ayse_pw:wr0ng-pw@", 1)
	_, err = Open(context.Background(), Options{URL: wrong, Now: func() time.Time { return t0 }})
	if !errors.As(err, &login) || !login.Password || errors.Is(err, journal.ErrUnavailable) || strings.Contains(err.Error(), "wr0ng-pw") {
		t.Errorf("a wrong password: %v", err)
	}
	right := strings.Replace(srv.URL("ayse_pw", db), "ayse_pw@", "ayse_pw:right-pw@", 1)
	if err := Grant(context.Background(), connect(t, srv.URL("desk_admin", db)), "ayse_pw"); err != nil {
		t.Fatal(err)
	}
	s, err := Open(context.Background(), Options{URL: right, Now: func() time.Time { return t0 }})
	if err != nil {
		t.Fatalf("the right password: %v", err)
	}
	_ = s.Close()
}

// TestUpperCaseScheme: POSTGRES:// is a postgres:// URL for every step.
func TestUpperCaseScheme(t *testing.T) {
	t.Parallel()
	srv := pg.Start(t)
	db, _ := deskDB(t, srv)
	url := "POSTGRES://" + strings.TrimPrefix(srv.URL("ayse", db), "postgres://")
	if err := CheckURL(url); err != nil {
		t.Fatal(err)
	}
	s, err := Open(context.Background(), Options{URL: url, Now: func() time.Time { return t0 }})
	if err != nil {
		t.Fatal(err)
	}
	_ = s.Close()
}
