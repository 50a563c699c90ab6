// Package journalgen writes plausible journals of many days, for the
// journal's scale benchmarks and the shared journal's plan tests: the
// attempts a desk makes (sales, refunds, holds and their captures) on two
// gateway accounts, most answered at once, some declined, some unknown
// and reconciled the next morning, refunds now and then queued.
package journalgen

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/paycli/paycli/internal/journal"
)

// Plan is the journal to write.
type Plan struct {
	// Start is when the first day begins; each day is 24 hours after it.
	Start time.Time
	Days  int
	// Lines is about how many lines to write in all (each attempt writes
	// one to three).
	Lines int
	// Busy is the day (0 for the first) on which Account makes
	// BusyAttempts attempts; the other days share the rest.
	Busy         int
	BusyAttempts int
	// Account and Other are the gateway identities of the two accounts;
	// Other makes one attempt in ten.
	Account, Other string
}

// Day is the start of day d of the plan.
func (p Plan) Day(d int) time.Time { return p.Start.Add(time.Duration(d) * 24 * time.Hour) }

// WriteFile writes the plan's journal as a journal file at path (one JSON
// line an entry), calling seen with each entry as it goes (nil: none), and
// returns Account's attempts per day.
func (p Plan) WriteFile(path string, seen func(e journal.Entry, intentAt time.Time)) ([]int, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	perDay, err := p.Write(func(e journal.Entry, intentAt time.Time) error {
		if seen != nil {
			seen(e, intentAt)
		}
		line, err := json.Marshal(e)
		w.Write(append(line, '\n'))
		return err
	})
	if err == nil {
		err = w.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return perDay, err
}

// Write calls emit with each line, in the order a journal holds them, and
// the time of its attempt's intent; it returns how many attempts of
// Account it wrote on each day.
func (p Plan) Write(emit func(e journal.Entry, intentAt time.Time) error) ([]int, error) {
	attempts := p.Lines / 2
	other := attempts / 10
	rest := max(0, attempts-other-p.BusyAttempts)
	perDay := make([]int, p.Days)
	for d := range perDay {
		perDay[d] = rest / max(1, p.Days-1)
		if d == p.Busy {
			perDay[d] = p.BusyAttempts
		}
	}
	type line struct {
		e        journal.Entry
		intentAt time.Time
	}
	var morning []line // yesterday's unknown attempts, reconciled today
	for d := range p.Days {
		for _, l := range morning {
			if err := emit(l.e, l.intentAt); err != nil {
				return nil, err
			}
		}
		morning = morning[:0]
		nOther := other / p.Days
		n := perDay[d] + nOther
		step := 24 * time.Hour / time.Duration(max(1, n+1))
		for j := range n {
			gw := p.Account
			if (j+1)*nOther/n > j*nOther/n {
				gw = p.Other
			}
			in := attempt(p.Day(d).Add(time.Duration(j+1)*step), d, j, gw)
			if err := emit(in, in.Time); err != nil {
				return nil, err
			}
			out, ok := answer(in, d, j)
			if !ok {
				rec := in
				rec.Type, rec.Time, rec.Deadline = journal.TypeReconcile, p.Day(d+1).Add(9*time.Hour+time.Duration(j)*time.Millisecond), time.Time{}
				rec.Outcome, rec.Via, rec.TransactionStatus, rec.OrderNo = journal.Succeeded, journal.ViaReconcile, "Completed", orderNo(d, j)
				rec.Evidence = &journal.Evidence{StatusCode: 100, TransactionStatus: "Completed"}
				morning = append(morning, line{rec, in.Time})
				continue
			}
			if err := emit(out, in.Time); err != nil {
				return nil, err
			}
		}
	}
	return perDay, nil
}

// attempt is the intent of attempt j of day d: six sales in ten, two
// partial refunds of the sale before them, a hold and its capture.
func attempt(at time.Time, d, j int, gw string) journal.Entry {
	e := journal.Entry{Type: journal.TypeIntent, Gateway: gw, Attempt: fmt.Sprintf("%04x%012x", d, j), Time: at,
		Profile: "live", BaseURL: "https://app.gw.example/ccpayment", Invoice: fmt.Sprintf("INV-%03d-%07d", d, j),
		Amount: fmt.Sprintf("%d.%02d", 10+j%990, j%100), Currency: []string{"TRY", "TRY", "TRY", "USD", "EUR"}[j%5],
		Card: "435508******4358", Deadline: at.Add(30 * time.Second)}
	switch j % 10 {
	case 6, 7:
		e.Kind, e.Ref, e.Invoice = "refund", fmt.Sprintf("RF-%03d-%07d", d, j), fmt.Sprintf("INV-%03d-%07d", d, j-j%10)
		e.Amount = "5.00"
	case 8:
		e.Kind = "preauth"
	case 9:
		e.Kind, e.Invoice = "preauth-capture", fmt.Sprintf("INV-%03d-%07d", d, j-1)
	default:
		e.Kind, e.Wallet = "walletpay", "001"
	}
	return e
}

// answer is the outcome line of in, attempt j of its day; false for one
// attempt in fifty, whose answer never came.
func answer(in journal.Entry, d, j int) (journal.Entry, bool) {
	if j%50 == 49 {
		return journal.Entry{}, false
	}
	out := in
	code, class := 100, journal.Succeeded
	switch {
	case j%23 == 0:
		code, class = 41, journal.Declined
	case j%97 == 7 && in.Kind == "refund":
		code, class = 101, journal.Queued
	}
	out.Type, out.Time, out.Deadline = journal.TypeOutcome, in.Time.Add(800*time.Millisecond), time.Time{}
	out.Outcome, out.StatusCode, out.OrderNo = class, &code, orderNo(d, j)
	return out, true
}

func orderNo(d, j int) string { return fmt.Sprintf("VP%05d%012d", d, j) }

// PeakRSS runs f and returns the most resident memory the process had
// meanwhile, in bytes: Linux's high-water mark (VmHWM), reset before f
// (clear_refs). An error when the system has neither.
func PeakRSS(f func()) (int64, error) {
	if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
		return 0, err
	}
	f()
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, err
	}
	for _, l := range strings.Split(string(status), "\n") {
		if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10, err
		}
	}
	return 0, errors.New("no VmHWM in /proc/self/status")
}
