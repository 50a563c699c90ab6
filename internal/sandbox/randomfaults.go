package sandbox

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
	"time"
)

// FaultKinds lists the kinds of fault RandomFaults injects, in the order
// its random draw indexes them. Each names a FaultHeader directive.
func FaultKinds() []string {
	return []string{"delay", "status=500", "status=502", "status=503", "status=504", "reset=before", "reset=after", "truncate"}
}

// RandomFaults picks faults at random for requests to the gateway's API,
// so that a client which cannot send the FaultHeader (paycli itself) still
// meets every fault: `paycli sandbox serve --faults --fault-rate R
// --fault-seed N`. The draw is deterministic for a seed and a sequence of
// requests; concurrent requests take turns on it.
type RandomFaults struct {
	rate  float64
	delay time.Duration

	mu  sync.Mutex
	rng *rand.Rand
}

// NewRandomFaults returns a picker that faults a fraction rate (0 to 1) of
// API requests, choosing the kind uniformly; a delay fault waits delay.
func NewRandomFaults(seed uint64, rate float64, delay time.Duration) (*RandomFaults, error) {
	if rate < 0 || rate > 1 {
		return nil, fmt.Errorf("fault rate %v is not between 0 and 1", rate)
	}
	if delay <= 0 {
		return nil, fmt.Errorf("fault delay %v is not positive", delay)
	}
	return &RandomFaults{rate: rate, delay: delay, rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}, nil
}

// Pick returns a FaultHeader value for r, or "" to serve it normally. Only
// requests under the API path are faulted: the health probe always works.
func (p *RandomFaults) Pick(r *http.Request) string {
	if !strings.HasPrefix(r.URL.Path, Base+"/api/") {
		return ""
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.rng.Float64() >= p.rate {
		return ""
	}
	kinds := FaultKinds()
	switch kind := kinds[p.rng.IntN(len(kinds))]; kind {
	case "delay":
		return "delay=" + p.delay.String()
	case "truncate":
		// Anything from an empty body to a cut inside the JSON.
		return fmt.Sprintf("truncate=%d", p.rng.IntN(40))
	case "reset=before", "reset=after":
		return kind
	default:
		// A status: as a load balancer's HTML page or as JSON, at random.
		if p.rng.IntN(2) == 0 {
			return kind + ",body=html"
		}
		return kind
	}
}

// FaultKind is the kind (one of FaultKinds) of a FaultHeader value Pick
// returned.
func FaultKind(v string) string {
	v, _, _ = strings.Cut(v, ",")
	name, val, _ := strings.Cut(v, "=")
	switch name {
	case "delay", "truncate":
		return name
	}
	return name + "=" + val
}
