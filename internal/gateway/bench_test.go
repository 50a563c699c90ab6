package gateway

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/paycli/paycli/internal/commission"
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

// BenchmarkScrubCommissions measures what scrubbing costs a large answer
// that echoes nothing (the common case: the fast path), and one that echoes
// a secret in every entry, against decoding the same body: a commission
// table of 12 installment counts × 20 programs.
func BenchmarkScrubCommissions(b *testing.B) {
	entry := `{"title":"Regular Commission","card_program":"WORLD","merchant_commission_percentage":"1.5000","merchant_commission_fixed":"0.0000","user_commission_percentage":0.25,"user_commission_fixed":"x","currency_code":"TRY","installment":%d,"pos_id":7,"getpos_card_program":"WORLD","issuer_name":"%s"}`
	body := func(issuer string) []byte {
		var sb strings.Builder
		sb.WriteString(`{"status_code":100,"status_description":"Success","data":{`)
		for n := 1; n <= 12; n++ {
			if n > 1 {
				sb.WriteByte(',')
			}
			fmt.Fprintf(&sb, `"%d":[`, n)
			for p := 0; p < 20; p++ {
				if p > 0 {
					sb.WriteByte(',')
				}
				fmt.Fprintf(&sb, entry, n, issuer)
			}
			sb.WriteByte(']')
		}
		sb.WriteString("}}")
		return []byte(sb.String())
	}
	c := newTestClient(b, "https://gw.example/ccpayment")
	secrets := c.secretsSent([]byte(`{"currency_code":"TRY"}`), "Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln")
	for name, data := range map[string][]byte{"clean": body("Bank"), "echoing": body("Bank " + testAppSecret)} {
		b.Run("scrub/"+name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				_ = scrub(data, secrets)
			}
		})
		b.Run("decode/"+name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				var out Commissions
				if err := json.Unmarshal(data, &struct {
					Data *commission.Schedule `json:"data"`
				}{&out.Schedule}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
