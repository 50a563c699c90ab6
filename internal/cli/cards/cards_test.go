package cards

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/paycli/paycli/internal/cmdutil"
	"github.com/paycli/paycli/internal/config"
	"github.com/paycli/paycli/internal/gateway"
	"github.com/paycli/paycli/internal/iostreams"
	"github.com/paycli/paycli/internal/journal"
	"github.com/paycli/paycli/internal/moneyop"
	"github.com/paycli/paycli/internal/render"
	"github.com/paycli/paycli/internal/sandbox"
)

// testNow is the clock of every test: the sandbox's, the client's and the
// journal's.
var testNow = time.Date(2026, 3, 14, 10, 0, 0, 0, time.UTC)

const (
	fullNumber = "4508034508034509"
	customer   = "5070"
)

// fixture is the sandbox behind httptest with one saved card of customer
// 5070; dropNext makes the next deleteCard be handled (the card deleted)
// and its connection closed without an answer.
type fixture struct {
	client      *gateway.Client
	cfg         *config.Config
	token       string
	journalPath string
	deletes     atomic.Int32
	dropNext    atomic.Bool
	// replace, when set, answers deleteCard instead of the sandbox.
	replace func(w http.ResponseWriter)
	// dropPath, when set, makes the next call whose path ends with it be
	// handled and its connection closed without an answer.
	dropPath atomic.Pointer[string]
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	store, err := sandbox.OpenStore(t.TempDir(), time.Second, testNow)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = store.Close() })
	gw, err := sandbox.New(sandbox.Options{Now: func() time.Time { return testNow }, Store: store})
	if err != nil {
		t.Fatal(err)
	}
	fx := &fixture{journalPath: filepath.Join(t.TempDir(), "state", "paycli", journal.FileName)}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if p := fx.dropPath.Load(); p != nil && strings.HasSuffix(r.URL.Path, *p) && fx.dropPath.CompareAndSwap(p, nil) {
			gw.ServeHTTP(httptest.NewRecorder(), r)
			if conn, _, err := w.(http.Hijacker).Hijack(); err == nil {
				_ = conn.Close()
			}
			return
		}
		if !strings.HasSuffix(r.URL.Path, "/api/deleteCard") {
			gw.ServeHTTP(w, r)
			return
		}
		fx.deletes.Add(1)
		switch {
		case fx.replace != nil:
			fx.replace(w)
		case fx.dropNext.CompareAndSwap(true, false):
			gw.ServeHTTP(httptest.NewRecorder(), r)
			conn, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				_ = conn.Close()
			}
		default:
			gw.ServeHTTP(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	base := srv.URL + sandbox.Base
	fx.cfg = &config.Config{Profile: "test", BaseURL: base, AppID: sandbox.AppID, AppSecret: sandbox.AppSecret,
		MerchantKey: sandbox.MerchantKey, Timeout: 10 * time.Second, Output: "table"}
	fx.client, err = gateway.New(base, gateway.Credentials{AppID: sandbox.AppID, AppSecret: sandbox.AppSecret, MerchantKey: sandbox.MerchantKey},
		gateway.WithClock(func() time.Time { return testNow }))
	if err != nil {
		t.Fatal(err)
	}
	res, err := fx.client.SaveCard(context.Background(), gateway.SaveCardRequest{CustomerNumber: customer, CardHolderName: "Ada Lovelace",
		CardNumber: fullNumber, ExpiryMonth: "12", ExpiryYear: "2030"})
	if err != nil {
		t.Fatal(err)
	}
	fx.token = res.Card.CardToken
	return fx
}

func (fx *fixture) commandContext(ctx context.Context) (context.Context, context.CancelFunc, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	return ctx, cancel, nil
}

// deleteOptions are a `cards delete --yes` of the fixture's card, on
// buffers.
func (fx *fixture) deleteOptions(ios *iostreams.IOStreams, n *int) *DeleteOptions {
	return &DeleteOptions{
		Options: moneyop.Options{
			Deps: cmdutil.Deps{
				IO:             ios,
				Config:         func() (*config.Config, error) { return fx.cfg, nil },
				Format:         func() (render.Format, error) { return render.Table, nil },
				Gateway:        func() (*gateway.Client, error) { return fx.client, nil },
				CommandContext: fx.commandContext,
				Now:            func() time.Time { return testNow },
			},
			JournalPath: func() (string, error) { return fx.journalPath, nil },
			Journal: func() (journal.Store, error) {
				return journal.OpenFile(fx.journalPath, func() time.Time { return testNow }), nil
			},
			NewAttemptID: func() string {
				*n++
				return "attempt-" + string(rune('0'+*n))
			},
			Yes: true,
		},
		CustomerNumber: customer, CardToken: fx.token, Reason: "KVKK request 12",
	}
}

func (fx *fixture) attempts(t *testing.T) []journal.Attempt {
	t.Helper()
	attempts, _, err := journal.Read(fx.journalPath)
	if err != nil {
		t.Fatal(err)
	}
	return attempts
}

// TestUnknownDeletionIsSettledBySendingItAgain: a deletion whose answer
// never came is unknown (exit 7, not "not sent": the card was deleted),
// names the command that settles it, and that command goes out past it —
// the gateway's "not there" is a refusal (exit 4) that settles nothing:
// the first stays unknown (issue 39). Without the operation's Resend, the
// second command was refused (exit 2).
func TestUnknownDeletionIsSettledBySendingItAgain(t *testing.T) {
	fx := newFixture(t)
	n := 0
	fx.dropNext.Store(true)
	ios, _, _, errOut := iostreams.Test()
	err := deleteRun(context.Background(), fx.deleteOptions(ios, &n))
	if k, _ := cmdutil.KindOf(err); k != cmdutil.KindOutcomeUnknown {
		t.Fatalf("first: %v (kind %v)\n%s", err, k, errOut)
	}
	if !strings.Contains(err.Error(), "outcome unknown for the deletion of card token "+fx.token+" of customer 5070") ||
		!strings.Contains(cmdutil.HintOf(err), "paycli cards delete --customer-number 5070 --card-token "+fx.token+" --reason 'KVKK request 12' --yes") {
		t.Errorf("first: %v\nhint: %s", err, cmdutil.HintOf(err))
	}
	attempts := fx.attempts(t)
	if len(attempts) != 1 || attempts[0].Class() != journal.Unknown || attempts[0].Intent.Reason != "KVKK request 12" {
		t.Fatalf("journal after the first: %+v", attempts)
	}

	// The first deletion went through (its answer was lost): sent again,
	// the gateway says the card is not there. That refusal says nothing of
	// the first (issue 39: a refused re-send tells nothing): exit 4, the
	// re-send journaled as rejected, the first still unknown and blocking
	// the card's key, and the hint names the lead's settle.
	ios, _, out, _ := iostreams.Test()
	err = deleteRun(context.Background(), fx.deleteOptions(ios, &n))
	if k, _ := cmdutil.KindOf(err); k != cmdutil.KindRejected || out.Len() != 0 ||
		!strings.Contains(err.Error(), "says nothing of the earlier deletion "+attempts[0].Intent.Attempt) ||
		!strings.Contains(cmdutil.HintOf(err), "paycli journal settle "+attempts[0].Intent.Attempt+" --as made") {
		t.Fatalf("second: %v (kind %v)\nhint: %s\nstdout %q", err, k, cmdutil.HintOf(err), out)
	}
	if got := fx.deletes.Load(); got != 2 {
		t.Errorf("%d deleteCard calls, want 2", got)
	}
	attempts = fx.attempts(t)
	scope := journal.ScopeFor(KindDelete, "test", fx.cfg.BaseURL, journal.AccountOf(fx.client.BaseURL(), sandbox.AppID, sandbox.MerchantKey), false)
	if len(attempts) != 2 || attempts[1].Class() != journal.Rejected {
		t.Fatalf("journal after the second: %+v", attempts)
	}
	if open := journal.UnresolvedAll(attempts); len(open) != 1 || open[0].Intent.Attempt != attempts[0].Intent.Attempt {
		t.Errorf("unresolved after a refused re-send: %+v, want the first deletion", open)
	}
	if blocking := journal.Blocking(attempts, scope, CardKey(customer, fx.token)); len(blocking) != 1 {
		t.Errorf("blocking after a refused re-send: %+v, want the first deletion", blocking)
	}
}

// TestDeletingTwice: the second deletion of a card is the gateway's
// refusal with its text, exit 4, journaled as rejected, never succeeded.
func TestDeletingTwice(t *testing.T) {
	fx := newFixture(t)
	n := 0
	ios, _, out, _ := iostreams.Test()
	if err := deleteRun(context.Background(), fx.deleteOptions(ios, &n)); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "450803******4509") {
		t.Errorf("stdout:\n%s", out)
	}
	ios, _, out, _ = iostreams.Test()
	err := deleteRun(context.Background(), fx.deleteOptions(ios, &n))
	var apiErr *gateway.APIError
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 1 || out.Len() != 0 {
		t.Fatalf("second: %v; stdout %q", err, out)
	}
	if k, _ := cmdutil.KindOf(err); k != cmdutil.KindRejected || strings.Count(err.Error(), "nothing was") != 1 {
		t.Errorf("second: %v (kind %v): the gateway's refusal is exit 4, saying once what was not done", err, k)
	}
	attempts := fx.attempts(t)
	if len(attempts) != 2 || attempts[0].Class() != journal.Succeeded || attempts[1].Class() != journal.Rejected {
		t.Errorf("journal: %+v", attempts)
	}
}

// TestFullNumberWrittenNowhere: a gateway that echoes the full number (in
// the card and in its text) never gets it into stdout, stderr or the
// journal: the client masks it, and so does every field paycli shows.
func TestFullNumberWrittenNowhere(t *testing.T) {
	fx := newFixture(t)
	fx.replace = func(w http.ResponseWriter) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"status_code":100,"status_description":"Card ` + fullNumber + ` deleted","id":1,"card_token":"` + fx.token +
			`","card_number":"` + fullNumber + `","customer_number":"5070","card_holder_name":"` + fullNumber + `"}`))
	}
	n := 0
	ios, _, out, errOut := iostreams.Test()
	ios.SetStderrTTY(true)
	if err := deleteRun(context.Background(), fx.deleteOptions(ios, &n)); err != nil {
		t.Fatal(err)
	}
	journalText, err := os.ReadFile(fx.journalPath)
	if err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{"stdout": out.String(), "stderr": errOut.String(), "journal": string(journalText)} {
		if strings.Contains(text, fullNumber) {
			t.Errorf("%s holds the full number:\n%s", name, text)
		}
	}
	if !strings.Contains(errOut.String(), "Deleted the saved card 450803******4509 of customer 5070") {
		t.Errorf("stderr:\n%s", errOut)
	}
}

// TestListAndNoCards: the list shows masked numbers, expiry, bank and
// program; a customer without cards is exit 4, nothing on stdout.
func TestListAndNoCards(t *testing.T) {
	fx := newFixture(t)
	ios, _, out, errOut := iostreams.Test()
	opts := &ListOptions{Deps: cmdutil.Deps{
		IO:             ios,
		Format:         func() (render.Format, error) { return render.Table, nil },
		Gateway:        func() (*gateway.Client, error) { return fx.client, nil },
		CommandContext: fx.commandContext,
	}, CustomerNumber: customer}
	if err := listRun(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	want := "TOKEN                             CARD              EXPIRY   BANK                PROGRAM  SAVED\n" +
		fx.token + "  450803******4509  12/2030  T. IS BANKASI A.S.  MAXIMUM  2026-03-14\n"
	if out.String() != want || !strings.Contains(errOut.String(), "1 card saved for customer 5070\n") {
		t.Errorf("stdout:\n%s\nwant:\n%s\nstderr: %s", out, want, errOut)
	}
	ios, _, out, _ = iostreams.Test()
	opts.IO, opts.CustomerNumber = ios, "9999"
	err := listRun(context.Background(), opts)
	if k, _ := cmdutil.KindOf(err); k != cmdutil.KindRejected || err.Error() != "customer 9999 has no saved cards at the gateway" || out.Len() != 0 {
		t.Errorf("%v (kind %v), stdout %q", err, k, out)
	}
}

// TestDeleteCheck: the flags are checked before anything exists.
func TestDeleteCheck(t *testing.T) {
	for _, tc := range []struct {
		in    deletion
		field string
	}{
		{deletion{CustomerNumber: "5070", CardToken: "abc", Reason: "why"}, ""},
		{deletion{CustomerNumber: "", CardToken: "abc", Reason: "why"}, "customer-number"},
		{deletion{CustomerNumber: "50|70", CardToken: "abc", Reason: "why"}, "customer-number"},
		{deletion{CustomerNumber: "5070", CardToken: "", Reason: "why"}, "card-token"},
		{deletion{CustomerNumber: "5070", CardToken: "a b", Reason: "why"}, "card-token"},
		{deletion{CustomerNumber: "5070", CardToken: "a|b", Reason: "why"}, "card-token"},
		{deletion{CustomerNumber: "5070", CardToken: strings.Repeat("a", 65), Reason: "why"}, "card-token"},
		{deletion{CustomerNumber: "5070", CardToken: "abc", Reason: "  "}, "reason"},
		{deletion{CustomerNumber: "5070", CardToken: "abc", Reason: "a\x1b[31m"}, "reason"},
		{deletion{CustomerNumber: "5070", CardToken: "abc", Reason: strings.Repeat("x", MaxReasonLen+1)}, "reason"},
	} {
		_, err := deleteOperation{}.Check(&tc.in)
		var fe *moneyop.FieldError
		switch {
		case tc.field == "" && err != nil:
			t.Errorf("%+v: %v", tc.in, err)
		case tc.field != "" && (!errors.As(err, &fe) || fe.Field != tc.field):
			t.Errorf("%+v: %v, want an error about --%s", tc.in, err, tc.field)
		}
	}
}

// TestReasonMaskedInJournal: a card number typed into --reason is masked
// in the journal.
func TestReasonMaskedInJournal(t *testing.T) {
	d, _ := deleteOperation{}.Describe(&deletion{CustomerNumber: "5070", CardToken: "abc", Reason: "card " + fullNumber})
	if strings.Contains(d.Reason, fullNumber) || !strings.Contains(d.Reason, "450803******4509") {
		t.Errorf("reason %q", d.Reason)
	}
}

func TestParseExpiry(t *testing.T) {
	for in, want := range map[string]Expiry{"12/2030": {"12", "2030"}, "1/30": {"01", "2030"}, " 03 / 2026 ": {"03", "2026"}} {
		if got, err := ParseExpiry(in, testNow); err != nil || got != want {
			t.Errorf("%q: %+v, %v", in, got, err)
		}
	}
	for in, why := range map[string]string{"02/2026": "expired", "13/2030": "month", "0/2030": "month", "12-2030": "MM/YYYY",
		"12/030": "MM/YYYY", "ab/2030": "MM/YYYY", "12/2101": "too far", "": "MM/YYYY"} {
		if _, err := ParseExpiry(in, testNow); err == nil || !strings.Contains(err.Error(), why) {
			t.Errorf("%q: %v, want %q", in, err, why)
		}
	}
}

func TestParseCardNumber(t *testing.T) {
	if got, err := ParseCardNumber("4508 0345 0803 4509\n"); err != nil || got != fullNumber {
		t.Errorf("%q, %v", got, err)
	}
	for _, in := range []string{"4508034508034508", "45080345", "4508-0345-0803-450x", "", " - "} {
		if _, err := ParseCardNumber(in); err == nil || strings.Contains(err.Error(), in) && in != "" {
			t.Errorf("%q: %v", in, err)
		}
	}
}

// FuzzParseExpiry: any text is read or refused without panicking, and
// what is read is a month 01-12 and a four-digit year.
func FuzzParseExpiry(f *testing.F) {
	for _, s := range []string{"12/2030", "1/30", "13/2030", "/", "99999999999999999999/1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		e, err := ParseExpiry(s, testNow)
		if err != nil {
			return
		}
		if len(e.Month) != 2 || e.Month < "01" || e.Month > "12" || len(e.Year) != 4 {
			t.Fatalf("%q read as %+v", s, e)
		}
	})
}

// FuzzParseCardNumber: what is read is 12 to 19 digits that pass the
// Luhn check, and an error never quotes the input.
func FuzzParseCardNumber(f *testing.F) {
	for _, s := range []string{fullNumber, "4508 0345 0803 4509", "4508034508034508", "1-2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := ParseCardNumber(s)
		if err != nil {
			if len(s) >= 6 && strings.Contains(err.Error(), s) {
				t.Fatalf("the error quotes the input: %v", err)
			}
			return
		}
		if len(n) < 12 || len(n) > 19 || strings.Trim(n, "0123456789") != "" {
			t.Fatalf("%q read as %q", s, n)
		}
	})
}

// TestSaveReadsTheNumberFromStdin: the number is read from stdin, never
// shown: the dry run masks it.
func TestSaveReadsTheNumberFromStdin(t *testing.T) {
	fx := newFixture(t)
	ios, in, out, errOut := iostreams.Test()
	in.WriteString("4508 0345 0803 4509\n")
	opts := &SaveOptions{Deps: cmdutil.Deps{
		IO:             ios,
		Format:         func() (render.Format, error) { return render.JSON, nil },
		Gateway:        func() (*gateway.Client, error) { return fx.client, nil },
		CommandContext: fx.commandContext,
	},
		CustomerNumber: customer, Holder: "Ada Lovelace", Expiry: Expiry{"12", "2030"}, DryRun: true}
	if err := saveRun(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out.String()+errOut.String(), fullNumber) || !strings.Contains(out.String(), `"card_number": "450803******4509"`) {
		t.Errorf("stdout:\n%s\nstderr:\n%s", out, errOut)
	}
	ios, in, _, _ = iostreams.Test()
	in.WriteString("not a card\n")
	opts.IO, opts.DryRun = ios, false
	err := saveRun(context.Background(), opts)
	if k, _ := cmdutil.KindOf(err); k != cmdutil.KindUsage || bytes.Contains([]byte(err.Error()), []byte("not a card\n")) {
		t.Errorf("%v (kind %v)", err, k)
	}
}

// TestChangeWithoutAnswerIsUnknown: an update or a save sent without an
// answer may have been made: exit 7 pointing at the list, never exit 8's
// "nothing was sent" (the card was changed, or saved, all the same).
func TestChangeWithoutAnswerIsUnknown(t *testing.T) {
	fx := newFixture(t)
	path := "/api/editCard"
	fx.dropPath.Store(&path)
	ios, _, out, _ := iostreams.Test()
	err := updateRun(context.Background(), &UpdateOptions{Deps: cmdutil.Deps{
		IO:             ios,
		Format:         func() (render.Format, error) { return render.Table, nil },
		Gateway:        func() (*gateway.Client, error) { return fx.client, nil },
		CommandContext: fx.commandContext,
		JSON:           &cmdutil.JSONFlags{},
	},
		CustomerNumber: customer, CardToken: fx.token, Expiry: Expiry{"03", "2099"}})
	if k, _ := cmdutil.KindOf(err); k != cmdutil.KindOutcomeUnknown || !strings.Contains(cmdutil.HintOf(err), "paycli cards list --customer-number 5070") || out.Len() != 0 {
		t.Errorf("update without an answer: %v (kind %v, hint %q), stdout %q", err, k, cmdutil.HintOf(err), out)
	}
	cards, err := fx.client.CardTokens(context.Background(), customer)
	if err != nil || len(cards) != 1 || cards[0].ExpiryYear != "2099" {
		t.Fatalf("the update was made all the same: %+v, %v", cards, err)
	}

	path = "/api/saveCard"
	fx.dropPath.Store(&path)
	ios, in, _, _ := iostreams.Test()
	in.WriteString("5406675406675403\n")
	err = saveRun(context.Background(), &SaveOptions{Deps: cmdutil.Deps{
		IO:             ios,
		Format:         func() (render.Format, error) { return render.Table, nil },
		Gateway:        func() (*gateway.Client, error) { return fx.client, nil },
		CommandContext: fx.commandContext,
	},
		CustomerNumber: customer, Holder: "Ada Lovelace", Expiry: Expiry{"12", "2099"}})
	if k, _ := cmdutil.KindOf(err); k != cmdutil.KindOutcomeUnknown || strings.Contains(err.Error(), "5406675406675403") {
		t.Errorf("save without an answer: %v (kind %v)", err, k)
	}
}

// TestCardKeyMasksACardTypedAsTheCustomer: the journal key never holds a
// card number whole, even one typed as the customer number.
func TestCardKeyMasksACardTypedAsTheCustomer(t *testing.T) {
	if k := CardKey("4355084355084358", "tok"); strings.Contains(k, "4355084355084358") || k != "card:435508******4358:tok" {
		t.Errorf("CardKey = %q", k)
	}
	if k := CardKey("5070", "tok"); k != "card:5070:tok" {
		t.Errorf("CardKey = %q", k)
	}
}

// TestUpdateHolderAlone: `cards update --holder` without --expiry sends
// the holder's name alone, the sandbox takes it, and the card keeps its
// expiry (issue 43, part 2, item 9). Neither flag at all is bad input.
func TestUpdateHolderAlone(t *testing.T) {
	fx := newFixture(t)
	run := func(args ...string) (string, error) {
		ios, _, out, _ := iostreams.Test()
		cmd := NewCmdUpdate(&cmdutil.Factory{IOStreams: ios, Now: func() time.Time { return testNow }},
			func(ctx context.Context, opts *UpdateOptions) error {
				opts.Format = func() (render.Format, error) { return render.Table, nil }
				opts.Gateway = func() (*gateway.Client, error) { return fx.client, nil }
				opts.CommandContext = fx.commandContext
				return updateRun(ctx, opts)
			})
		cmd.SetArgs(append([]string{"--customer-number", customer, "--card-token", fx.token}, args...))
		cmd.SetOut(io.Discard)
		cmd.SetErr(io.Discard)
		err := cmd.Execute()
		return out.String(), err
	}
	if _, err := run("--holder", "Ada King"); err != nil {
		t.Fatalf("--holder alone: %v", err)
	}
	cards, err := fx.client.CardTokens(context.Background(), customer)
	if err != nil || len(cards) != 1 || cards[0].CardHolderName != "Ada King" || cards[0].ExpiryMonth != "12" || cards[0].ExpiryYear != "2030" {
		t.Fatalf("after --holder alone: %+v, %v", cards, err)
	}
	_, err = run()
	if k, _ := cmdutil.KindOf(err); k != cmdutil.KindUsage || !strings.Contains(err.Error(), "--expiry") || !strings.Contains(err.Error(), "--holder") {
		t.Errorf("neither --expiry nor --holder: %v (kind %v)", err, k)
	}
}
