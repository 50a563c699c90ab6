package sandboxcmd

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"strconv"
	"time"

	"github.com/paycli/paycli/internal/cmdutil"
	"github.com/paycli/paycli/internal/redact"
	"github.com/paycli/paycli/internal/render"
	"github.com/paycli/paycli/internal/sandbox"
	"github.com/spf13/cobra"
)

// WebhooksOptions are the inputs of `paycli sandbox webhooks` and its
// resend subcommand.
type WebhooksOptions struct {
	cmdutil.Deps
	StateDir string
	// Probe reports whether a sandbox answers at a base URL.
	Probe func(ctx context.Context, baseURL string) bool
	// LockTimeout bounds the wait for a --sandbox command using the state.
	LockTimeout time.Duration
	// ID is the delivery to resend.
	ID uint64
}

// NewCmdWebhooks builds `paycli sandbox webhooks`.
func NewCmdWebhooks(f *cmdutil.Factory, runF func(context.Context, *WebhooksOptions) error) *cobra.Command {
	opts := &WebhooksOptions{Deps: cmdutil.DepsOf(f), Probe: sandbox.Probe, LockTimeout: 2 * time.Second}
	var state string
	cmd := &cobra.Command{
		Use:   "webhooks",
		Short: "List the sandbox's webhook deliveries and their attempts",
		Long: `List the webhooks the sandbox owes the merchant: one delivery for each sale
or refund that named a web hook key registered with 'paycli sandbox serve
--webhook KEY=URL', with its state (pending, delivered or failed), its
attempts and, while pending, when it is tried next. -o json adds every
attempt (time, HTTP status, error, duration) and the body's fields (the
hash_key is made afresh for each attempt and never kept).

It asks the running 'paycli sandbox serve' of the state folder, or reads the
state itself when none runs.`,
		Example: `  paycli sandbox webhooks
  paycli sandbox webhooks --jq '.[] | select(.state != "delivered") | .id'
  paycli sandbox webhooks resend 3`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			dir, err := stateDir(f, state)
			if err != nil {
				return err
			}
			opts.StateDir = dir
			return cmdutil.Run(cmd, opts, runF, webhooksRun)
		},
	}
	cmd.PersistentFlags().StringVar(&state, "state", "", "state folder of the sandbox (default <state dir>/paycli/sandbox)")
	_ = cmd.RegisterFlagCompletionFunc("state", completeFolder)
	opts.AddJSONFlags(cmd)
	cmd.AddCommand(cmdutil.SetExits(newCmdResend(f, &state, runF), cmdutil.Exits{Kinds: []cmdutil.Kind{cmdutil.KindUsage, cmdutil.KindUnavailable}}))
	cmdutil.SetExits(cmd, cmdutil.Exits{Kinds: []cmdutil.Kind{cmdutil.KindUsage, cmdutil.KindUnavailable}})
	return cmd
}

func newCmdResend(f *cmdutil.Factory, state *string, runF func(context.Context, *WebhooksOptions) error) *cobra.Command {
	opts := &WebhooksOptions{Deps: cmdutil.DepsOf(f), Probe: sandbox.Probe, LockTimeout: 2 * time.Second}
	cmd := &cobra.Command{
		Use:   "resend ID",
		Short: "Send a webhook delivery again",
		Long: `Make a webhook delivery pending again, with a fresh round of attempts (its
past attempts are kept): the running 'paycli sandbox serve' sends it at
once; without one, the next serve sends it when it starts. A delivery that
was already delivered is sent again: handlers must take a webhook twice.`,
		Example: `  paycli sandbox webhooks resend 3`,
		Args:    cmdutil.ExactArgs(1, "a delivery id, as 'paycli sandbox webhooks' lists them"),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := sandbox.ParseDeliveryID(args[0])
			if err != nil {
				return cmdutil.UsageErrorf("%v", err)
			}
			opts.ID = id
			dir, err := stateDir(f, *state)
			if err != nil {
				return err
			}
			opts.StateDir = dir
			return cmdutil.Run(cmd, opts, runF, resendRun)
		},
	}
	opts.AddJSONFlags(cmd)
	return cmd
}

// webhooksRun lists the deliveries.
func webhooksRun(ctx context.Context, opts *WebhooksOptions) error {
	format, err := opts.Format()
	if err != nil {
		return err
	}
	var list []sandbox.Delivery
	if base := runningSandbox(ctx, opts.StateDir, opts.Probe); base != "" {
		var answer sandbox.DeliveryList
		if err := callServe(ctx, base, http.MethodGet, sandbox.WebhooksPath, nil, &answer); err != nil {
			return err
		}
		list = answer.Deliveries
	} else {
		err := withStore(opts, func(s *sandbox.Store) error {
			list, err = s.Deliveries()
			return err
		})
		if err != nil {
			return err
		}
	}
	shownList := make([]sandbox.Delivery, len(list))
	for i, d := range list {
		shownList[i] = shown(d)
	}
	list = shownList
	if format == render.JSON {
		return opts.JSON.Write(ctx, opts.IO.Out, list)
	}
	header := []string{"id", "kind", "invoice_id", "amount", "web_hook_key", "state", "attempts", "last_attempt", "next_attempt"}
	rows := make([][]string, 0, len(list))
	for _, d := range list {
		rows = append(rows, deliveryRow(d, format))
	}
	if format == render.CSV || format == render.TSV {
		return render.WriteRecords(opts.IO.Out, format, header, rows)
	}
	if len(list) == 0 {
		// Two lines that fit an 80-column terminal, piped or not.
		opts.IO.Notef("No webhook deliveries. A sale or refund that names a web hook key gets one;\nregister the key with 'paycli sandbox serve --webhook KEY=URL'.")
		return nil
	}
	table := cmdutil.TableOptions(opts.IO)
	table.RightAlign = []int{0, 3, 6}
	table.Wrap = []int{7, 8}
	table.Drop = []int{4} // web_hook_key: the sale or refund names it
	return render.WriteTable(opts.IO.Out, table, render.TableHeader(header), rows)
}

// resendRun resends one delivery.
func resendRun(ctx context.Context, opts *WebhooksOptions) error {
	format, err := opts.Format()
	if err != nil {
		return err
	}
	var d sandbox.Delivery
	note := "the running sandbox sends it now"
	if base := runningSandbox(ctx, opts.StateDir, opts.Probe); base != "" {
		var answer sandbox.ResendAnswer
		if err := callServe(ctx, base, http.MethodPost, sandbox.ResendPath, sandbox.ResendRequest{ID: opts.ID}, &answer); err != nil {
			return err
		}
		d = answer.Delivery
	} else {
		note = "'paycli sandbox serve' sends it when it next runs"
		err := withStore(opts, func(s *sandbox.Store) error {
			d, err = s.ResendDelivery(opts.ID, opts.Now().UTC())
			return err
		})
		if err != nil {
			return err
		}
	}
	d = shown(d)
	if format == render.JSON {
		return opts.JSON.Write(ctx, opts.IO.Out, d)
	}
	_, err = fmt.Fprintf(opts.IO.Out, "delivery %d (%s %s to %s) is pending: %s\n", d.ID, d.Kind, render.Escape(d.InvoiceID), render.Escape(d.URL), note)
	return err
}

// shown is a delivery as paycli prints it, in every format: its invoice
// id, and the body's, as redact.Invoice shows them (a card number typed as
// an invoice id is masked, as every command shows invoices). The sandbox
// keeps the id whole and sends the webhook with it.
func shown(d sandbox.Delivery) sandbox.Delivery {
	d.InvoiceID = redact.Invoice(d.InvoiceID)
	if v, ok := d.Fields["invoice_id"]; ok {
		d.Fields = maps.Clone(d.Fields)
		d.Fields["invoice_id"] = redact.Invoice(v)
	}
	return d
}

func deliveryRow(d sandbox.Delivery, format render.Format) []string {
	amount := d.Fields["total"]
	if d.Kind == "refund" || d.Kind == sandbox.ChargebackKind {
		amount = d.Fields["amount"]
	}
	c := d.Fields["currency_code"]
	if c == "" {
		c = d.Currency // a refund's body has none
	}
	if c != "" {
		amount += " " + c
	}
	last, next := "-", "-"
	if n := len(d.Attempts); n > 0 {
		a := d.Attempts[n-1]
		last = fmt.Sprintf("%d (%dms)", a.Status, a.DurationMS)
		if a.Status == 0 {
			last = a.Error
		}
	}
	if d.State == sandbox.DeliveryPending {
		next = render.FormatTime(d.NextAttemptAt, format)
	}
	return []string{strconv.FormatUint(d.ID, 10), string(d.Kind), d.InvoiceID, amount, d.WebHookKey, d.State,
		strconv.Itoa(len(d.Attempts)), last, next}
}

// withStore runs fn over the state folder's store, when no serve holds it.
func withStore(opts *WebhooksOptions, fn func(*sandbox.Store) error) error {
	store, err := sandbox.OpenStore(opts.StateDir, opts.LockTimeout, opts.Now())
	if errors.Is(err, sandbox.ErrLocked) {
		return cmdutil.WithKind(cmdutil.KindUnavailable, sandbox.LockedError(opts.StateDir),
			"A --sandbox command is using it; wait for it to finish, or run 'paycli sandbox serve' and try again.")
	}
	if err != nil {
		return err
	}
	defer store.Close()
	err = fn(store)
	if errors.Is(err, sandbox.ErrNoDelivery) {
		return cmdutil.UsageHint(fmt.Errorf("%w: %d", err, opts.ID), "'paycli sandbox webhooks' lists the deliveries.")
	}
	return err
}

// callServe asks the running serve at base on one of its webhook admin
// paths. Its refusal of a delivery id (unknown, or not one) is the
// user's to fix; no answer at all means serve has stopped.
func callServe(ctx context.Context, base, method, path string, in, out any) error {
	err := sandbox.CallAdmin(ctx, base, method, path, in, out)
	if err == nil {
		return nil
	}
	var refusal *sandbox.AdminError
	if !errors.As(err, &refusal) {
		return cmdutil.WithKind(cmdutil.KindUnavailable, fmt.Errorf("sandbox webhooks: %w", err), "Is 'paycli sandbox serve' still running?")
	}
	if refusal.Status == http.StatusNotFound || refusal.Status == http.StatusBadRequest {
		return cmdutil.UsageHint(errors.New(refusal.Msg), "'paycli sandbox webhooks' lists the deliveries.")
	}
	return fmt.Errorf("sandbox webhooks: %s", refusal.Msg)
}
