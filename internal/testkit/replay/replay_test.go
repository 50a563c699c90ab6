package replay

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
)

// recordingTB is a testing.TB that keeps its failures instead of failing.
type recordingTB struct {
	testing.TB
	failures []string
}

func (r *recordingTB) Helper() {}
func (r *recordingTB) Errorf(format string, args ...any) {
	r.failures = append(r.failures, fmt.Sprintf(format, args...))
}
func (r *recordingTB) Fatalf(format string, args ...any) { r.Errorf(format, args...) }

// TestReplay: an expected request gets its file, one for a field's value
// wins over the path's; an unexpected request, and a file whose README
// names no source for it, fail the test.
func TestReplay(t *testing.T) {
	tb := &recordingTB{TB: t}
	s := New(tb)
	s.Answer(http.MethodPost, "/api/x", 201, "testdata/known.json")
	s.AnswerText(http.MethodPost, "/api/y", 200, `{"status_code":1}`)
	post := func(path, body string) int {
		resp, err := http.Post(s.URL+path, "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if got := post("/api/x", `{}`); got != 201 || len(tb.failures) != 0 {
		t.Errorf("expected request: %d %v", got, tb.failures)
	}
	s.AnswerFor(http.MethodPost, "/api/x", "invoice_id", "A", 202, "testdata/known.json")
	if a, b := post("/api/x", `{"invoice_id":"A"}`), post("/api/x", `{"invoice_id":"B"}`); a != 202 || b != 201 {
		t.Errorf("by field: %d %d", a, b)
	}
	if post("/api/z", `{}`); len(tb.failures) != 1 || !strings.Contains(tb.failures[0], "unexpected request POST /api/z") {
		t.Errorf("unexpected request: %v", tb.failures)
	}
	s.Answer(http.MethodPost, "/api/x", 200, "testdata/unknown.json")
	if len(tb.failures) != 2 || !strings.Contains(tb.failures[1], "no provenance") {
		t.Errorf("a file without provenance: %v", tb.failures)
	}
	if s.Count("/api/x") != 3 {
		t.Errorf("count: %d", s.Count("/api/x"))
	}
	if last := s.Last("/api/x"); last.Raw != `{"invoice_id":"B"}` || last.Fields["invoice_id"] != "B" || last.Header.Get("Content-Type") != "application/json" {
		t.Errorf("last request: %+v", last)
	}
}

// TestRecorded: the shared recorded answers are found from any package,
// with their provenance.
func TestRecorded(t *testing.T) {
	s := New(t)
	s.Answer(http.MethodPost, "/api/token", 200, Recorded("token.json"))
}

// TestAnswerOnce: answers given once come in order, with their headers,
// before the standing answer.
func TestAnswerOnce(t *testing.T) {
	s := New(t)
	s.Answer(http.MethodGet, "/api/x", 200, "testdata/known.json")
	s.AnswerTextOnce(http.MethodGet, "/api/x", 503, `{}`, "Retry-After", "2")
	s.AnswerOnce(http.MethodGet, "/api/x", 202, "testdata/known.json")
	var got []string
	for range 3 {
		resp, err := http.Get(s.URL + "/api/x")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		got = append(got, fmt.Sprint(resp.StatusCode, " ", resp.Header.Get("Retry-After")))
	}
	if strings.Join(got, ",") != "503 2,202 ,200 " {
		t.Errorf("answers %q, want 503 with Retry-After, then 202, then the standing 200", got)
	}
}

// TestAnswerTextFor: a made-up answer for one field's value is that
// value's alone; the others get the path's answer.
func TestAnswerTextFor(t *testing.T) {
	s := New(t)
	s.AnswerText(http.MethodPost, "/api/x", 200, `{"status_code":100}`)
	s.AnswerTextFor(http.MethodPost, "/api/x", "invoice_id", "PEND-1", 200, `{"status_code":69}`)
	var got []string
	for _, inv := range []string{"PEND-1", "PAID-1"} {
		resp, err := http.Post(s.URL+"/api/x", "application/json", strings.NewReader(`{"invoice_id":"`+inv+`"}`))
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		got = append(got, string(body))
	}
	if strings.Join(got, ",") != `{"status_code":69},{"status_code":100}` {
		t.Errorf("answers %q, want 69 for PEND-1 only", got)
	}
}

// TestAnswerEcho: an echoing answer holds the request's fields where its
// template names them — a string escaped as PHP's json_encode writes it
// (`/` as `\/`), a number as sent — and a field the request lacks fails
// the test.
func TestAnswerEcho(t *testing.T) {
	tb := &recordingTB{TB: t}
	s := New(tb)
	s.AnswerEcho(http.MethodPost, "/api/refund", 200, `{"status_code":100,"invoice_id":"{{invoice_id}}","error":"hash_key={{hash_key}}","amount":{{amount}}}`)
	post := func(body string) string {
		resp, err := http.Post(s.URL+"/api/refund", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		got, _ := io.ReadAll(resp.Body)
		return string(got)
	}
	got := post(`{"invoice_id":"INV-1","hash_key":"a/b\"c<d","amount":50.00}`)
	if want := `{"status_code":100,"invoice_id":"INV-1","error":"hash_key=a\/b\"c<d","amount":50.00}`; got != want || len(tb.failures) != 0 {
		t.Errorf("echo:\n got %s\nwant %s\n%v", got, want, tb.failures)
	}
	if post(`{"invoice_id":"INV-2","amount":1}`); len(tb.failures) != 1 || !strings.Contains(tb.failures[0], `no field "hash_key" to echo`) {
		t.Errorf("a field the request lacks: %v", tb.failures)
	}
}
