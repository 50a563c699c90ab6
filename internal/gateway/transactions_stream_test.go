package gateway

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
	"time"
)

// recordedRow is §11.12's example row, compact.
func recordedRow(t testing.TB) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/recorded/transactions_platformode.json")
	if err != nil {
		t.Fatal(err)
	}
	var answer struct{ Data []json.RawMessage }
	if err := json.Unmarshal(b, &answer); err != nil || len(answer.Data) != 1 {
		t.Fatalf("%v", err)
	}
	var row bytes.Buffer
	if err := json.Compact(&row, answer.Data[0]); err != nil {
		t.Fatal(err)
	}
	return row.Bytes()
}

// TestGetTransactionsStreamsTheDay: an answer twice the 4 MiB cap of
// other answers is read whole, row by row, the heap never holding more
// than a small part of it: it grows by less than a quarter of the body
// (sampled while rows are handed on), where reading the body whole would
// hold all of it. The collector runs at GOGC 10 meanwhile, so that its
// 4 MiB minimum heap does not pass for what the read holds.
func TestGetTransactionsStreamsTheDay(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(10))
	row := recordedRow(t)
	const bodyBytes = 2 * MaxResponseBytes
	n := bodyBytes/(len(row)+1) + 1
	mux := http.NewServeMux()
	mux.HandleFunc("/ccpayment/api/token", func(w http.ResponseWriter, _ *http.Request) {
		b, _ := os.ReadFile("testdata/recorded/token.json")
		w.Write(b)
	})
	mux.HandleFunc("/ccpayment/api/getTransactions", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"status_code":100,"status_description":"Success","data":[`)
		for i := range n {
			if i > 0 {
				w.Write([]byte{','})
			}
			w.Write(bytes.Replace(row, []byte(`"id":275018`), fmt.Appendf(nil, `"id":%d`, i+1), 1))
		}
		fmt.Fprint(w, `]}`)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	c := newTestClient(t, srv.URL+"/ccpayment")

	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base, peak := ms.HeapAlloc, ms.HeapAlloc
	got := 0
	for tr, err := range c.Transactions(t.Context(), TransactionQuery{Span: SpanHour, At: day.Add(12 * time.Hour)}) {
		if err != nil {
			t.Fatalf("after %d rows: %v", got, err)
		}
		got++
		if int(tr.ID) != got {
			t.Fatalf("row %d has id %d", got, tr.ID)
		}
		if got%256 == 0 {
			runtime.ReadMemStats(&ms)
			peak = max(peak, ms.HeapAlloc)
		}
	}
	if got != n {
		t.Fatalf("%d rows of %d", got, n)
	}
	if grew := peak - min(peak, base); grew > bodyBytes/4 {
		t.Errorf("the heap grew by %d MiB reading a %d MiB answer", grew>>20, bodyBytes>>20)
	}
}

// TestGetTransactionsStreamedAnswers: what the streamed read makes of
// each shape of answer: rows handed on, then the answer's own verdict,
// whichever order its members come in; QNBpay's shapes (an array of one
// object, numeric ids in the rows) read in its dialect and refused in
// Sipay's. An answer broken or misshapen after its first rows is
// unavailable, as the ordinary read calls a body that is not the
// protocol's JSON.
func TestGetTransactionsStreamedAnswers(t *testing.T) {
	row := string(recordedRow(t))
	numeric := strings.Replace(row, `"invoice_id":"3905388578454743445487"`, `"invoice_id":3905388578454743445487`, 1)
	if numeric == row {
		t.Fatal("the recorded row has no invoice_id to make numeric")
	}
	tests := []struct {
		name, member, body string
		rows               int
		code               int // the refusal's status_code, 0 for none
		shape              bool
		kind               error // the error's sentinel, nil for none
	}{
		{"status first", "", `{"status_code":100,"data":[` + row + `,` + row + `]}`, 2, 0, false, nil},
		{"status last", "sipay", `{"data":[` + row + `],"status_description":"Success","status_code":100}`, 1, 0, false, nil},
		{"refused before the rows", "", `{"status_code":41,"status_description":"no","data":[` + row + `]}`, 0, 41, false, nil},
		{"refused after the rows", "", `{"data":[` + row + `],"status_code":41,"status_description":"no"}`, 1, 41, false, nil},
		{"no status_code", "", `{"data":[` + row + `]}`, 1, 0, false, ErrUnavailable},
		{"broken off", "", `{"status_code":100,"data":[` + row + `,` + row[:40], 1, 0, false, ErrUnavailable},
		{"data after the answer", "", `{"status_code":100,"data":[` + row + `]}{}`, 1, 0, false, ErrUnavailable},
		{"qnbpay array", "qnbpay", `[{"status_code":100,"data":[` + numeric + `]}]`, 1, 0, false, nil},
		{"qnbpay array in sipay", "sipay", `[{"status_code":100,"data":[` + row + `]}]`, 0, 0, true, ErrUnreadable},
		{"numeric invoice in sipay", "sipay", `{"status_code":100,"data":[` + row + `,` + numeric + `]}`, 1, 0, true, ErrUnreadable},
		{"two objects", "qnbpay", `[{"status_code":100,"data":[` + row + `]},{}]`, 1, 0, false, ErrUnavailable},
		{"two data members", "", `{"status_code":100,"data":[` + row + `],"data":[` + row + `]}`, 1, 0, false, ErrUnavailable},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, c := newReplayClient(t, tt.member)
			g.AnswerText(http.MethodPost, replayGetTransactions, 200, tt.body)
			rows, err := collect(c, TransactionQuery{Span: SpanHour, At: day.Add(12 * time.Hour)})
			if len(rows) != tt.rows {
				t.Errorf("%d rows, want %d (%v)", len(rows), tt.rows, err)
			}
			var ae *APIError
			var shape *ShapeError
			switch {
			case tt.code == 0 && tt.kind == nil && err != nil:
				t.Errorf("error %v", err)
			case tt.code != 0 && (!errors.As(err, &ae) || ae.StatusCode != tt.code):
				t.Errorf("error %v, want the refusal %d", err, tt.code)
			case tt.kind != nil && !errors.Is(err, tt.kind):
				t.Errorf("error %v, want %v", err, tt.kind)
			case tt.shape && (!errors.As(err, &ae) || !errors.As(ae.DataErr, &shape)):
				t.Errorf("error %v, want a ShapeError", err)
			}
			for _, r := range rows {
				if r.InvoiceID != "3905388578454743445487" {
					t.Errorf("invoice %q", r.InvoiceID)
				}
			}
		})
	}
}

// BenchmarkGetTransactionsRows measures the client's streamed read of a
// day: 10,000 of §11.12's rows in one answer, each decoded and checked
// (docs/performance.md, "Ledger audit (issue 41)").
func BenchmarkGetTransactionsRows(b *testing.B) {
	row := recordedRow(b)
	const rows = 10_000
	body := []byte(`{"status_code":100,"status_description":"Success","data":[`)
	for i := range rows {
		if i > 0 {
			body = append(body, ',')
		}
		body = append(body, row...)
	}
	body = append(body, "]}"...)
	mux := http.NewServeMux()
	mux.HandleFunc("/ccpayment/api/token", func(w http.ResponseWriter, _ *http.Request) {
		b, _ := os.ReadFile("testdata/recorded/token.json")
		w.Write(b)
	})
	mux.HandleFunc("/ccpayment/api/getTransactions", func(w http.ResponseWriter, _ *http.Request) { w.Write(body) })
	srv := httptest.NewServer(mux)
	b.Cleanup(srv.Close)
	c := newTestClient(b, srv.URL+"/ccpayment")
	b.ReportAllocs()
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		got := 0
		for _, err := range c.Transactions(b.Context(), TransactionQuery{Span: SpanHour, At: day.Add(12 * time.Hour)}) {
			if err != nil {
				b.Fatal(err)
			}
			got++
		}
		if got != rows {
			b.Fatalf("%d rows", got)
		}
	}
}
