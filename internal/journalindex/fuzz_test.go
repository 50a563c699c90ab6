package journalindex

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/paycli/paycli/internal/journal"
)

// FuzzReadJournal: any bytes in the journal file read without a panic;
// damage offsets point inside the file at line starts; an index lookup
// agrees with a full read.
func FuzzReadJournal(f *testing.F) {
	f.Add([]byte(`{"type":"intent","attempt":"a1","invoice":"I"}` + "\n" + `{"type":"outcome","attempt":"a1","invoice":"I","outcome":"succeeded"}` + "\n"))
	f.Add([]byte(`{"type":"outcome","attempt":"dead{"type":"intent","attempt":"a2","invoice":"I"}` + "\n"))
	f.Add([]byte(`{"type":"reconcile","attempt":"a1","invoice":"I","outcome":"not_found"}` + "\nnot json\n{\"type\":\"intent\""))
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), journal.FileName)
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		attempts, damage, err := journal.ReadAll(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, off := range damage.Offsets {
			if off < 0 || off >= int64(len(data)) || (off > 0 && data[off-1] != '\n') {
				t.Fatalf("damage offset %d is not a line start in %q", off, data)
			}
		}
		// Two invoices at most: each lookup builds an index (a few fsyncs).
		for i, a := range attempts {
			if i == 2 {
				break
			}
			inv := a.Intent.Invoice
			var want []string
			for _, b := range attempts {
				if b.Intent.Invoice == inv {
					want = append(want, b.Intent.Attempt+"/"+b.Class())
				}
			}
			got, _, err := Lookup(path, inv)
			if err != nil {
				t.Fatal(err)
			}
			var have []string
			for _, b := range got {
				have = append(have, b.Intent.Attempt+"/"+b.Class())
			}
			if inv != "" && !slices.Equal(have, want) {
				t.Fatalf("Lookup(%q) = %v, full read %v", inv, have, want)
			}
		}
	})
}
