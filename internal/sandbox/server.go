package sandbox

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/paycli/paycli/internal/atomicfile"
)

// AddressFile is the file in the state folder where a running `paycli
// sandbox serve` writes its base URL, so that --sandbox can find it.
const AddressFile = "address"

// Server is a Gateway serving on a listener, with its store. It is what
// `paycli sandbox serve` runs, and what --sandbox starts in-process when no
// server is running.
type Server struct {
	// BaseURL is "http://<host:port>/ccpayment".
	BaseURL  string
	store    *Store
	requests *RequestLog
	gateway  *Gateway
	// merchants routes requests to their merchant's gateway (merchants.go).
	merchants *merchants
	http      *http.Server
	done      chan error
	// stop cancels every request's context when Shutdown starts (faults
	// waiting on them end at once); handlers counts the requests being
	// handled, so that the request log is closed after their last entry
	// (a hijacked connection is no longer net/http's to wait for).
	// stopping is closed when Shutdown starts: hang faults, which never
	// answer, end then; stop cancels every request's context when the
	// grace is over, so that delays still held end too.
	stopping chan struct{}
	stopOnce sync.Once
	stop     context.CancelCauseFunc
	handlers sync.WaitGroup
	// flusherDone is closed when flushOnTicks has returned.
	flusherDone chan struct{}
}

// cutOffWait bounds the wait for the requests faults held to log and
// return once cut off.
const cutOffWait = 2 * time.Second

// ServerOptions configure StartServer.
type ServerOptions struct {
	// StateDir holds the store (and the address file, if written).
	StateDir string
	// LockTimeout bounds the wait for another process holding the state.
	LockTimeout time.Duration
	// Gateway options; Store is filled in by StartServer.
	Gateway Options
	// Timeouts bound slow and idle clients; zero fields take the
	// DefaultTimeouts() values.
	Timeouts Timeouts
	// Wrap, when set, wraps the gateway's handler (`paycli sandbox serve
	// --latency` delays every answer with it).
	Wrap func(http.Handler) http.Handler
	// Public lets the admin surface send events to URLs off this machine
	// (serve --public).
	Public bool
	// Durable fsyncs every commit before its answer (serve --durable): the
	// state then survives a power loss. Otherwise commits reach the state
	// file's page cache before their answer, which survives kill -9 of the
	// process, and the disk at each tick of FlushTicks and at Shutdown
	// (see Store).
	Durable bool
	// FlushTicks, when set, times the flushes of a store that is not
	// durable (serve's is a ticker).
	FlushTicks <-chan time.Time
}

// Timeouts bound how long the server waits on a client, so that slow or
// stalled clients cannot hold connections (and goroutines) forever.
// Responses have no write timeout: the fault header delays them on purpose.
type Timeouts struct {
	// ReadHeader bounds reading a request's headers, from its first byte.
	ReadHeader time.Duration
	// Read bounds reading a whole request, headers and body.
	Read time.Duration
	// Idle bounds how long a keep-alive connection waits for its next
	// request.
	Idle time.Duration
}

// DefaultTimeouts returns timeouts generous for any real client on a local
// machine.
func DefaultTimeouts() Timeouts {
	return Timeouts{ReadHeader: 10 * time.Second, Read: 30 * time.Second, Idle: 2 * time.Minute}
}

// MaxHeaderBytes bounds a request's headers; a bearer token and the fault
// header need well under 1 KiB.
const MaxHeaderBytes = 64 << 10

func (t Timeouts) orDefaults() Timeouts {
	def := DefaultTimeouts()
	if t.ReadHeader <= 0 {
		t.ReadHeader = def.ReadHeader
	}
	if t.Read <= 0 {
		t.Read = def.Read
	}
	if t.Idle <= 0 {
		t.Idle = def.Idle
	}
	return t
}

// StartServer opens the store in opts.StateDir and serves a Gateway on ln
// until Shutdown, delivering the webhook outbox meanwhile. On error ln is
// closed.
func StartServer(ln net.Listener, opts ServerOptions) (*Server, error) {
	if opts.Gateway.Now == nil {
		ln.Close()
		return nil, errors.New("sandbox: ServerOptions.Gateway.Now is required")
	}
	store, err := openStore(opts.StateDir, opts.LockTimeout, opts.Gateway.Now(), opts.Durable)
	if err != nil {
		ln.Close()
		return nil, err
	}
	requests, err := OpenRequestLog(opts.StateDir)
	if err != nil {
		ln.Close()
		store.Close()
		return nil, err
	}
	gopts := opts.Gateway
	gopts.Store = store
	gopts.RequestLog = requests
	g, err := New(gopts)
	if err != nil {
		ln.Close()
		store.Close()
		requests.Close()
		return nil, err
	}
	ms := newMerchants(opts.StateDir, &tenant{Merchant: Merchant{AppID: g.opts.Credentials.AppID,
		AppSecret: g.opts.Credentials.AppSecret, MerchantKey: g.opts.Credentials.MerchantKey}, store: store, gateway: g}, g.opts, opts.Public)
	if err := ms.load(); err != nil {
		ln.Close()
		ms.close()
		store.Close()
		requests.Close()
		return nil, err
	}
	var handler http.Handler = ms
	if opts.Wrap != nil {
		handler = opts.Wrap(ms)
	}
	timeouts := opts.Timeouts.orDefaults()
	stopping := make(chan struct{})
	base, stop := context.WithCancelCause(context.WithValue(context.Background(), stoppingKey{}, stopping))
	s := &Server{
		stopping:  stopping,
		stop:      stop,
		BaseURL:   "http://" + dialAddr(ln.Addr()) + Base,
		store:     store,
		requests:  requests,
		gateway:   g,
		merchants: ms,
		http: &http.Server{
			BaseContext:       func(net.Listener) context.Context { return base },
			ReadHeaderTimeout: timeouts.ReadHeader,
			ReadTimeout:       timeouts.Read,
			IdleTimeout:       timeouts.Idle,
			MaxHeaderBytes:    MaxHeaderBytes,
		},
		done:        make(chan error, 1),
		flusherDone: make(chan struct{}),
	}
	s.http.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.handlers.Add(1)
		defer s.handlers.Done()
		handler.ServeHTTP(w, r)
	})
	g.deliveries.Start()
	go s.flushOnTicks(opts.FlushTicks)
	go func() {
		err := s.http.Serve(ln)
		if errors.Is(err, http.ErrServerClosed) {
			err = nil
		}
		s.done <- err
	}()
	return s, nil
}

// Done delivers the error that stopped the server (nil after Shutdown).
func (s *Server) Done() <-chan error { return s.done }

// Shutdown stops accepting connections, lets in-flight requests finish
// (until ctx ends), stops the webhook deliveries (an attempt in flight is
// abandoned and stays pending), then closes the store.
//
// Requests held by faults do not hold it up: a hang ends when Shutdown
// starts, a delay when ctx ends (each is logged as cut off); a shutdown
// whose only late requests were such faults is clean.
func (s *Server) Shutdown(ctx context.Context) error {
	s.stopOnce.Do(func() { close(s.stopping) })
	err := s.http.Shutdown(ctx)
	if err != nil {
		s.stop(errStopping)
		_ = s.http.Close()
	}
	if s.waitHandlers(cutOffWait) && errors.Is(err, context.DeadlineExceeded) {
		err = nil // every late request was one a fault held, cut off and logged
	}
	// After the requests (a resend kicks the deliveries), before the store.
	s.gateway.deliveries.Stop()
	<-s.flusherDone // the stores' Close flushes them
	if cerr := s.merchants.close(); err == nil {
		err = cerr
	}
	if cerr := s.requests.Close(); err == nil {
		err = cerr
	}
	if cerr := s.store.Close(); err == nil {
		err = cerr
	}
	return err
}

// flushOnTicks flushes every merchant's store at each tick until Shutdown
// starts. A flush that fails is tried again at the next tick, and last by
// Shutdown, which returns its error.
func (s *Server) flushOnTicks(ticks <-chan time.Time) {
	defer close(s.flusherDone)
	for {
		select {
		case <-s.stopping:
			return
		case <-ticks:
			for _, t := range s.merchants.all() {
				_ = t.store.flush()
			}
		}
	}
}

// waitHandlers waits for the requests being handled to return (they
// write their log entries), at most d; it reports whether they all did.
func (s *Server) waitHandlers(d time.Duration) bool {
	idle := make(chan struct{})
	go func() { s.handlers.Wait(); close(idle) }()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-idle:
		return true
	case <-t.C:
		return false
	}
}

// dialAddr is the address a local client dials to reach a listener: the
// loopback address for a listener on every interface.
func dialAddr(a net.Addr) string {
	tcp, ok := a.(*net.TCPAddr)
	if !ok || !tcp.IP.IsUnspecified() {
		return a.String()
	}
	return net.JoinHostPort("127.0.0.1", fmt.Sprint(tcp.Port))
}

// WriteAddress records a running server's base URL in dir, atomically.
func WriteAddress(dir, baseURL string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	return atomicfile.WriteFile(filepath.Join(dir, AddressFile), []byte(baseURL+"\n"))
}

// ReadAddress returns the base URL recorded in dir ("" when there is none).
func ReadAddress(dir string) string {
	b, err := os.ReadFile(filepath.Join(dir, AddressFile))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// RemoveAddress deletes the address file if it still names baseURL.
func RemoveAddress(dir, baseURL string) {
	if ReadAddress(dir) == baseURL {
		os.Remove(filepath.Join(dir, AddressFile))
	}
}

// Probe reports whether a sandbox answers at baseURL, within a short time.
func Probe(ctx context.Context, baseURL string) bool {
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	return Healthy(ctx, baseURL)
}

// Healthy reports whether a sandbox answers its health check at baseURL
// before ctx ends: a caller that must find a sandbox under load bounds it
// by its own time limit instead of Probe's second.
func Healthy(ctx context.Context, baseURL string) bool {
	origin := strings.TrimSuffix(baseURL, Base)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, origin+HealthPath, nil)
	if err != nil {
		return false
	}
	// The probe only ever talks to a loopback address written by serve;
	// bypass proxies from the environment.
	client := &http.Client{Transport: &http.Transport{Proxy: nil}}
	defer client.CloseIdleConnections()
	resp, err := client.Do(req)
	if err != nil {
		return false
	}
	defer resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

// LockedError explains ErrLocked for a state folder.
func LockedError(dir string) error {
	return fmt.Errorf("%w (%s)", ErrLocked, dir)
}
