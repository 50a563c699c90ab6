package app_test

import (
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/paycli/paycli/internal/sandbox"
	"github.com/rogpeppe/go-internal/testscript"
)

// scriptGateway is the emulator (internal/sandbox) serving the scripts'
// gateway, $GATEWAY: it accepts app_id "app-id" with app_secret
// "app-secret" and merchant_key "mk_0123456789abcdef", as the scripts
// configure them. It counts requests per path (gwcalls).
type scriptGateway struct {
	mu    sync.Mutex
	calls map[string]int
}

type scriptGatewayKey struct{}

func startScriptGateway(env *testscript.Env) error {
	store, err := sandbox.OpenStore(filepath.Join(env.WorkDir, ".gateway"), time.Second, time.Now())
	if err != nil {
		return err
	}
	env.Defer(func() { store.Close() })
	gw, err := sandbox.New(sandbox.Options{Now: time.Now, Store: store,
		Credentials: sandbox.Credentials{AppID: "app-id", AppSecret: "app-secret", MerchantKey: "mk_0123456789abcdef"}})
	if err != nil {
		return err
	}
	g := &scriptGateway{calls: map[string]int{}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		g.mu.Lock()
		g.calls[r.URL.Path]++
		g.mu.Unlock()
		gw.ServeHTTP(w, r)
	}))
	env.Defer(srv.Close)
	env.Values[scriptGatewayKey{}] = g
	env.Setenv("GATEWAY", srv.URL+sandbox.Base)
	// The same gateway without /ccpayment and with a password in the URL.
	env.Setenv("GATEWAY_USERINFO", strings.Replace(srv.URL, "http://", "http://merchant:s3cret@", 1))
	// A gateway that never answers: a listener nobody accepts from, so a
	// request waits until the client's --timeout.
	silent, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	env.Defer(func() { silent.Close() })
	env.Setenv("SILENT_GATEWAY", "http://"+silent.Addr().String()+sandbox.Base)
	return nil
}

// cmdGWCalls is the script command `gwcalls ENDPOINT N`: the gateway got
// N requests for ENDPOINT.
func cmdGWCalls(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: gwcalls ENDPOINT N")
	}
	g := ts.Value(scriptGatewayKey{}).(*scriptGateway)
	g.mu.Lock()
	got := g.calls[sandbox.Base+"/api/"+args[0]]
	g.mu.Unlock()
	if want, _ := strconv.Atoi(args[1]); (got == want) == neg {
		ts.Fatalf("%s requests: %d, want %s%s", args[0], got, map[bool]string{true: "not ", false: ""}[neg], args[1])
	}
}
