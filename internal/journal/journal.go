// Package journal is paycli's record of payment attempts:
// <state dir>/paycli/journal.jsonl, one JSON object per line.
//
// Every walletPay attempt writes an intent line before its request is sent
// and an outcome line after, both carrying the attempt's id. An intent
// without an outcome is an attempt whose process died mid-call: its outcome
// is unknown and must be checked with `paycli status`.
//
// The contract:
//
//   - The file is created with mode 0600 in a folder of mode 0700 (a looser
//     existing file is tightened), and is only ever appended to.
//   - Each line is written with a single write(2) on a file opened with
//     O_APPEND, then fsynced before Append returns: an intent is on disk
//     before the payment's request leaves the machine.
//   - Lines never interleave. Within a process, a mutex serialises appends
//     (parallel batch workers share one Journal). Between processes, O_APPEND
//     makes the kernel place each write at the end of the file atomically
//     with respect to other appends on local file systems, and on Unix an
//     exclusive flock(2) is held around each write as well, for file systems
//     where that is not so.
//   - Entries never hold the wallet token, hash_key, merchant_key,
//     app_secret or the payer's e-mail; cards appear masked (first 6, last 4).
//   - Readers tolerate a torn or foreign line (a crash mid-write, a line
//     still being written by another process): it is skipped and counted.
package journal

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
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
)

// Operation kinds recorded on every line.
const (
	KindWalletPay = "walletpay"
	// KindRefund: `paycli refund`. Its intent's Ref is the
	// refund_transaction_id, re-used by `paycli refund --retry`; a refund
	// answered 101 (queued for the gateway team's approval) is Succeeded
	// with status_code 101 (docs/refund.md).
	KindRefund = "refund"
)

// Entry is one line of the journal. An outcome line repeats the intent's
// fields so that each line stands alone.
type Entry struct {
	Type string `json:"type"`
	// Kind is the money-moving operation the attempt made (KindWalletPay,
	// …). Lines written before operations had kinds have none: they are
	// walletpay attempts (see Entry.OpKind).
	Kind string `json:"kind,omitempty"`
	// Gateway is the gateway identity (Identity of base URL and app_id).
	Gateway  string    `json:"gateway,omitempty"`
	Attempt  string    `json:"attempt"`
	Time     time.Time `json:"time"`
	Profile  string    `json:"profile"`
	BaseURL  string    `json:"base_url"`
	Invoice  string    `json:"invoice"`
	Amount   string    `json:"amount"`
	Currency string    `json:"currency"`
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
	// Outcome, StatusCode, OrderNo and Message are set on outcome lines.
	Outcome    string `json:"outcome,omitempty"`
	StatusCode *int   `json:"status_code,omitempty"`
	OrderNo    string `json:"order_no,omitempty"`
	// Message is the gateway's description or the failure, scrubbed of
	// anything the journal must not hold.
	Message string `json:"message,omitempty"`
}

// OpKind is the entry's operation kind; KindWalletPay for lines written
// before kinds were recorded.
func (e Entry) OpKind() string {
	if e.Kind == "" {
		return KindWalletPay
	}
	return e.Kind
}

// Journal appends entries to a journal file. It is safe for concurrent use.
type Journal struct {
	path string
	mu   sync.Mutex
	f    *os.File
}

// Open opens (creating it and its folder if needed) the journal at path for
// appending.
func Open(path string) (*Journal, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	if info, err := f.Stat(); err == nil && info.Mode().Perm()&0o077 != 0 {
		if err := f.Chmod(0o600); err != nil {
			_ = f.Close()
			return nil, fmt.Errorf("journal: tightening %s to 0600: %w", path, err)
		}
	}
	return &Journal{path: path, f: f}, nil
}

// Path returns the journal file's path.
func (j *Journal) Path() string { return j.path }

// Append writes e as one line and syncs it to disk.
func (j *Journal) Append(e Entry) error {
	line, err := json.Marshal(e)
	if err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	line = append(line, '\n')
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.f == nil {
		return errors.New("journal: closed")
	}
	unlock, err := lockFile(j.f)
	if err != nil {
		return fmt.Errorf("journal: locking %s: %w", j.path, err)
	}
	defer unlock()
	if _, err := j.f.Write(line); err != nil {
		return fmt.Errorf("journal: writing %s: %w", j.path, err)
	}
	if err := j.f.Sync(); err != nil {
		return fmt.Errorf("journal: syncing %s: %w", j.path, err)
	}
	return nil
}

// Close closes the file.
func (j *Journal) Close() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.f == nil {
		return nil
	}
	err := j.f.Close()
	j.f = nil
	return err
}

// Attempt is an intent paired with its outcome, if one was recorded.
type Attempt struct {
	Intent Entry
	// Outcome is nil when no outcome line was written.
	Outcome *Entry
}

// Recorded reports whether the attempt's outcome was written.
func (a Attempt) Recorded() bool { return a.Outcome != nil }

// Class returns the attempt's outcome class; Unknown when none was recorded.
func (a Attempt) Class() string {
	if a.Outcome == nil || a.Outcome.Outcome == "" {
		return Unknown
	}
	return a.Outcome.Outcome
}

// maxLine bounds one journal line; longer ones are skipped as foreign.
const maxLine = 1 << 20

// Read returns the attempts of the journal at path in the order their
// intents were written, and how many lines it could not read. A missing
// file is an empty journal.
func Read(path string) (attempts []Attempt, skipped int, err error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0, nil
	}
	if err != nil {
		return nil, 0, fmt.Errorf("journal: %w", err)
	}
	defer f.Close()
	return readFrom(f)
}

func readFrom(r io.Reader) ([]Attempt, int, error) {
	var attempts []Attempt
	byID := map[string]int{}
	skipped := 0
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		line, err := readLine(br)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			if errors.Is(err, errLongLine) {
				skipped++
				continue
			}
			return nil, 0, fmt.Errorf("journal: %w", err)
		}
		var e Entry
		if line == nil || json.Unmarshal(line, &e) != nil || e.Attempt == "" ||
			(e.Type != TypeIntent && e.Type != TypeOutcome) {
			skipped++
			continue
		}
		i, seen := byID[e.Attempt]
		switch {
		case e.Type == TypeIntent && !seen:
			byID[e.Attempt] = len(attempts)
			attempts = append(attempts, Attempt{Intent: e})
		case e.Type == TypeOutcome && seen:
			out := e
			attempts[i].Outcome = &out
		case e.Type == TypeOutcome:
			// An outcome whose intent is unreadable still tells what happened.
			out := e
			intent := e
			intent.Type = TypeIntent
			intent.Outcome, intent.StatusCode, intent.OrderNo, intent.Message = "", nil, "", ""
			byID[e.Attempt] = len(attempts)
			attempts = append(attempts, Attempt{Intent: intent, Outcome: &out})
		default:
			skipped++ // a repeated intent id
		}
	}
	return attempts, skipped, nil
}

var errLongLine = errors.New("line too long")

// readLine returns the next complete line (nil for a torn last line without
// a newline) or io.EOF.
func readLine(br *bufio.Reader) ([]byte, error) {
	var buf []byte
	for {
		chunk, err := br.ReadSlice('\n')
		buf = append(buf, chunk...)
		switch {
		case err == nil:
			if len(buf) > maxLine {
				return nil, errLongLine
			}
			return buf, nil
		case errors.Is(err, bufio.ErrBufferFull):
			if len(buf) > maxLine {
				// Drain the rest of the line.
				for errors.Is(err, bufio.ErrBufferFull) {
					_, err = br.ReadSlice('\n')
				}
				if err != nil && !errors.Is(err, io.EOF) {
					return nil, err
				}
				return nil, errLongLine
			}
		case errors.Is(err, io.EOF):
			if len(buf) == 0 {
				return nil, io.EOF
			}
			return nil, nil // torn: no newline yet
		default:
			return nil, err
		}
	}
}

// InvoiceState is what the journal says about one invoice within a Scope.
type InvoiceState struct {
	// Succeeded: some attempt succeeded.
	Succeeded bool
	// Success is the attempt that succeeded, when one did: later attempts
	// (a duplicate, answered 3) do not hide its order number.
	Success Attempt
	// Last is the latest attempt.
	Last Attempt
}

// ResumeDecision is what a resumed batch does with an invoice the journal
// knows about.
type ResumeDecision int

const (
	// ResumeSend: nothing in the journal stops the invoice from being sent.
	ResumeSend ResumeDecision = iota
	// ResumeSkip: the operation is known to have succeeded; never send again.
	ResumeSkip
	// ResumeUnknown: the last attempt's outcome is unknown; it must be
	// reconciled before anything is sent.
	ResumeUnknown
)

// Resume decides what a resumed batch does with the invoice.
func (s InvoiceState) Resume() ResumeDecision {
	switch {
	case s.Succeeded:
		return ResumeSkip
	case s.Last.Class() == Unknown:
		return ResumeUnknown
	}
	return ResumeSend
}

// Scope selects the attempts that speak for one operation on one gateway
// account: the operation kind, the profile, and the gateway identity (see
// Identity). An attempt from another scope is never a reason to skip.
type Scope struct {
	Kind    string
	Profile string
	Gateway string
}

// Identity names a gateway account without holding its secrets: a short
// hash of the base URL and the app_id. Journal lines carry it so that a
// profile pointed at another gateway does not inherit the old history.
func Identity(baseURL, appID string) string {
	sum := sha256.Sum256([]byte(baseURL + "\n" + appID))
	return hex.EncodeToString(sum[:8])
}

// ByInvoice summarises the attempts of scope per invoice.
func ByInvoice(attempts []Attempt, scope Scope) map[string]InvoiceState {
	out := map[string]InvoiceState{}
	for _, a := range attempts {
		if !scope.Holds(a) {
			continue
		}
		s := out[a.Intent.Invoice]
		if a.Class() == Succeeded {
			s.Succeeded, s.Success = true, a
		}
		s.Last = a
		out[a.Intent.Invoice] = s
	}
	return out
}

// ByKey groups the attempts of scope by their intent's Key, oldest first;
// attempts without a key are left out.
func ByKey(attempts []Attempt, scope Scope) map[string][]Attempt {
	out := map[string][]Attempt{}
	for _, a := range attempts {
		if a.Intent.Key == "" || !scope.Holds(a) {
			continue
		}
		out[a.Intent.Key] = append(out[a.Intent.Key], a)
	}
	return out
}

// Holds reports whether a belongs to the scope.
func (s Scope) Holds(a Attempt) bool {
	return a.Intent.OpKind() == s.Kind && a.Intent.Profile == s.Profile && a.Intent.Gateway == s.Gateway
}
