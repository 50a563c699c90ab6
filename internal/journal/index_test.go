package journal

import (
	"fmt"
	"os"
	"slices"
	"testing"
)

func invoicesOf(attempts []Attempt) []string {
	var out []string
	for _, a := range attempts {
		out = append(out, a.Intent.Attempt+"="+a.Intent.Invoice+"/"+a.Class())
	}
	return out
}

// lookupAgrees checks Lookup against a full read for each invoice.
func lookupAgrees(t *testing.T, path string, invoices ...string) {
	t.Helper()
	all, _, err := ReadAll(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, inv := range invoices {
		var want []Attempt
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
	var entries []Entry
	for i := range 300 {
		inv := fmt.Sprintf("INV-%d", i%100)
		id := fmt.Sprintf("a%d", i)
		entries = append(entries, intent(id, inv))
		if i%7 != 0 {
			entries = append(entries, outcome(id, inv, Declined, 41))
		}
	}
	path := writeEntries(t, entries...)
	lookupAgrees(t, path, "INV-0", "INV-7", "INV-99", "NONE")
	if _, err := os.Stat(path + IndexSuffix); err != nil {
		t.Fatalf("no index: %v", err)
	}

	// Appended lines are indexed on the next lookup.
	j, _ := Open(path)
	_ = j.Append(intent("late", "INV-7"))
	_ = j.Append(outcome("late", "INV-7", Succeeded, 100))
	_ = j.Append(intent("new", "NEW-1"))
	_ = j.Close()
	lookupAgrees(t, path, "INV-7", "NEW-1")

	// A journal replaced by another (shorter, then longer than what was
	// indexed) is not read through the old index.
	other := writeEntries(t, intent("z1", "INV-7"), outcome("z1", "INV-7", Rejected, 1))
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
		intent("a1", "INV-10"), outcome("a1", "INV-10", Succeeded, 100),
		intent("a2", "INV-20"),
		intent("a3", "OTHER"),
		intent("a4", "INV-10"), outcome("a4", "INV-10", Duplicate, 3),
		intent("a5", "INV-30"), outcome("a5", "INV-30", Declined, 41),
	)
	for range 2 { // through a new index, then an existing one
		got, err := Recent(path, "INV-", 2)
		if err != nil {
			t.Fatal(err)
		}
		if want := []string{"a5=INV-30/declined", "a4=INV-10/duplicate"}; !slices.Equal(invoicesOf(got), want) {
			t.Errorf("Recent = %v, want %v", invoicesOf(got), want)
		}
	}
	// Fewer matches than asked for in the journal's end: the index walk.
	got, err := Recent(path, "INV-", 5)
	if want := []string{"a5=INV-30/declined", "a4=INV-10/duplicate", "a2=INV-20/unknown"}; err != nil || !slices.Equal(invoicesOf(got), want) {
		t.Errorf("Recent = %v, %v; want %v", invoicesOf(got), err, want)
	}
	got, _ = recentScan(path, "INV-", 2)
	if want := []string{"a5=INV-30/declined", "a4=INV-10/duplicate"}; !slices.Equal(invoicesOf(got), want) {
		t.Errorf("recentScan = %v, want %v", invoicesOf(got), want)
	}
}

// TestLookupManyInvoices: a batch's worth of invoices in one lookup gives
// the same states as a full read.
func TestLookupManyInvoices(t *testing.T) {
	var entries []Entry
	var invoices []string
	for i := range 200 {
		inv := fmt.Sprintf("B-%d", i)
		invoices = append(invoices, inv)
		entries = append(entries, intent(inv+"a", inv))
		if i%3 == 0 {
			entries = append(entries, outcome(inv+"a", inv, Succeeded, 100))
		}
	}
	path := writeEntries(t, entries...)
	all, _, _ := ReadAll(path)
	some, _, err := Lookup(path, invoices[:150]...)
	if err != nil {
		t.Fatal(err)
	}
	scope := Scope{Kind: KindWalletPay, Profile: "p"}
	full, part := ByInvoice(all, scope), ByInvoice(some, scope)
	if len(part) != 150 {
		t.Fatalf("%d states, want 150", len(part))
	}
	for inv, s := range part {
		if full[inv].Resume() != s.Resume() {
			t.Errorf("%s: %v through the index, %v from a full read", inv, s.Resume(), full[inv].Resume())
		}
	}
}
