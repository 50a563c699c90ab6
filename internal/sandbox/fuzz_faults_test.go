package sandbox

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/paycli/paycli/internal/redact"
)

// FuzzMaskedBody: whatever a client sends, the body the log keeps holds
// no card number and no value of a secret field it was sent in.
func FuzzMaskedBody(f *testing.F) {
	f.Add("application/json", `{"cc_no": "4355084355084358", "app_secret": "verysecretvalue123", "items": [{"name": "4355 0843 5508 4358"}]}`)
	f.Add("application/x-www-form-urlencoded", "card_number=4355084355084358&hash_key=abcdefghijklmnopq")
	f.Add("text/html", "<html>4355084355084358</html>")
	f.Add("application/json", `[1, "4355084355084358", {"token": 12345678901234567}]`)
	f.Fuzz(func(t *testing.T, contentType, body string) {
		c := &bodyCapture{}
		c.Write([]byte(body))
		got := maskedBody(contentType, c)
		if redact.HasCard(got) {
			t.Fatalf("a card number is kept: %q", got)
		}
		var v map[string]any
		if json.Unmarshal([]byte(body), &v) == nil {
			for k, val := range v {
				// A secret's value that is also part of another field's
				// (non-secret) text may be seen there: only its own field
				// must not show it.
				if s, ok := val.(string); ok && redact.IsSecretField(k) && len(s) > 12 && strings.Count(body, s) == 1 && strings.Contains(got, s) {
					t.Fatalf("the secret %s is kept: %q", k, got)
				}
			}
		}
	})
}

// FuzzRequestID: the answer's X-Request-Id is always sane, echoed only
// when the client's was.
func FuzzRequestID(f *testing.F) {
	for _, s := range []string{"", "ci-42", "a b", "\x00", strings.Repeat("x", 200), "é"} {
		f.Add(s)
	}
	g := &Gateway{opts: Options{NewRequestID: NewRequestIDs(nil)}}
	f.Fuzz(func(t *testing.T, sent string) {
		req := httptest.NewRequest("GET", "/", nil)
		req.Header[RequestIDHeader] = []string{sent}
		rec := httptest.NewRecorder()
		id := g.requestID(rec, req)
		if !SaneRequestID(id) || rec.Header().Get(RequestIDHeader) != id || (SaneRequestID(sent) != (id == sent)) {
			t.Fatalf("sent %q: id %q", sent, id)
		}
	})
}

// FuzzJSONProblem: any body that is not one JSON object gets a
// description; the fault values' peek never fails on one.
func FuzzJSONProblem(f *testing.F) {
	for _, s := range []string{`{"a":`, `[1]`, `"x"`, `{"a": 1}`, "{\n\"a\" 1}", `{"total": "500.50"}`, `wallet_transient_token=a.b.c`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		trimmed := strings.TrimSpace(body)
		var v any
		if json.Unmarshal([]byte(trimmed), &v) != nil || !isObject(v) {
			if trimmed != "" && jsonProblem(trimmed) == "" {
				t.Fatalf("no problem named for %q", trimmed)
			}
		}
		r := httptest.NewRequest(http.MethodPost, Base+"/api/paySmart2D", strings.NewReader(body))
		g := &Gateway{opts: Options{MaxBodyBytes: DefaultMaxBodyBytes}}
		use, _ := magicUseOf(r)
		g.findMagic(r, use)
		var rest bytes.Buffer
		rest.ReadFrom(r.Body)
		if rest.String() != body {
			t.Fatalf("the peek changed the body: %q", rest.String())
		}
		walletTokenAmount(body)
	})
}

func isObject(v any) bool { _, ok := v.(map[string]any); return ok }
