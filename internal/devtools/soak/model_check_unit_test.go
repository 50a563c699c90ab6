package soak

import (
	"testing"
	"time"

	"github.com/paycli/paycli/internal/journal"
)

// TestModelChecks: each invariant's check flags a history made to break
// it, and none flags a clean one (a refund sent, answered, recorded; a
// second one after it; the final reconcile's time past every margin).
func TestModelChecks(t *testing.T) {
	at := func(ms int) time.Time {
		return time.Date(2026, 11, 28, 2, 0, 0, 0, time.UTC).Add(time.Duration(ms) * time.Millisecond)
	}
	line := func(seq int64, attempt, typ, outcome, by, ref string, ms int) jLine {
		return jLine{seq: seq, attempt: attempt, typ: typ, kind: "refund", invoice: "INV", outcome: outcome, operator: by, ref: ref, recorded: at(ms)}
	}
	refund := func(ref string, from, to int, status int) gwRequest {
		return gwRequest{kind: "refund", invoice: "INV", ref: ref, arrived: at(from), done: at(to), status: status}
	}
	clean := func() *history {
		return &history{
			requests: []gwRequest{refund("RF1", 10, 20, 100), refund("RF2", 110, 120, 100)},
			lines: []jLine{
				line(1, "a1", journal.TypeIntent, "", "ayse", "RF1", 5),
				line(2, "a1", journal.TypeOutcome, journal.Succeeded, "ayse", "", 25),
				line(3, "a2", journal.TypeIntent, "", "mehmet", "RF2", 105),
				line(4, "a2", journal.TypeOutcome, journal.Succeeded, "mehmet", "", 125),
			},
			dbNow: at(int(time.Hour / time.Millisecond)),
		}
	}
	if v := checkModel(clean()); len(v) != 0 {
		t.Fatalf("a clean history: %+v", v)
	}
	broken := map[string]func(h *history){
		// mehmet's refund arrives while ayse's is still at the gateway.
		"gateway-one-at-a-time": func(h *history) { h.requests[0].done = at(115) },
		// ayse's outcome comes after mehmet's intent: hers was unknown when his left.
		"sent-while-unknown": func(h *history) { h.lines[1].recorded = at(130) },
		// the gateway made ayse's refund; the journal says declined.
		"journal-equals-gateway": func(h *history) { h.lines[1].outcome = journal.Declined },
		// mehmet's refund never settled, long past its margin.
		"every-attempt-settled": func(h *history) { h.lines = h.lines[:3] },
		// mehmet writes ayse's outcome.
		"outcome-by-intent-owner": func(h *history) { h.lines[1].operator = "mehmet" },
		// ayse's refund, made, was unknown when mehmet's was made.
		"refunded-twice": func(h *history) { h.lines[1].outcome = journal.Unknown },
	}
	for _, inv := range invariants {
		t.Run(inv.name, func(t *testing.T) {
			h := clean()
			broken[inv.name](h)
			if v := inv.check(h); len(v) == 0 {
				t.Errorf("%s did not flag the history made to break it", inv.name)
			}
		})
	}
	// An unsettled refund the gateway never made is let off, even after
	// -model.settle waited the margin: only a not_found can be read of it,
	// which settles nothing (the lead's journal settle does).
	h := clean()
	h.lines = h.lines[:3]
	h.requests = h.requests[:1]
	h.dbNow = at(200)
	if v := checkEveryAttemptSettled(h); len(v) != 0 {
		t.Errorf("an attempt within its margin: %+v", v)
	}
	h.settled = true
	if v := checkEveryAttemptSettled(h); len(v) != 0 {
		t.Errorf("a refund the gateway never made, after -model.settle: %+v", v)
	}
	// ...but a refund within its margin that the gateway made is not:
	// its refund id settles it at once.
	h = clean()
	h.lines = h.lines[:3]
	h.dbNow = at(200)
	if v := checkEveryAttemptSettled(h); len(v) != 1 {
		t.Errorf("a refund the gateway made, within its margin: %+v", v)
	}
	// A walletpay within its margin on an invoice the gateway sold
	// earlier is let off: the sale may be the earlier attempt's.
	h = clean()
	h.requests = append(h.requests, gwRequest{kind: "walletpay", invoice: "INV", arrived: at(150), done: at(160), status: 3})
	sale := line(5, "w1", journal.TypeIntent, "", "zeynep", "", 140)
	sale.kind = "walletpay"
	h.lines = append(h.lines, sale)
	h.requests[0].kind = "walletpay"
	h.dbNow = at(200)
	if v := checkEveryAttemptSettled(h); len(v) != 0 {
		t.Errorf("a walletpay within its margin on a sold invoice: %+v", v)
	}

	// A walletpay the gateway made whose story is still unknown (its
	// answer held back while it may be in flight) is not a disagreement;
	// one the journal says was declined is.
	h = clean()
	h.requests = append(h.requests, gwRequest{kind: "walletpay", invoice: "W", arrived: at(150), done: at(160), status: 100})
	w := jLine{seq: 5, attempt: "w1", typ: journal.TypeIntent, kind: "walletpay", invoice: "W", operator: "zeynep", recorded: at(140)}
	h.lines = append(h.lines, w)
	if v := checkJournalEqualsGateway(h); len(v) != 0 {
		t.Errorf("a walletpay made, its story unknown: %+v", v)
	}
	w.seq, w.typ, w.outcome, w.recorded = 6, journal.TypeOutcome, journal.Declined, at(170)
	h.lines = append(h.lines, w)
	if v := checkJournalEqualsGateway(h); len(v) != 1 {
		t.Errorf("a walletpay made, the journal says declined: %+v", v)
	}

	// The arrival read on the database's clock is the one compared with
	// the journal's: an estimate that puts it before its own intent (a
	// slow round trip) flags nothing when the database's reading is there.
	h = clean()
	h.requests[1].arrived = at(100) // before mehmet's intent, at 105
	if v := checkSentWhileUnknown(h); len(v) != 1 {
		t.Errorf("an estimated arrival before its intent: %+v", v)
	}
	h.requests[1].arrivedDB, h.requests[1].exactArrival = at(110), true
	if v := checkSentWhileUnknown(h); len(v) != 0 {
		t.Errorf("a read arrival after its intent: %+v", v)
	}

	// A not_found settles nothing; a re-send of the same ref answered
	// made settles every attempt of it: the retry's request finds only
	// its own story open, and mehmet's refund, after it, none.
	h = clean()
	h.lines[1].outcome = journal.NotFound
	h.lines[1].typ = journal.TypeReconcile
	h.requests[0].status = 31
	retried := append([]jLine{}, h.lines[:2]...)
	retried = append(retried, line(5, "a3", journal.TypeIntent, "", "zeynep", "RF1", 40), line(6, "a3", journal.TypeOutcome, journal.Succeeded, "zeynep", "", 65))
	h.lines = append(retried, h.lines[2:]...)
	h.requests = append(h.requests, refund("RF1", 45, 60, 100))
	if v := checkModel(h); len(v) != 0 {
		t.Errorf("a refund re-sent after not_found, answered made: %+v", v)
	}

	// Issue 39's ways to free a refund the gateway made, each followed by
	// mehmet's refund: every one leaves ayse's open, so mehmet's was sent
	// while it was unknown and the invoice was refunded twice.
	for name, free := range map[string][]jLine{
		"a refused re-send":            {line(5, "a3", journal.TypeIntent, "", "zeynep", "RF1", 40), line(6, "a3", journal.TypeOutcome, journal.Declined, "zeynep", "", 65)},
		"a 104 for a queued ref":       {line(5, "a3", journal.TypeIntent, "", "zeynep", "RF1", 40), line(6, "a3", journal.TypeOutcome, journal.Duplicate, "zeynep", "", 65)},
		"a not_found":                  {line(5, "a1", journal.TypeReconcile, journal.NotFound, "zeynep", "", 65)},
		"nothing (another credential)": nil,
	} {
		for _, first := range []string{journal.Unknown, journal.Queued} {
			h := clean()
			h.lines[1].outcome = first
			h.lines = append(append(append([]jLine{}, h.lines[:2]...), free...), h.lines[2:]...)
			got := map[string]bool{}
			for _, v := range checkModel(h) {
				got[v.invariant] = true
			}
			if !got["refunded-twice"] || !got["sent-while-unknown"] {
				t.Errorf("%s after a %s refund: flagged %v, want refunded-twice and sent-while-unknown", name, first, got)
			}
		}
	}
}
