package gateway

import (
	"strings"
	"time"

	"github.com/paycli/paycli/internal/money"
)

// ParseTime reads a moment the gateway wrote in a response (created_at,
// transaction dates). RFC 3339 is exact. The gateway usually writes its
// local time without a zone ("2026-11-22 19:35:03"); that is read in the
// gateway's zone, Türkiye (UTC+3 all year), as docs/json-output.md says.
// ok is false for text that is not a time.
func ParseTime(s string) (t time.Time, ok bool) {
	s = strings.TrimSpace(s)
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, true
	}
	for _, layout := range []string{"2006-01-02 15:04:05", "2006-01-02T15:04:05", "2006-01-02 15:04:05.999999999", "2006-01-02T15:04:05.999999999"} {
		if t, err := time.ParseInLocation(layout, s, money.GatewayZone()); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}
