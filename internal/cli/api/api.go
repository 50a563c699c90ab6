// Package api implements `paycli api METHOD PATH`: an authenticated
// request to any path of the gateway, for what no other command does, as
// `gh api` and `stripe get|post` offer.
//
// A read goes straight to gateway.Client.Do. A request to a path that moves
// money (gateway.MoneyCallOf) is an operation of internal/moneyop like any
// payment: summary, confirmation or --yes, journal intent and outcome
// under the kind of the command that makes the same call, sent once and
// never retried.
package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/paycli/paycli/internal/cmdutil"
	"github.com/paycli/paycli/internal/config"
	"github.com/paycli/paycli/internal/gateway"
	"github.com/paycli/paycli/internal/moneyop"
	"github.com/paycli/paycli/internal/render"
)

// Options are the inputs of `paycli api`: the pipeline's (a request to a
// path that moves money runs through it; a read uses its IO, Config,
// Gateway, CommandContext and JSON) and the request's flags.
type Options struct {
	moneyop.Options

	Method string
	Path   string
	// Fields are -f and -F in the order given.
	Fields []field
	// Input is --input: a file, or - for stdin.
	Input       string
	MerchantKey bool
	// Credentials adds app_id and app_secret (a refund's body carries them).
	Credentials bool
	// Hash is the --hash layout.
	Hash    string
	Include bool
	// Headers are -H values, "Name: value", in the order given.
	Headers []string
	// NewRefundID makes the refund_transaction_id of a refund whose body
	// has none; crypto/rand outside tests.
	NewRefundID func() string
}

// NewCmdAPI builds `paycli api`.
func NewCmdAPI(f *cmdutil.Factory, runF func(context.Context, *Options) error) *cobra.Command {
	opts := &Options{Options: moneyop.NewOptions(f), NewRefundID: moneyop.NewRefundID}
	opts.Parallel = 1 // one request: api has no batch
	cmd := &cobra.Command{
		Use:   "api METHOD PATH",
		Short: "Send an authenticated request to any gateway path",
		Long: `Send a request to PATH under the profile's base URL with a bearer token
(cached; fetched again once if the gateway answers 401), and print the answer:
indented JSON on a terminal, the bytes as they came when piped. It is for the
calls no other command makes.

The body is built from fields, like gh api:
  -f key=value    a string, as written
  -F key=value    true, false, null and integers become JSON literals;
                  @FILE (or @- for stdin) is the file's text; anything else
                  is a string (amounts such as 100.00 stay strings)

or read from --input FILE (or - for stdin) as it is. With GET the fields go
into the query string instead. --merchant-key adds the profile's
merchant_key, --credentials its app_id and app_secret (a refund's body
carries them; secrets never come from the command line); --hash LAYOUT
adds a hash_key made from the body's own fields with a layout of
'paycli hash layouts' (a missing field exits 2).

-H "Name: value" adds a request header (repeatable), replacing one paycli
sets (Accept, Content-Type, User-Agent); Authorization is the profile's
token and cannot be set. --include prints the HTTP status line and the
headers (secrets masked)
before the body; --jq filters the JSON answer. The exit code follows the
answer's status_code, as for every other command (see 'paycli help
exit-codes'); the answer is printed whatever it says.

A request to a path that moves money needs --yes, or a confirmation on a
terminal. A path is known by its last part, whatever its case, prefix
(/index.php/…) or encoding: walletPay, refund, confirmPayment, complete,
and any other payment under an api folder (a last part that starts with
"pay"). It is sent once and never retried, and recorded in the journal as
the paycli command would record it (refund, preauth-capture or -cancel by
confirmPayment's status, complete, walletpay), or as an "api" attempt for
a payment paycli has no command for (paySmart2D, …); a refund without a
refund_transaction_id is given one. When its outcome is unknown paycli
exits 7 and prints the command that settles it; until then, a money
command on its invoice_id is refused (exit 2), as is one while it is in
flight (exit 6). --dry-run prints the request with secrets masked and
sends nothing. PATH must be a path under the base URL: paycli never sends
the token to another host.`,
		Example: `  paycli api POST /api/commissions -f currency_code=TRY --jq '.data["1"][0].card_program'
  paycli api POST /api/checkstatus --merchant-key --hash checkstatus -f invoice_id=INV-1001
  paycli api POST /api/getpos --merchant-key -f credit_card=450803 -f amount=100.00 -f currency_code=TRY --include
  paycli api POST /api/commissions -f currency_code=TRY -H 'X-Request-Id: desk-42'
  paycli api POST /api/refund --credentials --merchant-key --hash refund -f invoice_id=INV-1001 -f amount=10.00 --yes`,
		Args: cmdutil.ExactArgs(2, "METHOD and PATH"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Method, opts.Path = strings.ToUpper(args[0]), args[1]
			if out := cmd.Flag("output"); out != nil && out.Changed && out.Value.String() != string(render.JSON) {
				return cmdutil.UsageErrorf("paycli api prints the gateway's answer as it came: -o %s does not apply (use --jq to pick fields)", out.Value.String())
			}
			if opts.Input != "" && len(opts.Fields) > 0 {
				return cmdutil.UsageErrorf("--input and -f/-F both make the body: use one of them")
			}
			if opts.Hash != "" && !slices.Contains(gateway.HashLayouts(), opts.Hash) {
				return cmdutil.UsageErrorf("invalid --hash %q: the layouts are %s", opts.Hash, strings.Join(gateway.HashLayouts(), ", "))
			}
			if opts.Method == http.MethodGet && opts.addsSecrets() {
				return cmdutil.UsageErrorf("--merchant-key, --credentials and --hash go into a body, and a GET sends its fields in the URL, where proxies log them: use POST")
			}
			if _, err := requestHeader(opts.Headers); err != nil {
				return err
			}
			if _, err := gateway.CheckRequest(gateway.Request{Method: opts.Method, Path: opts.Path}); err != nil {
				return pathError(opts.Path, err)
			}
			return moneyop.Start(cmd, f, opts, runF, apiRun)
		},
	}
	fl := cmd.Flags()
	fl.VarP(fieldsValue{typed: false, list: &opts.Fields}, "raw-field", "f", "add a string field to the body (repeatable)")
	fl.VarP(fieldsValue{typed: true, list: &opts.Fields}, "field", "F", "add a typed field: true, false, null, integers, @FILE (repeatable)")
	fl.StringVar(&opts.Input, "input", "", "read the body from `FILE` (- for stdin)")
	fl.BoolVar(&opts.MerchantKey, "merchant-key", false, "add the profile's merchant_key to the body")
	fl.BoolVar(&opts.Credentials, "credentials", false, "add the profile's app_id and app_secret to the body (a refund carries them)")
	fl.StringVar(&opts.Hash, "hash", "", "add a hash_key made with `LAYOUT` from the body's fields")
	fl.BoolVarP(&opts.Include, "include", "i", false, "print the HTTP status line and headers before the body")
	fl.StringArrayVarP(&opts.Headers, "header", "H", nil, "add a request header, `\"NAME: VALUE\"` (repeatable)")
	moneyop.AddFlags(cmd, f, &opts.Options, moneyop.FlagText{Yes: "do not ask for confirmation on a path that moves money"})
	// A read's output cut off by a closed stdout exits 141, as any read's.
	cmdutil.SetExits(cmd, cmdutil.Exits{Kinds: cmdutil.ExitsMoney})
	_ = cmd.RegisterFlagCompletionFunc("input", cmdutil.CompleteFile)
	_ = cmd.RegisterFlagCompletionFunc("hash", cobra.FixedCompletions(gateway.HashLayouts(), cobra.ShellCompDirectiveNoFileComp))
	for _, name := range []string{"raw-field", "field"} {
		_ = cmd.RegisterFlagCompletionFunc(name, cobra.NoFileCompletions)
	}
	cmd.ValidArgsFunction = func(_ *cobra.Command, args []string, _ string) ([]string, cobra.ShellCompDirective) {
		if len(args) == 0 {
			return []string{"GET", "POST", "PUT", "PATCH", "DELETE"}, cobra.ShellCompDirectiveNoFileComp
		}
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	return cmd
}

// pathError is the one line for a PATH Do refuses.
func pathError(p string, err error) error {
	msg := gateway.RefusalText(err)
	if u, perr := url.Parse(p); perr == nil && (u.Scheme != "" || u.Host != "" || strings.HasPrefix(p, "//")) {
		msg = fmt.Sprintf("%s is a URL, not a path: give the path under the profile's base URL, such as /api/checkstatus (paycli never sends the token to another host)", render.Escape(p))
	}
	return cmdutil.UsageErrorf("invalid PATH: %s", msg)
}

// request is one request, body built, as it will be sent.
type request struct {
	gateway.Request
	// name is how errors name the call: the cleaned path.
	name string
	// body is the body as an object when it is one; nil otherwise.
	body gateway.Object
}

// apiRun builds the request and sends it: straight through for a read, through
// the money-moving pipeline for a path that moves money.
func apiRun(ctx context.Context, opts *Options) error {
	req, err := build(ctx, opts)
	if err != nil {
		return err
	}
	if cmd := gateway.GuardedCommand(req.Path); cmd != "" && !opts.DryRun {
		return cmdutil.UsageErrorf("paycli api does not send %s: use 'paycli %s', which journals it and keeps the invoice's rule; nothing was sent", render.Escape(req.name), cmd)
	}
	if call := gateway.MoneyCallOf(req.Path, req.Body); call != gateway.NoMoney {
		if call == gateway.MoneyRefund {
			req.giveRefundID(opts.NewRefundID)
		}
		var op moneyop.Operation[*request, gateway.Request, *gateway.Response] = operation{printer: printer{opts: opts}, call: call}
		return moneyop.RunSingle(ctx, &opts.Options, op, req)
	}
	client, err := opts.Gateway()
	if err != nil {
		return err
	}
	if opts.DryRun {
		dump, err := client.DryRun(req.Request)
		if err != nil {
			return err
		}
		if _, err := fmt.Fprint(opts.IO.Out, dump.String()); err != nil {
			return err
		}
		opts.IO.Notef("Dry run: nothing was sent.")
		return nil
	}
	ctx, cancel, err := opts.CommandContext(ctx)
	if err != nil {
		return err
	}
	defer cancel()
	res, err := client.Do(ctx, req.Request)
	if err != nil {
		return err
	}
	if err := (printer{opts: opts}).print(ctx, res); err != nil {
		return err
	}
	return res.Err()
}

// giveRefundID gives a refund whose body (a JSON object) has no
// refund_transaction_id one, as paycli refund gives every refund: the
// gateway then makes it at most once, and an unknown outcome is settled
// by re-sending it (paycli refund --retry) or by check status, which
// lists it.
func (r *request) giveRefundID(newID func() string) {
	if r.body == nil || r.body.Index(refundIDField) >= 0 {
		return
	}
	id, _ := json.Marshal(newID())
	r.body = append(r.body, gateway.Member{Key: refundIDField, Value: id})
	r.Body, _ = r.body.MarshalJSON()
}

// build makes the request of the flags: the body (fields or --input),
// merchant_key and hash_key added, GET fields moved to the query string.
func build(ctx context.Context, opts *Options) (*request, error) {
	read := func(flag, value string) (string, error) {
		if value == "@-" || value == "-" {
			value = "-"
		} else if !strings.HasPrefix(value, "@") {
			value = "@" + value
		}
		return cmdutil.ReadValue(ctx, opts.IO.In, flag, value, "request body")
	}
	header, err := requestHeader(opts.Headers)
	if err != nil {
		return nil, err
	}
	r := &request{Request: gateway.Request{Method: opts.Method, Path: opts.Path, Header: header}}
	var raw []byte
	switch {
	case opts.Input != "":
		text, err := read("input", opts.Input)
		if err != nil {
			return nil, err
		}
		raw = []byte(text)
		if o, err := gateway.ParseObject(raw); err == nil {
			r.body = o
		} else if opts.addsSecrets() {
			return nil, cmdutil.UsageErrorf("invalid --input: %v; --merchant-key, --credentials and --hash add fields to a JSON object", err)
		}
	case len(opts.Fields) > 0 || opts.addsSecrets():
		o, err := fieldsObject(opts.Fields, read)
		if err != nil {
			return nil, err
		}
		r.body = o
	}
	if opts.addsSecrets() {
		if err := addSecrets(r, opts); err != nil {
			return nil, err
		}
	}
	if r.body != nil && (opts.Input == "" || opts.addsSecrets()) {
		raw, _ = r.body.MarshalJSON()
	}
	if opts.Method == http.MethodGet && opts.Input == "" && len(r.body) > 0 {
		r.Path = withQuery(r.Path, r.body)
		raw, r.body = nil, nil
	}
	r.Body = raw
	name, err := gateway.CheckRequest(r.Request)
	if err != nil {
		return nil, pathError(r.Path, err)
	}
	r.name = name
	return r, nil
}

// requestHeader reads the -H values: "Name: value", a name of letters,
// digits and '-', a value without control characters; Authorization, Host
// and the headers of the connection itself are paycli's to set.
func requestHeader(values []string) (http.Header, error) {
	if len(values) == 0 {
		return nil, nil
	}
	h := http.Header{}
	for _, v := range values {
		name, value, ok := strings.Cut(v, ":")
		name, value = strings.TrimSpace(name), strings.TrimSpace(value)
		if !ok || name == "" || strings.IndexFunc(name, func(r rune) bool {
			return !(r == '-' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
		}) >= 0 {
			return nil, cmdutil.UsageErrorf("invalid -H %q: write \"Name: value\"", render.Escape(v))
		}
		if strings.IndexFunc(value, func(r rune) bool { return r < ' ' && r != '\t' || r == 0x7f }) >= 0 {
			return nil, cmdutil.UsageErrorf("invalid -H %s: the value holds control characters", name)
		}
		switch http.CanonicalHeaderKey(name) {
		case "Authorization":
			return nil, cmdutil.UsageErrorf("invalid -H %s: the Authorization header is the profile's token, which paycli sets", name)
		case "Host", "Content-Length", "Transfer-Encoding", "Connection", "Upgrade", "Te", "Trailer", "Keep-Alive":
			return nil, cmdutil.UsageErrorf("invalid -H %s: paycli sets it for the connection", name)
		}
		h.Add(name, value)
	}
	return h, nil
}

// addsSecrets reports whether paycli adds fields from the profile.
func (o *Options) addsSecrets() bool { return o.MerchantKey || o.Credentials || o.Hash != "" }

// addSecrets has the gateway client add merchant_key, app_id and
// app_secret, and a hash_key (last, so that it may hash the others) to the
// body: the profile's secrets never pass through the command. A body that
// has them already is refused rather than overwritten: one of the two
// values is a mistake, and paycli cannot tell which.
func addSecrets(r *request, opts *Options) error {
	client, err := opts.Gateway()
	if err != nil {
		return err
	}
	body, err := client.SignObject(r.body, gateway.Sign{MerchantKey: opts.MerchantKey, Credentials: opts.Credentials, Layout: opts.Hash})
	var se *gateway.SignError
	if !errors.As(err, &se) {
		r.body = body
		return err
	}
	flag := map[string]string{"merchant_key": "--merchant-key", "credentials": "--credentials", "hash_key": "--hash"}[se.Adding]
	switch {
	case errors.Is(err, gateway.ErrNoMerchantKey):
		cfg, cerr := opts.Config()
		if cerr != nil {
			return cerr
		}
		return cmdutil.UsageHint(fmt.Errorf("--merchant-key: profile %q has no merchant_key", cfg.Profile),
			fmt.Sprintf("Run 'paycli config init', or set %s_MERCHANT_KEY.", config.EnvPrefix))
	case se.Present != "":
		return cmdutil.UsageErrorf("%s: the body already holds %s; drop one of them", flag, se.Present)
	case len(se.Missing) > 0:
		missing := slices.Clone(se.Missing)
		for i, m := range missing {
			if m == "merchant_key" {
				missing[i] = "merchant_key (add --merchant-key)"
			}
		}
		return cmdutil.UsageHint(fmt.Errorf("--hash %s: the body has no %s", se.Layout, strings.Join(missing, ", ")),
			fmt.Sprintf("The layout %s hashes %s; add the missing fields with -f key=value.", se.Layout, strings.Join(se.Fields, "|")))
	}
	return cmdutil.UsageErrorf("--hash %s: %v", se.Layout, se.Err)
}

func withQuery(p string, o gateway.Object) string {
	q := url.Values{}
	for _, m := range o {
		v, _, err := o.Text(m.Key)
		if err != nil {
			v = string(m.Value)
		}
		q.Add(m.Key, v)
	}
	sep := "?"
	if strings.Contains(p, "?") {
		sep = "&"
	}
	return p + sep + q.Encode()
}
