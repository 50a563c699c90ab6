package journal

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/user"
	"path/filepath"
	"sync"
	"time"

	"github.com/paycli/paycli/internal/filelock"
	"github.com/paycli/paycli/internal/pause"
)

// LocksSuffix names the folder of the invoice locks beside the journal:
// <journal>.locks.
const LocksSuffix = ".locks"

// File is the Store of the journal file at a path, and of the invoice
// locks beside it (LocksSuffix): one lock file per invoice being worked
// on, which an flock(2) holds and the kernel releases when its process
// dies, and which its holder removes when it is done.
//
// Reading an invoice's attempts scans the journal for lines that hold the
// invoice's id before decoding any (the money-moving commands do not link
// the index of internal/journalindex). Once every attempt, or those of a
// batch's invoices, have been read (Attempts with none or several
// invoices), later calls read only the lines appended since.
type File struct {
	path string
	now  func() time.Time

	mu sync.Mutex
	w  *Journal // opened by the first Append
	// seen is what has been read of the journal, for the invoices of
	// seenFor (every invoice when nil), up to seenTo.
	seen    *Assembler
	seenFor map[string]bool
	seenTo  int64
}

var _ Store = (*File)(nil)

// OpenFile returns the Store of the journal at path. It touches nothing:
// the file and its folder are created by the first Append, the locks'
// folder by the first Lock. now stamps the locks.
func OpenFile(path string, now func() time.Time) *File {
	return &File{path: path, now: now}
}

// IndexedFile is the journal file's path (Indexed).
func (f *File) IndexedFile() string { return f.path }

// Append writes e as one line and returns once it is on disk (Journal.Append).
// An intent on an invoice that holds an unsettled attempt on its gateway
// account is refused (*UnsettledError, ErrUnsettled) unless it re-sends
// that very attempt (Blocking, MayResend): the file keeps the desk's rule
// whatever the operation. The check and the write are not one atomic step
// on their own: the writer holds the invoice's lock (Lock), which every
// money command takes before its first look, so no other intent on the
// invoice can come between them.
func (f *File) Append(ctx context.Context, e Entry) error {
	if err := f.checkUnsettled(ctx, e); err != nil {
		return err
	}
	f.mu.Lock()
	if f.w == nil {
		w, err := Open(f.path)
		if err != nil {
			f.mu.Unlock()
			return err
		}
		f.w = w
	}
	w := f.w
	f.mu.Unlock()
	return w.Append(e)
}

// Close closes the journal file if Append opened it.
func (f *File) Close() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.w == nil {
		return nil
	}
	err := f.w.Close()
	f.w = nil
	return err
}

// Attempts returns the attempts of the invoices (every attempt when none
// is given). A missing journal is empty.
func (f *File) Attempts(ctx context.Context, invoices ...string) ([]Attempt, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.seen != nil && f.covers(invoices) {
		if err := f.catchUp(ctx); err != nil {
			return nil, err
		}
		return filterInvoices(f.seen.Attempts(), invoices), nil
	}
	if len(invoices) == 1 {
		needles := [][]byte{quoted(invoices[0])}
		return f.scan(ctx, func() [][]byte { return needles }, func(e Entry) bool { return e.Invoice == invoices[0] })
	}
	f.seen, f.seenTo, f.seenFor = &Assembler{}, 0, nil
	if len(invoices) > 0 {
		f.seenFor = map[string]bool{}
		for _, inv := range invoices {
			f.seenFor[inv] = true
		}
	}
	if err := f.catchUp(ctx); err != nil {
		f.seen = nil
		return nil, err
	}
	return filterInvoices(f.seen.Attempts(), invoices), nil
}

// covers reports whether what has been read holds every attempt of the
// invoices; f.mu is held.
func (f *File) covers(invoices []string) bool {
	if f.seenFor == nil {
		return true
	}
	if len(invoices) == 0 {
		return false
	}
	for _, inv := range invoices {
		if !f.seenFor[inv] {
			return false
		}
	}
	return true
}

// catchUp reads the lines appended since the last read into f.seen; a
// last line still being written is left for the next read. f.mu is held.
func (f *File) catchUp(ctx context.Context) error {
	r, err := OpenRegular(f.path, os.O_RDONLY, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer r.Close()
	if _, err := r.Seek(f.seenTo, io.SeekStart); err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	sc := NewLineScanner(r, f.seenTo)
	for n := 0; ; n++ {
		if n%4096 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		l, err := sc.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("journal: %w", err)
		}
		if !l.Complete {
			return nil
		}
		f.seenTo = sc.Offset()
		e, ok := ParseLine(l)
		if ok && (f.seenFor == nil || f.seenFor[e.Invoice]) {
			f.seen.Add(e)
		}
	}
}

// Find returns the attempts whose attempt id or ref is name, each with
// its outcome and reconciliation.
func (f *File) Find(ctx context.Context, name string) ([]Attempt, error) {
	needles := [][]byte{quoted(name)}
	ids := map[string]bool{}
	return f.scan(ctx, func() [][]byte { return needles }, func(e Entry) bool {
		if (e.Attempt == name || e.Ref == name) && !ids[e.Attempt] {
			ids[e.Attempt] = true
			if e.Attempt != name {
				// Reconcile lines written before they carried the ref
				// name only the attempt.
				needles = append(needles, quoted(e.Attempt))
			}
		}
		return ids[e.Attempt]
	})
}

// scan reads the whole journal and files the lines keep accepts among
// those that hold one of needles() (search): a line is decoded only when
// its bytes could be one of them, which makes looking for one invoice or
// one attempt a search through the file's bytes rather than a decoding of
// every line.
func (f *File) scan(ctx context.Context, needles func() [][]byte, keep func(Entry) bool) ([]Attempt, error) {
	r, err := OpenRegular(f.path, os.O_RDONLY, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer r.Close()
	var asm Assembler
	err = search(ctx, r, needles, func(l Line) {
		if e, ok := ParseLine(l); ok && keep(e) {
			asm.Add(e)
		}
	})
	if err != nil {
		return nil, err
	}
	return asm.Attempts(), nil
}

// quoted is s as encoding/json writes it in a line.
func quoted(s string) []byte {
	b, _ := json.Marshal(s)
	return b
}

func filterInvoices(attempts []Attempt, invoices []string) []Attempt {
	if len(invoices) == 0 {
		return attempts
	}
	out := make([]Attempt, 0, len(attempts))
	for _, a := range attempts {
		for _, inv := range invoices {
			if a.Intent.Invoice == inv {
				out = append(out, a)
				break
			}
		}
	}
	return out
}

// Lock takes the lock of invoice on the gateway account gateway: the file
// <journal>.locks/<hash of both>.lock, flock(2)ed without waiting. Its
// holder writes who it is into it (Holder) and removes it when done; a
// holder killed leaves it, unlocked, for the next one to take.
//
// The folder is beside the journal's real file, its symbolic links
// resolved (RealPath): two homes whose journals are one file through a
// link share one lock per invoice. A folder that cannot be made, or a lock
// file that cannot be locked, is a *LockFolderError: nothing is sent
// without the lock.
func (f *File) Lock(_ context.Context, gateway, invoice, command string) (func(), error) {
	// The journal's folder, as Open makes it, so that its links resolve.
	if err := os.MkdirAll(filepath.Dir(f.path), 0o700); err != nil {
		return nil, &LockFolderError{Dir: f.path + LocksSuffix, Err: err}
	}
	real, err := RealPath(f.path)
	if err != nil {
		return nil, &LockFolderError{Dir: f.path + LocksSuffix, Err: err}
	}
	dir := real + LocksSuffix
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, &LockFolderError{Dir: dir, Err: err}
	}
	sum := sha256.Sum256([]byte(gateway + "\n" + invoice))
	path := filepath.Join(dir, hex.EncodeToString(sum[:16])+".lock")
	h := Holder{Command: command, PID: os.Getpid(), Since: f.now().UTC()}
	h.Host, _ = os.Hostname()
	if u, err := user.Current(); err == nil {
		h.User = u.Username
	}
	return lockInvoice(path, h)
}

// lockInvoice takes the lock file at path for h; see File.Lock.
func lockInvoice(path string, h Holder) (func(), error) {
	for {
		lf, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
		if err != nil {
			return nil, &LockFolderError{Dir: filepath.Dir(path), Err: err}
		}
		busy, err := filelock.TryLock(lf)
		if err != nil {
			_ = lf.Close()
			return nil, &LockFolderError{Dir: filepath.Dir(path), Err: err}
		}
		if busy {
			held := readHolder(lf)
			_ = lf.Close()
			return nil, &InFlightError{Holder: held}
		}
		// The holder before may have removed the file between our open and
		// our lock: the lock is then on a file nobody else can find, and
		// the next one would lock another. Only the file at path counts.
		if !samePath(lf, path) {
			_ = lf.Close()
			continue
		}
		// Written over what a killed holder left, then cut to size: a
		// reader sees this holder's JSON first, whatever follows it.
		data, _ := json.Marshal(h)
		if _, err := lf.WriteAt(data, 0); err == nil {
			_ = lf.Truncate(int64(len(data)))
		}
		return func() {
			if removeLocked {
				_ = os.Remove(path)
			}
			_ = lf.Close()
		}, nil
	}
}

// readHolder reads the holder's JSON from a lock file another process
// holds. The holder writes it just after taking the lock: a file still
// empty is read again for a moment before it is given up for unknown.
func readHolder(lf *os.File) Holder {
	for try := 0; ; try++ {
		var held Holder
		if _, err := lf.Seek(0, io.SeekStart); err == nil &&
			json.NewDecoder(io.LimitReader(lf, 4096)).Decode(&held) == nil && held.PID != 0 {
			return held
		}
		if try == 20 {
			return Holder{}
		}
		_ = pause.For(context.Background(), time.Millisecond)
	}
}

// samePath reports whether the open file f is still the file at path.
func samePath(f *os.File, path string) bool {
	a, err := f.Stat()
	if err != nil {
		return false
	}
	b, err := os.Stat(path)
	return err == nil && os.SameFile(a, b)
}

// LockFolderError is a journal whose invoice locks cannot be taken: their
// folder cannot be made, or a lock file in it opened or locked (a
// read-only or foreign folder, a file system without flock). Nothing is
// sent without the lock.
type LockFolderError struct {
	Dir string
	Err error
}

func (e *LockFolderError) Error() string {
	return fmt.Sprintf("the journal's lock folder %s cannot be used: %v", e.Dir, e.Err)
}

func (e *LockFolderError) Unwrap() error { return e.Err }

// RealPath is path with every symbolic link resolved, also a link to a
// file that does not exist yet (the journal a first Append creates through
// it): the file the kernel opens for path.
func RealPath(path string) (string, error) {
	p, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	for hops := 0; hops < 40; hops++ {
		dir, err := filepath.EvalSymlinks(filepath.Dir(p))
		if err != nil {
			return "", err
		}
		p = filepath.Join(dir, filepath.Base(p))
		info, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			return p, nil
		}
		if err != nil {
			return "", err
		}
		if info.Mode()&os.ModeSymlink == 0 {
			return p, nil
		}
		target, err := os.Readlink(p)
		if err != nil {
			return "", err
		}
		if !filepath.IsAbs(target) {
			target = filepath.Join(dir, target)
		}
		p = target
	}
	return "", fmt.Errorf("%s: too many symbolic links", path)
}

// Where names the journal file for messages: its path.
func (f *File) Where() string { return f.path }

// What the file journal can do beyond Store (capabilities.go).
var (
	_ Located    = (*File)(nil)
	_ Indexed    = (*File)(nil)
	_ Lister     = (*File)(nil)
	_ Summarizer = (*File)(nil)
)
