package sandboxcmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"
	"github.com/spf13/cobra"

	"github.com/paycli/paycli/internal/cardno"
	"github.com/paycli/paycli/internal/cmdutil"
	"github.com/paycli/paycli/internal/config"
	"github.com/paycli/paycli/internal/gateway"
	"github.com/paycli/paycli/internal/money"
	"github.com/paycli/paycli/internal/redact"
	"github.com/paycli/paycli/internal/render"
	"github.com/paycli/paycli/internal/sandbox"
	"github.com/paycli/paycli/internal/sandboxmode"
)

// PayOptions are the inputs of `paycli sandbox pay`.
type PayOptions struct {
	cmdutil.Deps
	// BaseURL finds the sandbox to pay at (the running serve, or one
	// started in this process, as --sandbox does).
	BaseURL      func(ctx context.Context) (string, error)
	Card         string
	Amount       decimal.Decimal
	Currency     string
	Installments int
	PreAuth      bool
	ThreeD       bool
	CompletedBy  string
	Decline3D    bool
	Invoice      string
	WebHookKey   string
	// Debug receives the client's log of each exchange (--debug), with
	// secrets and card numbers masked; nil logs nothing.
	Debug io.Writer
}

// PayResult is what `paycli sandbox pay` prints (-o json: this object).
type PayResult struct {
	// InvoiceID is the invoice id as shown: one that is a card number is
	// masked (redact.Invoice).
	InvoiceID         string `json:"invoice_id"`
	OrderID           string `json:"order_id"`
	StatusCode        int    `json:"status_code"`
	StatusDescription string `json:"status_description"`
	TransactionStatus string `json:"transaction_status"`
	TransactionType   string `json:"transaction_type"`
	Amount            string `json:"amount"`
	Currency          string `json:"currency"`
	Installments      int    `json:"installments"`
	Card              string `json:"card"`
}

// NewCmdPay builds `paycli sandbox pay`.
func NewCmdPay(f *cmdutil.Factory, runF func(context.Context, *PayOptions) error) *cobra.Command {
	var amount, state string
	opts := &PayOptions{Deps: cmdutil.DepsOf(f), BaseURL: func(ctx context.Context) (string, error) {
		cfg, err := sandboxmode.Overlay(ctx, sandboxmode.OverlayOptions{LookupEnv: f.LookupEnv, Now: f.Now, AddCloser: f.AddCloser, StateDir: state}, &config.Config{})
		if err != nil {
			return "", err
		}
		return cfg.BaseURL, nil
	}}
	cmd := &cobra.Command{
		Use:   "pay --amount AMOUNT --currency CODE [--card NUMBER]",
		Short: "Make a card sale at the sandbox (2D, pre-authorization or 3D)",
		Long: `Make a card sale at the sandbox through its HTTP API, with the sandbox's
credentials, and print its invoice id, order id and status: test data for
refund, pre-authorization and completion commands. It talks to the running
'paycli sandbox serve' (of --state DIR, for a serve started with it), or
starts one inside paycli for the one command.

The sale is a paySmart2D payment (Auth), or with --preauth a
pre-authorization (PreAuth) to capture or cancel later. With --3d it is a
paySmart3D payment whose challenge this command answers (approve, or decline
with --decline-3d); with --completed-by merchant an approved sale then waits
for /payment/complete. The published test cards choose the provider's answer
(docs/sandbox.md), as do the magic amounts (.41 declined, .69 pending). The
card number is sent to the sandbox only; it prints the first six and last four
digits. A sale the sandbox refuses without storing it (an invoice id already
used, exit 6) prints nothing on stdout, only the error on stderr.` + magicFaultsHelp(),
		Example: `  paycli sandbox pay --amount 150.00 --currency TRY
  paycli sandbox pay --amount 200 --currency TRY --preauth --invoice INV-PA-1
  paycli sandbox pay --amount 50 --currency TRY --3d --completed-by merchant -o json
  paycli sandbox pay --card 4355080000000518 --amount 10 --currency TRY`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			d, err := cmdutil.ParseAmount("amount", amount)
			if err != nil {
				return err
			}
			opts.Amount = d
			opts.Currency = strings.ToUpper(opts.Currency)
			if len(opts.Currency) != 3 || strings.Trim(opts.Currency, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") != "" {
				return cmdutil.UsageErrorf("invalid --currency %q: want a three-letter code such as TRY, USD or EUR", opts.Currency)
			}
			// Groups as the link page's hint writes them ("4355 0843 5508
			// 4358") are one number.
			if digits, ok := cardno.Digits(opts.Card); ok {
				opts.Card = digits
			}
			if err := sandbox.ValidateCardNumber(opts.Card); err != nil {
				return cmdutil.UsageErrorf("invalid --card: %v", err)
			}
			if opts.Installments < 1 || opts.Installments > 99 {
				return cmdutil.UsageErrorf("invalid --installments %d: want a whole number from 1 to 99", opts.Installments)
			}
			if (cmd.Flags().Changed("completed-by") || opts.Decline3D) && !opts.ThreeD {
				return cmdutil.UsageErrorf("--completed-by and --decline-3d need --3d")
			}
			if err := cmdutil.OneOf("completed-by", opts.CompletedBy, sandbox.CompletedByApp, sandbox.CompletedByMerchant); err != nil {
				return err
			}
			if opts.Invoice == "" {
				opts.Invoice = "SBX-" + sandbox.NewTokenID()[:12]
			}
			if on, _ := cmd.Flags().GetBool("debug"); on {
				opts.Debug = opts.IO.ErrOut
			}
			return cmdutil.Run(cmd, opts, runF, PayRun)
		},
	}
	cmd.Flags().StringVar(&amount, "amount", "", "sale total, e.g. 150.00 (required)")
	cmd.Flags().StringVar(&opts.Currency, "currency", "", "ISO 4217 currency code, e.g. TRY (required)")
	cmd.Flags().StringVar(&opts.Card, "card", sandbox.DefaultWalletCard, "card number, digits or groups split by blanks or dashes (a published test card chooses the answer)")
	cmd.Flags().IntVar(&opts.Installments, "installments", 1, "installment count")
	cmd.Flags().BoolVar(&opts.PreAuth, "preauth", false, "make a pre-authorization (PreAuth) instead of a sale (Auth)")
	cmd.Flags().BoolVar(&opts.ThreeD, "3d", false, "pay with 3D Secure (paySmart3D) and answer its challenge")
	cmd.Flags().StringVar(&opts.CompletedBy, "completed-by", sandbox.CompletedByApp, "with --3d: who completes the payment, app or merchant")
	cmd.Flags().BoolVar(&opts.Decline3D, "decline-3d", false, "with --3d: decline the challenge")
	cmd.Flags().StringVar(&opts.Invoice, "invoice", "", "invoice id (default: a new SBX-… id)")
	cmd.Flags().StringVar(&opts.WebHookKey, "webhook-key", "", "sale_web_hook_key to name in the request")
	cmd.Flags().StringVar(&state, "state", "", "state folder of the sandbox to pay at (default <state dir>/paycli/sandbox)")
	_ = cmd.RegisterFlagCompletionFunc("state", completeFolder)
	_ = cmd.MarkFlagRequired("amount")
	_ = cmd.MarkFlagRequired("currency")
	_ = cmd.RegisterFlagCompletionFunc("currency", completeScheduleCurrency)
	_ = cmd.RegisterFlagCompletionFunc("card", completeTestCard)
	_ = cmd.RegisterFlagCompletionFunc("completed-by", cobra.FixedCompletions([]string{sandbox.CompletedByApp, sandbox.CompletedByMerchant}, cobra.ShellCompDirectiveNoFileComp))
	for _, name := range []string{"amount", "installments", "invoice", "webhook-key"} {
		_ = cmd.RegisterFlagCompletionFunc(name, noValueCompletion)
	}
	opts.AddJSONFlags(cmd)
	cmdutil.SetExits(cmd, cmdutil.Exits{Kinds: []cmdutil.Kind{cmdutil.KindUsage, cmdutil.KindAuth, cmdutil.KindRejected, cmdutil.KindDeclined, cmdutil.KindDuplicate, cmdutil.KindUnavailable},
		Notes: map[cmdutil.Kind]string{
			cmdutil.KindDeclined:    "the sandbox declined the sale (a test card or a .41 amount)",
			cmdutil.KindDuplicate:   "the invoice id was used before",
			cmdutil.KindUnavailable: "the sandbox failed or did not answer; look before paying again",
		}})
	return cmd
}

// PayRun makes the sale and prints it.
func PayRun(ctx context.Context, opts *PayOptions) error {
	format, err := opts.Format()
	if err != nil {
		return err
	}
	base, err := opts.BaseURL(ctx)
	if err != nil {
		return err
	}
	client, closeIdle, err := sandboxClient(base, opts)
	if err != nil {
		return err
	}
	defer closeIdle()
	txType := sandbox.TypeAuth
	if opts.PreAuth {
		txType = sandbox.TypePreAuth
	}
	minor, ok := money.MinorUnit(opts.Currency)
	if !ok {
		minor = 2
	}
	// The sale is made, and looked up, with the invoice id whole; what is
	// printed masks one that is a card number, as every command does.
	res := PayResult{InvoiceID: redact.Invoice(opts.Invoice), Amount: opts.Amount.StringFixed(minor), Currency: opts.Currency, Installments: opts.Installments,
		TransactionType: txType, Card: redact.CardField(opts.Card)}
	var ans *gateway.CardPaymentResult
	if opts.ThreeD {
		ans, err = pay3D(ctx, client, saleRequest(opts, txType), opts)
	} else {
		ans, err = client.PaySmart2D(ctx, saleRequest(opts, txType))
		err = answerOf(err, &ans)
	}
	if err != nil {
		return err
	}
	res.StatusCode, res.StatusDescription = ans.StatusCode, ans.StatusDescription
	res.OrderID = ans.Order()
	if res.OrderID != "" {
		// A sale that waits for a step (3D, the merchant's completion) is
		// answered 69, with its fields.
		st, err := client.CheckStatus(ctx, opts.Invoice)
		var apiErr *gateway.APIError
		if st == nil && !errors.As(err, &apiErr) {
			return err
		}
		if st != nil {
			res.TransactionStatus = st.TransactionStatus
		}
	}
	// A sale the sandbox refused (a used invoice, say) was not stored: a
	// record with no order id would read as a sale to a script, so only
	// the error on stderr says what happened.
	if res.OrderID != "" {
		if err := writePayResult(ctx, opts.IO.Out, format, opts.JSON, res); err != nil {
			return err
		}
	}
	return saleError(res, opts.Invoice)
}

// sandboxClient is a gateway client with the sandbox's credentials, on
// loopback connections that bypass proxies; closeIdle closes them.
func sandboxClient(base string, opts *PayOptions) (client *gateway.Client, closeIdle func(), err error) {
	hc := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{Proxy: nil}}
	options := []gateway.Option{gateway.WithClock(opts.Now), gateway.WithHTTPClient(hc)}
	if opts.Debug != nil {
		options = append(options, gateway.WithLogger(slog.New(slog.NewTextHandler(opts.Debug, &slog.HandlerOptions{Level: slog.LevelDebug}))))
	}
	client, err = gateway.New(base, gateway.Credentials{AppID: sandbox.AppID, AppSecret: sandbox.AppSecret, MerchantKey: sandbox.MerchantKey}, options...)
	return client, hc.CloseIdleConnections, err
}

// saleRequest is the card payment pay makes, as a merchant's shop makes
// it; the client signs it.
func saleRequest(opts *PayOptions, txType string) gateway.CardPaymentRequest {
	total := opts.Amount.String()
	return gateway.CardPaymentRequest{
		InvoiceID: opts.Invoice, InvoiceDescription: "paycli sandbox pay",
		Total: total, CurrencyCode: opts.Currency, Installments: opts.Installments, TransactionType: txType,
		CardHolderName: "Sandbox Buyer", CardNumber: opts.Card, ExpiryMonth: "12", ExpiryYear: strconv.Itoa(opts.Now().Year() + 3), CVV: "000",
		Name: "Sandbox", Surname: "Buyer", BillEmail: "buyer@example.com", SaleWebHookKey: opts.WebHookKey,
		Items: []gateway.CardPaymentItem{{Name: "Sandbox item", Price: total, Quantity: 1}},
	}
}

// answerOf turns a call's error into the sandbox's answer when it is one
// (a status_code the sale did not pass: *ans then carries it), or into
// pay's error: a call that failed on the way or came back as a 5xx (a
// fault of serve --faults, or a proxy's page) is the sandbox unavailable,
// whatever its body says, as for every gateway command. The client's
// error names the call (token, paySmart2D, the 3D challenge).
func answerOf(err error, ans **gateway.CardPaymentResult) error {
	if err == nil {
		return nil
	}
	var apiErr *gateway.APIError
	var reqErr *gateway.RequestError
	switch {
	case errors.As(err, &apiErr) && apiErr.Endpoint == "token":
		if apiErr.HTTPStatus >= 500 || !apiErr.HasStatusCode {
			return unavailable(apiErr.Endpoint, err)
		}
		return cmdutil.WithKind(cmdutil.KindAuth, fmt.Errorf("sandbox token: status_code %d: %s", apiErr.StatusCode, apiErr.Description), "")
	case errors.As(err, &reqErr):
		return unavailable(reqErr.Endpoint, reqErr.Err)
	case errors.As(err, &apiErr) && apiErr.HTTPStatus >= 500:
		return unavailable(apiErr.Endpoint, fmt.Errorf("HTTP %d", apiErr.HTTPStatus))
	case errors.As(err, &apiErr) && apiErr.HasStatusCode:
		if *ans == nil {
			*ans = &gateway.CardPaymentResult{}
		}
		(*ans).StatusCode, (*ans).StatusDescription = apiErr.StatusCode, apiErr.Description
		if (*ans).Order() == "" {
			(*ans).OrderNo = apiErr.OrderNo
		}
		return nil
	case errors.As(err, &apiErr):
		return fmt.Errorf("sandbox %s: HTTP %d, %s", apiErr.Endpoint, apiErr.HTTPStatus, apiErr.Answer())
	}
	return err
}

// unavailable is the error (exit 8) of a call to the sandbox that failed
// on the way or came back as a 5xx: a sale may have been made before the
// sale's calls failed (any but the token call), so the hint says how to
// look before paying again.
func unavailable(call string, err error) error {
	hint := "Try again when the sandbox answers."
	if call != "token" {
		hint = "The sandbox may have made the sale before it failed: look with 'paycli status --sandbox --invoice ID' before paying again."
	}
	return cmdutil.WithKind(cmdutil.KindUnavailable, fmt.Errorf("sandbox %s: %w", call, err), hint)
}

// saleError is the error, with its kind, of a sale the sandbox did not
// take (nil for one made or waiting for a step).
func saleError(res PayResult, invoice string) error {
	switch res.StatusCode {
	case 100, 69:
		return nil
	case 41:
		return cmdutil.WithKind(cmdutil.KindDeclined, fmt.Errorf("the sandbox declined the sale: %s", res.StatusDescription), "")
	case 3:
		return cmdutil.WithKind(cmdutil.KindDuplicate, fmt.Errorf("invoice %s was already used at the sandbox", redact.Invoice(invoice)),
			"Pick another --invoice, or leave it out for a new one.")
	}
	why := res.StatusDescription
	if strings.TrimSpace(why) == "" {
		why = "no description"
	}
	return cmdutil.WithKind(cmdutil.KindRejected, fmt.Errorf("the sandbox refused the sale: status_code %d: %s", res.StatusCode, why), "")
}

// pay3D makes the payment with paySmart3D and answers its challenge the
// way its page's buttons do.
func pay3D(ctx context.Context, client *gateway.Client, req gateway.CardPaymentRequest, opts *PayOptions) (*gateway.CardPaymentResult, error) {
	req.ThreeD = &gateway.ThreeDOptions{CompletedBy: opts.CompletedBy, ReturnURL: "https://merchant.invalid/3d/return", CancelURL: "https://merchant.invalid/3d/cancel"}
	ch, err := client.PaySmart3D(ctx, req)
	if err != nil {
		var ans *gateway.CardPaymentResult
		err = answerOf(err, &ans)
		return ans, err
	}
	ans, err := client.AnswerChallenge(ctx, ch, !opts.Decline3D)
	return ans, answerOf(err, &ans)
}

func writePayResult(ctx context.Context, w io.Writer, format render.Format, jf *cmdutil.JSONFlags, res PayResult) error {
	if format == render.JSON {
		return jf.Write(ctx, w, res)
	}
	if format == render.CSV || format == render.TSV {
		// One value a cell, named as in JSON.
		return render.WriteRecords(w, format,
			[]string{"invoice_id", "order_id", "status_code", "status_description", "transaction_status", "transaction_type", "amount", "currency", "installments", "card"},
			[][]string{{res.InvoiceID, res.OrderID, strconv.Itoa(res.StatusCode), res.StatusDescription, res.TransactionStatus, res.TransactionType,
				res.Amount, res.Currency, strconv.Itoa(res.Installments), res.Card}})
	}
	header := []string{"invoice_id", "order_id", "status", "transaction_type", "amount", "installments", "card", "answer"}
	row := []string{res.InvoiceID, res.OrderID, res.TransactionStatus, res.TransactionType, render.Amount(res.Amount, res.Currency),
		strconv.Itoa(res.Installments), res.Card, fmt.Sprintf("%d %s", res.StatusCode, res.StatusDescription)}
	for i, name := range header {
		if _, err := fmt.Fprintf(w, "%-17s %s\n", name+":", row[i]); err != nil {
			return err
		}
	}
	return nil
}

// magicFaultsHelp lists the sandbox's fault values for pay's help, from
// the sandbox's own table.
func magicFaultsHelp() string {
	var b strings.Builder
	b.WriteString("\n\nFault values act out a failure whatever the sandbox was started with, so that\n" +
		"a client that cannot send the X-Paycli-Fault header (an SDK) meets it too.\n" +
		"The amount acts in walletPay (the wallet token's), paySmart2D, paySmart3D,\n" +
		"payByCardToken, refund, confirmPayment, getpos and purchase/link (the\n" +
		"invoice's total); the card in paySmart2D, paySmart3D, getpos and a payment\n" +
		"link's page; saveCard refuses them (status_code 1):")
	for _, m := range sandbox.MagicFaults {
		fmt.Fprintf(&b, "\n  %-5s amount %s or card %s:", m.Name, m.Amount, m.Card)
		line := "       "
		for _, word := range strings.Fields(m.What) {
			if len(line)+1+len(word) > 78 {
				b.WriteString("\n" + line)
				line = "       "
			}
			line += " " + word
		}
		b.WriteString("\n" + line)
	}
	return b.String()
}
