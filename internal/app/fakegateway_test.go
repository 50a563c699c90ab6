package app_test

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// fakeGateway is a small stand-in for the gateway's token call, for
// scripts that exercise `paycli token` end to end. It accepts app_id
// "app-id" with app_secret "app-secret"; app_id "slow" never answers (for
// --timeout). It answers /api/installments (what config init checks a
// merchant_key with) for merchant_key "mk_0123456789abcdef", and with
// status_code 14 for any other. It counts requests per endpoint. The sandbox emulator is the
// main end-to-end target; this only covers what needs no more than tokens.
type fakeGateway struct {
	*httptest.Server
	mu     sync.Mutex
	calls  map[string]int
	issued int
}

type fakeGatewayKey struct{}

func startFakeGateway(env *testscript.Env) {
	g := &fakeGateway{calls: map[string]int{}}
	g.Server = httptest.NewServer(http.HandlerFunc(g.serve))
	env.Defer(g.Close)
	env.Values[fakeGatewayKey{}] = g
	env.Setenv("GATEWAY", g.URL+"/ccpayment")
	// The same gateway without /ccpayment and with a password in the URL.
	env.Setenv("GATEWAY_USERINFO", strings.Replace(g.URL, "http://", "http://merchant:s3cret@", 1))
}

func (g *fakeGateway) serve(w http.ResponseWriter, r *http.Request) {
	g.mu.Lock()
	g.calls[r.URL.Path]++
	g.issued++
	n := g.issued
	g.mu.Unlock()
	var req struct{ AppID, AppSecret string }
	var body map[string]string
	_ = json.NewDecoder(r.Body).Decode(&body)
	req.AppID, req.AppSecret = body["app_id"], body["app_secret"]
	w.Header().Set("Content-Type", "application/json")
	switch {
	case r.URL.Path == "/ccpayment/api/installments" && body["merchant_key"] == "mk_0123456789abcdef":
		fmt.Fprint(w, `{"status_code":100,"status_description":"Installments","installments":[1,2,3]}`)
	case r.URL.Path == "/ccpayment/api/installments":
		fmt.Fprint(w, `{"status_code":14,"status_description":"Invalid merchant key: merchant not found"}`)
	case r.URL.Path != "/ccpayment/api/token":
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprint(w, `{"message":"Not Found"}`)
	case req.AppID == "slow":
		<-r.Context().Done()
	case req.AppID != "app-id" || req.AppSecret != "app-secret":
		fmt.Fprint(w, `{"status_code":30,"status_description":"Invalid credentials"}`)
	default:
		exp := time.Now().Add(2 * time.Hour)
		enc := base64.RawURLEncoding.EncodeToString
		tok := enc([]byte(`{"alg":"HS256","typ":"JWT"}`)) + "." + enc([]byte(fmt.Sprintf(`{"exp":%d,"n":%d}`, exp.Unix(), n))) + ".c2lnbmF0dXJl"
		fmt.Fprintf(w, `{"status_code":100,"status_description":"Successfully Generated Token","data":{"token":%q,"is_3d":1,"expires_at":%q}}`,
			tok, exp.In(time.FixedZone("TRT", 3*3600)).Format("2006-01-02 15:04:05"))
	}
}

// cmdGWCalls is the script command `gwcalls ENDPOINT N`: the fake gateway
// got N requests for ENDPOINT.
func cmdGWCalls(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: gwcalls ENDPOINT N")
	}
	g := ts.Value(fakeGatewayKey{}).(*fakeGateway)
	g.mu.Lock()
	got := g.calls["/ccpayment/api/"+args[0]]
	g.mu.Unlock()
	if want, _ := strconv.Atoi(args[1]); (got == want) == neg {
		ts.Fatalf("%s requests: %d, want %s%s", args[0], got, map[bool]string{true: "not ", false: ""}[neg], args[1])
	}
}
