package soak

// The reference model of the desk (issue 30) that TestDeskModel holds
// each history to. Each invariant is a check of its own, reading only
// what the gateway saw (the sandbox's money requests, with when they
// arrived and were answered) and what the shared journal holds (its
// lines, with the database's time of writing and role): never what
// paycli printed.

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/paycli/paycli/internal/journal"
)

// gwRequest is one money request as the gateway saw it.
type gwRequest struct {
	kind, invoice, ref, amount string
	arrived, done              time.Time // by the test's clock moved to the database's (toDB)
	// arrivedDB is the database's own clock read as the request arrived,
	// before the gateway saw it (exactArrival); else arrived.
	arrivedDB    time.Time
	exactArrival bool
	status       int // the answer's status_code; -1 without one
	killed       bool
	held         time.Duration
}

// arrivedByDB is when the request arrived by the database's clock, the
// journal's: read at its arrival if the database answered, else estimated.
func (r gwRequest) arrivedByDB() time.Time {
	if r.arrivedDB.IsZero() {
		return r.arrived
	}
	return r.arrivedDB
}

// made reports whether the gateway did what the request asked: 100, or
// 101 for a refund queued for approval.
func (r gwRequest) made() bool { return r.status == 100 || r.status == 101 }

func (r gwRequest) String() string {
	s := fmt.Sprintf("%s %s", r.kind, r.invoice)
	if r.ref != "" {
		s += " ref " + r.ref
	}
	if r.amount != "" {
		s += " amount " + r.amount
	}
	s += fmt.Sprintf(" at %s–%s → %d", r.arrived.Format("15:04:05.000"), r.done.Format("15:04:05.000"), r.status)
	if r.killed {
		s += " (client killed on arrival)"
	}
	return s
}

// jLine is one line of the shared journal: recorded is the database's
// clock when it was written, operator the role that wrote it.
type jLine struct {
	seq                                                 int64
	attempt, typ, kind, invoice, outcome, operator, ref string
	recorded                                            time.Time
}

// violation is one way a history broke an invariant.
type violation struct {
	invariant, invoice, detail string
}

// invariants are the checks, each on its own, by name.
var invariants = []struct {
	name, says string
	check      func(h *history) []violation
}{
	{"gateway-one-at-a-time", "no money request reaches the gateway while another on its invoice is still being worked on", checkGatewayOneAtATime},
	{"sent-while-unknown", "no money request is sent while another attempt on its invoice is in flight or unknown in the journal", checkSentWhileUnknown},
	{"journal-equals-gateway", "what the journal says was made is what the gateway made, invoice by invoice and kind by kind", checkJournalEqualsGateway},
	{"every-attempt-settled", "after a clean operator's final reconcile every attempt is settled", checkEveryAttemptSettled},
	{"outcome-by-intent-owner", "an attempt's outcome line is written by the role that wrote its intent", checkOutcomeByIntentOwner},
	{"refunded-twice", "no refund is made while another refund of its invoice, one the gateway made, is not yet settled by evidence that names it", checkRefundedTwice},
}

// checkModel runs every invariant's check.
func checkModel(h *history) []violation {
	var all []violation
	for _, inv := range invariants {
		for _, v := range inv.check(h) {
			v.invariant = inv.name
			all = append(all, v)
		}
	}
	return all
}

// story is what the journal holds of one money command: its attempts
// (a refund's retries share its ref) and their lines.
type story struct {
	key, invoice, kind string
	intentBy           string    // role of the first intent
	opened             time.Time // its first intent, by the database's clock
	lines              []jLine
}

// storyKey groups an attempt's lines: by ref for a refund, whose retries
// re-send the same refund, by attempt otherwise.
func storyKey(l jLine) string {
	if l.kind == "refund" && l.ref != "" {
		return "refund " + l.ref
	}
	return "attempt " + l.attempt
}

// stories are the journal's stories, in the order of their first line.
// The ref of a refund is on its intent only: other lines join the story
// of their attempt's intent.
func stories(lines []jLine) []*story {
	byAttempt := map[string]string{}
	byKey := map[string]*story{}
	var out []*story
	for _, l := range lines {
		key, ok := byAttempt[l.attempt]
		if !ok {
			key = storyKey(l)
			byAttempt[l.attempt] = key
		}
		s := byKey[key]
		if s == nil {
			s = &story{key: key, invoice: l.invoice, kind: l.kind}
			byKey[key] = s
			out = append(out, s)
		}
		if l.typ == journal.TypeIntent && s.intentBy == "" {
			s.intentBy, s.opened = l.operator, l.recorded
		}
		s.lines = append(s.lines, l)
	}
	return out
}

// unsettled are the outcomes that leave an attempt open: a refund
// queued for approval (101) as well, until check status reports it made
// or refused (the settlement rule, docs/journal.md).
func unsettled(outcome string) bool {
	return outcome == "" || outcome == journal.Unknown || outcome == journal.Pending || outcome == journal.Queued
}

// final reports whether a line's outcome is the gateway's word on what
// happened: a not_found read from check status never is, whatever the
// time (the request may still be processed).
func final(outcome string) bool { return !unsettled(outcome) && outcome != journal.NotFound }

// replay plays the story's lines written before t (all of them for a
// zero t) by the settlement rule and returns its attempts still open, and
// the time of the line that last closed every one of them (zero if one
// is open). An attempt is open from its intent until:
//   - its own outcome, written by the role of its intent, is final;
//   - a reconcile line (check status, by whoever) is final: for a refund
//     it names the ref, and so settles every attempt of it;
//   - a re-send of the same ref is answered made (succeeded): the gateway
//     makes a ref once, so the earlier attempts were, or are now, made.
//
// Nothing else settles it: a refused re-send, a 104 (duplicate), a
// not_found, a queued answer, a timer, a line of another role.
func (s *story) replay(t time.Time) (open map[string]bool, closedAt time.Time) {
	open = map[string]bool{}
	owner := map[string]string{}
	for _, l := range s.lines {
		if !t.IsZero() && !l.recorded.Before(t) {
			continue
		}
		was := len(open)
		switch {
		case l.typ == journal.TypeIntent:
			if _, seen := owner[l.attempt]; !seen {
				owner[l.attempt] = l.operator
			}
			open[l.attempt] = true
		case !final(l.outcome):
		case l.typ == journal.TypeReconcile && s.kind == "refund":
			clear(open)
		case l.typ == journal.TypeReconcile:
			delete(open, l.attempt)
		case l.typ == journal.TypeOutcome && l.operator == owner[l.attempt]:
			if l.outcome == journal.Succeeded && s.kind == "refund" {
				clear(open)
			}
			delete(open, l.attempt)
		}
		if len(open) == 0 && was > 0 {
			closedAt = l.recorded
		} else if len(open) > 0 {
			closedAt = time.Time{}
		}
	}
	return open, closedAt
}

// settledAt is when the story was settled, by the database's clock: when
// its last open attempt was settled. Zero: never.
func (s *story) settledAt() time.Time {
	_, at := s.replay(time.Time{})
	return at
}

// says is what the journal says became of the story, as a reader that
// trusts every line would: the last line that says, by whoever (queued
// included; a not_found is no word on it).
func (s *story) says() string {
	says := journal.Unknown
	for _, l := range s.lines {
		if l.typ != journal.TypeIntent && (final(l.outcome) || l.outcome == journal.Queued) {
			says = l.outcome
		}
	}
	return says
}

// openAt reports whether the story was open at t: an attempt of it whose
// intent was written before t and that nothing settled before t.
func (s *story) openAt(t time.Time) bool {
	open, _ := s.replay(t)
	return len(open) > 0
}

// describe is the story's lines, each with its time by the database's
// clock and its role, for a violation's detail.
func (s *story) describe() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s by %s:", s.kind, s.key, s.intentBy)
	for _, l := range s.lines {
		fmt.Fprintf(&b, " [#%d %s %s by %s at %s]", l.seq, l.typ, l.outcome, l.operator, l.recorded.Format("15:04:05.000000"))
	}
	return b.String()
}

func byInvoice[T any](items []T, invoice func(T) string) map[string][]T {
	m := map[string][]T{}
	for _, it := range items {
		m[invoice(it)] = append(m[invoice(it)], it)
	}
	return m
}

func sortedInvoices[T any](m map[string]T) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// checkGatewayOneAtATime: a money request that arrived while another of
// its invoice was still being worked on by the gateway was sent while
// that one was in flight, whatever the journal said of it (a not_found
// recorded on a slow clock, a forged outcome).
func checkGatewayOneAtATime(h *history) []violation {
	var out []violation
	reqs := byInvoice(h.requests, func(r gwRequest) string { return r.invoice })
	for _, inv := range sortedInvoices(reqs) {
		rs := reqs[inv]
		slices.SortFunc(rs, func(a, b gwRequest) int { return a.arrived.Compare(b.arrived) })
		for i, r := range rs {
			for _, earlier := range rs[:i] {
				if r.arrived.After(earlier.arrived) && r.arrived.Before(earlier.done) {
					out = append(out, violation{invoice: inv, detail: fmt.Sprintf("%s arrived while %s was in flight", r, earlier)})
				}
			}
		}
	}
	return out
}

// checkSentWhileUnknown: when a money request arrives, the journal holds
// exactly one open story on its invoice: its own. Another open one (in
// flight, or of unknown outcome, any kind) should have held it back.
func checkSentWhileUnknown(h *history) []violation {
	var out []violation
	ss := byInvoice(stories(h.lines), func(s *story) string { return s.invoice })
	for _, r := range h.requests {
		at := r.arrivedByDB()
		var open []string
		for _, s := range ss[r.invoice] {
			if s.openAt(at) {
				open = append(open, fmt.Sprintf("%s %s by %s since %s", s.kind, s.key, s.intentBy, s.opened.Format("15:04:05.000")))
			}
		}
		// What the journal held of the invoice, to tell a defect from a
		// misreading when it fires.
		var held []string
		for _, s := range ss[r.invoice] {
			held = append(held, s.describe())
		}
		clock := "read from the database as it arrived"
		if !r.exactArrival {
			clock = "estimated from the test's clock: the database was down"
		}
		where := fmt.Sprintf("arrival %s by the database's clock (%s); the journal's stories of the invoice: %s",
			at.Format("15:04:05.000000"), clock, strings.Join(held, "; "))
		switch {
		case len(open) == 0:
			out = append(out, violation{invoice: r.invoice, detail: fmt.Sprintf("%s: no intent in the journal was open when it arrived; %s", r, where)})
		case len(open) > 1:
			out = append(out, violation{invoice: r.invoice, detail: fmt.Sprintf("%s: %d attempts open: %s; %s", r, len(open), strings.Join(open, "; "), where)})
		}
	}
	return out
}

// checkJournalEqualsGateway: for each invoice, the refunds the journal
// says succeeded (or were queued) are as many as the gateway made, and the
// same ids; any other kind, the journal says it succeeded if and only if
// the gateway made it.
func checkJournalEqualsGateway(h *history) []violation {
	var out []violation
	type key struct{ invoice, kind string }
	gateway, said := map[key][]string{}, map[key][]string{}
	// A story still unknown says nothing of what was made (whether it
	// should be settled by now is checkEveryAttemptSettled's question).
	openRefs, openKinds := map[string]bool{}, map[key]bool{}
	for _, s := range stories(h.lines) {
		if s.says() == journal.Unknown {
			openKinds[key{s.invoice, s.kind}] = true
			if ref, ok := strings.CutPrefix(s.key, "refund "); ok {
				openRefs[ref] = true
			}
		}
	}
	for _, r := range h.requests {
		if r.made() && !(r.kind == "refund" && openRefs[r.ref]) {
			k := key{r.invoice, r.kind}
			gateway[k] = append(gateway[k], r.String())
		}
	}
	for _, s := range stories(h.lines) {
		if o := s.says(); o == journal.Succeeded || o == "queued" {
			k := key{s.invoice, s.kind}
			said[k] = append(said[k], s.key+" by "+s.intentBy)
		}
	}
	keys := map[key]bool{}
	for k := range gateway {
		keys[k] = true
	}
	for k := range said {
		keys[k] = true
	}
	sorted := make([]key, 0, len(keys))
	for k := range keys {
		sorted = append(sorted, k)
	}
	slices.SortFunc(sorted, func(a, b key) int { return strings.Compare(a.invoice+" "+a.kind, b.invoice+" "+b.kind) })
	for _, k := range sorted {
		g, j := gateway[k], said[k]
		// The gateway makes a sale, capture, cancel or completion of an
		// invoice once at most, and check status cannot tell which attempt
		// made it: journal and gateway agree on whether it was made.
		if k.kind != "refund" && ((len(g) > 0) == (len(j) > 0) || (len(j) == 0 && openKinds[k])) {
			continue
		}
		if len(g) != len(j) {
			out = append(out, violation{invoice: k.invoice, detail: fmt.Sprintf("%s: the gateway made %d [%s], the journal says %d succeeded [%s]",
				k.kind, len(g), strings.Join(g, "; "), len(j), strings.Join(j, "; "))})
		}
	}
	// Per refund id as well: the same count could hide one refund made and another recorded.
	madeRefs := map[string]bool{}
	for _, r := range h.requests {
		if r.made() && r.kind == "refund" && r.ref != "" {
			madeRefs[r.ref] = true
		}
	}
	for _, s := range stories(h.lines) {
		if ref, ok := strings.CutPrefix(s.key, "refund "); ok {
			o := s.says()
			if made := madeRefs[ref]; made != (o == journal.Succeeded || o == "queued") && !unsettled(o) {
				out = append(out, violation{invoice: s.invoice, detail: fmt.Sprintf("refund %s: the journal says %s, the gateway made it: %v", ref, o, made)})
			}
		}
	}
	return out
}

// checkEveryAttemptSettled: after the final reconcile every story the
// gateway's word can settle is settled: a refund whose ref the gateway
// made (check status lists it), any other kind the gateway made on its
// invoice. One it never made stays open by the rule (only a not_found
// could be read of it, which settles nothing: the lead's `journal
// settle` does), and is let off. Without -model.settle, a story that may not be settled yet
// (its deadline plus journal.InFlightMargin still to come by the
// database's clock) is let off, unless it is a refund the gateway made:
// only a refund's answer names its attempt, and settles it at once
// (journal.Settle); any other answer, and a not_found, wait for the
// request to be over.
func checkEveryAttemptSettled(h *history) []violation {
	var out []violation
	madeRefs := map[string]bool{}
	type key struct{ invoice, kind string }
	madeKinds := map[key]bool{}
	for _, r := range h.requests {
		if r.made() && r.ref != "" {
			madeRefs[r.ref] = true
		}
		if r.made() {
			madeKinds[key{r.invoice, r.kind}] = true
		}
	}
	for _, s := range stories(h.lines) {
		if !s.settledAt().IsZero() {
			continue
		}
		if ref, isRefund := strings.CutPrefix(s.key, "refund "); isRefund && !madeRefs[ref] || !isRefund && !madeKinds[key{s.invoice, s.kind}] {
			continue
		}
		notDue := s.opened.Add(modelTimeout + journal.InFlightMargin).After(h.dbNow)
		ref, isRefund := strings.CutPrefix(s.key, "refund ")
		// Before it is due, only a refund's own refund id settles it
		// (journal.Settle): any other kind's answer may be an earlier
		// attempt's doing.
		if !h.settled && notDue && !(isRefund && madeRefs[ref]) {
			continue
		}
		var lines []string
		for _, l := range s.lines {
			lines = append(lines, strings.TrimSpace(l.typ+" "+l.outcome)+" by "+l.operator)
		}
		out = append(out, violation{invoice: s.invoice, detail: fmt.Sprintf("%s %s by %s not settled: %s", s.kind, s.key, s.intentBy, strings.Join(lines, ", "))})
	}
	return out
}

// checkOutcomeByIntentOwner: an outcome line comes from the role that
// wrote the attempt's intent (anyone else settles an attempt with a
// reconcile line, from the gateway's answer), and no line settles an
// attempt whose intent the journal does not hold.
func checkOutcomeByIntentOwner(h *history) []violation {
	var out []violation
	intentBy := map[string]string{}
	for _, l := range h.lines {
		if l.typ == journal.TypeIntent {
			if _, ok := intentBy[l.attempt]; !ok {
				intentBy[l.attempt] = l.operator
			}
		}
	}
	for _, l := range h.lines {
		if l.typ == journal.TypeIntent {
			continue
		}
		owner, ok := intentBy[l.attempt]
		switch {
		case !ok:
			out = append(out, violation{invoice: l.invoice, detail: fmt.Sprintf("%s %s line by %s for attempt %s, whose intent the journal does not hold", l.typ, l.outcome, l.operator, l.attempt)})
		case l.typ == journal.TypeOutcome && l.operator != owner:
			out = append(out, violation{invoice: l.invoice, detail: fmt.Sprintf("%s outcome %s by %s for %s's %s attempt %s", l.kind, l.outcome, l.operator, owner, l.kind, l.attempt)})
		}
	}
	return out
}

// checkRefundedTwice: when a refund the gateway made (or queued) arrived,
// no other refund of its invoice that the gateway made was still open in
// the journal by the settlement rule. Each of issue 39's ways to refund
// twice ends so: the first refund unknown or queued, freed by a refused
// re-send, a 104, a not_found or another credential, and a second one
// sent.
func checkRefundedTwice(h *history) []violation {
	var out []violation
	madeRefs := map[string]bool{}
	for _, r := range h.requests {
		if r.kind == "refund" && r.made() && r.ref != "" {
			madeRefs[r.ref] = true
		}
	}
	ss := byInvoice(stories(h.lines), func(s *story) string { return s.invoice })
	for _, r := range h.requests {
		if r.kind != "refund" || !r.made() {
			continue
		}
		at := r.arrivedByDB()
		for _, s := range ss[r.invoice] {
			ref, ok := strings.CutPrefix(s.key, "refund ")
			if !ok || ref == r.ref || !madeRefs[ref] || !s.openAt(at) {
				continue
			}
			out = append(out, violation{invoice: r.invoice, detail: fmt.Sprintf("%s made while refund %s, which the gateway made, was not settled by evidence naming it: %s", r, ref, s.describe())})
		}
	}
	return out
}
