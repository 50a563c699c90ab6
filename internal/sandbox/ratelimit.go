package sandbox

import (
	"crypto/sha256"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"
)

// RepeatWindow is §1.4's rate limiter: an identical request (same
// merchant, path and parameters) sent again within it is refused.
const RepeatWindow = 2 * time.Second

// maxRepeatKeys bounds the requests the limiter remembers: past it, the
// ones older than RepeatWindow are forgotten, and if none are, all are (a
// burst of that many distinct requests in 2 s is no double click).
const maxRepeatKeys = 4096

// repeatGuard remembers when each request was last answered, by its
// digest, on the sandbox's clock. Each Gateway is one merchant's, so a
// digest need not name the merchant.
type repeatGuard struct {
	mu   sync.Mutex
	seen map[[sha256.Size]byte]time.Time
}

// admit reports whether a request with digest key may be answered at now,
// and if so remembers it. A refused request does not restart the window:
// a client that waits Retry-After seconds is answered.
func (g *repeatGuard) admit(key [sha256.Size]byte, now time.Time) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if last, ok := g.seen[key]; ok && now.Sub(last) < RepeatWindow && !now.Before(last) {
		return false
	}
	if g.seen == nil {
		g.seen = map[[sha256.Size]byte]time.Time{}
	}
	if len(g.seen) >= maxRepeatKeys {
		for k, t := range g.seen {
			if now.Sub(t) >= RepeatWindow {
				delete(g.seen, k)
			}
		}
		if len(g.seen) >= maxRepeatKeys {
			clear(g.seen)
		}
	}
	g.seen[key] = now
	return true
}

// requestDigest identifies a request by its path, query and parameters
// (in name order, so a body with its members reordered is the same),
// hash_key left out: it is salted per call, so the same listing asked
// again carries another.
func requestDigest(r *http.Request, f fields) [sha256.Size]byte {
	var b strings.Builder
	b.WriteString(r.URL.Path + "?" + r.URL.RawQuery)
	for _, k := range slices.Sorted(func(yield func(string) bool) {
		for k := range f {
			if k != "hash_key" && !yield(k) {
				return
			}
		}
	}) {
		b.WriteString("\x00" + k + "\x00" + f[k])
	}
	return sha256.Sum256([]byte(b.String()))
}

// refuseRepeat answers §1.4's refusal (HTTP 429, Retry-After: 2, status
// 429 "Too Many Attempts.", as Laravel's throttle words it) when the same
// request was answered less than RepeatWindow ago; it reports whether it
// refused.
func (g *Gateway) refuseRepeat(w http.ResponseWriter, r *http.Request, f fields) bool {
	if g.repeats.admit(requestDigest(r, f), g.opts.Now()) {
		return false
	}
	explain(w, explanation{why: "the same request was answered less than 2 seconds ago (§1.4, the gateway's double-click guard): wait Retry-After seconds"})
	noteStatus(w, 429, "Too Many Attempts.")
	w.Header().Set("Retry-After", "2")
	writeJSON(w, http.StatusTooManyRequests, statusBody{StatusCode: 429, StatusDescription: "Too Many Attempts."})
	return true
}
