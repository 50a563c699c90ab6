package journal

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// BenchmarkFileLookups times what a money-moving command reads of a large
// journal (PAYCLI_JOURNAL_GEN_N attempts, 200,000 unless told; as
// TestGenerateLargeJournal writes them): one invoice's attempts (its
// guard), one attempt by id (refund --retry), against reading every
// attempt (what refund's guard did before). docs/performance.md records
// the figures.
func BenchmarkFileLookups(b *testing.B) {
	n := 200_000
	if s := os.Getenv("PAYCLI_JOURNAL_GEN_N"); s != "" {
		var err error
		if n, err = strconv.Atoi(s); err != nil {
			b.Fatal(err)
		}
	}
	path := filepath.Join(b.TempDir(), FileName)
	if err := generate(path, n); err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	invoice, attempt := fmt.Sprintf("GEN-%07d", n/2), fmt.Sprintf("%016x", n/2)
	b.Run("invoice", func(b *testing.B) {
		for b.Loop() {
			got, err := OpenFile(path, time.Now).Attempts(ctx, invoice)
			if err != nil || len(got) != 1 {
				b.Fatalf("%d attempts, %v", len(got), err)
			}
		}
	})
	b.Run("find", func(b *testing.B) {
		for b.Loop() {
			got, err := OpenFile(path, time.Now).Find(ctx, attempt)
			if err != nil || len(got) != 1 {
				b.Fatalf("%d attempts, %v", len(got), err)
			}
		}
	})
	b.Run("read-all", func(b *testing.B) {
		for b.Loop() {
			got, _, err := ReadAll(path)
			if err != nil || len(got) != n {
				b.Fatalf("%d attempts, %v", len(got), err)
			}
		}
	})
}
