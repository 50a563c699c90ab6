package app_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/paycli/paycli/internal/app"
	"github.com/paycli/paycli/internal/iostreams"
	"github.com/paycli/paycli/internal/sandbox"
)

// TestCommissionsOneRequestWithWarmTokenCache: `paycli commissions
// --currency TRY -o json` against a running sandbox sends exactly one
// HTTP request once a token is cached (issue 9's target), counted at the
// server.
func TestCommissionsOneRequestWithWarmTokenCache(t *testing.T) {
	env, _ := homeEnv(t)
	store, err := sandbox.OpenStore(filepath.Join(t.TempDir(), "sandbox"), time.Second, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	gw, err := sandbox.New(sandbox.Options{Now: time.Now, Store: store})
	if err != nil {
		t.Fatal(err)
	}
	var (
		mu       sync.Mutex
		requests []string
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		requests = append(requests, r.Method+" "+r.URL.Path)
		mu.Unlock()
		gw.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	env["PAYCLI_BASE_URL"] = srv.URL + sandbox.Base
	env["PAYCLI_APP_ID"] = sandbox.AppID
	env["PAYCLI_APP_SECRET"] = sandbox.AppSecret
	env["PAYCLI_MERCHANT_KEY"] = sandbox.MerchantKey
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }

	run := func() []string {
		t.Helper()
		mu.Lock()
		requests = nil
		mu.Unlock()
		ios, _, out, errOut := iostreams.Test()
		if code := app.Run(context.Background(), []string{"commissions", "--currency", "TRY", "-o", "json"}, ios, lookup); code != 0 {
			t.Fatalf("exit %d: %s", code, errOut.String())
		}
		if out.Len() == 0 {
			t.Fatal("no output")
		}
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(requests)
	}
	commissions := "POST " + sandbox.Base + "/api/commissions"
	if got, want := run(), []string{"POST " + sandbox.Base + "/api/token", commissions}; !slices.Equal(got, want) {
		t.Fatalf("cold token cache: requests %q, want %q", got, want)
	}
	for range 2 {
		if got, want := run(), []string{commissions}; !slices.Equal(got, want) {
			t.Fatalf("warm token cache: requests %q, want %q", got, want)
		}
	}
}
