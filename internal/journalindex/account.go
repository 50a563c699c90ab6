package journalindex

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"slices"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/paycli/paycli/internal/journal"
)

// The account index ("acct" bucket) files each attempt under its gateway
// account and its intent's time, so that an audit of a day (in any zone:
// the range is of instants) reads that day's lines of that account alone:
//
//	gateway, 0, intent time (Unix ns, sign flipped, big-endian), intent offset
//	  → the offsets of the attempt's other lines (outcome, reconcile), as
//	    unsigned varints in file order
//
// An outcome or a reconciliation written days later is filed under its
// attempt's intent, as the shared journal files its lines by intent_at.
// An outcome whose intent cannot be read stands for its attempt, as
// journal.Assembler reads it.
var bucketAcct = []byte("acct")

// recentIntents bounds the intents indexAccounts keeps in memory to file
// the outcomes that follow them: an outcome comes seconds after its
// intent, and one that comes later is found through the invoice index.
const recentIntents = 20_000

// acctLine is what the account index reads of a line.
type acctLine struct {
	Type    string    `json:"type"`
	Attempt string    `json:"attempt"`
	Invoice string    `json:"invoice"`
	Gateway string    `json:"gateway"`
	Time    time.Time `json:"time"`
}

func (l acctLine) id() string { return l.Attempt + "\x00" + l.Invoice }

func acctKey(gateway string, at time.Time, off int64) []byte {
	k := append([]byte(gateway), 0)
	k = binary.BigEndian.AppendUint64(k, uint64(at.UnixNano())^(1<<63))
	return binary.BigEndian.AppendUint64(k, uint64(off))
}

// acctSeek is where a name's attempts of time at and after begin.
func acctSeek(gateway string, at time.Time) []byte { return acctKey(gateway, at, 0) }

// acctTime is the intent time a key holds.
func acctTime(k []byte, gateway string) time.Time {
	v := binary.BigEndian.Uint64(k[len(gateway)+1:]) ^ (1 << 63)
	return time.Unix(0, int64(v)).UTC()
}

func acctOffset(k []byte) int64 { return int64(binary.BigEndian.Uint64(k[len(k)-8:])) }

// accounts files lines in the account index, as indexFrom reads them.
type accounts struct {
	ix      *indexed
	pending map[string][]int64 // account key → offsets of the attempt's other lines
	// recent and older: the keys of the intents indexed lately.
	recent, older map[string]string
	// pendingInv: the invoice index's lines not written yet (indexFrom's).
	pendingInv map[string][]int64
}

func newAccounts(ix *indexed, pendingInv map[string][]int64) *accounts {
	return &accounts{ix: ix, pending: map[string][]int64{}, recent: map[string]string{}, older: map[string]string{}, pendingInv: pendingInv}
}

// add files the line at off; its invoice is already in pendingInv.
func (a *accounts) add(data []byte, off int64) error {
	var l acctLine
	if json.Unmarshal(data, &l) != nil {
		i := bytes.LastIndex(data, []byte(`{"type":"`))
		if i <= 0 || json.Unmarshal(data[i:], &l) != nil {
			return nil
		}
	}
	if l.Gateway == "" {
		return nil // no account's
	}
	key, ok := a.recent[l.id()]
	if !ok {
		key, ok = a.older[l.id()]
	}
	if !ok && l.Type != journal.TypeIntent {
		var err error
		if key, ok, err = a.firstOf(l, off); err != nil {
			return err
		}
	}
	if !ok || l.Type == journal.TypeIntent {
		// An intent (a repeated one files nothing new), or an outcome
		// without its intent: it stands for its attempt.
		if ok {
			return nil
		}
		key = string(acctKey(l.Gateway, l.Time, off))
		a.pending[key] = nil
		if len(a.recent) >= recentIntents {
			a.older, a.recent = a.recent, map[string]string{}
		}
		a.recent[l.id()] = key
		return nil
	}
	a.pending[key] = append(a.pending[key], off)
	return nil
}

// firstOf finds the key of l's attempt through the invoice index: the
// first line of its attempt among its invoice's (before off).
func (a *accounts) firstOf(l acctLine, off int64) (string, bool, error) {
	var offs []int64
	err := a.ix.db.View(func(tx *bolt.Tx) error {
		offs = decodeOffsets(tx.Bucket(bucketInv).Get([]byte(l.Invoice)))
		return nil
	})
	if err != nil {
		return "", false, err
	}
	offs = append(offs, a.pendingInv[l.Invoice]...)
	var buf []byte
	for _, o := range offs {
		if o >= off {
			continue
		}
		var data []byte
		if data, buf, err = readLineAt(a.ix.f, o, buf); err != nil {
			continue
		}
		var first acctLine
		if json.Unmarshal(data, &first) == nil && first.id() == l.id() && first.Gateway != "" &&
			(first.Type == journal.TypeIntent || first.Type == journal.TypeOutcome) {
			return string(acctKey(first.Gateway, first.Time, o)), true, nil
		}
	}
	return "", false, nil
}

// flush writes the pending keys into tx.
func (a *accounts) flush(tx *bolt.Tx) error {
	b := tx.Bucket(bucketAcct)
	keys := make([]string, 0, len(a.pending))
	for k := range a.pending {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		v := append([]byte{}, b.Get([]byte(k))...)
		for _, off := range a.pending[k] {
			v = binary.AppendUvarint(v, uint64(off))
		}
		if err := b.Put([]byte(k), v); err != nil {
			return err
		}
	}
	clear(a.pending)
	return nil
}

// readLineAt reads the line that starts at off (without its newline),
// into buf when it fits.
func readLineAt(r io.ReaderAt, off int64, buf []byte) (line, spare []byte, err error) {
	if cap(buf) < 4096 {
		buf = make([]byte, 4096)
	}
	buf = buf[:cap(buf)]
	for {
		n, err := r.ReadAt(buf, off)
		if i := bytes.IndexByte(buf[:n], '\n'); i >= 0 {
			return buf[:i], buf, nil
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = errStaleIndex // a line the index names is not whole
			}
			return nil, buf, err
		}
		if len(buf) > maxLine {
			return nil, buf, errStaleIndex
		}
		buf = make([]byte, 2*len(buf))
	}
}

// acctBatch is how many attempts AccountAttempts reads from the index at
// a time, between which it reads their lines and hands them on.
const acctBatch = 1024

// AccountAttempts calls yield with each attempt of account whose intent
// was written at or after from and before to in the journal at path,
// name by name of the account (journal.Scope.Names), in the order of
// their intents' times, each whole (journal.AccountReader); it stops at,
// and returns, yield's first error. It reads through the index beside the
// journal the lines of those attempts alone, a batch at a time; when the
// index cannot be used it reads the whole journal, keeping the range's
// attempts of the account. A missing journal has none.
func AccountAttempts(path string, account journal.Scope, from, to time.Time, yield func(journal.Attempt) error) error {
	ix, err := openIndexed(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err == nil {
		yielded := false
		err = accountAttempts(ix, ix.f, account, from, to, func(a journal.Attempt) error {
			yielded = true
			return yield(a)
		})
		ix.close()
		if !errors.Is(err, errStaleIndex) {
			return err
		}
		_ = os.Remove(path + IndexSuffix)
		if yielded {
			return err // the reader has part of the range: it must not get it twice
		}
	}
	return scanAccount(path, account, from, to, yield)
}

// accountAttempts reads the range's attempts of account through ix, their
// lines from r (the journal: a test counts what is read).
func accountAttempts(ix *indexed, r io.ReaderAt, account journal.Scope, from, to time.Time, yield func(journal.Attempt) error) error {
	var buf []byte
	for _, name := range account.Names() {
		seek := acctSeek(name, from)
		for seek != nil {
			type attemptAt struct {
				at   time.Time
				offs []int64
			}
			var batch []attemptAt
			var next []byte
			err := ix.db.View(func(tx *bolt.Tx) error {
				c := tx.Bucket(bucketAcct).Cursor()
				prefix := append([]byte(name), 0)
				for k, v := c.Seek(seek); k != nil && bytes.HasPrefix(k, prefix) && len(k) == len(prefix)+16; k, v = c.Next() {
					at := acctTime(k, name)
					if !at.Before(to) {
						return nil
					}
					if len(batch) == acctBatch {
						next = slices.Clone(k)
						return nil
					}
					batch = append(batch, attemptAt{at: at, offs: append([]int64{acctOffset(k)}, decodeOffsets(v)...)})
				}
				return nil
			})
			if err != nil {
				return err
			}
			for _, b := range batch {
				var asm journal.Assembler
				var first journal.Entry
				for i, off := range b.offs {
					var data []byte
					if data, buf, err = readLineAt(r, off, buf); err != nil {
						return err
					}
					e, ok := journal.ParseLine(journal.Line{Off: off, Data: data, Complete: true})
					if i == 0 {
						first = e
					}
					if !ok || e.Attempt != first.Attempt || e.Invoice != first.Invoice || e.Gateway != name || !first.Time.Equal(b.at) || !asm.Add(e) {
						return errStaleIndex
					}
				}
				for _, a := range asm.Attempts() {
					if err := yield(a); err != nil {
						return err
					}
				}
			}
			seek = next
		}
	}
	return nil
}

// scanAccount is AccountAttempts reading the whole journal: it keeps the
// lines of the account's attempts whose intents (or, for an attempt whose
// intent is unreadable, whose first outcome) fall in the range, and
// remembers which attempts it has seen, to leave out the lines of those
// out of it.
func scanAccount(path string, account journal.Scope, from, to time.Time, yield func(journal.Attempt) error) error {
	f, err := journal.OpenRegular(path, os.O_RDONLY, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	inRange := map[string]bool{} // attempt and invoice → whether its first line is in the range
	var asm journal.Assembler
	sc := journal.NewLineScanner(f, 0)
	for {
		l, err := sc.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		e, ok := journal.ParseLine(l)
		if !ok || !account.Named(e) {
			continue
		}
		id := e.Attempt + "\x00" + e.Invoice
		in, seen := inRange[id]
		if !seen && e.Type != journal.TypeReconcile {
			in = !e.Time.Before(from) && e.Time.Before(to)
			inRange[id] = in
		}
		if in {
			asm.Add(e)
		}
	}
	byName := map[string][]journal.Attempt{}
	for _, a := range asm.Attempts() {
		byName[a.Intent.Gateway] = append(byName[a.Intent.Gateway], a)
	}
	for _, name := range account.Names() {
		attempts := byName[name]
		slices.SortStableFunc(attempts, func(a, b journal.Attempt) int { return a.Intent.Time.Compare(b.Intent.Time) })
		for _, a := range attempts {
			if err := yield(a); err != nil {
				return err
			}
		}
	}
	return nil
}
