package journal

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"
)

// TestGenerateLargeJournal writes a journal of many attempts for the
// scale benchmark (docs/perf/journal.sh); it does nothing unless
// PAYCLI_JOURNAL_GEN names the file to write. PAYCLI_JOURNAL_GEN_N is the
// number of attempts (default 1,000,000): each has an intent and an
// outcome line like walletpay's, one in 500 is left without an outcome,
// and invoices are unique ("GEN-0000001", …).
func TestGenerateLargeJournal(t *testing.T) {
	path := os.Getenv("PAYCLI_JOURNAL_GEN")
	if path == "" {
		t.Skip("set PAYCLI_JOURNAL_GEN=FILE to generate a large journal")
	}
	n := 1_000_000
	if s := os.Getenv("PAYCLI_JOURNAL_GEN_N"); s != "" {
		var err error
		if n, err = strconv.Atoi(s); err != nil {
			t.Fatal(err)
		}
	}
	if err := generate(path, n); err != nil {
		t.Fatal(err)
	}
}

func generate(path string, n int) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	gw := Identity("https://app.gw.example/ccpayment", "app")
	code := 100
	for i := range n {
		e := Entry{Type: TypeIntent, Kind: "walletpay", Gateway: gw, Attempt: fmt.Sprintf("%016x", i),
			Time: base.Add(time.Duration(i) * time.Second), Profile: "live", BaseURL: "https://app.gw.example/ccpayment",
			Invoice: fmt.Sprintf("GEN-%07d", i), Amount: "150.00", Currency: "TRY", Card: "435508******4358", Wallet: "001"}
		line, _ := json.Marshal(e)
		w.Write(append(line, '\n'))
		if i%500 == 499 {
			continue
		}
		e.Type, e.Time, e.Outcome, e.StatusCode, e.OrderNo, e.Message = TypeOutcome, e.Time.Add(time.Second), Succeeded, &code, fmt.Sprintf("VP%017d", i), "Success"
		line, _ = json.Marshal(e)
		w.Write(append(line, '\n'))
	}
	if err := w.Flush(); err != nil {
		return err
	}
	return f.Close()
}
