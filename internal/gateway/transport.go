package gateway

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"time"
)

// TransportOptions shape the HTTP client NewHTTPClient builds.
type TransportOptions struct {
	// CACertFile is a PEM file of extra certificate authorities to trust,
	// beside the system's (the ca_cert setting). Verification is never
	// turned off.
	CACertFile string
	// Timeout bounds each HTTP exchange; 0 means 30 seconds. A streamed
	// ledger answer is bounded by it until its headers, then between
	// reads of its body (WithStreamIdleTimeout).
	Timeout time.Duration
}

// NewHTTPClient returns the HTTP client paycli uses: proxies from the
// standard environment variables (HTTPS_PROXY, NO_PROXY, ...), TLS 1.2 or
// later, always verified, with the extra CAs of opts.CACertFile.
func NewHTTPClient(opts TransportOptions) (*http.Client, error) {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.Proxy = http.ProxyFromEnvironment
	tlsConf := &tls.Config{MinVersion: tls.VersionTLS12}
	if opts.CACertFile != "" {
		pool, err := x509.SystemCertPool()
		if err != nil || pool == nil {
			pool = x509.NewCertPool()
		}
		pem, err := os.ReadFile(opts.CACertFile)
		if err != nil {
			return nil, fmt.Errorf("ca_cert: %w", err)
		}
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("ca_cert: %s holds no PEM certificate", opts.CACertFile)
		}
		tlsConf.RootCAs = pool
	}
	tr.TLSClientConfig = tlsConf
	timeout := opts.Timeout
	if timeout <= 0 {
		timeout = defaultExchangeTimeout
	}
	return &http.Client{Transport: tr, Timeout: timeout}, nil
}

// maxLoggedBody is how much of a body a debug log shows.
const maxLoggedBody = 16 << 10

// loggingTransport logs each exchange at debug level: method, URL, status,
// duration, headers and bodies, with secrets and card numbers masked. The
// response body the caller reads is unchanged, errors included.
type loggingTransport struct {
	next   http.RoundTripper
	logger *slog.Logger
	now    func() time.Time
	// secrets, when set, are the secrets an exchange sent, scrubbed from
	// the logged answer as from the one the client reads.
	secrets func(payload []byte, authorization string) []string
}

func (t *loggingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	var reqBody []byte
	if req.GetBody != nil {
		if rc, err := req.GetBody(); err == nil {
			reqBody, _ = io.ReadAll(io.LimitReader(rc, maxLoggedBody+1))
			_ = rc.Close()
		}
	}
	t.logger.LogAttrs(ctx, slog.LevelDebug, "http request",
		slog.String("method", req.Method),
		slog.String("url", redactURL(req.URL)),
		headerGroup(req.Header),
		slog.String("body", loggedBody(reqBody)),
	)
	start := t.now()
	resp, err := t.next.RoundTrip(req)
	elapsed := t.now().Sub(start)
	if err != nil {
		t.logger.LogAttrs(ctx, slog.LevelDebug, "http error",
			slog.String("method", req.Method),
			slog.String("url", redactURL(req.URL)),
			slog.Duration("duration", elapsed),
			slog.String("error", redactText(err.Error())),
		)
		return nil, err
	}
	body, readErr := io.ReadAll(io.LimitReader(resp.Body, maxLoggedBody+1))
	var rest io.Reader = resp.Body
	if readErr != nil {
		rest = errorReader{readErr}
	}
	resp.Body = struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(body), rest), resp.Body}
	logged := loggedBody(body)
	if t.secrets != nil {
		// Fields are masked by name first; what the gateway echoed
		// elsewhere (in a description) is scrubbed as it is for the client.
		logged = string(scrub([]byte(logged), t.secrets(reqBody, req.Header.Get("Authorization"))))
	}
	attrs := []slog.Attr{
		slog.String("method", req.Method),
		slog.String("url", redactURL(req.URL)),
		slog.Int("status", resp.StatusCode),
		slog.Duration("duration", elapsed),
		headerGroup(resp.Header),
		slog.String("body", logged),
	}
	if readErr != nil {
		attrs = append(attrs, slog.String("body_error", redactText(readErr.Error())))
	}
	t.logger.LogAttrs(ctx, slog.LevelDebug, "http response", attrs...)
	return resp, nil
}

func headerGroup(h http.Header) slog.Attr {
	attrs := make([]any, 0, len(h))
	for _, name := range headerNames(h) {
		attrs = append(attrs, slog.String(name, redactHeader(name, h[name])))
	}
	return slog.Group("headers", attrs...)
}

func loggedBody(b []byte) string {
	if len(b) > maxLoggedBody {
		return redactBody(b[:maxLoggedBody]) + " …(truncated)"
	}
	return redactBody(b)
}

type errorReader struct{ err error }

func (r errorReader) Read([]byte) (int, error) { return 0, r.err }
