package gateway

import (
	"testing"
	"time"
)

// BenchmarkFileTokenCacheLoad measures the warm-cache path every gateway
// command takes before its one HTTP request: read and check the cached
// token file.
func BenchmarkFileTokenCacheLoad(b *testing.B) {
	cache := NewFileTokenCache(b.TempDir(), "default", "", func() time.Time { return testNow })
	key := CacheKey{BaseURL: "https://gw.example/ccpayment", AppID: "app-id"}
	want := &Token{Value: "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln", Is3D: 1,
		ExpiresAt: time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC), RawExpiresAt: "2026-11-22 15:00:00"}
	if err := cache.Store(key, want); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		tok, err := cache.Load(key)
		if err != nil || tok == nil || tok.Value != want.Value {
			b.Fatalf("Load = %+v, %v", tok, err)
		}
	}
}
