// Package journal is paycli's record of money-moving attempts:
// <state dir>/paycli/journal.jsonl, one JSON object per line.
//
// Every attempt writes an intent line before its request is sent and an
// outcome line after, both carrying the attempt's id. While its command
// runs, it holds its invoice's lock (Store.Lock, File): an intent without
// an outcome whose invoice is not locked is an attempt whose process died
// mid-call, and its outcome is unknown until a reconcile line (written by
// `paycli status` or `paycli journal reconcile`, which ask the gateway:
// Settle) says what happened, or a later attempt tells (Unresolved).
//
// The contract:
//
//   - The file is created with mode 0600 in a folder of mode 0700 (a looser
//     existing file is tightened), and is only ever appended to. Anything
//     but a regular file (a FIFO, a device, a folder) is refused before it
//     is opened for good, so that a named pipe cannot hang paycli.
//   - Each line is written with a single write(2) on a file opened with
//     O_APPEND, and Append returns only after an fsync that started after
//     that write has succeeded: an intent is on disk before the payment's
//     request leaves the machine.
//   - Concurrent appends share fsyncs (group commit): while one fsync runs,
//     the lines written meanwhile wait together, and one fsync started after
//     it covers all of them. Parallel batch workers therefore do not queue
//     behind each other's fsyncs; an fsync's error is returned to every
//     append whose line it covered.
//   - Lines never interleave. Within a process, a mutex serialises the
//     writes (parallel batch workers share one Journal). Between processes, O_APPEND
//     makes the kernel place each write at the end of the file atomically
//     with respect to other appends on local file systems, and on Unix an
//     exclusive flock(2) is held around each write as well, for file systems
//     where that is not so.
//   - A line torn by a failed write (a full disk) never swallows the next
//     one: under the lock, a writer that finds the file not ending in a
//     newline writes one first.
//   - Entries never hold the wallet token, hash_key, merchant_key,
//     app_secret or the payer's e-mail; cards appear masked (first 6, last 4).
//   - Readers tolerate a torn or foreign line: it is left out and reported
//     with its byte offset (Damage).
//   - Lines carry the gateway identity (Identity): what the journal says
//     about an invoice speaks only for the gateway account that wrote it.
package journal

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// FileName is the journal's name inside <state dir>/paycli.
const FileName = "journal.jsonl"

// Entry types.
const (
	TypeIntent  = "intent"
	TypeOutcome = "outcome"
	// TypeReconcile records what the gateway said later about an attempt
	// whose outcome was unknown (see Reconcile).
	TypeReconcile = "reconcile"
)

// Outcome classes of an attempt.
const (
	// Succeeded: status_code 100; the payment was taken.
	Succeeded = "succeeded"
	// Declined: status_code 41 and the other decline codes; nothing taken.
	Declined = "declined"
	// Duplicate: status_code 3 or 117; this attempt charged nothing.
	Duplicate = "duplicate"
	// Rejected: any other answer from the gateway; nothing taken.
	Rejected = "rejected"
	// Unknown: status_code 69 (pending), or the request may have been sent
	// and no complete answer arrived. Check with `paycli status`.
	Unknown = "unknown"
	// NotSent: the attempt failed before its request left the machine.
	NotSent = "not_sent"
	// NotFound: the attempt was not made, as the desk lead settled it
	// (`paycli journal settle --as not-made`, ViaSettle). Check status
	// finding nothing (status_code 31, refund_info not listing the ref) is
	// never final: the gateway may still make the attempt, so such a read
	// settles nothing (Settle), and reconcile lines of older paycli
	// versions that recorded it settle nothing either (Attempt.Class).
	NotFound = "not_found"
	// Pending is a reconcile line's outcome when the gateway still has not
	// finished the transaction: the attempt stays Unknown.
	Pending = "pending"
	// Queued: a refund answered status_code 101, waiting for the gateway
	// team's approval: neither made nor refused yet. Like Unknown it is not
	// settled (Blocking) and a check status settles it (Settle) once the
	// gateway makes or refuses it; it is shown and totalled apart.
	Queued = "queued"
)

// Who wrote a reconcile line (Entry.Via).
const (
	ViaStatus    = "status"
	ViaReconcile = "journal reconcile"
	// ViaSettle: the desk lead settled the attempt by hand (`paycli
	// journal settle`), with a Reason and who; no gateway answer backs it.
	ViaSettle = "journal settle"
	// ViaAudit: `paycli audit --settle` recorded what the gateway's
	// ledger lists of the attempt; its Evidence is the ledger's row
	// (EvidenceOfLedger).
	ViaAudit = "audit"
)

// LegacyKind is the kind of lines written before operations had kinds:
// they are walletpay attempts (Entry.OpKind). It is the journal's one
// fact about an operation, a compatibility one: every other kind is
// declared by the operation that journals it (Kind) and handed down.
const LegacyKind = "walletpay"

// Entry is one line of the journal. An outcome line repeats the intent's
// fields so that each line stands alone.
type Entry struct {
	Type string `json:"type"`
	// Kind is the money-moving operation the attempt made (its
	// command's Kind.Name). Lines written before operations had kinds have none: they are
	// walletpay attempts (see Entry.OpKind).
	Kind string `json:"kind,omitempty"`
	// Gateway is the gateway identity (AccountIdentity of base URL and
	// merchant_key; on lines of an earlier paycli, Identity of base URL and
	// app_id).
	Gateway string `json:"gateway,omitempty"`
	// AppGateway is Identity of the base URL and the app_id the line was
	// written with: what an earlier paycli wrote as Gateway, so that its
	// lines are read as this account's (Scope.Alias). Empty when Gateway is
	// already that (a profile without a merchant_key, the sandbox).
	AppGateway string    `json:"app_gateway,omitempty"`
	Attempt    string    `json:"attempt"`
	Time       time.Time `json:"time"`
	Profile    string    `json:"profile"`
	BaseURL    string    `json:"base_url"`
	Invoice    string    `json:"invoice"`
	Amount     string    `json:"amount"`
	Currency   string    `json:"currency"`
	// Card is masked: "435508******4358".
	Card   string `json:"card"`
	Wallet string `json:"wallet,omitempty"`
	// Ref is the operation's own reference for the attempt, chosen by paycli
	// before sending (a refund's refund_transaction_id); empty for walletpay.
	Ref string `json:"ref,omitempty"`
	// Key is the batch line's resume key when the operation knows its
	// lines by more than their invoice (a refund: see moneyop.Keyed);
	// empty otherwise.
	Key string `json:"key,omitempty"`
	// Reason is why a desk action was taken, as its operator gave it
	// (`paycli cards delete --reason`), or why the desk lead settled an
	// attempt by hand (ViaSettle); empty for payments.
	Reason string `json:"reason,omitempty"`
	// OSUser and Host, on a lead's settle line (ViaSettle), say who wrote
	// it, as the machine names its user: a file journal records no role.
	OSUser string `json:"os_user,omitempty"`
	Host   string `json:"host,omitempty"`
	// Deadline, on an intent, is when the request's time limit runs out
	// (sent then, plus --timeout): until then, and InFlightMargin more, the
	// gateway may still be processing it (Settle). Zero when the call had
	// no limit, and on lines written before intents carried it.
	Deadline time.Time `json:"deadline,omitzero"`
	// Outcome, StatusCode, OrderNo and Message are set on outcome lines.
	Outcome    string `json:"outcome,omitempty"`
	StatusCode *int   `json:"status_code,omitempty"`
	OrderNo    string `json:"order_no,omitempty"`
	// Message is the gateway's description or the failure, scrubbed of
	// anything the journal must not hold.
	Message string `json:"message,omitempty"`
	// StatusDescription, PaymentReasonCode(Detail) and OriginalBankError*
	// are the gateway's and the bank's reasons for a refusal, on an outcome
	// line, as the answer gave them (cleaned and scrubbed like Message):
	// "payment_reason_code 51, Insufficient funds" is what a desk acts on,
	// more than status_code 41.
	StatusDescription            string `json:"status_description,omitempty"`
	PaymentReasonCode            string `json:"payment_reason_code,omitempty"`
	PaymentReasonCodeDetail      string `json:"payment_reason_code_detail,omitempty"`
	OriginalBankErrorCode        string `json:"original_bank_error_code,omitempty"`
	OriginalBankErrorDescription string `json:"original_bank_error_description,omitempty"`
	// TransactionStatus and Via are set on reconcile lines: the
	// check-status answer's transaction_status, and the command that asked
	// (ViaStatus, ViaReconcile).
	TransactionStatus string `json:"transaction_status,omitempty"`
	Via               string `json:"via,omitempty"`
	// Evidence, on a reconcile line, is the check-status answer it was
	// learned from, scrubbed (EvidenceOf): a shared journal takes a
	// reconcile line that settles an attempt only with it.
	Evidence *Evidence `json:"evidence,omitempty"`
}

// OpKind is the entry's operation kind; LegacyKind for lines written
// before kinds were recorded.
func (e Entry) OpKind() string {
	if e.Kind == "" {
		return LegacyKind
	}
	return e.Kind
}

// Journal appends entries to a journal file. It is safe for concurrent use.
type Journal struct {
	path string
	mu   sync.Mutex // guards everything below
	f    *os.File
	// pending is the sync round of the lines written since the last fsync
	// started (nil when there are none); syncing is true while an fsync
	// runs, and synced is signalled when one ends.
	pending *syncRound
	syncing bool
	synced  sync.Cond
	// syncFile is (*os.File).Sync; tests replace it to count and fail fsyncs.
	syncFile func(*os.File) error
}

// syncRound is one fsync shared by the appends whose lines it covers.
type syncRound struct {
	done bool
	err  error
}

// Open opens (creating it and its folder if needed) the journal at path for
// appending.
func Open(path string) (*Journal, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	// Read-write: Append looks at the last byte to mend a torn line.
	f, err := OpenRegular(path, os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	if info, err := f.Stat(); err == nil && info.Mode().Perm()&0o077 != 0 {
		if err := f.Chmod(0o600); err != nil {
			_ = f.Close()
			return nil, fmt.Errorf("journal: tightening %s to 0600: %w", path, err)
		}
	}
	j := &Journal{path: path, f: f, syncFile: (*os.File).Sync}
	j.synced.L = &j.mu
	return j, nil
}

// Path returns the journal file's path.
func (j *Journal) Path() string { return j.path }

// Append writes e as one line and returns once it is on disk.
//
// The write happens under the lock, as one write(2); the fsync does not
// hold it. The line joins the pending sync round, and the round's first
// waiter to find no fsync running leads it: it takes the round (every line
// written so far has joined it, since joining happens under the lock right
// after the write), lets later lines start the next round, and runs one
// fsync for all of them. The others wait for that fsync's result.
func (j *Journal) Append(e Entry) error {
	line, err := json.Marshal(e)
	if err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	line = append(line, '\n')
	j.mu.Lock()
	defer j.mu.Unlock()
	if err := j.write(line); err != nil {
		return err
	}
	r := j.pending
	if r == nil {
		r = &syncRound{}
		j.pending = r
	}
	for !r.done {
		if !j.syncing && j.pending == r {
			j.lead(r)
			break
		}
		j.synced.Wait()
	}
	if r.err != nil {
		return fmt.Errorf("journal: syncing %s: %w", j.path, r.err)
	}
	return nil
}

// write appends line with one write(2), holding the file lock against
// other processes; j.mu is held.
func (j *Journal) write(line []byte) error {
	if j.f == nil {
		return errors.New("journal: closed")
	}
	unlock, err := lockFile(j.f)
	if err != nil {
		return fmt.Errorf("journal: locking %s: %w", j.path, err)
	}
	defer unlock()
	torn, err := endsTorn(j.f)
	if err != nil {
		return fmt.Errorf("journal: reading the end of %s: %w", j.path, err)
	}
	if torn {
		line = append([]byte{'\n'}, line...)
	}
	info, statErr := j.f.Stat()
	if _, err := j.f.Write(line); err != nil {
		// A write cut short (a full disk, a file-size limit) may leave all
		// of the line but its newline: the next writer would mend that into
		// a whole line, an intent whose request was never sent. Take the
		// piece back while the file lock is held; if that fails too, the
		// piece stays torn, as after a crash.
		if statErr == nil {
			_ = j.f.Truncate(info.Size())
		}
		return fmt.Errorf("journal: writing %s: %w", j.path, err)
	}
	return nil
}

// lead runs the fsync of round r, which is pending and has no fsync
// running; j.mu is held on entry and on return, but not during the fsync,
// so that other appends can write (and form the next round) meanwhile.
func (j *Journal) lead(r *syncRound) {
	j.pending = nil
	j.syncing = true
	f := j.f
	j.mu.Unlock()
	err := j.syncFile(f)
	j.mu.Lock()
	r.err, r.done = err, true
	j.syncing = false
	j.synced.Broadcast()
}

// endsTorn reports whether f is non-empty and does not end with a newline:
// the last write was cut short, and appending now would glue the next line
// onto it.
func endsTorn(f *os.File) (bool, error) {
	info, err := f.Stat()
	if err != nil || info.Size() == 0 {
		return false, err
	}
	var last [1]byte
	if _, err := f.ReadAt(last[:], info.Size()-1); err != nil {
		return false, err
	}
	return last[0] != '\n', nil
}

// Moved reports whether j's path no longer names the file j writes to (it
// was renamed or removed since Open): a line appended meanwhile went to a
// file that a reader of the path will not find.
func (j *Journal) Moved() (bool, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.f == nil {
		return false, errors.New("journal: closed")
	}
	mine, err := j.f.Stat()
	if err != nil {
		return false, fmt.Errorf("journal: %w", err)
	}
	now, err := os.Stat(j.path)
	if errors.Is(err, os.ErrNotExist) {
		return true, nil
	}
	if err != nil {
		return false, fmt.Errorf("journal: %w", err)
	}
	return !os.SameFile(mine, now), nil
}

// Close closes the file.
func (j *Journal) Close() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	// Appends still waiting for their fsync finish first.
	for j.syncing || j.pending != nil {
		j.synced.Wait()
	}
	if j.f == nil {
		return nil
	}
	err := j.f.Close()
	j.f = nil
	return err
}
