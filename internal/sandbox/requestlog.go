package sandbox

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/paycli/paycli/internal/redact"
)

// RequestLogFile is the request log's file in the state folder; when it
// reaches MaxRequestLogBytes it becomes RequestLogFile+".1" (replacing the
// previous one) and a new file starts, so the log keeps the last 4 to 8 MiB
// of requests (docs/sandbox.md, Request log).
const RequestLogFile = "requests.log"

// MaxRequestLogBytes bounds each of the request log's two files.
const MaxRequestLogBytes = 4 << 20

// LogEntry is one request the sandbox answered, as the request log keeps
// it (one JSON object per line) and `paycli sandbox logs` prints it. It
// holds no secret: invoice ids that are card numbers and the values an
// explanation quotes are masked before the entry is written.
type LogEntry struct {
	Time       time.Time `json:"time"`
	Method     string    `json:"method"`
	Path       string    `json:"path"`
	HTTPStatus int       `json:"http_status"`
	// StatusCode is the answer's status_code; nil for an answer without
	// one (HTTP 401, a web page).
	StatusCode *int    `json:"status_code"`
	DurationMS float64 `json:"duration_ms"`
	Invoice    string  `json:"invoice,omitempty"`
	// Why says why the request was refused, or what decided its outcome
	// (a decline, a pending sale); empty for a plain success.
	Why string `json:"why,omitempty"`
	// Field is the request field at fault; Got is what the request said
	// (for a hash_key mismatch, what the hash_key says) and Want what the
	// sandbox expected.
	Field string `json:"field,omitempty"`
	Got   string `json:"got,omitempty"`
	Want  string `json:"want,omitempty"`
	// Fault is the X-Paycli-Fault directive injected into the answer.
	Fault string `json:"fault,omitempty"`
	// Note is a remark on a request answered anyway: a JSON body sent
	// without a JSON Content-Type.
	Note string `json:"note,omitempty"`
	// RequestID is the answer's X-Request-Id.
	RequestID string `json:"request_id,omitempty"`
	// RequestBody and AnswerBody are the bodies, masked, when the sandbox
	// keeps them (`serve --bodies`).
	RequestBody string `json:"request_body,omitempty"`
	AnswerBody  string `json:"answer_body,omitempty"`
}

// Refused reports whether the entry is a request the sandbox did not
// answer with a success: an HTTP error, or a status_code other than 100
// and 101.
func (e LogEntry) Refused() bool {
	if e.HTTPStatus >= 400 || e.HTTPStatus == 0 {
		return true
	}
	return e.StatusCode != nil && *e.StatusCode != 100 && *e.StatusCode != 101
}

// RequestLog appends entries to the request log of a state folder. Each
// entry is written with one write(2) before the answer leaves the
// process (the answer is still buffered in net/http), so it survives the
// process being killed; the log is a diagnostic aid and is not fsynced
// (the sales are). One process at a time writes it: the one that holds
// the state's lock.
type RequestLog struct {
	mu   sync.Mutex
	dir  string
	f    *os.File
	size int64
	max  int64
}

// OpenRequestLog opens (creating if needed) the request log in dir. A
// last line cut short by a crash is ended, so the next entry starts on a
// line of its own.
func OpenRequestLog(dir string) (*RequestLog, error) {
	l := &RequestLog{dir: dir, max: MaxRequestLogBytes}
	if err := l.open(); err != nil {
		return nil, err
	}
	return l, nil
}

func (l *RequestLog) open() error {
	f, err := os.OpenFile(filepath.Join(l.dir, RequestLogFile), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("sandbox request log: %w", err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return fmt.Errorf("sandbox request log: %w", err)
	}
	l.f, l.size = f, st.Size()
	if l.size > 0 {
		last := make([]byte, 1)
		if r, err := os.Open(f.Name()); err == nil {
			_, rerr := r.ReadAt(last, l.size-1)
			r.Close()
			if rerr == nil && last[0] != '\n' {
				n, _ := f.Write([]byte{'\n'})
				l.size += int64(n)
			}
		}
	}
	return nil
}

// Append writes one entry. A failure to write is returned, never fatal
// to the request: the answer matters more than its log line.
func (l *RequestLog) Append(e LogEntry) error {
	line, err := json.Marshal(e)
	if err != nil {
		return err
	}
	line = append(line, '\n')
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return errors.New("sandbox request log: closed")
	}
	if l.size > 0 && l.size+int64(len(line)) > l.max {
		if err := l.rotate(); err != nil {
			return err
		}
	}
	n, err := l.f.Write(line)
	l.size += int64(n)
	return err
}

// rotate makes the current file the previous one and starts a new one.
func (l *RequestLog) rotate() error {
	path := filepath.Join(l.dir, RequestLogFile)
	l.f.Close()
	l.f = nil
	if err := os.Rename(path, path+".1"); err != nil {
		return fmt.Errorf("sandbox request log: %w", err)
	}
	return l.open()
}

// Close closes the log.
func (l *RequestLog) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return nil
	}
	err := l.f.Close()
	l.f = nil
	return err
}

// RemoveRequestLog deletes the request log of dir (`paycli sandbox reset`).
func RemoveRequestLog(dir string) error {
	for _, name := range []string{RequestLogFile + ".1", RequestLogFile} {
		if err := os.Remove(filepath.Join(dir, name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return nil
}

// entryOf is what the log keeps of a request answered through lw.
func entryOf(r *http.Request, lw *logWriter, start, end time.Time) LogEntry {
	rec := &lw.rec
	e := LogEntry{Time: start.UTC(), Method: r.Method, Path: r.URL.Path, HTTPStatus: lw.status,
		DurationMS: float64(end.Sub(start).Microseconds()) / 1000, Invoice: redact.Invoice(rec.invoice),
		Why: redact.Cards(rec.why), Field: rec.field, Got: redact.Cards(rec.got), Want: redact.Cards(rec.want), Fault: rec.fault, Note: rec.note,
		RequestID: rec.requestID, RequestBody: maskedBody(r.Header.Get("Content-Type"), rec.request),
		AnswerBody: maskedBody(lw.Header().Get("Content-Type"), rec.answer)}
	if rec.hasCode {
		code := rec.statusCode
		e.StatusCode = &code
	}
	return e
}

// ReadRequestLog returns the entries of the request log of dir, oldest
// first: the previous file's, then the current one's. Lines that are not
// entries (one cut short by a crash) are left out.
func ReadRequestLog(dir string) ([]LogEntry, error) {
	var entries []LogEntry
	for _, name := range []string{RequestLogFile + ".1", RequestLogFile} {
		f, err := os.Open(filepath.Join(dir, name))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		_, err = readEntries(f, func(e LogEntry) error { entries = append(entries, e); return nil })
		f.Close()
		if err != nil {
			return nil, err
		}
	}
	return entries, nil
}

// readEntries calls fn for each complete line of r that is an entry and
// returns how many bytes of complete lines it read; a last line without
// its newline is left for later (it is being written).
func readEntries(r io.Reader, fn func(LogEntry) error) (int64, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	var done int64
	for {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 && line[len(line)-1] == '\n' {
			done += int64(len(line))
			var e LogEntry
			if json.Unmarshal(bytes.TrimSpace(line), &e) == nil && e.Method != "" {
				if ferr := fn(e); ferr != nil {
					return done, ferr
				}
			}
		}
		if errors.Is(err, io.EOF) {
			return done, nil
		}
		if err != nil {
			return done, err
		}
	}
}

// FollowRequestLog gives backlog the entries the request log of dir holds
// now (ReadRequestLog's), then calls fn for every entry written after
// them, until ctx ends or a callback fails; wait sleeps between looks at
// the file (a context-aware sleep, such as pause.For with an interval).
// Nothing is missed or repeated between the two, and it survives the
// log's rotation, a reset, and a sandbox that starts (or restarts) after
// it.
func FollowRequestLog(ctx context.Context, dir string, wait func(context.Context) error, backlog func([]LogEntry) error, fn func(LogEntry) error) error {
	path := filepath.Join(dir, RequestLogFile)
	// The current file is opened first and read through its descriptor,
	// so entries written while the previous file is read are not lost.
	f, err := os.Open(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	defer func() {
		if f != nil {
			f.Close()
		}
	}()
	var entries []LogEntry
	collect := func(e LogEntry) error { entries = append(entries, e); return nil }
	if prev, err := os.Open(path + ".1"); err == nil {
		_, err = readEntries(prev, collect)
		prev.Close()
		if err != nil {
			return err
		}
	}
	var offset int64
	if f != nil {
		if err := readFrom(f, &offset, collect); err != nil {
			return err
		}
	}
	if err := backlog(entries); err != nil {
		return err
	}
	for {
		if f == nil {
			if g, err := os.Open(path); err == nil {
				f, offset = g, 0
			}
		}
		if f != nil {
			if err := readFrom(f, &offset, fn); err != nil {
				return err
			}
			if cur, err := os.Stat(path); err != nil || !sameFile(f, cur) {
				// Rotated (or removed by a reset): the writer is done
				// with this file; read what it wrote last, then go on
				// with the new one.
				err := readFrom(f, &offset, fn)
				f.Close()
				f = nil
				if err != nil {
					return err
				}
				continue
			}
		}
		if err := wait(ctx); err != nil {
			return err
		}
	}
}

// readFrom reads the entries of f from *offset on, moving *offset past
// the complete lines read.
func readFrom(f *os.File, offset *int64, fn func(LogEntry) error) error {
	if _, err := f.Seek(*offset, io.SeekStart); err != nil {
		return err
	}
	n, err := readEntries(f, fn)
	*offset += n
	return err
}

// sameFile reports whether the open file f is the file cur describes.
func sameFile(f *os.File, cur fs.FileInfo) bool {
	st, err := f.Stat()
	return err == nil && os.SameFile(st, cur)
}
