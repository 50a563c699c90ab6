package sandboxcmd

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/paycli/paycli/internal/render"
	"github.com/paycli/paycli/internal/sandbox"
)

func logEntry(path string, status, code int, invoice, why string) sandbox.LogEntry {
	e := sandbox.LogEntry{Time: time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC), Method: "POST", Path: path, HTTPStatus: status,
		DurationMS: 1.25, Invoice: invoice, Why: why}
	if code >= 0 {
		e.StatusCode = &code
	}
	return e
}

// runLogs runs `paycli sandbox logs ARGS` over a state folder holding
// entries; follow, when set, is called at each wait of --follow with the
// log to append to, and ends the follow by returning an error.
func runLogs(t *testing.T, format render.Format, entries []sandbox.LogEntry, follow func(*sandbox.RequestLog, int) error, args ...string) (string, string, error) {
	t.Helper()
	dir := t.TempDir()
	rl, err := sandbox.OpenRequestLog(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer rl.Close()
	for _, e := range entries {
		if err := rl.Append(e); err != nil {
			t.Fatal(err)
		}
	}
	f, ios := testFactory(t, nil)
	var ran *LogsOptions
	cmd := NewCmdLogs(f, func(_ context.Context, o *LogsOptions) error { ran = o; return nil })
	if err := runCmd(cmd, append(args, "--state", dir)...); err != nil {
		return "", "", err
	}
	ran.Format = func() (render.Format, error) { return format, nil }
	waits := 0
	ran.Wait = func(context.Context) error { waits++; return follow(rl, waits) }
	err = logsRun(context.Background(), ran)
	return ios.Out.(*bytes.Buffer).String(), ios.ErrOut.(*bytes.Buffer).String(), err
}

func TestLogsSelectsAndLimits(t *testing.T) {
	entries := []sandbox.LogEntry{
		logEntry("/ccpayment/api/token", 200, 100, "", ""),
		logEntry("/ccpayment/api/walletPay", 200, 68, "INV-1", "hash_key mismatch on total"),
		logEntry("/ccpayment/api/walletPay", 401, -1, "INV-2", "no bearer token"),
		logEntry("/ccpayment/api/walletPay", 200, 100, "4355084355084358", ""),
		logEntry("/ccpayment/api/checkstatus", 200, 31, "INV-1", "Transaction not found"),
	}
	entries[3].Invoice = "435508******4358" // as the log keeps it
	for _, tc := range []struct {
		args []string
		want string // paths and invoices of the rows, in order
	}{
		{nil, "token, walletPay INV-1, walletPay INV-2, walletPay 435508******4358, checkstatus INV-1"},
		{[]string{"--refused"}, "walletPay INV-1, walletPay INV-2, checkstatus INV-1"},
		{[]string{"--path", "walletpay"}, "walletPay INV-1, walletPay INV-2, walletPay 435508******4358"},
		{[]string{"--path", "/ccpayment/api/checkstatus/"}, "checkstatus INV-1"},
		{[]string{"--status", "401,31"}, "walletPay INV-2, checkstatus INV-1"},
		{[]string{"--invoice", "INV-1", "-n", "1"}, "checkstatus INV-1"},
		{[]string{"--invoice", "4355084355084358"}, "walletPay 435508******4358"},
		{[]string{"-n", "2"}, "walletPay 435508******4358, checkstatus INV-1"},
	} {
		out, _, err := runLogs(t, render.CSV, entries, nil, tc.args...)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, line := range strings.Split(strings.TrimSpace(out), "\n")[1:] {
			cells := strings.Split(line, ",")
			got = append(got, strings.TrimSpace(strings.TrimPrefix(cells[2], "/ccpayment/api/")+" "+cells[6]))
		}
		if strings.Join(got, ", ") != tc.want {
			t.Errorf("%v: %q, want %q", tc.args, strings.Join(got, ", "), tc.want)
		}
	}
}

func TestLogsTableAndJSON(t *testing.T) {
	entries := []sandbox.LogEntry{logEntry("/ccpayment/api/walletPay", 200, 68, "INV-1", "hash_key mismatch on total")}
	out, _, err := runLogs(t, render.JSON, entries, nil)
	if err != nil || out != `{"time":"2026-11-22T09:00:00Z","method":"POST","path":"/ccpayment/api/walletPay","http_status":200,"status_code":68,"duration_ms":1.25,"invoice":"INV-1","why":"hash_key mismatch on total"}`+"\n" {
		t.Errorf("json: %v\n%s", err, out)
	}
	out, _, err = runLogs(t, render.Table, entries, nil)
	if err != nil || !strings.Contains(out, "TIME") || !strings.Contains(out, "/ccpayment/api/walletPay") || !strings.Contains(out, "hash_key mismatch on total") {
		t.Errorf("table: %v\n%s", err, out)
	}
	_, errOut, err := runLogs(t, render.Table, nil, nil)
	if err != nil || !strings.Contains(errOut, "No requests in the sandbox's request log") {
		t.Errorf("empty: %v %q", err, errOut)
	}
}

// TestLogsFollow: -f prints the log's last entries, then each new one as
// a line, until interrupted.
func TestLogsFollow(t *testing.T) {
	entries := []sandbox.LogEntry{logEntry("/ccpayment/api/token", 200, 100, "", "")}
	stop := errors.New("stop")
	out, _, err := runLogs(t, render.Table, entries, func(rl *sandbox.RequestLog, n int) error {
		switch n {
		case 1:
			e := logEntry("/ccpayment/api/walletPay", 200, 68, "INV-1", "hash_key mismatch on total")
			e.RequestID = "req_1"
			return rl.Append(e)
		case 2:
			return rl.Append(logEntry("/ccpayment/api/checkstatus", 200, 100, "INV-1", ""))
		}
		return stop
	}, "-f", "--path", "walletPay")
	if !errors.Is(err, stop) {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "TIME  METHOD  PATH") ||
		!strings.Contains(lines[1], "POST  /ccpayment/api/walletPay  200  68  1.2  INV-1  req_1  hash_key mismatch on total") {
		t.Errorf("follow:\n%s", out)
	}
	// Interrupted (Ctrl-C): the follow ends without an error.
	_, _, err = runLogs(t, render.JSON, entries, func(*sandbox.RequestLog, int) error { return context.Canceled }, "-f")
	if err != nil {
		t.Errorf("interrupted follow: %v", err)
	}
}

// TestLogsRequestIDAndBodies: --request-id picks the request an answer's
// X-Request-Id names; its masked bodies and note come out in JSON and CSV.
func TestLogsRequestIDAndBodies(t *testing.T) {
	a := logEntry("/ccpayment/api/token", 200, 100, "", "")
	a.RequestID, a.Note = "req_a", "the JSON body came with Content-Type text/plain, read as JSON anyway"
	b := logEntry("/ccpayment/api/walletPay", 200, 68, "INV-1", "hash_key mismatch on total")
	b.RequestID, b.RequestBody, b.AnswerBody = "client-id-7", `{"merchant_key":"$2y$••••TgXk"}`, `{"status_code":68}`
	out, _, err := runLogs(t, render.JSON, []sandbox.LogEntry{a, b}, nil, "--request-id", "client-id-7")
	if err != nil || strings.Count(out, "\n") != 1 || !strings.Contains(out, `"request_id":"client-id-7"`) ||
		!strings.Contains(out, `"request_body":"{\"merchant_key\":\"$2y$••••TgXk\"}"`) || !strings.Contains(out, `"answer_body":"{\"status_code\":68}"`) {
		t.Errorf("--request-id, json: %v\n%s", err, out)
	}
	out, _, err = runLogs(t, render.CSV, []sandbox.LogEntry{a, b}, nil, "--request-id", "req_a")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if err != nil || len(lines) != 2 || !strings.HasSuffix(lines[0], ",fault,request_id,note,request_body,answer_body") || !strings.Contains(lines[1], ",req_a,") ||
		!strings.Contains(lines[1], "read as JSON anyway") {
		t.Errorf("--request-id, csv: %v\n%s", err, out)
	}
}
