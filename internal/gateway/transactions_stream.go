package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"unicode/utf8"
)

// MaxLedgerBytes bounds a getTransactions answer, which holds a whole day
// or range in one body (§11.12 documents no paging): about 2 KB a row, so
// some 500,000 rows. It is read row by row, never held whole; every other
// answer is bounded by MaxResponseBytes.
const MaxLedgerBytes = 1 << 30

// rowStream is the result of a listing read as it arrives: row is called
// with each element of the answer's data array, in order, as soon as it
// has been read. A body that is not a success object with a data array
// (a refusal, an array of one object, anything unreadable) is read whole
// as any answer, and its rows, if any, handed on the same way.
type rowStream struct {
	row  func(raw []byte) error
	rows int
	// stopped: row asked for no more (the caller stopped reading).
	stopped bool
}

// errStopRows is row's answer when the caller wants no more rows.
var errStopRows = errors.New("no more rows wanted")

// UnmarshalJSON hands on the rows of a data array read whole (the
// ordinary path: see rowStream).
func (rs *rowStream) UnmarshalJSON(data []byte) error {
	var rows []json.RawMessage
	if err := json.Unmarshal(data, &rows); err != nil {
		return err
	}
	for _, raw := range rows {
		if err := rs.hand(raw); err != nil {
			return err
		}
	}
	return nil
}

func (rs *rowStream) hand(raw []byte) error {
	rs.rows++
	err := rs.row(raw)
	if errors.Is(err, errStopRows) {
		rs.stopped = true
	}
	return err
}

// prefixRecorder keeps what is read through it until stop, at most
// MaxResponseBytes: the start of a body that may yet be read whole.
type prefixRecorder struct {
	r       io.Reader
	buf     []byte
	stopped bool
	n       int64
	// readErr is the body's read error, if one broke it off.
	readErr error
}

var errPrefixTooLong = errors.New("the answer's start is too long to read whole")

func (p *prefixRecorder) Read(b []byte) (int, error) {
	n, err := p.r.Read(b)
	p.n += int64(n)
	if err != nil && err != io.EOF {
		p.readErr = err
	}
	if !p.stopped {
		p.buf = append(p.buf, b[:n]...)
		if len(p.buf) > MaxResponseBytes && err == nil {
			err = errPrefixTooLong
		}
	}
	return n, err
}

// streamRows reads a 2xx answer whose data is an array of rows, handing
// each row to rs as it is read: the body is bounded by MaxLedgerBytes
// and never held whole. Each row is checked as the ordinary path checks
// a body (the dialect's shapes, UTF-8) and scrubbed of the secrets sent;
// the members beside the rows are then checked as any answer
// (checkResponse), so a status_code that follows the rows and is no
// success still ends the read in its error. A body that turns out to be
// something else before its first row is returned as prefix (what was
// read of it), for the caller to read whole as any answer.
func (c *Client) streamRows(ctx context.Context, ep endpoint, resp *http.Response, secrets []string, rs *rowStream) (env *envelope, prefix []byte, err error) {
	rec := &prefixRecorder{r: io.LimitReader(resp.Body, MaxLedgerBytes+1)}
	dec := json.NewDecoder(rec)
	fallback := func() (*envelope, []byte, error) {
		b := rec.buf
		if b == nil {
			b = []byte{}
		}
		return nil, b, nil
	}
	tok, err := dec.Token()
	wrapped := tok == json.Delim('[')
	if wrapped && c.dialect.OneObjectArrays {
		tok, err = dec.Token()
	}
	if err != nil || tok != json.Delim('{') {
		return fallback()
	}
	var members Object
	streamed := false
	for dec.More() {
		tok, err := dec.Token()
		key, _ := tok.(string)
		if err != nil {
			return c.streamBroke(ctx, ep, resp, rec, rs, streamed, err, fallback)
		}
		if key == "data" && streamed {
			// Its rows were handed on: a second array would be read twice
			// or be the one the answer means; neither can be told.
			return c.streamBroke(ctx, ep, resp, rec, rs, streamed, errors.New("the answer has two data members"), fallback)
		}
		if key != "data" {
			var raw json.RawMessage
			if err := dec.Decode(&raw); err != nil {
				return c.streamBroke(ctx, ep, resp, rec, rs, streamed, err, fallback)
			}
			if key == "status_code" && !streamed && !isSuccessCode(raw) {
				return fallback() // a refusal: read whole, as any answer
			}
			members = append(members, Member{key, raw})
			continue
		}
		if tok, err := dec.Token(); err != nil || tok != json.Delim('[') {
			return fallback()
		}
		rec.stopped, rec.buf, streamed = true, nil, true
		if err := c.readRows(ep, resp, dec, secrets, rs); err != nil {
			if rs.stopped {
				return nil, nil, err
			}
			return c.streamBroke(ctx, ep, resp, rec, rs, streamed, err, fallback)
		}
		members = append(members, Member{"data", json.RawMessage("[]")})
	}
	if !streamed {
		return fallback()
	}
	if err := expectEnd(dec, wrapped); err != nil {
		return c.streamBroke(ctx, ep, resp, rec, rs, streamed, err, fallback)
	}
	return c.checkRest(ep, resp, secrets, members, rs)
}

// readRows hands on each element of the data array dec stands in, then
// reads the array's end.
func (c *Client) readRows(ep endpoint, resp *http.Response, dec *json.Decoder, secrets []string, rs *rowStream) error {
	sc := newScrubber(secrets)
	var row rawRow
	for dec.More() {
		if err := dec.Decode(&row); err != nil {
			return err
		}
		raw := row.b
		if !utf8.Valid(raw) {
			return c.badResponse(ep, resp, "the body is not valid UTF-8")
		}
		if field := numericOrderID(raw); field != "" && !c.dialect.NumericOrderIDs {
			shapeErr := c.dialect.foreign("has " + field + " as a JSON number")
			e := c.badResponse(ep, resp, shapeErr.Problem)
			e.DataErr = shapeErr
			return e
		}
		if err := rs.hand(sc.scrub(raw)); err != nil {
			if rs.stopped {
				return err
			}
			e := c.badResponse(ep, resp, "the data does not match the protocol: "+cleanDescription(dataProblem(err)))
			e.DataErr = err
			return e
		}
	}
	_, err := dec.Token()
	return err
}

// rawRow is a row as the decoder scanned it, not copied: row hands it
// on before the next Decode reuses the decoder's buffer.
type rawRow struct{ b []byte }

func (r *rawRow) UnmarshalJSON(b []byte) error {
	r.b = b
	return nil
}

// expectEnd reads the answer's end: its object's, the array's of one
// object it may be wrapped in, and nothing after.
func expectEnd(dec *json.Decoder, wrapped bool) error {
	want := []json.Delim{'}'}
	if wrapped {
		want = append(want, ']')
	}
	for _, d := range want {
		if tok, err := dec.Token(); err != nil || tok != d {
			return cmpErr(err, "the answer is more than one object")
		}
	}
	if _, err := dec.Token(); err != io.EOF {
		return cmpErr(err, "the body has data after its answer")
	}
	return nil
}

func cmpErr(err error, problem string) error {
	if err != nil {
		return err
	}
	return errors.New(problem)
}

// checkRest checks the members beside the rows as any answer is checked,
// their data an empty array.
func (c *Client) checkRest(ep endpoint, resp *http.Response, secrets []string, members Object, rs *rowStream) (*envelope, []byte, error) {
	rest, err := members.MarshalJSON()
	if err != nil {
		return nil, nil, err
	}
	env, err := c.checkResponse(ep, resp, scrub(rest, secrets), rs)
	return env, nil, err
}

// streamBroke is the error of a body that broke off or went wrong while
// streamed: before its first row it is read whole as any answer (which
// explains it); after, an answer that could not be read, never a
// transport error that a retry would read again: the rows already handed
// on must not be handed on twice.
func (c *Client) streamBroke(ctx context.Context, ep endpoint, resp *http.Response, rec *prefixRecorder, rs *rowStream, streamed bool,
	err error, fallback func() (*envelope, []byte, error)) (*envelope, []byte, error) {
	var apiErr *APIError
	var syntaxErr *json.SyntaxError
	var stalled *stalledError
	problem := fmt.Sprintf("the body broke off after %d rows", rs.rows)
	switch {
	case errors.As(err, &apiErr):
		return nil, nil, err
	case !streamed:
		return fallback()
	case rec.n > MaxLedgerBytes:
		problem = "the body is larger than " + byteSize(MaxLedgerBytes)
	case rec.readErr != nil && rs.rows == 0:
		return nil, nil, c.requestError(ctx, ep, true, rec.readErr)
	case errors.As(rec.readErr, &stalled):
		problem = fmt.Sprintf("the body stalled after %d rows: %v", rs.rows, stalled)
	case errors.As(err, &syntaxErr):
		problem = fmt.Sprintf("the body is not valid JSON (offset %d)", syntaxErr.Offset)
	case rec.readErr == nil && !errors.Is(err, io.ErrUnexpectedEOF):
		problem = "the body does not match the protocol: " + cleanDescription(err.Error())
	}
	return nil, nil, c.badResponse(ep, resp, problem)
}

// isSuccessCode reports whether a status_code member says success.
func isSuccessCode(raw json.RawMessage) bool {
	var code flexInt
	return json.Unmarshal(raw, &code) == nil && int(code) == StatusSuccess
}
