package soak

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/paycli/paycli/internal/app"
	"github.com/paycli/paycli/internal/gateway"
	"github.com/paycli/paycli/internal/journal"
	"github.com/paycli/paycli/internal/sandbox"
)

// classOfExit is the journal outcome a walletpay exit code stands for,
// and false for a code that has none. Exit 8 (unavailable before sending)
// is left out: such a process may have stopped before it wrote an intent
// (the token call failed) or after (not_sent), so it is checked against
// not_sent loosely.
func classOfExit(code int) (string, bool) {
	switch code {
	case app.ExitOK:
		return journal.Succeeded, true
	case app.ExitRejected:
		return journal.Rejected, true
	case app.ExitDeclined:
		return journal.Declined, true
	case app.ExitDuplicate:
		return journal.Duplicate, true
	case app.ExitOutcomeUnknown:
		return journal.Unknown, true
	}
	return "", false
}

// exitOfClass is the inverse of classOfExit.
func exitOfClass(class string) (int, bool) {
	for _, code := range []int{app.ExitOK, app.ExitRejected, app.ExitDeclined, app.ExitDuplicate, app.ExitOutcomeUnknown} {
		if c, _ := classOfExit(code); c == class {
			return code, true
		}
	}
	return 0, false
}

// statusOfState is the check-status transaction_status of a store state.
func statusOfState(state string) string {
	switch state {
	case sandbox.StateCompleted:
		return "Completed"
	case sandbox.StateFailed:
		return "Failed"
	case sandbox.StatePending:
		return "Pending"
	}
	return state
}

// checkStatus is what check status said about one invoice.
type checkStatus struct {
	found   bool
	status  string
	orderID string
}

// journalRecord is the part of `paycli journal -o json` the checker reads.
type journalRecord struct {
	Invoice         string `json:"invoice"`
	Outcome         string `json:"outcome"`
	OutcomeRecorded bool   `json:"outcome_recorded"`
}

// check reconciles the three views once the server has stopped.
func (r *run) check(ctx context.Context) error {
	journalWriteFailures := r.tallyProcesses()
	journalByInv, err := r.checkJournal(ctx, journalWriteFailures)
	if err != nil {
		return err
	}
	statuses, err := r.checkStatuses(ctx)
	if err != nil {
		return err
	}
	salesByInv, err := r.readSales()
	if err != nil {
		return err
	}

	// View 1 (the processes) against the other two, invoice by invoice.
	rep := r.report
	procByInv := map[int][]attempt{}
	procByCard := map[int][]attempt{}
	for _, a := range r.attempts {
		if a.kind == kindWalletPay {
			procByInv[a.invoice] = append(procByInv[a.invoice], a)
		} else {
			procByCard[a.invoice] = append(procByCard[a.invoice], a)
			rep.CardOps[a.kind]++
			if a.retryRef != "" {
				rep.RefundRetries++
			}
		}
	}
	refundIDs := map[string]string{}
	for i, cs := range r.cardSales {
		sale, stored := salesByInv[cs.id]
		for _, p := range checkCardSale(cs, sale, stored, refundIDs) {
			r.addProblem("%s", p)
		}
		r.checkCardOps(cs, sale, stored, procByCard[i], journalByInv[cs.id])
		rep.CardSales[cardSaleState(sale, stored)]++
	}

	for i, inv := range r.invoices {
		before := len(rep.Problems)
		r.reconcile(inv, procByInv[i], journalByInv[inv.id], salesByInv, statuses[i])
		if len(rep.Problems) == before {
			rep.Reconciled++
		}
	}
	return nil
}

// tallyProcesses counts what the processes (view 1) went through and how
// they exited, and returns how many failed to write a journal line.
func (r *run) tallyProcesses() (journalWriteFailures int) {
	rep := r.report
	rep.Attempts = len(r.attempts)
	for _, a := range r.attempts {
		if a.trouble != troubleNone {
			rep.Troubles[a.trouble.String()]++
		}
		switch {
		case a.refusedByJournal():
			rep.JournalRefused++
			journalWriteFailures++
		case a.refusedBeforeSending():
			rep.RefusedBeforeSending++
		case a.outcomeUnwritten() != "":
			rep.OutcomesUnwritten++
			journalWriteFailures++
		}
		if a.exit == app.ExitOK && (a.trouble == troubleDevFull || a.trouble == troubleClosedPipe) && a.orderNo != "" {
			rep.ResultsUnwritten++
		}
		if a.killed {
			rep.Exits["killed"]++
			rep.ClientKills++
			continue
		}
		rep.Exits[strconv.Itoa(a.exit)]++
	}
	return journalWriteFailures
}

// checkJournal reads the journal (view 2) directly and as `paycli journal`
// shows it, checks that the two agree, and returns its attempts by invoice.
func (r *run) checkJournal(ctx context.Context, journalWriteFailures int) (map[string][]journal.Attempt, error) {
	rep := r.report
	attempts, skipped, err := journal.Read(r.journalPath())
	if err != nil {
		return nil, err
	}
	rep.TornLines = skipped
	// Only a write that failed midway tears a line: a SIGKILL cannot cut a
	// write(2) to a file short, so only processes out of disk can leave one.
	if skipped > journalWriteFailures {
		r.addProblem("journal: %d unreadable lines, but only %d processes failed to write a journal line", skipped, journalWriteFailures)
	}
	records, err := r.journalListing(ctx)
	if err != nil {
		return nil, err
	}
	if len(records) != len(attempts) {
		r.addProblem("paycli journal lists %d attempts, the journal holds %d", len(records), len(attempts))
	}
	for _, rec := range records {
		if !rec.OutcomeRecorded {
			rep.OpenIntents++
		}
		if !rec.OutcomeRecorded && rec.Outcome != journal.Unknown {
			r.addProblem("invoice %s: an intent without an outcome is listed as %q, not unknown", rec.Invoice, rec.Outcome)
		}
	}
	journalByInv := map[string][]journal.Attempt{}
	for _, a := range attempts {
		rep.Journal[soakClass(a)]++
		journalByInv[a.Intent.Invoice] = append(journalByInv[a.Intent.Invoice], a)
	}
	return journalByInv, nil
}

// readSales reads the sandbox's store (view 3, beside check status),
// refusing two sales of one invoice or one order, and returns its sales
// by invoice.
func (r *run) readSales() (map[string]sandbox.Sale, error) {
	store, err := sandbox.OpenStore(r.sandboxDir, 10*time.Second, r.cfg.Now())
	if err != nil {
		return nil, fmt.Errorf("soak: open the sandbox store: %w", err)
	}
	sales, err := store.Sales()
	store.Close()
	if err != nil {
		return nil, err
	}
	salesByInv := map[string]sandbox.Sale{}
	orders := map[string]string{}
	for _, s := range sales {
		r.report.Sales[s.State]++
		if _, dup := salesByInv[s.InvoiceID]; dup {
			r.addProblem("invoice %s: the store holds two sales", s.InvoiceID)
		}
		salesByInv[s.InvoiceID] = s
		if other, dup := orders[s.OrderID]; dup && s.OrderID != "" {
			r.addProblem("order %s is stored for invoices %s and %s", s.OrderID, other, s.InvoiceID)
		}
		orders[s.OrderID] = s.InvoiceID
	}
	return salesByInv, nil
}

// reconcile checks one invoice.
func (r *run) reconcile(inv invoice, procs []attempt, jattempts []journal.Attempt, salesByInv map[string]sandbox.Sale, cs checkStatus) {
	id := inv.id
	sale, stored := salesByInv[id]

	// Charged twice: more than one process told "paid", or two order numbers.
	succeededOrders := map[string]bool{}
	paid := 0
	for _, p := range procs {
		if p.exit != app.ExitOK {
			continue
		}
		paid++
		if p.orderNo == "" {
			// A process whose stdout broke must name the order on stderr.
			r.addProblem("invoice %s: a process exited 0 (%s) but named no order number", id, p.trouble)
			continue
		}
		succeededOrders[p.orderNo] = true
	}
	for _, a := range jattempts {
		if soakClass(a) == journal.Succeeded {
			succeededOrders[a.Outcome.OrderNo] = true
		}
	}
	if paid > 1 {
		r.addProblem("invoice %s: charged twice: %d processes exited 0", id, paid)
	}
	if len(succeededOrders) > 1 {
		r.addProblem("invoice %s: charged twice: succeeded with orders %v", id, sortedKeys(succeededOrders))
	}
	// Answered 100 but lost / exit 0 without a stored sale.
	for order := range succeededOrders {
		switch {
		case !stored:
			r.addProblem("invoice %s: answered 100 (order %q) but the sandbox has no sale", id, order)
		case sale.State != sandbox.StateCompleted || sale.OrderID != order:
			r.addProblem("invoice %s: answered 100 (order %q) but the sandbox holds %s order %q", id, order, sale.State, sale.OrderID)
		}
	}

	// Check status agrees with the store.
	switch {
	case stored && !cs.found:
		r.addProblem("invoice %s: stored as %s but check status does not know it", id, sale.State)
	case stored && (cs.orderID != sale.OrderID || cs.status != statusOfState(sale.State)):
		r.addProblem("invoice %s: stored as %s order %s; check status says %s order %s", id, sale.State, sale.OrderID, cs.status, cs.orderID)
	case !stored && cs.found:
		r.addProblem("invoice %s: check status knows it (%s) but the store does not", id, cs.status)
	}

	exits, killed := r.checkStory(id, procs, jattempts, walletPayLoose)

	// A charge nobody was told about must have been reported unknown: by
	// a process that exited 7 or was killed, with an unknown attempt in
	// the journal (an intent without an outcome is unknown too).
	if stored && sale.State == sandbox.StateCompleted && len(succeededOrders) == 0 {
		if exits[app.ExitOutcomeUnknown]+killed == 0 || !slices.ContainsFunc(jattempts, func(a journal.Attempt) bool { return soakClass(a) == journal.Unknown }) {
			r.addProblem("invoice %s: charged (order %s) but no process exited 0 or 7 and no attempt is unknown", id, sale.OrderID)
		} else {
			r.report.UnknownCharged++
		}
	}
}

// cardOpLoose: a refund, capture or cancel may stop before its intent
// with exit 2 (a local refusal: more than remains, a refund of unknown
// outcome pending), 4 (not refundable, not an open pre-authorization;
// or refused by the gateway, journaled rejected) or 8 (the check before
// it found no gateway).
var cardOpLoose = map[int]string{app.ExitUsage: "", app.ExitRejected: journal.Rejected, app.ExitUnavailable: journal.NotSent}

// walletPayLoose: a walletpay that exited 8 may have written a not_sent
// attempt or nothing (the token call may have failed before the intent).
var walletPayLoose = map[int]string{app.ExitUnavailable: journal.NotSent}

// checkStory checks that the exit codes of the processes that acted on
// one invoice and the journal's attempts for it tell the same story, and
// returns the exit codes counted (killed processes left out) and the
// kills. A process that exited 0, 4, 5, 6 or 7 must have left an attempt
// of that exit code's class (classOfExit); one that could not write its
// outcome line (and said so) an open intent, which reads as unknown; one
// that could not write its intent (exit 1, nothing sent), or that the
// journal held back (refusedBeforeSending), nothing. loose
// names the exit codes that may leave an attempt of the given class or
// nothing ("" for nothing at all): codes for which the command may stop
// before its intent. A killed process may have written nothing, an intent
// alone (unknown) or both lines, so each class may exceed what the others
// account for by the kills.
func (r *run) checkStory(id string, procs []attempt, jattempts []journal.Attempt, loose map[int]string) (map[int]int, int) {
	expect := map[string]int{}
	looseBound := map[string]int{}
	exits := map[int]int{}
	killed := 0
	for _, p := range procs {
		if p.killed {
			killed++
			continue
		}
		exits[p.exit]++
		unwritten := p.outcomeUnwritten()
		class, known := classOfExit(p.exit)
		looseClass, isLoose := loose[p.exit]
		switch {
		case p.refusedByJournal(), p.refusedBeforeSending():
		case unwritten != "":
			want := class
			if !known {
				want = looseClass
			}
			if want == "" || unwritten != want {
				r.addProblem("invoice %s: a process exited %d but says its outcome %s could not be written", id, p.exit, unwritten)
			}
			expect[journal.Unknown]++
		case isLoose:
			looseBound[looseClass]++
		case !known:
			r.addProblem("invoice %s: a process exited %d: %s", id, p.exit, lastLine(p.stderr))
		default:
			expect[class]++
		}
	}

	classes := map[string]int{}
	for _, a := range jattempts {
		classes[soakClass(a)]++
	}
	for _, class := range sortedKeys(classes, expect) {
		n, want := classes[class], expect[class]
		switch {
		case !slices.Contains([]string{journal.Succeeded, journal.Rejected, journal.Declined, journal.Duplicate, journal.Unknown, journal.NotSent}, class):
			r.addProblem("invoice %s: journal outcome %q", id, class)
		case class == journal.NotSent && want == 0 || looseBound[class] > 0:
			if bound := want + looseBound[class] + killed; n < want || n > bound {
				code := app.ExitUnavailable
				for c, lc := range loose {
					if lc == class {
						code = c
					}
				}
				r.addProblem("invoice %s: %d %s attempts but %d processes exited %d (%d killed)", id, n, class, looseBound[class], code, killed)
			}
		case want == 0 && n > killed:
			code, _ := exitOfClass(class)
			r.addProblem("invoice %s: %d %s attempts but no process exited %d with its outcome written (%d killed)", id, n, class, code, killed)
		case n < want || n > want+killed:
			r.addProblem("invoice %s: the processes account for %d %s attempts (%d killed) but the journal has %d %s attempts", id, want, class, killed, n, class)
		}
	}
	return exits, killed
}

// journalListing runs `paycli journal -o json` as a user would.
func (r *run) journalListing(ctx context.Context) ([]journalRecord, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, r.cfg.Binary, "journal", "-o", "json")
	cmd.Env = r.env
	out, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return nil, fmt.Errorf("soak: paycli journal: %v: %s", err, strings.TrimSpace(string(ee.Stderr)))
		}
		return nil, fmt.Errorf("soak: paycli journal: %w", err)
	}
	var recs []journalRecord
	if err := json.Unmarshal(out, &recs); err != nil {
		return nil, fmt.Errorf("soak: paycli journal -o json: %w", err)
	}
	return recs, nil
}

// checkStatuses asks check status about every invoice of the pool, from
// a sandbox started in this process over the run's state, without faults.
func (r *run) checkStatuses(ctx context.Context) ([]checkStatus, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	srv, err := sandbox.StartServer(ln, sandbox.ServerOptions{StateDir: r.sandboxDir, LockTimeout: 10 * time.Second, Gateway: sandbox.Options{Now: r.cfg.Now}})
	if err != nil {
		return nil, fmt.Errorf("soak: start a sandbox for the check: %w", err)
	}
	defer srv.Shutdown(context.WithoutCancel(ctx))
	client, err := gateway.New(srv.BaseURL, gateway.Credentials{AppID: sandbox.AppID, AppSecret: sandbox.AppSecret, MerchantKey: sandbox.MerchantKey},
		gateway.WithClock(r.cfg.Now))
	if err != nil {
		return nil, err
	}
	out := make([]checkStatus, len(r.invoices))
	for i, inv := range r.invoices {
		res, err := client.CheckStatus(ctx, inv.id)
		switch {
		case errors.Is(err, gateway.ErrNotFound):
		case errors.Is(err, gateway.ErrPending):
			out[i] = checkStatus{found: true, status: "Pending"}
		case err != nil:
			return nil, fmt.Errorf("soak: check status of %s: %w", inv.id, err)
		default:
			out[i] = checkStatus{found: true, status: res.TransactionStatus, orderID: res.OrderID}
		}
	}
	return out, nil
}

// orderNoOf reads order_no from walletpay's -o json output.
func orderNoOf(stdout string) string {
	var v struct {
		OrderNo string `json:"order_no"`
	}
	_ = json.Unmarshal([]byte(stdout), &v)
	return v.OrderNo
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

// sortedKeys returns the keys of the maps, sorted, each once.
func sortedKeys[V any](maps ...map[string]V) []string {
	var keys []string
	for _, m := range maps {
		for k := range m {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return slices.Compact(keys)
}

// checkOneRefundEach finds a refund command that refunded twice: the
// sandbox holds more refunds of an amount than there were refund command
// lines with that amount (`paycli refund --amount`, `paycli api POST
// /api/refund`). A command killed and run again at once is one command
// line: its second refund is a double, unless the journal had recorded
// the first one's success before the second was sent, when it is a new
// refund by paycli's rules (refunds of equal amounts are allowed) and
// the journal says so. A `refund --retry` re-sends its refund's own id,
// which the gateway never applies twice (checkCardSale). A refund of all
// that remains (--full) may happen to have any amount, so each one on the
// sale lets one refund more through.
func (r *run) checkOneRefundEach(cs cardSale, sale sandbox.Sale, procs []attempt, jattempts []journal.Attempt) {
	allowed := map[string]int{}
	full := 0
	for _, p := range procs {
		if (p.kind != kindRefund && p.kind != kindAPI) || p.retryRef != "" || p.rerun {
			continue
		}
		if p.amount == "" {
			full++
			continue
		}
		allowed[amountKey(p.amount)]++
		r.report.RefundCommands++
	}
	for amount, n := range sentAfterASuccess(jattempts) {
		allowed[amount] += n
	}
	made := map[string][]string{}
	for _, rf := range sale.Refunds {
		made[amountKey(rf.Amount)] = append(made[amountKey(rf.Amount)], rf.TransactionID)
	}
	for _, amount := range sortedKeys(made) {
		if n, ids := allowed[amount], made[amount]; n > 0 && len(ids) > n+full {
			r.addProblem("card sale %s: refunded twice: %d refunds of %s (%s), %d allowed (its refund commands, and their repeats after a recorded success)",
				cs.id, len(ids), amount, strings.Join(ids, ", "), n+full)
		}
	}
}

// sentAfterASuccess counts, by amount, the refund attempts sent after the
// journal had recorded an earlier refund of the same amount on the sale
// as made.
func sentAfterASuccess(attempts []journal.Attempt) map[string]int {
	out := map[string]int{}
	for _, a := range attempts {
		amount := amountKey(a.Intent.Amount)
		if slices.ContainsFunc(attempts, func(b journal.Attempt) bool {
			return amountKey(b.Intent.Amount) == amount && b.Outcome != nil && (b.Outcome.Outcome == journal.Succeeded || b.Outcome.Outcome == journal.Queued) &&
				b.Outcome.Time.Before(a.Intent.Time)
		}) {
			out[amount]++
		}
	}
	return out
}

// amountKey is an amount as the checker compares it: 10.5, 10.50 and
// 10.500 are one amount.
func amountKey(s string) string {
	d, err := decimal.NewFromString(s)
	if err != nil {
		return s
	}
	return d.String()
}

// cardSaleState names what became of a card sale, for the report.
func cardSaleState(s sandbox.Sale, stored bool) string {
	switch {
	case !stored:
		return "lost"
	case s.PreAuth != nil:
		st := "preauth " + s.PreAuth.State
		if len(s.Refunds) > 0 {
			st += ", refunded"
		}
		return st
	case len(s.Refunds) > 0 && s.Refundable().IsZero():
		return "refunded in full"
	case len(s.Refunds) > 0:
		return "refunded in part"
	}
	return s.State
}

// checkCardOps checks what the refund, capture, cancel and api refund
// processes of one card sale said against its journal and the sandbox's
// state: their exit codes against the journal (checkStory), the refunds
// (checkRefunds), one refund per command (checkOneRefundEach) and the
// pre-authorization's capture or cancel (checkPreAuthOps).
func (r *run) checkCardOps(cs cardSale, sale sandbox.Sale, stored bool, procs []attempt, jattempts []journal.Attempt) {
	byKind := map[string][]attempt{}
	for _, p := range procs {
		byKind[p.kind] = append(byKind[p.kind], p)
	}
	jByKind := map[string][]journal.Attempt{}
	for _, a := range jattempts {
		jByKind[a.Intent.OpKind()] = append(jByKind[a.Intent.OpKind()], a)
	}
	// A paycli that journals an api call under the operation's own kind
	// records an api refund as a refund: its processes then tell the
	// refund story with those of `paycli refund`.
	if len(jByKind[kindAPI]) == 0 && len(byKind[kindAPI]) > 0 {
		byKind[kindRefund] = append(byKind[kindRefund], byKind[kindAPI]...)
		delete(byKind, kindAPI)
	}
	kinds := map[string]bool{}
	for k := range byKind {
		kinds[k] = true
	}
	for k := range jByKind {
		kinds[k] = true
	}
	for _, kind := range sortedKeys(kinds) {
		if kind != kindRefund && kind != kindCapture && kind != kindCancel && kind != kindAPI {
			r.addProblem("card sale %s: a journal attempt of kind %q", cs.id, kind)
			continue
		}
		r.checkStory(cs.id+" ("+kind+")", byKind[kind], jByKind[kind], cardOpLoose)
	}
	if !stored {
		return // checkCardSale said so
	}
	refundAttempts := slices.Concat(jByKind[kindRefund], jByKind[kindAPI])
	r.checkRefunds(cs, sale, refundAttempts)
	r.checkOneRefundEach(cs, sale, procs, refundAttempts)
	if cs.preauth && sale.PreAuth != nil {
		r.checkPreAuthOps(cs, sale, byKind, jByKind)
	}
}

// checkRefunds: every refund the journal says succeeded is in the store
// under its refund_transaction_id, or for an api refund, which names none,
// its amount (no answered refund lost); and every refund in the store has
// an intent that names it (or an api attempt of its amount) which did not
// end refused (none made behind the journal's back).
func (r *run) checkRefunds(cs cardSale, sale sandbox.Sale, jattempts []journal.Attempt) {
	refunds := map[string]bool{}
	refundAmounts := map[string]bool{}
	for _, rf := range sale.Refunds {
		refunds[rf.TransactionID] = true
		refundAmounts[amountKey(rf.Amount)] = true
	}
	// The classes of the attempts that sent each refund_transaction_id: a
	// refund of unknown outcome re-sent with --retry has several. An api
	// refund names no refund_transaction_id: its attempts are known by
	// their amount, which no other refund command on the sale shares.
	byRef := map[string]map[string]bool{}
	apiByAmount := map[string]map[string]bool{}
	for _, a := range jattempts {
		ref, made := a.Intent.Ref, soakClass(a) == journal.Succeeded || soakClass(a) == journal.Duplicate
		if ref == "" {
			amount := amountKey(a.Intent.Amount)
			if apiByAmount[amount] == nil {
				apiByAmount[amount] = map[string]bool{}
			}
			apiByAmount[amount][soakClass(a)] = true
			if made && !refundAmounts[amount] {
				r.addProblem("card sale %s: an api refund of %s answered as made (%s) but the sandbox has no refund of that amount", cs.id, a.Intent.Amount, soakClass(a))
			}
			continue
		}
		if byRef[ref] == nil {
			byRef[ref] = map[string]bool{}
		}
		byRef[ref][soakClass(a)] = true
		// 104 to a retry means the first attempt made it.
		if made && !refunds[ref] {
			r.addProblem("card sale %s: refund %s answered as made (%s) but the sandbox has no such refund", cs.id, ref, soakClass(a))
		}
	}
	for _, rf := range sale.Refunds {
		classes, ok := byRef[rf.TransactionID]
		api, byAPI := apiByAmount[amountKey(rf.Amount)]
		switch {
		case !ok && byAPI && (api[journal.Succeeded] || api[journal.Duplicate]):
			r.report.RefundsTold["api succeeded"]++
		case !ok && byAPI && api[journal.Unknown]:
			r.report.RefundsTold["api unknown"]++
		case !ok && byAPI:
			r.addProblem("card sale %s: refund %s of %s made by an api call, but the journal says %v", cs.id, rf.TransactionID, rf.Amount, sortedKeys(api))
		case !ok:
			r.addProblem("card sale %s: refund %s of %s made but no journal intent names it", cs.id, rf.TransactionID, rf.Amount)
		case classes[journal.Succeeded] || classes[journal.Duplicate]:
			r.report.RefundsTold["succeeded"]++
		case classes[journal.Unknown]:
			r.report.RefundsTold["unknown"]++
		default:
			r.addProblem("card sale %s: refund %s of %s made, but the journal says %v", cs.id, rf.TransactionID, rf.Amount, sortedKeys(classes))
		}
	}
}

// checkPreAuthOps: at most one capture and one cancel told success, never
// both; a capture or cancel told success is what the store holds (the
// captured amount included); and one nobody was told about was reported
// unknown.
func (r *run) checkPreAuthOps(cs cardSale, sale sandbox.Sale, byKind map[string][]attempt, jByKind map[string][]journal.Attempt) {
	told := func(kind string) (n int, amounts []string) {
		for _, p := range byKind[kind] {
			if p.exit == app.ExitOK {
				n++
				amounts = append(amounts, p.amount)
			}
		}
		for _, a := range jByKind[kind] {
			if soakClass(a) == journal.Succeeded {
				n = max(n, 1)
			}
		}
		return n, amounts
	}
	captures, amounts := told(kindCapture)
	cancels, _ := told(kindCancel)
	state := sale.PreAuth.State
	switch {
	case captures > 1:
		r.addProblem("card sale %s: captured twice: %d processes exited 0", cs.id, captures)
	case cancels > 1:
		r.addProblem("card sale %s: cancelled twice: %d processes exited 0", cs.id, cancels)
	case captures > 0 && cancels > 0:
		r.addProblem("card sale %s: told captured and told cancelled", cs.id)
	case captures > 0 && state != sandbox.PreAuthCaptured, cancels > 0 && state != sandbox.PreAuthCancelled:
		r.addProblem("card sale %s: %d captures and %d cancels told success, but the pre-authorization is %s", cs.id, captures, cancels, state)
	}
	if captures == 1 && state == sandbox.PreAuthCaptured && len(amounts) == 1 {
		want := cs.amount
		if amounts[0] != "" {
			want = decimal.RequireFromString(amounts[0])
		}
		if got, err := decimal.NewFromString(sale.PreAuth.Captured); err != nil || !got.Equal(want) {
			r.addProblem("card sale %s: a capture of %s told success, the sandbox captured %q", cs.id, want.StringFixed(2), sale.PreAuth.Captured)
		}
	}
	unknownOf := func(kind string) bool {
		return slices.ContainsFunc(jByKind[kind], func(a journal.Attempt) bool { return soakClass(a) == journal.Unknown }) &&
			slices.ContainsFunc(byKind[kind], func(p attempt) bool {
				return p.killed || p.exit == app.ExitOutcomeUnknown || p.outcomeUnwritten() != ""
			})
	}
	for _, c := range []struct {
		state, kind string
		told        int
	}{{sandbox.PreAuthCaptured, kindCapture, captures}, {sandbox.PreAuthCancelled, kindCancel, cancels}} {
		if state != c.state || c.told > 0 {
			continue
		}
		if !unknownOf(c.kind) {
			r.addProblem("card sale %s: %s, but no %s process was told so or told the outcome is unknown", cs.id, state, c.kind)
		}
	}
}

// soakClass is an attempt's class as the checker counts it: a refund
// queued for approval (101, journal.Queued: the sandbox queues amounts
// ending in .01) was taken by the gateway, as one it made at once.
func soakClass(a journal.Attempt) string {
	if c := a.Class(); c != journal.Queued {
		return c
	}
	return journal.Succeeded
}
