package sandbox

import (
	"net/http"
	"sync"
)

// routeMux is the Gateway's ServeMux, remembering the patterns registered
// on it: the list of what the sandbox answers, from which its OpenAPI
// description is made and its tests walk every route (so a route added
// anywhere is in both without a list kept beside it).
type routeMux struct {
	*http.ServeMux
	mu       sync.Mutex
	patterns []string
}

func newRouteMux() *routeMux { return &routeMux{ServeMux: http.NewServeMux()} }

func (m *routeMux) Handle(pattern string, h http.Handler) {
	m.record(pattern)
	m.ServeMux.Handle(pattern, h)
}

func (m *routeMux) HandleFunc(pattern string, h func(http.ResponseWriter, *http.Request)) {
	m.record(pattern)
	m.ServeMux.HandleFunc(pattern, h)
}

func (m *routeMux) record(pattern string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.patterns = append(m.patterns, pattern)
}

// Routes returns the patterns the gateway serves ("POST /ccpayment/api/token"),
// in the order they were registered, without the catch-all "/".
func (g *Gateway) Routes() []string {
	g.mux.mu.Lock()
	defer g.mux.mu.Unlock()
	var out []string
	for _, p := range g.mux.patterns {
		if p != "/" {
			out = append(out, p)
		}
	}
	return out
}
