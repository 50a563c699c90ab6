//go:build unix

package soak

// Issue 39's adversarial gateway, as episodes of a desk model history:
// each plays once per history on an invoice of its own (a card sale of
// 150.00 that no random command touches), from a third of the way on,
// beside the history's other troubles. Each ends the way the issue's
// double refund did: a first refund the gateway makes, something that is
// not the gateway's word about it, then a second refund. By the
// settlement rule (docs/journal.md) the first blocks the invoice until
// check status names it, so a right paycli refuses the second (exit 6)
// and the clerk's final reconcile settles the first.

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/paycli/paycli/internal/app"
	"github.com/paycli/paycli/internal/hashkey"
	"github.com/paycli/paycli/internal/sandbox"
)

// episodes are issue 39's gateway behaviours (-model.faults names).
var episodes = []string{"resend49", "queued104", "late", "rotate"}

// lateBy is how long after its client gave up the gateway makes the late
// refund, on the database's clock (moved by pgtest's MoveClock): past the
// refund's deadline and journal.InFlightMargin.
const lateBy = 140 * time.Second

// modelFaultSet is -model.faults as a set.
func modelFaultSet() map[string]bool {
	faults := map[string]bool{}
	for f := range strings.SplitSeq(*modelFaults, ",") {
		faults[strings.TrimSpace(f)] = true
	}
	return faults
}

// episode plays one of issue 39's gateway behaviours on its invoice.
func (d *modelDesk) episode(round int, name string) {
	inv := d.episodeInvoices[name]
	if inv == nil {
		return
	}
	d.count("episodes")
	ayse, mehmet, zeynep := d.operators[0], d.operators[1], d.operators[2]
	refund := func(op *operator, amount string, plan *gwPlan) procResult {
		args := []string{"refund", "--invoice", inv.id, "--amount", amount, "--yes", "-o", "json", "--timeout", modelTimeout.String()}
		var hand func(cmd *exec.Cmd) func()
		if plan != nil {
			hand = func(cmd *exec.Cmd) func() {
				if plan.kill == nil && plan.hold > 0 { // killed as its request arrives
					plan.kill = func() { _ = cmd.Process.Kill() }
				}
				return d.gw.planned(inv.id, plan)
			}
		}
		res := d.execPlanned(op, hand, args...)
		d.logf("r%d %s %s: paycli refund --invoice %s --amount %s → exit %d %s", round, name, op.name, inv.id, amount, res.exit, lastLine(res.stderr))
		return res
	}
	retry := func(op *operator, ref string, plan *gwPlan) {
		var hand func(cmd *exec.Cmd) func()
		if plan != nil {
			hand = func(*exec.Cmd) func() { return d.gw.planned(inv.id, plan) }
		}
		res := d.execPlanned(op, hand, "refund", "--retry", ref, "--yes", "-o", "json", "--timeout", modelTimeout.String())
		d.logf("r%d %s %s: paycli refund --retry %s → exit %d %s", round, name, op.name, ref, res.exit, lastLine(res.stderr))
	}
	// first sends the episode's first refund until it reaches the gateway:
	// a crash of the database in the same round may stop it before (exit
	// 8, nothing sent), and the episode is about what comes after.
	first := func(op *operator, amounts []string, plan func() *gwPlan) {
		for _, amount := range amounts {
			if res := refund(op, amount, plan()); res.exit != app.ExitUnavailable {
				return
			}
			time.Sleep(time.Second)
		}
	}
	// madeRef is the ref of the invoice's first refund, once the gateway
	// has answered it.
	madeRef := func() string {
		r, ok := d.gw.waitFor(inv.id, 1)
		if !ok {
			d.t.Errorf("%s: the gateway never answered the refund of %s", name, inv.id)
		}
		return r.ref
	}
	switch name {
	case "resend49":
		// ayse's refund is made; she is killed as it arrives. mehmet
		// re-sends it: the gateway refuses the re-send (49: "more than
		// the refundable", which the first refund caused). zeynep refunds.
		first(ayse, []string{"3.03", "3.13", "3.23"}, func() *gwPlan { return &gwPlan{hold: 300 * time.Millisecond} })
		if ref := madeRef(); ref != "" {
			retry(mehmet, ref, &gwPlan{refuse: true})
		}
		refund(zeynep, "4.04", nil)
	case "queued104":
		// ayse's refund is queued for approval (an amount ending in .01:
		// 101). mehmet re-sends it: the sandbox answers 104 (its id is in
		// use). zeynep refunds; the gateway team approves the queued one
		// at the next check status (the sandbox's back office).
		first(ayse, []string{"5.01", "5.11", "5.21"}, func() *gwPlan { return nil })
		if ref := madeRef(); ref != "" {
			retry(mehmet, ref, nil)
		}
		refund(zeynep, "6.06", nil)
	case "late":
		// ayse's refund is held at the gateway; her paycli gives up at its
		// --timeout. The database's clock moves lateBy on, past the
		// refund's deadline and InFlightMargin; mehmet reconciles, zeynep
		// refunds, and only then does the gateway make ayse's refund.
		release := make(chan struct{})
		first(ayse, []string{"7.07", "7.17", "7.27"}, func() *gwPlan { return &gwPlan{release: release} })
		if err := d.srv.MoveClock(lateBy); err != nil {
			d.t.Errorf("move the database's clock: %v", err)
		}
		d.gw.shiftDB(lateBy)
		d.logf("r%d %s: the database's clock moved %s on", round, name, lateBy)
		d.reconcile(round, mehmet)
		refund(zeynep, "8.08", nil)
		close(release)
		d.gw.waitFor(inv.id, 1)
	case "rotate":
		// ayse's refund is made; she is killed as it arrives. The desk
		// rotates the merchant's app_id and app_secret (same merchant,
		// merchant_key and sales); mehmet refunds under the new ones.
		first(ayse, []string{"9.09", "9.19", "9.29"}, func() *gwPlan { return &gwPlan{hold: 300 * time.Millisecond} })
		madeRef()
		d.rotate(round)
		refund(mehmet, "10.10", nil)
	}
}

// rotate gives the merchant a new app_id and app_secret: the recorder
// takes them for the sandbox's (translate), and every operator's later
// processes use them.
func (d *modelDesk) rotate(round int) {
	fresh, err := sandbox.NewMerchantCredentials()
	if err != nil {
		d.t.Error(err)
		return
	}
	fresh.MerchantKey = sandbox.MerchantKey
	d.gw.mu.Lock()
	d.gw.rotatedTo = &fresh
	d.gw.mu.Unlock()
	d.envMu.Lock()
	for _, op := range append(d.operators, d.clerk) {
		env := make([]string, 0, len(op.env))
		for _, kv := range op.env {
			switch {
			case strings.HasPrefix(kv, "PAYCLI_APP_ID="):
				kv = "PAYCLI_APP_ID=" + fresh.AppID
			case strings.HasPrefix(kv, "PAYCLI_APP_SECRET="):
				kv = "PAYCLI_APP_SECRET=" + fresh.AppSecret
			}
			env = append(env, kv)
		}
		op.env = env
	}
	d.envMu.Unlock()
	d.logf("r%d rotate: the merchant's app_id and app_secret rotated (same merchant_key and sales)", round)
}

// translate turns a request made with the rotated credentials into one
// the sandbox, which knows the merchant by its first ones, takes: app_id
// and app_secret replaced, the hash_key made again with the first
// app_secret. Requests with the first credentials pass as they are.
func (g *modelGateway) translate(r *http.Request) {
	g.mu.Lock()
	rot := g.rotatedTo
	g.mu.Unlock()
	if rot == nil || r.Method != http.MethodPost || r.Body == nil {
		return
	}
	body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	body = rewriteCredentials(body, *rot, sandbox.DefaultCredentials())
	r.Body = io.NopCloser(bytes.NewReader(body))
	r.ContentLength = int64(len(body))
	r.Header.Set("Content-Length", strconv.Itoa(len(body)))
}

// rewriteCredentials rewrites a JSON or form body's app_id, app_secret
// and hash_key from the credentials from to those of to.
func rewriteCredentials(body []byte, from, to sandbox.Credentials) []byte {
	swap := func(field, value string) (string, bool) {
		switch {
		case field == "app_id" && value == from.AppID:
			return to.AppID, true
		case field == "app_secret" && value == from.AppSecret:
			return to.AppSecret, true
		case field == "hash_key":
			plain, err := hashkey.Decrypt(from.AppSecret, value)
			if err != nil {
				return "", false
			}
			hk, err := hashkey.Generate(to.AppSecret, plain)
			return hk, err == nil
		}
		return "", false
	}
	if trimmed := bytes.TrimSpace(body); bytes.HasPrefix(trimmed, []byte("{")) {
		dec := json.NewDecoder(bytes.NewReader(trimmed))
		dec.UseNumber()
		var obj map[string]any
		if dec.Decode(&obj) != nil {
			return body
		}
		for k, v := range obj {
			if s, ok := v.(string); ok {
				if nv, ok := swap(k, s); ok {
					obj[k] = nv
				}
			}
		}
		out, err := json.Marshal(obj)
		if err != nil {
			return body
		}
		return out
	}
	q, err := url.ParseQuery(string(body))
	if err != nil {
		return body
	}
	for k := range q {
		if nv, ok := swap(k, q.Get(k)); ok {
			q.Set(k, nv)
		}
	}
	return []byte(q.Encode())
}

// shiftDB tells the recorder that the database's clock moved by d.
func (g *modelGateway) shiftDB(d time.Duration) {
	g.mu.Lock()
	g.toDB += d
	g.mu.Unlock()
}

// waitFor waits (30 s at most) until the gateway has answered n money
// requests of invoice, and returns the last.
func (g *modelGateway) waitFor(invoice string, n int) (gwRequest, bool) {
	for end := time.Now().Add(30 * time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		var of []gwRequest
		for _, r := range g.history() {
			if r.invoice == invoice {
				of = append(of, r)
			}
		}
		if len(of) >= n {
			return of[len(of)-1], true
		}
	}
	return gwRequest{}, false
}

// discardWriter takes the sandbox's answer to a request the recorder
// answers itself.
type discardWriter struct{ header http.Header }

func (w *discardWriter) Header() http.Header         { return w.header }
func (w *discardWriter) Write(p []byte) (int, error) { return len(p), nil }
func (w *discardWriter) WriteHeader(int)             {}
