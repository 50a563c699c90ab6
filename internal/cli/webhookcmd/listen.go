package webhookcmd

import (
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"log"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/paycli/paycli/internal/cmdutil"
	"github.com/paycli/paycli/internal/gateway"
	"github.com/paycli/paycli/internal/render"
	"github.com/paycli/paycli/internal/webhook"
	"github.com/spf13/cobra"
)

// DefaultAddr is where `webhook listen` listens unless told otherwise.
const DefaultAddr = "127.0.0.1:9000"

// shutdownGrace bounds how long Ctrl-C waits for webhooks in flight.
const shutdownGrace = 10 * time.Second

// ListenOptions are the inputs of `paycli webhook listen`.
type ListenOptions struct {
	cmdutil.Deps

	Addr           string
	Public         bool
	ForwardTo      string
	ForwardInvalid bool
	ForwardTimeout time.Duration
	// Debug logs each request and each forwarded exchange on stderr,
	// redacted as the gateway client's --debug log.
	Debug bool

	// ReadHeaderTimeout and ReadTimeout bound a slow sender: the headers,
	// and the whole request with its body.
	ReadHeaderTimeout time.Duration
	ReadTimeout       time.Duration
	// Listen opens the listener (net.Listen outside tests).
	Listen func(network, addr string) (net.Listener, error)
	// Ready, when set, is called with the base URL once listening (tests).
	Ready func(baseURL string)
}

// NewCmdListen builds `paycli webhook listen`.
func NewCmdListen(f *cmdutil.Factory, runF func(context.Context, *ListenOptions) error) *cobra.Command {
	opts := &ListenOptions{Deps: cmdutil.DepsOf(f),
		ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second, Listen: net.Listen}
	cmd := &cobra.Command{
		Use:   "listen [--addr HOST:PORT] [--forward-to URL]",
		Short: "Receive webhooks, check their hash_key and forward them to your handler",
		Long: `Receive the gateway's webhooks over HTTP, check each hash_key with the
configured app_secret, and print one line per webhook on stdout:

  sale INV-1001 VP17000000000000001 150.00 TRY status=1 hash=valid → 200

kind, invoice_id, order_id, amount (a sale's total), currency_code, status,
whether the hash_key vouches for the body (or why not), and the HTTP status
the sender was answered. With -o json each webhook is a line of JSON (see
docs/webhooks.md for its fields), which --jq filters (it implies -o json);
csv and tsv write one record per webhook.

It accepts POST bodies, form-encoded or JSON, up to 64 KiB, on any path.
With --forward-to, a webhook whose hash_key is valid is sent on to your
handler with its body, content type and headers as they arrived, plus
X-Paycli-Hash: valid; the sender gets your handler's status and answer (502
when it cannot be reached, 504 when it does not answer within
--forward-timeout). A webhook whose hash_key is missing or invalid is not
forwarded (the sender gets 400) unless --forward-invalid, which forwards it
with X-Paycli-Hash: invalid and passes your handler's answer back. Without
--forward-to the sender gets 200 for a valid webhook and 400 otherwise.

It listens on a loopback address unless --public is given. Ctrl-C stops it
after the webhooks in flight are answered; it exits 0. Secrets are never
printed: with --debug, each request is logged on stderr with hash_key and
credentials masked and card numbers cut to their first 6 and last 4 digits.`,
		Example: `  paycli webhook listen --forward-to http://localhost:8000/webhooks/sipay
  paycli webhook listen --sandbox --addr 127.0.0.1:0 -o json
  paycli webhook listen --forward-to http://localhost:8000/hook --forward-invalid`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := cmdutil.CheckListenAddr(opts.Addr, DefaultAddr); err != nil {
				return err
			}
			if !opts.Public && !cmdutil.LoopbackOnly(opts.Addr) {
				return cmdutil.UsageHint(fmt.Errorf("refusing to listen on %s: not a loopback address", opts.Addr),
					"Webhooks from the internet reach this machine through a tunnel to a loopback address; add --public to listen on the network anyway.")
			}
			if opts.ForwardTo != "" {
				if _, err := forwardURL(opts.ForwardTo); err != nil {
					return err
				}
			} else if opts.ForwardInvalid {
				return cmdutil.UsageErrorf("--forward-invalid needs --forward-to")
			}
			if opts.ForwardTimeout <= 0 {
				return cmdutil.UsageErrorf("invalid --forward-timeout %v: want a positive duration, e.g. 10s", opts.ForwardTimeout)
			}
			opts.Debug, _ = cmd.Flags().GetBool("debug")
			return cmdutil.Run(cmd, opts, runF, listenRun)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.Addr, "addr", DefaultAddr, "address to listen on (host:port; port 0 picks a free one)")
	fl.BoolVar(&opts.Public, "public", false, "allow a non-loopback --addr")
	fl.StringVar(&opts.ForwardTo, "forward-to", "", "your webhook handler's URL: valid webhooks are sent on to it")
	fl.BoolVar(&opts.ForwardInvalid, "forward-invalid", false, "forward webhooks with an invalid hash_key too (marked X-Paycli-Hash: invalid)")
	fl.DurationVar(&opts.ForwardTimeout, "forward-timeout", 10*time.Second, "how long your handler may take to answer")
	for _, name := range []string{"addr", "forward-to", "forward-timeout"} {
		_ = cmd.RegisterFlagCompletionFunc(name, cobra.NoFileCompletions)
	}
	opts.AddJSONFlags(cmd)
	cmdutil.SetExits(cmd, cmdutil.Exits{Kinds: cmdutil.ExitsLocal})
	return cmd
}

// forwardsToItself reports whether u names the listener's own port on
// this machine, which would send every webhook round in a loop.
func forwardsToItself(u *url.URL, addr net.Addr) bool {
	tcp, ok := addr.(*net.TCPAddr)
	if !ok {
		return false
	}
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	if port != strconv.Itoa(tcp.Port) {
		return false
	}
	host := u.Hostname()
	ip := net.ParseIP(host)
	return strings.EqualFold(host, "localhost") || ip != nil && (ip.IsLoopback() || ip.IsUnspecified() || ip.Equal(tcp.IP))
}

func forwardURL(s string) (*url.URL, error) {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, cmdutil.UsageErrorf("invalid --forward-to %q: want your handler's http(s) URL, e.g. http://localhost:8000/webhooks", s)
	}
	return u, nil
}

// listenRun receives webhooks until ctx is cancelled, then lets those in
// flight finish.
func listenRun(ctx context.Context, opts *ListenOptions) error {
	format, cfg, secret, err := opts.AppSecret("it is what checks a webhook's hash_key")
	if err != nil {
		return err
	}
	stderr := &lockedWriter{w: opts.IO.ErrOut}
	out := newEventWriter(opts.IO.Out, format, opts.Palette())
	// Events are written after Ctrl-C too, while those in flight finish.
	out.json, out.ctx, out.warn = opts.JSON, context.WithoutCancel(ctx), func(format string, a ...any) { fmt.Fprintln(stderr, opts.IO.Warning(format, a...)) }

	ropts, err := receiverOptions(opts, secret, out, stderr)
	if err != nil {
		return err
	}

	ln, err := opts.Listen("tcp", opts.Addr)
	if err != nil {
		// The address is the user's to change (busy, or not this
		// machine's): a usage error, not an unreachable gateway.
		return cmdutil.UsageHint(fmt.Errorf("cannot listen on %s: %w", opts.Addr, err),
			"Is another listener running there? Pick another address with --addr (port 0 picks a free one).")
	}
	if ropts.ForwardTo != nil && forwardsToItself(ropts.ForwardTo, ln.Addr()) {
		ln.Close()
		return cmdutil.UsageErrorf("--forward-to %s is this listener's own address: each webhook would be forwarded to itself", ropts.ForwardTo.Redacted())
	}
	srv := listenServer(opts, webhook.NewReceiver(ropts), stderr)
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()

	base := "http://" + ln.Addr().String()
	fmt.Fprintln(stderr, opts.IO.WrapForStderr(fmt.Sprintf("paycli webhook listen: receiving webhooks at %s (any path), hash_keys checked with the app_secret of %s", base, secretSource(cfg))))
	if ropts.ForwardTo != nil {
		which := "valid webhooks"
		if opts.ForwardInvalid {
			which = "every webhook"
		}
		fmt.Fprintf(stderr, "Forwarding %s to %s\n", which, ropts.ForwardTo.Redacted())
	}
	fmt.Fprintln(stderr, "Press Ctrl-C to stop.")
	if opts.Ready != nil {
		opts.Ready(base)
	}

	select {
	case <-ctx.Done():
	case err := <-done:
		return fmt.Errorf("webhook listener stopped: %w", err)
	}
	shutdownCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), shutdownGrace)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		fmt.Fprintln(stderr, opts.IO.Warning("webhooks still in flight were cut off: %v", err))
		_ = srv.Close()
	}
	fmt.Fprintln(stderr, "paycli webhook listen stopped")
	return nil
}

// receiverOptions are what the receiver does with a webhook: check it
// with secret, forward it, report it to out; with --debug, log what came
// and what was forwarded on stderr.
func receiverOptions(opts *ListenOptions, secret string, out *eventWriter, stderr io.Writer) (webhook.ReceiverOptions, error) {
	var logger *slog.Logger
	var wrap func(http.RoundTripper) http.RoundTripper
	if opts.Debug {
		logger = slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
		wrap = func(rt http.RoundTripper) http.RoundTripper { return gateway.NewLoggingTransport(rt, logger, opts.Now) }
	}
	ropts := webhook.ReceiverOptions{
		AppSecret:      secret,
		ForwardInvalid: opts.ForwardInvalid,
		Client:         webhook.ForwardClient(opts.ForwardTimeout, wrap),
		Report:         func(e webhook.Event) { out.write(e, opts.ForwardTo != "") },
		Refused:        func(s string) { fmt.Fprintln(stderr, "refused: "+s) },
		Now:            opts.Now,
	}
	if opts.ForwardTo != "" {
		var err error
		if ropts.ForwardTo, err = forwardURL(opts.ForwardTo); err != nil {
			return ropts, err
		}
	}
	if logger != nil {
		ropts.Received = func(r *http.Request, body []byte) {
			attrs := []slog.Attr{slog.String("method", r.Method), slog.String("path", webhook.Printable(r.URL.Path)),
				slog.String("remote", r.RemoteAddr)}
			var hs []any
			for _, name := range slices.Sorted(maps.Keys(r.Header)) {
				hs = append(hs, slog.String(name, gateway.RedactHeader(name, r.Header[name])))
			}
			attrs = append(attrs, slog.Group("headers", hs...), slog.String("body", gateway.RedactBody(body)))
			logger.LogAttrs(r.Context(), slog.LevelDebug, "webhook received", attrs...)
		}
	}
	return ropts, nil
}

// listenServer is the HTTP server around the receiver, with the
// listener's time limits; its own errors are logged only with --debug.
func listenServer(opts *ListenOptions, h http.Handler, stderr io.Writer) *http.Server {
	errorLog := log.New(io.Discard, "", 0)
	if opts.Debug {
		errorLog = log.New(stderr, "http server: ", 0)
	}
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: opts.ReadHeaderTimeout,
		ReadTimeout:       opts.ReadTimeout,
		// The answer waits for the handler.
		WriteTimeout:   opts.ReadTimeout + opts.ForwardTimeout + 5*time.Second,
		IdleTimeout:    time.Minute,
		MaxHeaderBytes: 64 << 10,
		ErrorLog:       errorLog,
	}
}

// lockedWriter serialises writes from the request goroutines.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// eventWriter prints events as they come, one line each, whole.
type eventWriter struct {
	mu      sync.Mutex
	w       io.Writer
	format  render.Format
	palette render.Palette
	csv     *csv.Writer
	// json filters JSON lines with --jq; a filter that fails on one event
	// is reported with warn and the listener goes on.
	json *cmdutil.JSONFlags
	ctx  context.Context
	warn func(format string, a ...any)
}

// eventHeader is the CSV/TSV header of `webhook listen`.
func eventHeader() []string {
	return slices.Concat([]string{"time", "path"}, verdictHeader, []string{"forwarded", "handler_status", "handler_ms", "handler_error", "response"})
}

func newEventWriter(w io.Writer, format render.Format, p render.Palette) *eventWriter {
	ew := &eventWriter{w: w, format: format, palette: p}
	if format == render.CSV || format == render.TSV {
		ew.csv = csv.NewWriter(w)
		if format == render.TSV {
			ew.csv.Comma = '\t'
		}
		_ = ew.csv.Write(eventHeader())
		ew.csv.Flush()
	}
	return ew
}

func (ew *eventWriter) write(e webhook.Event, forwarding bool) {
	ew.mu.Lock()
	defer ew.mu.Unlock()
	e.Verdict = shown(e.Verdict)
	switch ew.format {
	case render.JSON:
		ctx := ew.ctx
		if ctx == nil {
			ctx = context.Background()
		}
		var jqErr *cmdutil.JQError
		if err := ew.json.WriteLine(ctx, ew.w, e); errors.As(err, &jqErr) && ew.warn != nil {
			ew.warn("%v", jqErr)
		}
	case render.CSV, render.TSV:
		rec := append([]string{e.Time.Format(time.RFC3339Nano), e.Path}, verdictRecord(e.Verdict)...)
		hs, hms, herr := "", "", ""
		if e.Handler != nil {
			hs, hms, herr = strconv.Itoa(e.Handler.Status), strconv.FormatInt(e.Handler.DurationMS, 10), e.Handler.Error
		}
		rec = append(rec, strconv.FormatBool(e.Forwarded), hs, hms, herr, strconv.Itoa(e.Response))
		_ = ew.csv.Write(rec)
		ew.csv.Flush()
	default:
		fmt.Fprintln(ew.w, eventText(e, forwarding, ew.palette))
	}
}

// eventText is the one line of text for an event.
func eventText(e webhook.Event, forwarding bool, p render.Palette) string {
	line := verdictText(e.Verdict, p) + " → " + strconv.Itoa(e.Response)
	switch {
	case e.Handler != nil && e.Handler.Status == 0:
		line += " (" + webhook.Printable(e.Handler.Error) + ")"
	case e.Handler != nil:
		line += fmt.Sprintf(" (handler, %dms)", e.Handler.DurationMS)
		if e.Handler.Error != "" {
			line += " (" + webhook.Printable(e.Handler.Error) + ")"
		}
	case forwarding:
		line += " (not forwarded)"
	}
	return line
}
