package sandboxcmd

import (
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/paycli/paycli/internal/cmdutil"
	"github.com/paycli/paycli/internal/render"
	"github.com/paycli/paycli/internal/sandbox"
	"github.com/paycli/paycli/internal/webhook"
)

func TestServeWebhookFlags(t *testing.T) {
	got, err := parseServe(t, "--webhook", "sales=http://127.0.0.1:9000/hooks", "--webhook", "refunds=https://localhost/r?x=1",
		"--webhook-encoding", "json", "--webhook-backoff", "2s", "--webhook-attempts", "3")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]sandbox.WebhookEndpoint{"sales": {URL: "http://127.0.0.1:9000/hooks", Encoding: webhook.JSON},
		"refunds": {URL: "https://localhost/r?x=1", Encoding: webhook.JSON}}
	if len(got.Webhooks) != 2 || got.Webhooks["sales"] != want["sales"] || got.Webhooks["refunds"] != want["refunds"] ||
		got.WebhookBackoff != 2*time.Second || got.WebhookAttempts != 3 {
		t.Fatalf("opts %+v", got)
	}
	if got, err := parseServe(t); err != nil || len(got.Webhooks) != 0 || got.WebhookBackoff != time.Second || got.WebhookAttempts != 10 {
		t.Fatalf("defaults: %v %+v", err, got)
	}
	if got, err := parseServe(t, "--public", "--webhook", "k=https://merchant.example/hooks"); err != nil || got.Webhooks["k"].Encoding != webhook.Form {
		t.Fatalf("public: %v %+v", err, got)
	}
	for _, args := range [][]string{
		{"--webhook", "nokey"},
		{"--webhook", "=http://127.0.0.1/"},
		{"--webhook", "k="},
		{"--webhook", "k=127.0.0.1:9000"},
		{"--webhook", "k=ftp://127.0.0.1/"},
		{"--webhook", "k=https://merchant.example/hooks"},
		{"--webhook", "a b=http://127.0.0.1/"},
		{"--webhook", "k=http://127.0.0.1/a", "--webhook", "k=http://127.0.0.1/b"},
		{"--webhook-encoding", "xml"},
		{"--webhook-backoff", "0s"},
		{"--webhook-attempts", "0"},
	} {
		if got, err := parseServe(t, args...); !isUsage(err) || got != nil {
			t.Errorf("%v: err %v, want a usage error before running", args, err)
		}
	}
	_, err = parseServe(t, "--webhook", "k=https://merchant.example/hooks")
	if !strings.Contains(cmdutil.HintOf(err), "--public") {
		t.Errorf("a non-loopback URL's hint does not name --public: %v", err)
	}
}

// TestWebhooksCommandOffline lists and resends deliveries with no serve
// running: straight from the state, the resend waiting for the next serve.
func TestWebhooksCommandOffline(t *testing.T) {
	dir := t.TempDir()
	store, err := sandbox.OpenStore(dir, time.Second, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	store.SetWebhooks(map[string]sandbox.WebhookEndpoint{"hook": {URL: "http://127.0.0.1:1/h"}}, nil)
	if err := store.Reserve(sandbox.Sale{InvoiceID: "OFF-1", OrderID: "VP1", State: sandbox.StateCompleted, Amount: "12.50",
		Currency: "TRY", SaleWebHookKey: "hook", UpdatedAt: time.Now()}); err != nil {
		t.Fatal(err)
	}
	// A refund's webhook body has no currency: the table shows the sale's.
	if err := store.Reserve(sandbox.Sale{InvoiceID: "OFF-2", OrderID: "VP2", State: sandbox.StateCompleted, Amount: "30.00",
		Currency: "EUR", UpdatedAt: time.Now(), Refunds: []sandbox.Refund{{TransactionID: "R-1", Amount: "7.25",
			Status: sandbox.RefundCompleted, WebHookKey: "hook"}}}); err != nil {
		t.Fatal(err)
	}
	store.Close()

	_, ios := testFactory(t, nil)
	out := ios.Out.(interface{ String() string })
	opts := func(format render.Format, id uint64) *WebhooksOptions {
		return &WebhooksOptions{Deps: cmdutil.Deps{IO: ios, Now: time.Now, Format: func() (render.Format, error) { return format, nil }}, StateDir: dir, Probe: func(context.Context, string) bool { return false },
			LockTimeout: time.Second, ID: id}
	}
	if err := webhooksRun(context.Background(), opts(render.Table, 0)); err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"ID", "OFF-1", "12.50 TRY", "hook", "pending", "7.25 EUR"} {
		if !strings.Contains(out.String(), w) {
			t.Errorf("table lacks %q:\n%s", w, out.String())
		}
	}
	if err := resendRun(context.Background(), opts(render.Table, 1)); err != nil ||
		!strings.Contains(out.String(), "delivery 1 (sale OFF-1 to http://127.0.0.1:1/h) is pending: 'paycli sandbox serve' sends it when it next runs") {
		t.Fatalf("resend: %v\n%s", err, out.String())
	}
	if err := resendRun(context.Background(), opts(render.Table, 3)); !isUsage(err) {
		t.Errorf("resend of an unknown id: %v, want a usage error", err)
	}
	before := len(out.String())
	if err := webhooksRun(context.Background(), opts(render.JSON, 0)); err != nil {
		t.Fatal(err)
	}
	var list []sandbox.Delivery
	if err := json.Unmarshal([]byte(out.String()[before:]), &list); err != nil || len(list) != 2 || list[0].Fields["total"] != "12.50" ||
		list[1].Currency != "EUR" {
		t.Fatalf("json: %v %+v", err, list)
	}

	f, _ := testFactory(t, nil)
	for _, id := range []string{"0", "x", "1.5"} {
		err := runCmd(NewCmdWebhooks(f, func(context.Context, *WebhooksOptions) error { return nil }), "resend", id)
		if !isUsage(err) {
			t.Errorf("resend %s: %v, want a usage error", id, err)
		}
	}
}

// TestWebhooksMaskACardInvoice: `sandbox webhooks` and `resend` show an
// invoice id that is a card number masked — the table, CSV, JSON (the
// delivery's invoice_id and its body's) and the resend line — as every
// command shows invoices; the sandbox keeps it whole, to send it.
func TestWebhooksMaskACardInvoice(t *testing.T) {
	const card, masked = "4111111111111111", "411111******1111"
	dir := t.TempDir()
	store, err := sandbox.OpenStore(dir, time.Second, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	store.SetWebhooks(map[string]sandbox.WebhookEndpoint{"hook": {URL: "http://127.0.0.1:1/h"}}, nil)
	if err := store.Reserve(sandbox.Sale{InvoiceID: card, OrderID: "VP1", State: sandbox.StateCompleted, Amount: "12.50",
		Currency: "TRY", SaleWebHookKey: "hook", UpdatedAt: time.Now()}); err != nil {
		t.Fatal(err)
	}
	store.Close()

	_, ios := testFactory(t, nil)
	out := ios.Out.(interface{ String() string })
	opts := func(format render.Format) *WebhooksOptions {
		return &WebhooksOptions{Deps: cmdutil.Deps{IO: ios, Now: time.Now, Format: func() (render.Format, error) { return format, nil }}, StateDir: dir, Probe: func(context.Context, string) bool { return false },
			LockTimeout: time.Second, ID: 1}
	}
	for _, format := range []render.Format{render.Table, render.CSV, render.JSON} {
		before := len(out.String())
		if err := webhooksRun(context.Background(), opts(format)); err != nil {
			t.Fatal(err)
		}
		if got := out.String()[before:]; strings.Contains(got, card) || !strings.Contains(got, masked) {
			t.Errorf("%s:\n%s", format, got)
		}
		if format == render.JSON {
			var list []sandbox.Delivery
			if err := json.Unmarshal([]byte(out.String()[before:]), &list); err != nil || len(list) != 1 ||
				list[0].InvoiceID != masked || list[0].Fields["invoice_id"] != masked {
				t.Errorf("json: %v %+v", err, list)
			}
		}
	}
	for _, format := range []render.Format{render.Table, render.JSON} {
		before := len(out.String())
		if err := resendRun(context.Background(), opts(format)); err != nil {
			t.Fatal(err)
		}
		if got := out.String()[before:]; strings.Contains(got, card) || !strings.Contains(got, masked) {
			t.Errorf("resend, %s:\n%s", format, got)
		}
	}
	store, err = sandbox.OpenStore(dir, time.Second, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	if ds, err := store.Deliveries(); err != nil || len(ds) != 1 || ds[0].InvoiceID != card || ds[0].Fields["invoice_id"] != card {
		t.Errorf("the sandbox's delivery: %v %+v, want the invoice whole", err, ds)
	}
}

// NEXT_ATTEMPT is a time as every table shows one: with its offset, so
// that it reads the same in any zone.
func TestDeliveryRowNextAttemptHasOffset(t *testing.T) {
	at := time.Date(2026, 11, 22, 16, 4, 5, 0, time.UTC)
	d := sandbox.Delivery{ID: 1, Kind: "sale", State: sandbox.DeliveryPending, NextAttemptAt: at}
	row := deliveryRow(d, render.Table)
	if want := render.FormatTime(at, render.Table); row[len(row)-1] != want || !regexp.MustCompile(` [+-][0-9]{2}:[0-9]{2}$`).MatchString(want) {
		t.Errorf("next attempt %q, want %q", row[len(row)-1], want)
	}
}

// TestWebhooksCommandRunningServe: while serve runs, webhooks and resend
// ask it over HTTP (sandbox.CallAdmin): the list, a resend (its id sent as
// JSON), an unknown id a usage error naming it, and a serve that has
// stopped answering unavailable.
func TestWebhooksCommandRunningServe(t *testing.T) {
	dir := t.TempDir()
	store, err := sandbox.OpenStore(dir, time.Second, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	store.SetWebhooks(map[string]sandbox.WebhookEndpoint{"hook": {URL: "http://127.0.0.1:1/h"}}, nil)
	if err := store.Reserve(sandbox.Sale{InvoiceID: "ON-1", OrderID: "VP1", State: sandbox.StateCompleted, Amount: "12.50",
		Currency: "TRY", SaleWebHookKey: "hook", UpdatedAt: time.Now()}); err != nil {
		t.Fatal(err)
	}
	store.Close()
	srv := serveState(t, dir)

	_, ios := testFactory(t, nil)
	out := ios.Out.(interface{ String() string })
	opts := func(format render.Format, id uint64) *WebhooksOptions {
		return &WebhooksOptions{Deps: cmdutil.Deps{IO: ios, Now: time.Now, Format: func() (render.Format, error) { return format, nil }}, StateDir: dir, Probe: func(context.Context, string) bool { return true },
			LockTimeout: time.Second, ID: id}
	}
	if err := webhooksRun(context.Background(), opts(render.JSON, 0)); err != nil {
		t.Fatal(err)
	}
	var list []sandbox.Delivery
	if err := json.Unmarshal([]byte(out.String()), &list); err != nil || len(list) != 1 || list[0].InvoiceID != "ON-1" {
		t.Fatalf("list from serve: %v %+v", err, list)
	}
	before := len(out.String())
	if err := resendRun(context.Background(), opts(render.Table, 1)); err != nil ||
		out.String()[before:] != "delivery 1 (sale ON-1 to http://127.0.0.1:1/h) is pending: the running sandbox sends it now\n" {
		t.Fatalf("resend through serve: %v\n%s", err, out.String()[before:])
	}
	if err := resendRun(context.Background(), opts(render.Table, 9)); !isUsage(err) || err.Error() != "no webhook delivery with this id: 9" {
		t.Errorf("resend of an unknown id: %v, want a usage error naming it", err)
	}
	if err := srv.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	err = webhooksRun(context.Background(), opts(render.JSON, 0))
	if k, _ := cmdutil.KindOf(err); k != cmdutil.KindUnavailable || !strings.Contains(err.Error(), "sandbox webhooks: ") {
		t.Errorf("serve gone: %v, want unavailable", err)
	}
}
