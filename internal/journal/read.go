package journal

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// Attempt is an intent paired with its outcome and its reconciliation, if
// they were recorded.
type Attempt struct {
	Intent Entry
	// Outcome is nil when no outcome line was written.
	Outcome *Entry
	// Reconciled is the latest reconcile line for the attempt: what the
	// gateway said later about an attempt whose outcome was unknown. Nil
	// when none was written.
	Reconciled *Entry
	// Operator is who made the attempt as a shared journal's database
	// recorded it (the role that wrote the intent); empty in a file journal.
	Operator string
	// OSUser and Host are where the intent was written from, as its
	// writer said (for context: the operator is who the database says);
	// empty in a file journal.
	OSUser, Host string
	// SettledBy is the role that wrote the line that settled the attempt
	// (its outcome, or a reconciliation), as a shared journal's database
	// recorded it; empty in a file journal and while unsettled.
	SettledBy string
}

// Recorded reports whether the attempt's outcome was written.
func (a Attempt) Recorded() bool { return a.Outcome != nil }

// Class returns the attempt's outcome class. An outcome line that knows
// the outcome decides; otherwise a reconciliation that learned it does
// (Succeeded or Declined from check status naming it, or the desk lead's
// settle line: Settles); otherwise it is Unknown, or Queued for a refund
// whose outcome line says the gateway queued it.
func (a Attempt) Class() string {
	o := a.Outcome
	if o != nil && o.Outcome != "" && o.Outcome != Unknown && o.Outcome != Queued {
		return o.Outcome
	}
	if r := a.Reconciled; r != nil && Settles(*r) {
		return r.Outcome
	}
	if o != nil && o.Outcome == Queued {
		return Queued
	}
	return Unknown
}

// Settles reports whether reconcile line r settles its attempt: it
// learned Succeeded or Declined, or it is the desk lead's (ViaSettle) and
// says NotFound. A NotFound read from check status settles nothing, and
// neither do those older paycli versions recorded: the gateway may still
// make the attempt, whatever the time.
func Settles(r Entry) bool {
	switch r.Outcome {
	case Succeeded, Declined:
		return true
	case NotFound:
		return r.Via == ViaSettle
	}
	return false
}

// SettledByLead reports whether the attempt's class comes from the desk
// lead's settle line (`paycli journal settle`), not from the gateway.
func (a Attempt) SettledByLead() bool {
	return a.ReconciledClass() && a.Reconciled.Via == ViaSettle
}

// Unsettled reports whether the attempt's outcome is not settled: Unknown
// (in flight, or no answer known) or Queued.
func (a Attempt) Unsettled() bool {
	c := a.Class()
	return c == Unknown || c == Queued
}

// ReconciledClass reports whether the attempt's class comes from a
// reconciliation rather than from its outcome line.
func (a Attempt) ReconciledClass() bool {
	return a.Reconciled != nil && !a.Unsettled() &&
		(a.Outcome == nil || a.Outcome.Outcome == "" || a.Outcome.Outcome == Unknown || a.Outcome.Outcome == Queued)
}

// OrderNo is the gateway's order number for the attempt: from its outcome
// line, else from its reconciliation; "" when neither has one.
func (a Attempt) OrderNo() string {
	if a.Outcome != nil && a.Outcome.OrderNo != "" {
		return a.Outcome.OrderNo
	}
	if a.Reconciled != nil {
		return a.Reconciled.OrderNo
	}
	return ""
}

// Damage describes the lines of a journal that could not be read: a line
// torn by a failed write, a foreign or overlong line, a repeated intent.
type Damage struct {
	// Lines is how many lines were left out.
	Lines int
	// Offsets are the byte offsets where the first of them start (at most
	// maxDamageOffsets).
	Offsets []int64
}

const maxDamageOffsets = 20

// Add records an unreadable line at offset off.
func (d *Damage) Add(off int64) {
	d.Lines++
	if len(d.Offsets) < maxDamageOffsets {
		d.Offsets = append(d.Offsets, off)
	}
}

// maxLine bounds one journal line; longer ones are left out as foreign.
const maxLine = 1 << 20

// Read returns the attempts of the journal at path in the order their
// intents were written, and how many lines it could not read. A missing
// file is an empty journal.
func Read(path string) (attempts []Attempt, skipped int, err error) {
	attempts, damage, err := ReadAll(path)
	return attempts, damage.Lines, err
}

// openToRead opens the journal at path for reading; a missing file, an
// empty journal, is no file and no error.
func openToRead(path string) (*os.File, error) {
	f, err := OpenRegular(path, os.O_RDONLY, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return f, nil
}

// ReadAll returns the attempts of the journal at path in the order their
// intents were written, and the lines it could not read. A missing file is
// an empty journal.
func ReadAll(path string) ([]Attempt, Damage, error) {
	f, err := openToRead(path)
	if f == nil {
		return nil, Damage{}, err
	}
	defer f.Close()
	return readFrom(f)
}

// Entries reads every line of the journal at path as it was written, in
// order: reconciliations that a later one replaced included (ReadAll keeps
// an attempt's latest). A missing file has none; unreadable lines are
// counted in Damage.
func Entries(path string) ([]Entry, Damage, error) {
	f, err := openToRead(path)
	if f == nil {
		return nil, Damage{}, err
	}
	defer f.Close()
	var entries []Entry
	var damage Damage
	sc := NewLineScanner(f, 0)
	for {
		l, err := sc.Next()
		if errors.Is(err, io.EOF) {
			return entries, damage, nil
		}
		if err != nil {
			return nil, Damage{}, fmt.Errorf("journal: %w", err)
		}
		if e, ok := ParseLine(l); ok {
			entries = append(entries, e)
		} else {
			damage.Add(l.Off)
		}
	}
}

func readFrom(r io.Reader) ([]Attempt, Damage, error) {
	var asm Assembler
	sc := NewLineScanner(r, 0)
	for {
		l, err := sc.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, Damage{}, fmt.Errorf("journal: %w", err)
		}
		asm.AddLine(l)
	}
	return asm.attempts, asm.damage, nil
}

// Assembler pairs lines into attempts, in the order their intents come.
type Assembler struct {
	attempts []Attempt
	// byID: attempt id and invoice → index in attempts.
	byID   map[string]int
	damage Damage
}

// AddLine files a line; one that cannot be read is recorded as damage.
func (a *Assembler) AddLine(l Line) {
	e, ok := ParseLine(l)
	if !ok || !a.Add(e) {
		a.damage.Add(l.Off)
	}
}

// Attempts are the attempts assembled so far.
func (a *Assembler) Attempts() []Attempt { return a.attempts }

// Damage is the unreadable lines seen so far (AddLine, AddDamage).
func (a *Assembler) Damage() Damage { return a.damage }

// Reset empties a for the next group of lines, keeping its room: a
// reader that assembles one intent time's lines after another makes its
// maps once, not once a group.
func (a *Assembler) Reset() {
	clear(a.attempts)
	a.attempts = a.attempts[:0]
	clear(a.byID)
	a.damage = Damage{}
}

// AddDamage records an unreadable line at offset off.
func (a *Assembler) AddDamage(off int64) { a.damage.Add(off) }

// Add files e under its attempt; false for a repeated intent.
func (a *Assembler) Add(e Entry) bool {
	if a.byID == nil {
		a.byID = map[string]int{}
	}
	// Lines pair by attempt id and invoice: every line repeats its
	// invoice, and a line that names another invoice than its intent
	// (damage) must not change that intent's story, read whole or
	// through the index (which files lines by invoice).
	key := e.Attempt + "\x00" + e.Invoice
	i, seen := a.byID[key]
	switch {
	case e.Type == TypeIntent && !seen:
		a.byID[key] = len(a.attempts)
		a.attempts = append(a.attempts, Attempt{Intent: e})
	case e.Type == TypeOutcome && seen:
		out := e
		a.attempts[i].Outcome = &out
	case e.Type == TypeOutcome && !seen:
		// An outcome whose intent is unreadable still tells what happened.
		out := e
		intent := e
		intent.Type = TypeIntent
		intent.Outcome, intent.StatusCode, intent.OrderNo, intent.Message = "", nil, "", ""
		a.byID[key] = len(a.attempts)
		a.attempts = append(a.attempts, Attempt{Intent: intent, Outcome: &out})
	case e.Type == TypeReconcile && seen:
		rec := e
		a.attempts[i].Reconciled = &rec
	case e.Type == TypeReconcile:
		// Reconciles an attempt whose lines are unreadable: nothing to
		// attach it to, and nothing it could change on its own.
	default:
		return false // a repeated intent
	}
	return true
}

// ParseLine decodes one journal line. A line that is not an entry may be
// a torn line with a whole entry glued after it (written before writers
// mended torn ends): the last entry it holds is recovered, and the line
// still counts as damaged through the caller when nothing is recovered.
func ParseLine(l Line) (Entry, bool) {
	if !l.Complete || l.Long {
		return Entry{}, false
	}
	e, ok := decodeEntry(l.Data)
	if ok {
		return e, true
	}
	if i := bytes.LastIndex(l.Data, []byte(`{"type":"`)); i > 0 {
		return decodeEntry(l.Data[i:])
	}
	return Entry{}, false
}

func decodeEntry(data []byte) (Entry, bool) {
	var e Entry
	if json.Unmarshal(data, &e) != nil || e.Attempt == "" ||
		(e.Type != TypeIntent && e.Type != TypeOutcome && e.Type != TypeReconcile) {
		return Entry{}, false
	}
	return e, true
}

// Line is one line of a journal file and where it starts.
type Line struct {
	Off  int64
	Data []byte // without the newline; nil when Long
	// Complete: the line ends with a newline. A last line without one is
	// torn (or still being written).
	Complete bool
	// Long: longer than the 1 MiB a line may have; its bytes were skipped.
	Long bool
}

// LineScanner reads a journal line by line, keeping track of offsets.
type LineScanner struct {
	br  *bufio.Reader
	off int64
	buf []byte
}

// NewLineScanner reads lines from r, whose first byte is at offset off of
// the file.
func NewLineScanner(r io.Reader, off int64) *LineScanner {
	return &LineScanner{br: bufio.NewReaderSize(r, 64<<10), off: off}
}

// Offset is the offset of the byte after the last line returned.
func (s *LineScanner) Offset() int64 { return s.off }

// Next returns the next line, or io.EOF.
func (s *LineScanner) Next() (Line, error) {
	l := Line{Off: s.off}
	s.buf = s.buf[:0]
	for {
		chunk, err := s.br.ReadSlice('\n')
		s.off += int64(len(chunk))
		if !l.Long {
			s.buf = append(s.buf, chunk...)
			if len(s.buf) > maxLine+1 {
				l.Long, s.buf = true, s.buf[:0]
			}
		}
		switch {
		case err == nil:
			l.Complete = true
			if !l.Long {
				l.Data = s.buf[:len(s.buf)-1]
			}
			return l, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF):
			if s.off == l.Off {
				return Line{}, io.EOF
			}
			if !l.Long {
				l.Data = s.buf
			}
			return l, nil
		default:
			return Line{}, err
		}
	}
}
