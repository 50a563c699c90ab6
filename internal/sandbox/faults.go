package sandbox

import (
	"bytes"
	"fmt"
	"github.com/paycli/paycli/internal/pause"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// FaultHeader asks a sandbox started with faults enabled (`paycli sandbox
// serve --faults`) to misbehave on one request. Its value is one or more
// comma-separated directives:
//
//	delay=2s       wait before handling the request (then answer normally)
//	status=503     answer this HTTP status without handling the request
//	body=html      with status, answer an HTML error page (as a load
//	               balancer in front of the gateway does) instead of JSON
//	reset=before   reset the connection without handling the request
//	reset=after    handle the request (a payment is made and stored), then
//	               reset the connection instead of answering
//	truncate=20    handle the request, then send only the first 20 bytes of
//	               the body and close the connection
//
// Without faults enabled the header is ignored.
const FaultHeader = "X-Paycli-Fault"

// fault is a parsed FaultHeader.
type fault struct {
	delay    time.Duration
	status   int
	reset    string // "", "before" or "after"
	truncate int    // bytes of body to send; -1 for no truncation
	html     bool   // a status fault answers an HTML page
	// hang holds the request without an answer (magic values only).
	hang bool
	// dropHalf handles the request, then sends half of the answer's body
	// and closes the connection (magic values only).
	dropHalf bool
}

// parseFault reads a FaultHeader value.
func parseFault(v string) (fault, error) {
	ft := fault{truncate: -1}
	for _, part := range strings.Split(v, ",") {
		name, val, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok {
			return ft, fmt.Errorf("%q is not name=value", part)
		}
		var err error
		switch name {
		case "delay":
			ft.delay, err = time.ParseDuration(val)
		case "status":
			ft.status, err = strconv.Atoi(val)
			if err == nil && (ft.status < 100 || ft.status > 599) {
				err = fmt.Errorf("status %d out of range", ft.status)
			}
		case "reset":
			if val != "before" && val != "after" {
				err = fmt.Errorf("reset must be before or after")
			}
			ft.reset = val
		case "body":
			if val != "html" && val != "json" {
				err = fmt.Errorf("body must be html or json")
			}
			ft.html = val == "html"
		case "truncate":
			ft.truncate, err = strconv.Atoi(val)
			if err == nil && ft.truncate < 0 {
				err = fmt.Errorf("truncate must not be negative")
			}
		default:
			err = fmt.Errorf("unknown directive %q", name)
		}
		if err != nil {
			return ft, fmt.Errorf("%s: %w", FaultHeader, err)
		}
	}
	return ft, nil
}

// serveWithFault serves r through next, misbehaving as its FaultHeader asks.
func serveWithFault(next http.Handler, w http.ResponseWriter, r *http.Request) {
	if rec := recordOf(w); rec != nil {
		rec.fault = r.Header.Get(FaultHeader)
	}
	ft, err := parseFault(r.Header.Get(FaultHeader))
	if err != nil {
		explain(w, explanation{field: FaultHeader, why: "malformed fault header: " + err.Error()})
		writeJSON(w, http.StatusBadRequest, map[string]any{"message": err.Error()})
		return
	}
	serveFault(next, w, r, ft)
}

// serveFault serves r through next, misbehaving as ft says.
func serveFault(next http.Handler, w http.ResponseWriter, r *http.Request, ft fault) {
	if ft.delay > 0 || ft.hang {
		// Read whole, so that a client that gives up while the fault
		// waits cancels the request's context.
		peekBody(r, DefaultMaxBodyBytes)
	}
	if ft.hang {
		hang(w, r)
		return
	}
	if ft.delay > 0 {
		if pause.For(r.Context(), ft.delay) != nil {
			cutOff(w, r, "delay")
			return
		}
	}
	if ft.reset == "before" {
		resetConnection(w)
		return
	}
	if ft.status != 0 && ft.html {
		text := fmt.Sprintf("%d %s", ft.status, http.StatusText(ft.status))
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(ft.status)
		fmt.Fprintf(w, "<html>\r\n<head><title>%s</title></head>\r\n<body>\r\n<center><h1>%s</h1></center>\r\n</body>\r\n</html>\r\n", text, text)
		return
	}
	if ft.status != 0 {
		writeJSON(w, ft.status, map[string]any{"message": fmt.Sprintf("sandbox fault: HTTP %d", ft.status)})
		return
	}
	if ft.reset == "" && ft.truncate < 0 && !ft.dropHalf {
		next.ServeHTTP(w, r)
		return
	}
	rec := &bufferedResponse{header: http.Header{}, code: http.StatusOK, rec: recordOf(w)}
	next.ServeHTTP(rec, r)
	if ft.reset == "after" {
		resetConnection(w)
		return
	}
	if ft.dropHalf {
		ft.truncate = rec.body.Len() / 2
	}
	writeTruncated(w, rec, ft.truncate)
}

// resetConnection closes the client's connection with a TCP reset (linger
// 0) where the platform allows, so the client sees "connection reset".
func resetConnection(w http.ResponseWriter) {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		panic(http.ErrAbortHandler) // not hijackable (HTTP/2): abort the stream
	}
	if tcp, ok := conn.(*net.TCPConn); ok {
		_ = tcp.SetLinger(0)
	}
	_ = conn.Close()
}

// writeTruncated sends rec's status line and headers, with the full
// Content-Length, then only n bytes of its body, and closes the connection.
func writeTruncated(w http.ResponseWriter, rec *bufferedResponse, n int) {
	conn, buf, err := http.NewResponseController(w).Hijack()
	if err != nil {
		panic(http.ErrAbortHandler)
	}
	defer conn.Close()
	body := rec.body.Bytes()
	var head bytes.Buffer
	fmt.Fprintf(&head, "HTTP/1.1 %d %s\r\n", rec.code, http.StatusText(rec.code))
	hdr := rec.header.Clone()
	if id := w.Header().Get(RequestIDHeader); id != "" {
		hdr.Set(RequestIDHeader, id)
	}
	hdr.Set("Content-Length", strconv.Itoa(len(body)))
	hdr.Set("Connection", "close")
	_ = hdr.Write(&head)
	head.WriteString("\r\n")
	if n > len(body) {
		n = len(body)
	}
	_, _ = buf.Write(head.Bytes())
	_, _ = buf.Write(body[:n])
	_ = buf.Flush()
}

// bufferedResponse keeps a handler's answer in memory so a fault can decide
// what of it reaches the client.
type bufferedResponse struct {
	header http.Header
	code   int
	body   bytes.Buffer
	// rec is the request log's record of the request, nil when unlogged.
	rec *requestRecord
}

func (b *bufferedResponse) requestRecord() *requestRecord { return b.rec }

func (b *bufferedResponse) Header() http.Header         { return b.header }
func (b *bufferedResponse) WriteHeader(code int)        { b.code = code }
func (b *bufferedResponse) Write(p []byte) (int, error) { return b.body.Write(p) }
