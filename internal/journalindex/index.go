// Package journalindex keeps the index beside the journal
// (journal.jsonl.index), which maps each invoice to
// the byte offsets of its lines, so that looking up one invoice reads a
// few lines instead of the whole journal. It is a cache: the journal is
// the truth, the index is rebuilt from it whenever it does not match, and
// losing it loses nothing.
//
// It is a bbolt file with two buckets:
//
//   - "inv": invoice → the offsets of its lines (intent, outcome,
//     reconcile), as unsigned varints in file order.
//   - "meta": "version"; "covered", how many bytes of the journal it
//     indexes (always up to a line's end); "fingerprint", a SHA-256 of the
//     last 4 KiB before that point; "damage", the unreadable lines seen.
//
// Writers never touch it: a payment's append costs nothing more. Readers
// bring it up to date first: lines past "covered" are indexed (a torn last
// line is left for later), and an index whose covered size is larger than
// the journal, or whose fingerprint does not match the journal's bytes, is
// rebuilt from the start. Every line read through it is checked to hold
// the invoice it was filed under; a mismatch rebuilds it too.
//
// It is a package of its own so that the payment commands, which append to
// the journal and read it whole to resume a batch, do not link the index's
// database.
package journalindex

import (
	"bytes"
	"container/heap"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"strings"
	"time"

	bolt "go.etcd.io/bbolt"
	bolterrors "go.etcd.io/bbolt/errors"

	"github.com/paycli/paycli/internal/atomicfile"
	"github.com/paycli/paycli/internal/journal"
)

// IndexSuffix names the index: <journal>.index.
const IndexSuffix = ".index"

const indexVersion = 2

// maxLine bounds one journal line (as internal/journal reads it).
const maxLine = 1 << 20

var (
	bucketInv  = []byte("inv")
	bucketMeta = []byte("meta")
	keyVersion = []byte("version")
	keyCovered = []byte("covered")
	keyFP      = []byte("fingerprint")
	keyDamage  = []byte("damage")
)

// indexFlushEvery is how many invoices are gathered before they are
// written to the index in one transaction: it bounds the memory an
// (re)indexing run needs (the gathered offsets and bbolt's copies of the
// pages the transaction changes), and each transaction records how far it
// got. On a 200,000-attempt journal a rebuild peaked at 24 MB resident
// with 10,000 per transaction against 44 MB with 50,000, for the same CPU
// time (docs/performance.md, "Journal at scale").
const indexFlushEvery = 10_000

// indexLockWait is how long a reader waits for another process that is
// updating the index before it reads the journal without it.
const indexLockWait = 2 * time.Second

var errStaleIndex = errors.New("journal index does not match the journal")

// indexed is an open journal and its up-to-date index.
type indexed struct {
	f       *os.File
	db      *bolt.DB
	idxPath string
	damage  journal.Damage
	// bulk: a rebuild into a new file, which may fill pages densely.
	bulk bool
}

func (ix *indexed) close() {
	_ = ix.db.Close()
	_ = ix.f.Close()
}

// openIndexed opens the journal at path and its index, bringing the index
// up to date. It returns fs.ErrNotExist when the journal does not exist;
// any other failure to use the index is returned too, and callers fall
// back to reading the whole journal.
func openIndexed(path string) (*indexed, error) {
	f, err := journal.OpenRegular(path, os.O_RDONLY, 0)
	if err != nil {
		return nil, err
	}
	ix, err := openIndexFor(f, path+IndexSuffix)
	if err != nil {
		_ = f.Close()
		return nil, err
	}
	return ix, nil
}

func openIndexFor(f *os.File, idxPath string) (*indexed, error) {
	if info, err := os.Lstat(idxPath); err == nil && !info.Mode().IsRegular() {
		return nil, journal.NotRegular(idxPath, info.Mode())
	}
	db, err := bolt.Open(idxPath, 0o600, &bolt.Options{Timeout: indexLockWait})
	if err != nil && !errors.Is(err, fs.ErrPermission) && !errors.Is(err, bolterrors.ErrTimeout) {
		// An unreadable index (cut short by a crash, or not an index at
		// all) is only a cache: start again.
		_ = os.Remove(idxPath)
		db, err = bolt.Open(idxPath, 0o600, &bolt.Options{Timeout: indexLockWait})
	}
	if err != nil {
		return nil, fmt.Errorf("journal index %s: %w", idxPath, err)
	}
	ix := &indexed{f: f, db: db, idxPath: idxPath}
	if err := ix.refresh(); err != nil {
		_ = db.Close()
		return nil, err
	}
	return ix, nil
}

// refresh indexes the lines appended since the last run, or everything
// when the index does not match the journal.
func (ix *indexed) refresh() error {
	info, err := ix.f.Stat()
	if err != nil {
		return err
	}
	size := info.Size()
	var covered int64
	var fp []byte
	err = ix.db.View(func(tx *bolt.Tx) error {
		m := tx.Bucket(bucketMeta)
		if m == nil || !bytes.Equal(m.Get(keyVersion), []byte{indexVersion}) {
			return nil
		}
		covered = int64(binary.BigEndian.Uint64(pad8(m.Get(keyCovered))))
		fp = slices.Clone(m.Get(keyFP))
		ix.damage = decodeDamage(m.Get(keyDamage))
		return nil
	})
	if err != nil {
		return err
	}
	if covered > size || (covered > 0 && !bytes.Equal(fp, fingerprint(ix.f, covered))) {
		covered, ix.damage = 0, journal.Damage{}
	}
	switch {
	case covered == 0 && size > 0:
		return ix.rebuild(size)
	case covered == 0:
		return ix.reset()
	case covered == size:
		return nil
	}
	return ix.indexFrom(covered, size)
}

// rebuild indexes the whole journal into a new file without syncing each
// transaction, syncs it once, and puts it in place of the old index
// (atomicfile.Replace: renamed, its folder synced): a crash leaves the old
// index or the new one, never half of one.
func (ix *indexed) rebuild(size int64) error {
	tmp := fmt.Sprintf("%s.%d.tmp", ix.idxPath, os.Getpid())
	_ = os.Remove(tmp)
	db, err := bolt.Open(tmp, 0o600, &bolt.Options{NoSync: true, NoGrowSync: true, NoFreelistSync: true})
	if err != nil {
		return err
	}
	build := &indexed{f: ix.f, db: db, idxPath: tmp, bulk: true}
	err = build.reset()
	if err == nil {
		err = build.indexFrom(0, size)
	}
	if err == nil {
		// The build skipped writing the free-page list at each commit
		// (NoFreelistSync); an index without one makes the next bolt.Open
		// read every page of it to rebuild the list, which maps the whole
		// index into memory (41 MB at 1,000,000 attempts). One last commit
		// writes the list, so that opening it touches a few pages only.
		db.NoFreelistSync = false
		err = db.Update(func(*bolt.Tx) error { return nil })
	}
	if err == nil {
		err = db.Sync()
	}
	if cerr := db.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = atomicfile.Replace(tmp, ix.idxPath)
	}
	if err != nil {
		_ = os.Remove(tmp)
		return err
	}
	_ = ix.db.Close()
	ix.db, err = bolt.Open(ix.idxPath, 0o600, &bolt.Options{Timeout: indexLockWait})
	ix.damage = build.damage
	return err
}

func pad8(b []byte) []byte {
	if len(b) >= 8 {
		return b[:8]
	}
	return append(make([]byte, 8-len(b)), b...)
}

func (ix *indexed) reset() error {
	return ix.db.Update(func(tx *bolt.Tx) error {
		for _, name := range [][]byte{bucketInv, bucketAcct, bucketMeta} {
			if tx.Bucket(name) != nil {
				if err := tx.DeleteBucket(name); err != nil {
					return err
				}
			}
		}
		if _, err := tx.CreateBucket(bucketInv); err != nil {
			return err
		}
		if _, err := tx.CreateBucket(bucketAcct); err != nil {
			return err
		}
		m, err := tx.CreateBucket(bucketMeta)
		if err != nil {
			return err
		}
		return m.Put(keyVersion, []byte{indexVersion})
	})
}

// fingerprint is the SHA-256 of the (up to) 4 KiB of the journal before
// offset end, and end itself.
func fingerprint(f *os.File, end int64) []byte {
	start := max(0, end-4096)
	buf := make([]byte, end-start)
	if _, err := f.ReadAt(buf, start); err != nil {
		return nil
	}
	h := sha256.New()
	h.Write(buf)
	_ = binary.Write(h, binary.BigEndian, end)
	return h.Sum(nil)
}

// indexFrom indexes the complete lines between from and size.
func (ix *indexed) indexFrom(from, size int64) error {
	sc := journal.NewLineScanner(io.NewSectionReader(ix.f, from, size-from), from)
	pending := map[string][]int64{}
	acct := newAccounts(ix, pending)
	covered := from
	flush := func() error {
		err := ix.db.Update(func(tx *bolt.Tx) error {
			if err := acct.flush(tx); err != nil {
				return err
			}
			inv := tx.Bucket(bucketInv)
			if ix.bulk {
				// Invoice ids mostly grow with time: dense pages suit
				// keys that come in order.
				inv.FillPercent = 0.9
			}
			keys := make([]string, 0, len(pending))
			for k := range pending {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			for _, k := range keys {
				v := slices.Clone(inv.Get([]byte(k)))
				for _, off := range pending[k] {
					v = binary.AppendUvarint(v, uint64(off))
				}
				if err := inv.Put([]byte(k), v); err != nil {
					return err
				}
			}
			m := tx.Bucket(bucketMeta)
			if err := m.Put(keyCovered, binary.BigEndian.AppendUint64(nil, uint64(covered))); err != nil {
				return err
			}
			if err := m.Put(keyFP, fingerprint(ix.f, covered)); err != nil {
				return err
			}
			return m.Put(keyDamage, encodeDamage(ix.damage))
		})
		clear(pending)
		return err
	}
	for {
		l, err := sc.Next()
		if errors.Is(err, io.EOF) || (err == nil && !l.Complete) {
			break // a torn last line is indexed once it is mended
		}
		if err != nil {
			return err
		}
		covered = sc.Offset()
		inv, ok := indexKey(l)
		if !ok {
			ix.damage.Add(l.Off)
			continue
		}
		if inv == "" {
			continue // nothing to look it up by
		}
		if err := acct.add(l.Data, l.Off); err != nil {
			return err
		}
		pending[inv] = append(pending[inv], l.Off)
		if len(pending) >= indexFlushEvery || len(acct.pending) >= indexFlushEvery {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	return flush()
}

// indexKey is the invoice a line is filed under; false for a line that
// cannot be read (see parseLine).
func indexKey(l journal.Line) (string, bool) {
	if !l.Complete || l.Long {
		return "", false
	}
	var k struct {
		Type    string `json:"type"`
		Attempt string `json:"attempt"`
		Invoice string `json:"invoice"`
	}
	data := l.Data
	if json.Unmarshal(data, &k) != nil {
		i := bytes.LastIndex(data, []byte(`{"type":"`))
		if i <= 0 || json.Unmarshal(data[i:], &k) != nil {
			return "", false
		}
	}
	if k.Attempt == "" || (k.Type != journal.TypeIntent && k.Type != journal.TypeOutcome && k.Type != journal.TypeReconcile) {
		return "", false
	}
	return k.Invoice, true
}

func encodeDamage(d journal.Damage) []byte {
	b := binary.AppendUvarint(nil, uint64(d.Lines))
	for _, off := range d.Offsets {
		b = binary.AppendUvarint(b, uint64(off))
	}
	return b
}

func decodeDamage(b []byte) journal.Damage {
	var d journal.Damage
	n, k := binary.Uvarint(b)
	if k <= 0 {
		return d
	}
	d.Lines = int(n)
	for b = b[k:]; len(b) > 0; {
		off, k := binary.Uvarint(b)
		if k <= 0 {
			break
		}
		d.Offsets = append(d.Offsets, int64(off))
		b = b[k:]
	}
	return d
}

func decodeOffsets(v []byte) []int64 {
	var out []int64
	for len(v) > 0 {
		off, k := binary.Uvarint(v)
		if k <= 0 {
			break
		}
		out = append(out, int64(off))
		v = v[k:]
	}
	return out
}

// offsets returns the offsets of the lines filed under the invoices, in
// file order.
func (ix *indexed) offsets(invoices []string) ([]int64, error) {
	var out []int64
	err := ix.db.View(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketInv)
		for _, inv := range invoices {
			out = append(out, decodeOffsets(b.Get([]byte(inv)))...)
		}
		return nil
	})
	slices.Sort(out)
	return slices.Compact(out), err
}

// attemptsAt reads the lines at offs and pairs them into attempts. Each
// line must be filed under one of the invoices, else the index is stale.
func (ix *indexed) attemptsAt(offs []int64, invoices map[string]bool) ([]journal.Attempt, error) {
	var asm journal.Assembler
	for _, off := range offs {
		sc := journal.NewLineScanner(io.NewSectionReader(ix.f, off, maxLine+2), off)
		l, err := sc.Next()
		if err != nil {
			return nil, errStaleIndex
		}
		e, ok := journal.ParseLine(l)
		if !ok || !invoices[e.Invoice] {
			return nil, errStaleIndex
		}
		asm.Add(e)
	}
	return asm.Attempts(), nil
}

// Lookup returns the attempts recorded for the invoices (of every scope),
// in the order their intents were written, and the damage of the whole
// journal. A resumed batch needs only its own invoices' states:
// ByInvoice(Lookup(path, batch's invoices…), scope) gives them without
// holding the whole journal in memory. It reads through the index beside the journal (see IndexSuffix),
// so its cost does not grow with the journal; when the index cannot be
// used it reads the whole journal, keeping only those invoices' lines. A
// missing journal is empty.
func Lookup(path string, invoices ...string) ([]journal.Attempt, journal.Damage, error) {
	ix, err := openIndexed(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, journal.Damage{}, nil
	}
	if err == nil {
		attempts, err := lookupIndexed(ix, invoices)
		damage := ix.damage
		ix.close()
		if err == nil {
			return attempts, damage, nil
		}
		if errors.Is(err, errStaleIndex) {
			_ = os.Remove(path + IndexSuffix)
		}
	}
	want := setOf(invoices)
	return scanFor(path, func(inv string) bool { return want[inv] })
}

func setOf(invoices []string) map[string]bool {
	set := make(map[string]bool, len(invoices))
	for _, inv := range invoices {
		set[inv] = true
	}
	return set
}

func lookupIndexed(ix *indexed, invoices []string) ([]journal.Attempt, error) {
	offs, err := ix.offsets(invoices)
	if err != nil {
		return nil, err
	}
	return ix.attemptsAt(offs, setOf(invoices))
}

// scanFor reads the whole journal, keeping the lines of the invoices keep
// accepts.
func scanFor(path string, keep func(string) bool) ([]journal.Attempt, journal.Damage, error) {
	f, err := journal.OpenRegular(path, os.O_RDONLY, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, journal.Damage{}, nil
	}
	if err != nil {
		return nil, journal.Damage{}, err
	}
	defer f.Close()
	var asm journal.Assembler
	sc := journal.NewLineScanner(f, 0)
	for {
		l, err := sc.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, journal.Damage{}, fmt.Errorf("journal: %w", err)
		}
		e, ok := journal.ParseLine(l)
		switch {
		case !ok:
			asm.AddDamage(l.Off)
		case keep(e.Invoice):
			if !asm.Add(e) {
				asm.AddDamage(l.Off)
			}
		}
	}
	return asm.Attempts(), asm.Damage(), nil
}

// Recent returns, for at most limit invoices starting with prefix, the
// invoice's attempts (oldest first), the invoice of the most recent attempt
// first: a completion describes an invoice by its sale, which is not
// always its latest attempt (a refund of it may be). It reads through the index
// (a prefix walk of its sorted keys), so completion stays fast on a large
// journal.
func Recent(path, prefix string, limit int) ([][]journal.Attempt, error) {
	ix, err := openIndexed(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return recentScan(path, prefix, limit)
	}
	defer ix.close()
	if invoices := recentInTail(ix.f, prefix, limit); len(invoices) == limit {
		return ix.attemptsOf(invoices)
	}
	top := &lastOffsets{}
	err = ix.db.View(func(tx *bolt.Tx) error {
		c := tx.Bucket(bucketInv).Cursor()
		p := []byte(prefix)
		for k, v := c.Seek(p); k != nil && bytes.HasPrefix(k, p); k, v = c.Next() {
			if len(k) == 0 {
				continue
			}
			offs := decodeOffsets(v)
			if len(offs) == 0 {
				continue
			}
			heap.Push(top, invoiceAt{invoice: string(k), last: offs[len(offs)-1]})
			if top.Len() > limit {
				heap.Pop(top)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	picked := slices.Clone(*top)
	slices.SortFunc(picked, func(a, b invoiceAt) int { return -cmpInt64(a.last, b.last) })
	invoices := make([]string, len(picked))
	for i, p := range picked {
		invoices[i] = p.invoice
	}
	out, err := ix.attemptsOf(invoices)
	if err != nil {
		return recentScan(path, prefix, limit)
	}
	return out, nil
}

// attemptsOf returns each invoice's attempts, in the invoices' order.
func (ix *indexed) attemptsOf(invoices []string) ([][]journal.Attempt, error) {
	out := make([][]journal.Attempt, 0, len(invoices))
	for _, inv := range invoices {
		attempts, err := lookupIndexed(ix, []string{inv})
		if err != nil {
			return nil, err
		}
		if len(attempts) > 0 {
			out = append(out, attempts)
		}
	}
	return out, nil
}

// tailWindow is how much of the journal's end Recent reads backwards
// before it walks the whole index: recent invoices are at the end.
const tailWindow = 8 << 20

// recentInTail returns up to limit distinct invoices starting with prefix
// from the last tailWindow bytes of the journal, most recent first.
func recentInTail(f *os.File, prefix string, limit int) []string {
	info, err := f.Stat()
	if err != nil {
		return nil
	}
	start := max(0, info.Size()-tailWindow)
	buf := make([]byte, info.Size()-start)
	if _, err := f.ReadAt(buf, start); err != nil {
		return nil
	}
	if start > 0 {
		// The window's first line is cut: begin after it.
		i := bytes.IndexByte(buf, '\n')
		if i < 0 {
			return nil
		}
		buf = buf[i+1:]
	}
	seen := map[string]bool{}
	var out []string
	for end := len(buf); end > 0 && len(out) < limit; {
		i := bytes.LastIndexByte(buf[:end-1], '\n') + 1
		line := journal.Line{Data: bytes.TrimSuffix(buf[i:end], []byte("\n")), Complete: buf[end-1] == '\n'}
		end = i
		inv, ok := indexKey(line)
		if ok && inv != "" && !seen[inv] && strings.HasPrefix(inv, prefix) {
			seen[inv] = true
			out = append(out, inv)
		}
	}
	return out
}

func recentScan(path, prefix string, limit int) ([][]journal.Attempt, error) {
	attempts, _, err := scanFor(path, func(inv string) bool { return inv != "" && strings.HasPrefix(inv, prefix) })
	if err != nil {
		return nil, err
	}
	byInvoice := map[string][]journal.Attempt{}
	for _, a := range attempts {
		byInvoice[a.Intent.Invoice] = append(byInvoice[a.Intent.Invoice], a)
	}
	seen := map[string]bool{}
	var out [][]journal.Attempt
	for i := len(attempts) - 1; i >= 0 && len(out) < limit; i-- {
		if inv := attempts[i].Intent.Invoice; !seen[inv] {
			seen[inv] = true
			out = append(out, byInvoice[inv])
		}
	}
	return out, nil
}

func cmpInt64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// invoiceAt is an invoice and the offset of its last line.
type invoiceAt struct {
	invoice string
	last    int64
}

// lastOffsets is a min-heap on last: it keeps the most recent invoices.
type lastOffsets []invoiceAt

func (h lastOffsets) Len() int           { return len(h) }
func (h lastOffsets) Less(i, j int) bool { return h[i].last < h[j].last }
func (h lastOffsets) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *lastOffsets) Push(x any)        { *h = append(*h, x.(invoiceAt)) }
func (h *lastOffsets) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
