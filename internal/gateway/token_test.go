package gateway

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/paycli/paycli/internal/testkit/replay"
)

func TestReadExpiresAt(t *testing.T) {
	tests := []struct {
		in   string
		want time.Time
	}{
		// Read as Türkiye time (UTC+3), the earlier reading, when that is
		// still in the future.
		{"2026-11-22 14:00:00", time.Date(2026, 11, 22, 11, 0, 0, 0, time.UTC)},
		// UTC for a two-hour token: as UTC+3 it would be 09:00 UTC, already
		// past, so the gateway wrote UTC.
		{"2026-11-22 12:00:00", time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)},
		{"2026-11-22T14:00:00", time.Date(2026, 11, 22, 11, 0, 0, 0, time.UTC)},
		{"2026-11-22T12:00:00+01:00", time.Date(2026, 11, 22, 11, 0, 0, 0, time.UTC)},
		{"2026-11-22T12:00:00Z", time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)},
		// Past under both readings: unknown.
		{"2026-11-22 09:00:00", time.Time{}},
		{"tomorrow", time.Time{}},
		{"", time.Time{}},
	}
	for _, tt := range tests {
		if got := readExpiresAt(tt.in, testNow); !got.Equal(tt.want) {
			t.Errorf("readExpiresAt(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestNewTokenTakesTheEarlierExpiry(t *testing.T) {
	tests := []struct {
		name      string
		jwtExp    time.Time
		expiresAt string
		want      time.Time
	}{
		{"jwt earlier", testNow.Add(time.Hour), "2026-11-22 15:00:00", testNow.Add(time.Hour)},
		{"expires_at earlier", testNow.Add(3 * time.Hour), "2026-11-22 15:00:00", testNow.Add(2 * time.Hour)},
		{"no jwt exp", time.Time{}, "2026-11-22 15:00:00", testNow.Add(2 * time.Hour)},
		{"no expires_at", testNow.Add(time.Hour), "", testNow.Add(time.Hour)},
		{"neither", time.Time{}, "", time.Time{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tok := newToken(tokenData{Token: makeJWT(tt.jwtExp, "x"), ExpiresAt: tt.expiresAt}, testNow)
			if !tok.ExpiresAt.Equal(tt.want) {
				t.Errorf("ExpiresAt = %v, want %v", tok.ExpiresAt, tt.want)
			}
		})
	}
	opaque := newToken(tokenData{Token: "not-a-jwt", ExpiresAt: "2026-11-22 15:00:00"}, testNow)
	if !opaque.ExpiresAt.Equal(testNow.Add(2 * time.Hour)) {
		t.Errorf("an opaque token expires at %v", opaque.ExpiresAt)
	}
}

func TestTokenReusable(t *testing.T) {
	tok := &Token{Value: "t", ExpiresAt: testNow.Add(10 * time.Minute)}
	if !tok.Reusable(testNow) || !tok.Reusable(testNow.Add(4*time.Minute)) {
		t.Error("a token with 10 minutes left is not reused")
	}
	if tok.Reusable(testNow.Add(5*time.Minute)) || tok.Reusable(testNow.Add(11*time.Minute)) {
		t.Error("a token within 5 minutes of expiry is reused")
	}
	if (&Token{Value: "t"}).Reusable(testNow) {
		t.Error("a token with no known expiry is reused from the cache")
	}
}

// TestCacheReuseAcrossClients: the second client (another paycli process)
// makes one request, the call itself.
func TestCacheReuseAcrossClients(t *testing.T) {
	g := newGateway(t)
	answerText(g, "commissions", 200, commissionsOK)
	dir := filepath.Join(t.TempDir(), "cache", "paycli")
	cache := NewFileTokenCache(dir, "default", "", func() time.Time { return testNow })
	ctx := context.Background()

	first := newTestClient(t, g.URL+"/ccpayment", WithTokenCache(cache))
	if _, err := first.Commissions(ctx, CommissionsRequest{CurrencyCode: "TRY"}); err != nil {
		t.Fatal(err)
	}
	second := newTestClient(t, g.URL+"/ccpayment", WithTokenCache(NewFileTokenCache(dir, "default", "", func() time.Time { return testNow })))
	if _, err := second.Commissions(ctx, CommissionsRequest{CurrencyCode: "TRY"}); err != nil {
		t.Fatal(err)
	}
	if g.Count(api("token")) != 1 || g.Count(api("commissions")) != 2 {
		t.Errorf("token calls %d, commission calls %d; want 1 and 2", g.Count(api("token")), g.Count(api("commissions")))
	}
	tok, cached, err := second.BearerToken(ctx, false)
	if err != nil || !cached || tok.Is3D != 1 {
		t.Errorf("BearerToken = %+v, %v, %v", tok, cached, err)
	}

	files, _ := filepath.Glob(filepath.Join(dir, "*"))
	if len(files) != 1 {
		t.Fatalf("cache folder holds %v", files)
	}
	if runtime.GOOS != "windows" {
		if fi, _ := os.Stat(files[0]); fi.Mode().Perm() != 0o600 {
			t.Errorf("token file mode %v, want 0600", fi.Mode().Perm())
		}
		if fi, _ := os.Stat(dir); fi.Mode().Perm() != 0o700 {
			t.Errorf("cache folder mode %v, want 0700", fi.Mode().Perm())
		}
	}

	// Another profile, or another app on the same gateway, has its own token.
	other := newTestClient(t, g.URL+"/ccpayment", WithTokenCache(NewFileTokenCache(dir, "live", "", func() time.Time { return testNow })))
	if _, _, err := other.BearerToken(ctx, false); err != nil {
		t.Fatal(err)
	}
	if g.Count(api("token")) != 2 {
		t.Errorf("profile live reused profile default's token")
	}

	// Later, within five minutes of expiry, the cached token is replaced.
	late := newTestClient(t, g.URL+"/ccpayment", WithTokenCache(cache), WithClock(func() time.Time { return testNow.Add(116 * time.Minute) }))
	if _, cached, _ := late.BearerToken(ctx, false); cached || g.Count(api("token")) != 3 {
		t.Errorf("a token 4 minutes from expiry was reused (cached %v, %d token calls)", cached, g.Count(api("token")))
	}

	n, err := cache.Clear()
	if err != nil || n != 1 {
		t.Errorf("Clear() = %d, %v; want 1 (the live profile's stays)", n, err)
	}
	if files, _ := filepath.Glob(filepath.Join(dir, "token-*.json")); len(files) != 1 {
		t.Errorf("after Clear: %v", files)
	}
}

func TestRefreshForcesANewToken(t *testing.T) {
	g := newGateway(t)
	g.AnswerOnce(http.MethodPost, replayToken, 200, replay.Recorded("token.json"))
	g.Answer(http.MethodPost, replayToken, 200, replay.Recorded("token_2.json"))
	c := newTestClient(t, g.URL+"/ccpayment", WithTokenCache(NewFileTokenCache(t.TempDir(), "p", "", func() time.Time { return testNow })))
	a, cachedA, _ := c.BearerToken(context.Background(), false)
	b, cachedB, _ := c.BearerToken(context.Background(), true)
	if cachedA || cachedB || a.Value == b.Value || g.Count(api("token")) != 2 {
		t.Errorf("refresh did not fetch: %v %v %d", cachedA, cachedB, g.Count(api("token")))
	}
}

func TestCorruptCacheIsReplaced(t *testing.T) {
	g := newGateway(t)
	dir := t.TempDir()
	cache := NewFileTokenCache(dir, "default", "", func() time.Time { return testNow })
	c := newTestClient(t, g.URL+"/ccpayment", WithTokenCache(cache))
	if err := os.WriteFile(cache.path(c.cacheKey()), []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, cached, err := c.BearerToken(context.Background(), false); err != nil || cached {
		t.Fatalf("BearerToken = %v, %v", cached, err)
	}
	if tok, err := cache.Load(c.cacheKey()); err != nil || tok == nil {
		t.Errorf("the corrupt file was not replaced: %v", err)
	}
}

// TestConcurrentWritersNeverCorrupt stands in for two paycli processes:
// writers and readers race on one file, and a reader only ever sees a
// whole token.
func TestConcurrentWritersNeverCorrupt(t *testing.T) {
	dir := t.TempDir()
	key := CacheKey{BaseURL: "https://gw.example/ccpayment", AppID: "a"}
	var wg sync.WaitGroup
	errs := make(chan error, 100)
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cache := NewFileTokenCache(dir, "default", "", func() time.Time { return testNow })
			for i := range 25 {
				if err := cache.Store(key, &Token{Value: fmt.Sprintf("w%d-%d", w, i), ExpiresAt: testNow}); err != nil {
					errs <- err
				}
				tok, err := cache.Load(key)
				if err != nil || tok == nil || tok.Value == "" {
					errs <- fmt.Errorf("read %v, %v", tok, err)
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".token-*")); len(left) != 0 {
		t.Errorf("temporary files left behind: %v", left)
	}
}

// TestConcurrentCallsShareOneToken: calls racing in one process fetch one
// token between them.
func TestConcurrentCallsShareOneToken(t *testing.T) {
	g := newGateway(t)
	answerText(g, "commissions", 200, commissionsOK)
	c := newTestClient(t, g.URL+"/ccpayment")
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := c.Commissions(context.Background(), CommissionsRequest{CurrencyCode: "TRY"}); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if g.Count(api("token")) != 1 {
		t.Errorf("%d token calls", g.Count(api("token")))
	}
}

func TestTokenWithoutExpiryIsNotCached(t *testing.T) {
	g := newGateway(t)
	answerText(g, "token", 200, `{"status_code":100,"data":{"token":"opaque","is_3d":"2"}}`)
	dir := t.TempDir()
	c := newTestClient(t, g.URL+"/ccpayment", WithTokenCache(NewFileTokenCache(dir, "p", "", func() time.Time { return testNow })))
	tok, _, err := c.BearerToken(context.Background(), false)
	if err != nil || tok.Value != "opaque" || tok.Is3D != 2 {
		t.Fatalf("BearerToken = %+v, %v", tok, err)
	}
	if files, _ := filepath.Glob(filepath.Join(dir, "*")); len(files) != 0 {
		t.Errorf("a token of unknown life was cached: %v", files)
	}
	// The process that got it still uses it.
	if _, cached, _ := c.BearerToken(context.Background(), false); !cached || g.Count(api("token")) != 1 {
		t.Errorf("the token was not reused in memory")
	}
}

func TestTokenResponseWithoutToken(t *testing.T) {
	g := newGateway(t)
	answerText(g, "token", 200, `{"status_code":100,"data":{}}`)
	_, err := newTestClient(t, g.URL+"/ccpayment").Token(context.Background())
	if !errors.Is(err, ErrUnavailable) || err.Error() != "token: HTTP 200 OK: the response holds no token" {
		t.Errorf("err = %v", err)
	}
}

// TestCacheGatewayNameOutlivesThePort: with Gateway set, keys that differ
// only in base URL share one file.
func TestCacheGatewayNameOutlivesThePort(t *testing.T) {
	dir := t.TempDir()
	cache := NewFileTokenCache(dir, "sandbox", "sandbox:/state", func() time.Time { return testNow })
	tok := &Token{Value: "t1", ExpiresAt: testNow.Add(time.Hour)}
	if err := cache.Store(CacheKey{BaseURL: "http://127.0.0.1:41001/ccpayment", AppID: "a"}, tok); err != nil {
		t.Fatal(err)
	}
	got, err := cache.Load(CacheKey{BaseURL: "http://127.0.0.1:52002/ccpayment", AppID: "a"})
	if err != nil || got == nil || got.Value != "t1" {
		t.Fatalf("Load on another port = %+v, %v", got, err)
	}
	if files, _ := filepath.Glob(filepath.Join(dir, "token-*.json")); len(files) != 1 {
		t.Errorf("files: %v", files)
	}
	if got, _ := cache.Load(CacheKey{BaseURL: "http://127.0.0.1:52002/ccpayment", AppID: "b"}); got != nil {
		t.Error("another app_id got the token")
	}
}

// TestStoreSweepsLongExpiredTokens: storing a token removes the files of
// tokens (any profile) that expired more than a day ago, and only those.
func TestStoreSweepsLongExpiredTokens(t *testing.T) {
	dir := t.TempDir()
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	store := func(profile, base string, expires time.Time) string {
		c := NewFileTokenCache(dir, profile, "", func() time.Time { return expires.Add(-time.Hour) })
		key := CacheKey{BaseURL: base, AppID: "a"}
		if err := c.Store(key, &Token{Value: "t", ExpiresAt: expires}); err != nil {
			t.Fatal(err)
		}
		return c.path(key)
	}
	stale := store("sandbox", "http://127.0.0.1:1/ccpayment", now.Add(-25*time.Hour))
	staleOther := store("live", "https://gw.example/ccpayment", now.Add(-48*time.Hour))
	recent := store("sandbox", "http://127.0.0.1:2/ccpayment", now.Add(-23*time.Hour))
	fresh := store("default", "https://gw.example/ccpayment", now.Add(time.Hour))
	foreign := filepath.Join(dir, "token-notours.json")
	if err := os.WriteFile(foreign, []byte("{}"), 0o600); err != nil {
		t.Fatal(err)
	}

	c := NewFileTokenCache(dir, "default", "", clock)
	if err := c.Store(CacheKey{BaseURL: "https://other.example/ccpayment", AppID: "a"}, &Token{Value: "t", ExpiresAt: now.Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]bool{stale: false, staleOther: false, recent: true, fresh: true, foreign: true} {
		if _, err := os.Stat(path); (err == nil) != want {
			t.Errorf("%s exists = %v, want %v", filepath.Base(path), err == nil, want)
		}
	}
}
