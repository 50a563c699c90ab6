package journalindex

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/paycli/paycli/internal/journal"
)

var t0 = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

func intent(id, invoice string) journal.Entry {
	return journal.Entry{Type: journal.TypeIntent, Attempt: id, Time: t0, Profile: "p", BaseURL: "https://gw/ccpayment",
		Invoice: invoice, Amount: "150.00", Currency: "TRY", Card: "435508******4358", Wallet: "001"}
}

func outcome(id, invoice, class string, code int) journal.Entry {
	e := intent(id, invoice)
	e.Type, e.Outcome, e.StatusCode, e.Time = journal.TypeOutcome, class, &code, t0.Add(time.Second)
	return e
}

func writeEntries(t *testing.T, entries ...journal.Entry) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), journal.FileName)
	j, err := journal.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	for _, e := range entries {
		if err := j.Append(e); err != nil {
			t.Fatal(err)
		}
	}
	return path
}

// TestLookupAfterTornLine: the record after a torn line is found through
// the index, and the torn line is reported with its offset.
func TestLookupAfterTornLine(t *testing.T) {
	path := writeEntries(t, intent("a1", "INV-1"))
	info, _ := os.Stat(path)
	f, _ := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	_, _ = f.WriteString(`{"type":"outcome","attempt":"dead`)
	_ = f.Close()
	j, _ := journal.Open(path)
	_ = j.Append(intent("a2", "CHARGED"))
	_ = j.Append(outcome("a2", "CHARGED", journal.Succeeded, 100))
	_ = j.Close()
	attempts, damage, err := Lookup(path, "CHARGED")
	if err != nil || len(attempts) != 1 || attempts[0].Class() != journal.Succeeded {
		t.Fatalf("attempts %+v, %v", attempts, err)
	}
	if damage.Lines != 1 || damage.Offsets[0] != info.Size() {
		t.Errorf("damage %+v, want the torn line at %d", damage, info.Size())
	}
}

// TestLookupRefusesFIFO: a named pipe as the journal or as its index is
// refused, never waited on.
func TestLookupRefusesFIFO(t *testing.T) {
	path := filepath.Join(t.TempDir(), journal.FileName)
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Skip("mkfifo:", err)
	}
	done := make(chan error, 1)
	go func() { _, _, err := Lookup(path, "X"); done <- err }()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "named pipe") {
			t.Errorf("err = %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Lookup hangs on a FIFO journal")
	}
	path = writeEntries(t, intent("a1", "INV-1"))
	if err := syscall.Mkfifo(path+IndexSuffix, 0o600); err != nil {
		t.Skip("mkfifo:", err)
	}
	go func() { _, _, err := Lookup(path, "INV-1"); done <- err }()
	select {
	case err := <-done:
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			t.Errorf("a FIFO index is not a reason to fail: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Lookup hangs on a FIFO index")
	}
}

func invoicesOf(attempts []journal.Attempt) []string {
	var out []string
	for _, a := range attempts {
		out = append(out, a.Intent.Attempt+"="+a.Intent.Invoice+"/"+a.Class())
	}
	return out
}

// lookupAgrees checks Lookup against a full read for each invoice.
func lookupAgrees(t *testing.T, path string, invoices ...string) {
	t.Helper()
	all, _, err := journal.ReadAll(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, inv := range invoices {
		var want []journal.Attempt
		for _, a := range all {
			if a.Intent.Invoice == inv {
				want = append(want, a)
			}
		}
		got, _, err := Lookup(path, inv)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(invoicesOf(got), invoicesOf(want)) {
			t.Errorf("Lookup(%s) = %v, want %v", inv, invoicesOf(got), invoicesOf(want))
		}
	}
}

func TestLookupThroughIndex(t *testing.T) {
	var entries []journal.Entry
	for i := range 300 {
		inv := fmt.Sprintf("INV-%d", i%100)
		id := fmt.Sprintf("a%d", i)
		entries = append(entries, intent(id, inv))
		if i%7 != 0 {
			entries = append(entries, outcome(id, inv, journal.Declined, 41))
		}
	}
	path := writeEntries(t, entries...)
	lookupAgrees(t, path, "INV-0", "INV-7", "INV-99", "NONE")
	if _, err := os.Stat(path + IndexSuffix); err != nil {
		t.Fatalf("no index: %v", err)
	}

	// Appended lines are indexed on the next lookup.
	j, _ := journal.Open(path)
	_ = j.Append(intent("late", "INV-7"))
	_ = j.Append(outcome("late", "INV-7", journal.Succeeded, 100))
	_ = j.Append(intent("new", "NEW-1"))
	_ = j.Close()
	lookupAgrees(t, path, "INV-7", "NEW-1")

	// A journal replaced by another (shorter, then longer than what was
	// indexed) is not read through the old index.
	other := writeEntries(t, intent("z1", "INV-7"), outcome("z1", "INV-7", journal.Rejected, 1))
	data, _ := os.ReadFile(other)
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	lookupAgrees(t, path, "INV-7", "INV-0")
	var more []byte
	for i := range 400 {
		more = fmt.Appendf(more, `{"type":"intent","attempt":"b%d","invoice":"INV-%d","profile":"p"}`+"\n", i, i%50)
	}
	if err := os.WriteFile(path, append(data, more...), 0o600); err != nil {
		t.Fatal(err)
	}
	lookupAgrees(t, path, "INV-7", "INV-1")

	// An index that is not one is rebuilt.
	if err := os.WriteFile(path+IndexSuffix, []byte("garbage"), 0o600); err != nil {
		t.Fatal(err)
	}
	lookupAgrees(t, path, "INV-7", "INV-1")
}

func TestRecent(t *testing.T) {
	path := writeEntries(t,
		intent("a1", "INV-10"), outcome("a1", "INV-10", journal.Succeeded, 100),
		intent("a2", "INV-20"),
		intent("a3", "OTHER"),
		intent("a4", "INV-10"), outcome("a4", "INV-10", journal.Duplicate, 3),
		intent("a5", "INV-30"), outcome("a5", "INV-30", journal.Declined, 41),
	)
	for range 2 { // through a new index, then an existing one
		got, err := Recent(path, "INV-", 2)
		if err != nil {
			t.Fatal(err)
		}
		if want := []string{"a5=INV-30/declined", "a4=INV-10/duplicate"}; !slices.Equal(invoicesOf(latestOf(got)), want) {
			t.Errorf("Recent = %v, want %v", invoicesOf(latestOf(got)), want)
		}
	}
	// Fewer matches than asked for in the journal's end: the index walk.
	got, err := Recent(path, "INV-", 5)
	if want := []string{"a5=INV-30/declined", "a4=INV-10/duplicate", "a2=INV-20/unknown"}; err != nil || !slices.Equal(invoicesOf(latestOf(got)), want) {
		t.Errorf("Recent = %v, %v; want %v", invoicesOf(latestOf(got)), err, want)
	}
	// Each invoice comes with all its attempts, oldest first.
	if len(got) != 3 || len(got[1]) != 2 || got[1][0].Intent.Attempt != "a1" || got[1][1].Intent.Attempt != "a4" {
		t.Errorf("INV-10's attempts: %v", got)
	}
	got, _ = recentScan(path, "INV-", 2)
	if want := []string{"a5=INV-30/declined", "a4=INV-10/duplicate"}; !slices.Equal(invoicesOf(latestOf(got)), want) {
		t.Errorf("recentScan = %v, want %v", invoicesOf(latestOf(got)), want)
	}
}

// latestOf is each invoice's latest attempt.
func latestOf(byInvoice [][]journal.Attempt) []journal.Attempt {
	out := make([]journal.Attempt, len(byInvoice))
	for i, attempts := range byInvoice {
		out[i] = attempts[len(attempts)-1]
	}
	return out
}

// TestLookupManyInvoices: a batch's worth of invoices in one lookup gives
// the same states as a full read.
func TestLookupManyInvoices(t *testing.T) {
	var entries []journal.Entry
	var invoices []string
	for i := range 200 {
		inv := fmt.Sprintf("B-%d", i)
		invoices = append(invoices, inv)
		entries = append(entries, intent(inv+"a", inv))
		if i%3 == 0 {
			entries = append(entries, outcome(inv+"a", inv, journal.Succeeded, 100))
		}
	}
	path := writeEntries(t, entries...)
	all, _, _ := journal.ReadAll(path)
	some, _, err := Lookup(path, invoices[:150]...)
	if err != nil {
		t.Fatal(err)
	}
	scope := journal.Scope{Kind: "walletpay", Profile: "p"}
	full, part := journal.ByInvoice(all, scope), journal.ByInvoice(some, scope)
	if len(part) != 150 {
		t.Fatalf("%d states, want 150", len(part))
	}
	for inv, s := range part {
		if full[inv].Resume() != s.Resume() {
			t.Errorf("%s: %v through the index, %v from a full read", inv, s.Resume(), full[inv].Resume())
		}
	}
}
