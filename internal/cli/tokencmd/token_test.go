package tokencmd

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/paycli/paycli/internal/cmdutil"
	"github.com/paycli/paycli/internal/config"
	"github.com/paycli/paycli/internal/gateway"
	"github.com/paycli/paycli/internal/iostreams"
	"github.com/paycli/paycli/internal/render"
	"github.com/paycli/paycli/internal/testkit/replay"
)

func TestNewCmdTokenFlags(t *testing.T) {
	tests := []struct {
		args    string
		want    Options
		wantErr string
	}{
		{"", Options{}, ""},
		{"--refresh", Options{Refresh: true}, ""},
		{"--clear", Options{Clear: true}, ""},
		{"--refresh --clear", Options{}, "--refresh and --clear cannot be used together"},
		{"extra", Options{}, `unexpected argument "extra"`},
	}
	for _, tt := range tests {
		t.Run(tt.args, func(t *testing.T) {
			ios, _, _, _ := iostreams.Test()
			var got *Options
			cmd := NewCmdToken(&cmdutil.Factory{IOStreams: ios}, func(_ context.Context, o *Options) error { got = o; return nil })
			args := strings.Fields(tt.args)
			cmd.SetArgs(args)
			cmd.SetOut(io.Discard)
			cmd.SetErr(io.Discard)
			err := cmd.Execute()
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				if k, _ := cmdutil.KindOf(err); k != cmdutil.KindUsage {
					t.Errorf("kind %v, want usage", k)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.Refresh != tt.want.Refresh || got.Clear != tt.want.Clear {
				t.Errorf("options %+v, want %+v", *got, tt.want)
			}
		})
	}
}

var now = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

const tokenPath = "/ccpayment/api/token"

// newGateway replays the token call's recorded success.
func newGateway(t *testing.T) *replay.Server {
	g := replay.New(t)
	g.Answer(http.MethodPost, tokenPath, 200, replay.Recorded("token.json"))
	return g
}

type env struct {
	opts   *Options
	out    *bytes.Buffer
	errOut *bytes.Buffer
}

func newEnv(t *testing.T, baseURL, secret, cacheDir string, format render.Format) env {
	ios, _, out, errOut := iostreams.Test()
	cfg := &config.Config{Profile: "staging", BaseURL: baseURL, AppID: "app-id", AppSecret: secret, Timeout: 5 * time.Second}
	cache := gateway.NewFileTokenCache(cacheDir, "staging", "", func() time.Time { return now })
	opts := &Options{
		Deps: cmdutil.Deps{
			IO:     ios,
			Config: func() (*config.Config, error) { return cfg, nil },
			Format: func() (render.Format, error) { return format, nil },
			Gateway: func() (*gateway.Client, error) {
				return gateway.New(cfg.BaseURL, gateway.Credentials{AppID: cfg.AppID, AppSecret: cfg.AppSecret},
					gateway.WithClock(func() time.Time { return now }), gateway.WithTokenCache(cache))
			},
			CommandContext: func(ctx context.Context) (context.Context, context.CancelFunc, error) {
				ctx, cancel := context.WithTimeout(ctx, cfg.Timeout)
				return ctx, cancel, nil
			},
		},
		TokenCache: func() (*gateway.FileTokenCache, error) { return cache, nil },
	}
	return env{opts, out, errOut}
}

func TestRunPrintsTheTokenAlone(t *testing.T) {
	g := newGateway(t)
	dir := t.TempDir()
	first := newEnv(t, g.URL+"/ccpayment", "s3cret-app-secret", dir, render.Table)
	if err := tokenRun(context.Background(), first.opts); err != nil {
		t.Fatal(err)
	}
	tok := first.out.String()
	if !strings.HasPrefix(tok, "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.") || strings.Count(tok, "\n") != 1 || !strings.HasSuffix(tok, ".c2lnLXJlcGxheQ\n") {
		t.Errorf("stdout = %q, want the token and a newline", tok)
	}
	if first.errOut.Len() != 0 {
		t.Errorf("stderr = %q", first.errOut)
	}

	// A second run (another process) reuses the cached token: no request.
	second := newEnv(t, g.URL+"/ccpayment", "s3cret-app-secret", dir, render.Table)
	if err := tokenRun(context.Background(), second.opts); err != nil {
		t.Fatal(err)
	}
	if second.out.String() != tok || g.Count(tokenPath) != 1 {
		t.Errorf("second run printed %q after %d requests", second.out, g.Count(tokenPath))
	}

	g.Answer(http.MethodPost, tokenPath, 200, replay.Recorded("token_2.json"))
	refresh := newEnv(t, g.URL+"/ccpayment", "s3cret-app-secret", dir, render.Table)
	refresh.opts.Refresh = true
	if err := tokenRun(context.Background(), refresh.opts); err != nil {
		t.Fatal(err)
	}
	if refresh.out.String() == tok || g.Count(tokenPath) != 2 {
		t.Errorf("--refresh printed %q after %d requests", refresh.out, g.Count(tokenPath))
	}
}

func TestRunFormats(t *testing.T) {
	g := newGateway(t)
	dir := t.TempDir()
	e := newEnv(t, g.URL+"/ccpayment", "s3cret-app-secret", dir, render.JSON)
	if err := tokenRun(context.Background(), e.opts); err != nil {
		t.Fatal(err)
	}
	tok := tokenIn(e.out.String())
	// Every moment is shown in the user's zone (render.FormatTime).
	expires := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	want := `{
  "token": "` + tok + `",
  "is_3d": 1,
  "expires_at": "` + render.FormatTime(expires, render.JSON) + `",
  "cached": false,
  "gateway_expires_at": "2026-11-22 15:00:00"
}
`
	if e.out.String() != want {
		t.Errorf("json:\n%s\nwant:\n%s", e.out, want)
	}

	for _, f := range []struct {
		format render.Format
		want   string
	}{
		{render.CSV, "token,is_3d,expires_at,cached\n" + tok + ",1," + render.FormatTime(expires, render.CSV) + ",true\n"},
		{render.TSV, "token\tis_3d\texpires_at\tcached\n" + tok + "\t1\t" + render.FormatTime(expires, render.TSV) + "\ttrue\n"},
	} {
		e := newEnv(t, g.URL+"/ccpayment", "s3cret-app-secret", dir, f.format)
		if err := tokenRun(context.Background(), e.opts); err != nil {
			t.Fatal(err)
		}
		if e.out.String() != f.want {
			t.Errorf("%s:\n%s\nwant:\n%s", f.format, e.out, f.want)
		}
	}
}

func tokenIn(s string) string {
	_, rest, _ := strings.Cut(s, `"token": "`)
	tok, _, _ := strings.Cut(rest, `"`)
	return tok
}

func TestRunBadCredentials(t *testing.T) {
	g := replay.New(t)
	g.Answer(http.MethodPost, tokenPath, 200, replay.Recorded("token_30.json"))
	e := newEnv(t, g.URL+"/ccpayment", "wrong", t.TempDir(), render.Table)
	err := tokenRun(context.Background(), e.opts)
	if k, _ := cmdutil.KindOf(err); k != cmdutil.KindAuth {
		t.Fatalf("err = %v (kind %v), want auth", err, k)
	}
	if !errors.Is(err, gateway.ErrUnauthorized) {
		t.Errorf("err does not match ErrUnauthorized: %v", err)
	}
	wantMsg := `the gateway refused the credentials of profile "staging" (token: status_code 30 "Invalid credentials")`
	if err.Error() != wantMsg {
		t.Errorf("message %q\nwant %q", err, wantMsg)
	}
	if hint := cmdutil.HintOf(err); !strings.Contains(hint, "paycli config init") {
		t.Errorf("hint %q does not suggest paycli config init", hint)
	}
	if strings.Contains(err.Error(), "wrong") || e.out.Len() != 0 {
		t.Errorf("secret in the error or output on stdout: %v / %q", err, e.out)
	}
}

func TestRunUnreachable(t *testing.T) {
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	base := "http://" + ln.Addr().String() + "/ccpayment"
	ln.Close()
	e := newEnv(t, base, "s3cret-app-secret", t.TempDir(), render.Table)
	err := tokenRun(context.Background(), e.opts)
	if k, _ := cmdutil.KindOf(err); k != cmdutil.KindUnavailable || !errors.Is(err, gateway.ErrUnavailable) {
		t.Fatalf("err = %v, want unavailable", err)
	}
	if !strings.Contains(cmdutil.HintOf(err), "--debug") {
		t.Errorf("hint %q", cmdutil.HintOf(err))
	}
}

func TestRunClear(t *testing.T) {
	g := newGateway(t)
	dir := t.TempDir()
	e := newEnv(t, g.URL+"/ccpayment", "s3cret-app-secret", dir, render.Table)
	if err := tokenRun(context.Background(), e.opts); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Deleted the cached token of profile \"staging\".\n", "No cached token for profile \"staging\".\n"} {
		c := newEnv(t, g.URL+"/ccpayment", "s3cret-app-secret", dir, render.Table)
		c.opts.Clear = true
		if err := tokenRun(context.Background(), c.opts); err != nil {
			t.Fatal(err)
		}
		if c.errOut.String() != want || c.out.Len() != 0 {
			t.Errorf("stderr %q stdout %q, want stderr %q", c.errOut, c.out, want)
		}
	}
	// The next run must ask the gateway again.
	again := newEnv(t, g.URL+"/ccpayment", "s3cret-app-secret", dir, render.JSON)
	if err := tokenRun(context.Background(), again.opts); err != nil {
		t.Fatal(err)
	}
	if g.Count(tokenPath) != 2 || !strings.Contains(again.out.String(), `"cached": false`) {
		t.Errorf("after --clear: %d calls, %s", g.Count(tokenPath), again.out)
	}
}

// TestJSONShowsAnExpiryAlreadyPast: an expires_at already past (a token
// without an exp claim) is printed as the gateway said it, not as null,
// with a warning.
func TestJSONShowsAnExpiryAlreadyPast(t *testing.T) {
	srv := replay.New(t)
	srv.Answer(http.MethodPost, tokenPath, 200, replay.Recorded("token_no_exp.json"))
	e := newEnv(t, srv.URL+"/ccpayment", "s3cret-app-secret", t.TempDir(), render.JSON)
	if err := tokenRun(context.Background(), e.opts); err != nil {
		t.Fatal(err)
	}
	// 09:30 in the gateway's zone (UTC+3) is 06:30 UTC, still before now
	// (10:00 UTC); shown as every paycli time is.
	at := time.Date(2026, 11, 22, 6, 30, 0, 0, time.UTC)
	if !strings.Contains(e.out.String(), `"expires_at": "`+render.FormatTime(at, render.JSON)+`",`) || !strings.Contains(e.out.String(), `"gateway_expires_at": "2026-11-22 09:30:00"`) {
		t.Errorf("json:\n%s", e.out)
	}
	if !strings.Contains(e.errOut.String(), "warning: the gateway says this token expires at 2026-11-22 09:30:00 ("+render.FormatTime(at, render.Table)+"), which is already past") {
		t.Errorf("stderr: %q", e.errOut)
	}
}
