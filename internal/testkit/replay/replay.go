// Package replay is the gateway's recorded-answer server for tests: an
// httptest server that answers each expected request with a file of a
// real answer, as another client recorded it or a public page documents
// it. Every file must have its provenance: a row of the README.md beside
// it names the file and its source, or the test fails. A request nobody
// told the server to expect fails the test, so a test cannot pass on an
// answer it did not mean to give.
package replay

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// Server replays recorded answers, keyed by method and path (and, where
// an answer is given for one, a request field's value).
type Server struct {
	*httptest.Server
	t testing.TB

	mu      sync.Mutex
	answers map[route]answer
	// once holds the answers given for one request each, in order; they
	// come before the standing answer of their route.
	once     map[route][]answer
	requests []Request
}

// Request is a request as the server saw it, for the tests that check
// what the client sent.
type Request struct {
	Method, Path string
	// Query is the raw query and Header the request's headers.
	Query  string
	Header http.Header
	// Raw is the body as sent; Fields its JSON top-level fields (nil for
	// another body).
	Raw    string
	Fields map[string]any
}

// route is what an answer is given for: a method and path, and a request
// field's value when field is set.
type route struct{ method, path, field, value string }

type answer struct {
	status int
	body   []byte
	// html: the file is a page (.html), answered as text/html.
	html bool
	// header holds the response headers a made-up answer sets.
	header http.Header
	// echo: body is a template whose {{field}}s are filled from the
	// request (AnswerEcho).
	echo bool
}

// New starts a Server that expects nothing yet; it closes when the test
// ends.
func New(t testing.TB) *Server {
	t.Helper()
	s := &Server{t: t, answers: map[route]answer{}, once: map[route][]answer{}}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

// Answer makes the server answer method path with the file's bytes and
// HTTP status, as application/json (text/html for a .html file, a page
// the gateway answers); it replaces an earlier answer for the
// same request. The file's README.md must name it (its provenance).
func (s *Server) Answer(method, path string, status int, file string) {
	s.t.Helper()
	s.AnswerFor(method, path, "", "", status, file)
}

// AnswerFor is Answer for only the requests whose JSON body holds field
// with the text value; they take it over an answer without a field.
func (s *Server) AnswerFor(method, path, field, value string, status int, file string) {
	s.t.Helper()
	a := s.read(status, file)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.answers[route{method, path, field, value}] = a
}

// AnswerOnce is Answer for the next request to method path alone: answers
// given once are used in the order given, before the standing answer (a
// token refused, then a fresh one).
func (s *Server) AnswerOnce(method, path string, status int, file string) {
	s.t.Helper()
	a := s.read(status, file)
	s.mu.Lock()
	defer s.mu.Unlock()
	r := route{method: method, path: path}
	s.once[r] = append(s.once[r], a)
}

// AnswerTextOnce is AnswerText for the next request to method path alone,
// as AnswerOnce, with the response headers given as name, value pairs
// (Retry-After, Set-Cookie).
func (s *Server) AnswerTextOnce(method, path string, status int, body string, header ...string) {
	h := http.Header{}
	for i := 0; i+1 < len(header); i += 2 {
		h.Add(header[i], header[i+1])
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	r := route{method: method, path: path}
	s.once[r] = append(s.once[r], answer{status: status, body: []byte(body), header: h})
}

// read is the answer of a file with its provenance.
func (s *Server) read(status int, file string) answer {
	s.t.Helper()
	body, err := os.ReadFile(file)
	if err != nil {
		s.t.Fatalf("replay: %v", err)
	}
	if err := provenance(file); err != nil {
		s.t.Fatalf("replay: %v", err)
	}
	return answer{status: status, body: body, html: filepath.Ext(file) == ".html"}
}

// AnswerText makes the server answer method path with body, a shape the
// test made up: for what no member writes, which the client must refuse,
// or an answer whose words alone the test decides (the raw api command
// prints whatever comes). A recorded answer is always a file with its
// provenance.
func (s *Server) AnswerText(method, path string, status int, body string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.answers[route{method: method, path: path}] = answer{status: status, body: []byte(body)}
}

// AnswerTextFor is AnswerText for only the requests whose JSON body holds
// field with the text value, as AnswerFor (a lookup of one invoice among
// others).
func (s *Server) AnswerTextFor(method, path, field, value string, status int, body string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.answers[route{method, path, field, value}] = answer{status: status, body: []byte(body)}
}

// AnswerEcho is AnswerText for an answer that echoes the request (a
// refund naming the invoice it was sent, an error quoting the hash_key it
// got): each {{field}} in template is that top-level field of the
// request's JSON body, a string's text escaped as the gateway's PHP
// escapes it in a JSON string (json_encode: `/` as `\/`; the template
// writes the quotes), any other value its JSON. A request without the
// field fails the test.
func (s *Server) AnswerEcho(method, path string, status int, template string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.answers[route{method: method, path: path}] = answer{status: status, body: []byte(template), echo: true}
}

// Requests returns the requests seen so far, in order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// Last is the last request to path; it fails the test when there was none.
func (s *Server) Last(path string) Request {
	s.t.Helper()
	reqs := s.Requests()
	for i := len(reqs) - 1; i >= 0; i-- {
		if reqs[i].Path == path {
			return reqs[i]
		}
	}
	s.t.Fatalf("replay: no request to %s", path)
	return Request{}
}

// Count is how many requests to path the server has seen.
func (s *Server) Count(path string) int {
	n := 0
	for _, r := range s.Requests() {
		if r.Path == path {
			n++
		}
	}
	return n
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	var fields map[string]any
	_ = json.Unmarshal(raw, &fields)
	s.mu.Lock()
	s.requests = append(s.requests, Request{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery,
		Header: r.Header.Clone(), Raw: string(raw), Fields: fields})
	a, ok := s.lookup(r.Method, r.URL.Path, fields)
	s.mu.Unlock()
	if !ok {
		s.t.Errorf("replay: unexpected request %s %s", r.Method, r.URL.Path)
		http.Error(w, "replay: no answer recorded for this request", http.StatusNotImplemented)
		return
	}
	if a.echo {
		a.body = s.fill(string(a.body), raw)
	}
	w.Header().Set("Content-Type", "application/json")
	if a.html {
		w.Header().Set("Content-Type", "text/html; charset=UTF-8")
	}
	for k, v := range a.header {
		w.Header()[k] = v
	}
	w.WriteHeader(a.status)
	_, _ = w.Write(a.body)
}

// fill is template with each {{field}} replaced by the field of the JSON
// body raw, as AnswerEcho says.
func (s *Server) fill(template string, raw []byte) []byte {
	var fields map[string]any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	_ = dec.Decode(&fields)
	var out strings.Builder
	for {
		before, rest, ok := strings.Cut(template, "{{")
		out.WriteString(before)
		if !ok {
			return []byte(out.String())
		}
		name, after, _ := strings.Cut(rest, "}}")
		template = after
		v, ok := fields[name]
		if !ok {
			s.t.Errorf("replay: the request has no field %q to echo", name)
			continue
		}
		out.WriteString(phpJSON(v))
	}
}

// phpJSON is v as the gateway's PHP writes it in JSON: a string's text
// without its quotes, with `/` escaped as json_encode does; any other
// value its JSON.
func phpJSON(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
	text := strings.TrimSuffix(b.String(), "\n")
	if _, ok := v.(string); ok {
		text = strings.ReplaceAll(strings.TrimSuffix(strings.TrimPrefix(text, `"`), `"`), "/", `\/`)
	}
	return text
}

// lookup finds the answer for a request: one given for a field it holds,
// else one for its method and path alone. s.mu is held.
func (s *Server) lookup(method, path string, fields map[string]any) (answer, bool) {
	if q := s.once[route{method: method, path: path}]; len(q) > 0 {
		s.once[route{method: method, path: path}] = q[1:]
		return q[0], true
	}
	for r, a := range s.answers {
		if r.method == method && r.path == path && r.field != "" {
			if v, ok := fields[r.field].(string); ok && v == r.value {
				return a, true
			}
		}
	}
	a, ok := s.answers[route{method: method, path: path}]
	return a, ok
}

// Recorded is the path of a file of the gateway's recorded answers
// (internal/gateway/testdata/recorded), for the tests of any package:
// there is one set of recorded answers, beside the client that reads them.
func Recorded(name string) string {
	_, here, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(here), "..", "..", "gateway", "testdata", "recorded", name)
}

// provenance checks that the README.md beside file names it in a table
// row that says more than the name: where the answer comes from.
func provenance(file string) error {
	readme, err := os.ReadFile(filepath.Join(filepath.Dir(file), "README.md"))
	if err != nil {
		return err
	}
	name := []byte("`" + filepath.Base(file) + "`")
	for _, line := range bytes.Split(readme, []byte("\n")) {
		if bytes.HasPrefix(bytes.TrimSpace(line), []byte("| "+string(name))) && bytes.Count(line, []byte("|")) >= 4 {
			return nil
		}
	}
	return &missingProvenance{file: file}
}

type missingProvenance struct{ file string }

func (e *missingProvenance) Error() string {
	return e.file + " has no provenance: its README.md names no source for it in a table row"
}
