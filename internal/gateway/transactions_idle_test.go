package gateway

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"
)

// stallingLedger serves a token and a getTransactions answer that sends
// its headers (unless headers is false) and rows, then sends nothing
// more until the test ends. pause, when set, is waited on between rows.
func stallingLedger(t *testing.T, row []byte, rows int, headers bool, pause <-chan struct{}) *httptest.Server {
	t.Helper()
	done := make(chan struct{})
	mux := http.NewServeMux()
	mux.HandleFunc("/ccpayment/api/token", func(w http.ResponseWriter, _ *http.Request) {
		b, _ := os.ReadFile("testdata/recorded/token.json")
		w.Write(b)
	})
	mux.HandleFunc("/ccpayment/api/getTransactions", func(w http.ResponseWriter, r *http.Request) {
		if !headers {
			<-done
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"status_code":100,"status_description":"Success","data":[`)
		for i := range rows {
			if i > 0 {
				w.Write([]byte{','})
			}
			w.Write(bytes.Replace(row, []byte(`"id":275018`), fmt.Appendf(nil, `"id":%d`, i+1), 1))
			w.(http.Flusher).Flush()
			if pause != nil && i < rows-1 {
				<-pause
			}
		}
		if pause != nil {
			fmt.Fprint(w, `]}`)
			return
		}
		select {
		case <-done:
		case <-r.Context().Done():
		}
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(func() { close(done); srv.Close() })
	return srv
}

// TestGetTransactionsStalledBody: a streamed day whose body stops
// arriving is broken off after the idle timeout, with the rows read so
// far handed on and the error saying it stalled; one whose headers never
// come is bounded by the exchange's timeout.
func TestGetTransactionsStalledBody(t *testing.T) {
	row := recordedRow(t)
	const short = 100 * time.Millisecond
	q := TransactionQuery{Span: SpanHour, At: day.Add(12 * time.Hour)}
	t.Run("body", func(t *testing.T) {
		srv := stallingLedger(t, row, 2, true, nil)
		c := newTestClient(t, srv.URL+"/ccpayment", WithStreamIdleTimeout(short))
		rows, err := collect(c, q)
		if err == nil || !strings.Contains(err.Error(), "did not arrive within 100ms") || len(rows) > 2 {
			t.Fatalf("%d rows, error %v; want at most 2 rows and the stall", len(rows), err)
		}
	})
	t.Run("headers", func(t *testing.T) {
		srv := stallingLedger(t, row, 0, false, nil)
		c := newTestClient(t, srv.URL+"/ccpayment", WithHTTPClient(&http.Client{Timeout: short}))
		_, err := collect(c, q)
		if err == nil || !strings.Contains(err.Error(), "the answer's headers did not arrive within 100ms") {
			t.Fatalf("error %v; want the headers' timeout", err)
		}
	})
}

// TestGetTransactionsOutlivesTheExchangeTimeout: a streamed day may take
// longer than the exchange's timeout as long as its body keeps coming
// (here the reader itself holds the body up, past the timeout, between
// two rows; the idle timer runs only while a read waits).
func TestGetTransactionsOutlivesTheExchangeTimeout(t *testing.T) {
	const timeout = 100 * time.Millisecond
	pause := make(chan struct{})
	srv := stallingLedger(t, recordedRow(t), 2, true, pause)
	c := newTestClient(t, srv.URL+"/ccpayment", WithHTTPClient(&http.Client{Timeout: timeout}), WithStreamIdleTimeout(time.Minute))
	got := 0
	for _, err := range c.Transactions(t.Context(), TransactionQuery{Span: SpanHour, At: day.Add(12 * time.Hour)}) {
		if err != nil {
			t.Fatalf("after %d rows: %v", got, err)
		}
		got++
		if got == 1 {
			<-time.After(2 * timeout) // the whole exchange now outlasts its timeout
			close(pause)
		}
	}
	if got != 2 {
		t.Fatalf("%d rows, want 2", got)
	}
}
