// Package ports hands a test a loopback TCP port that nothing else takes
// while the test holds it, so that a test may free it and bind it again
// (a server stopped and started on the same port, an --addr handed to a
// child process): a port outside the kernel's ephemeral range, which no
// connect or bind to port 0 is ever given, and locked (flock on a file in
// the temporary folder) against every other test process that asks here.
package ports

import (
	"fmt"
	"github.com/paycli/paycli/internal/filelock"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// lowest is the lowest port handed out: below it live well-known
// services a developer's machine may run.
const lowest = 20000

var (
	mu   sync.Mutex
	held = map[int]bool{} // ports this process holds
)

// Reserve returns a loopback port that nobody listens on now and that no
// other Reserve, in this process or another, returns until t ends. The
// port is outside the kernel's ephemeral range, so no outgoing connection
// and no listener on port 0 takes it meanwhile.
func Reserve(t testing.TB) int {
	t.Helper()
	port, release, err := reserve()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(release)
	return port
}

// Addr is Reserve's port as "127.0.0.1:PORT".
func Addr(t testing.TB) string {
	t.Helper()
	return net.JoinHostPort("127.0.0.1", strconv.Itoa(Reserve(t)))
}

func reserve() (int, func(), error) {
	candidates := outsideEphemeral()
	if len(candidates) == 0 {
		return 0, nil, fmt.Errorf("no TCP port outside the kernel's ephemeral range (%s) to reserve", rangeFile)
	}
	dir := lockDir()
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return 0, nil, err
	}
	_ = os.Chmod(dir, 0o777|os.ModeSticky) // shared by every user's tests
	start := rand.IntN(len(candidates))
	for i := range candidates {
		port := candidates[(start+i)%len(candidates)]
		mu.Lock()
		taken := held[port]
		held[port] = true
		mu.Unlock()
		if taken {
			continue
		}
		if release, ok := lock(dir, port); ok {
			return port, func() {
				release()
				mu.Lock()
				delete(held, port)
				mu.Unlock()
			}, nil
		}
		mu.Lock()
		delete(held, port)
		mu.Unlock()
	}
	return 0, nil, fmt.Errorf("every TCP port outside the kernel's ephemeral range is busy or reserved")
}

// lockDir holds a lock file per port, shared by every test process.
func lockDir() string { return filepath.Join(os.TempDir(), "paycli-test-ports") }

// lock takes port's lock file and checks that nothing listens on the
// port; the lock is held until release (or the process ends).
func lock(dir string, port int) (release func(), ok bool) {
	f, err := os.OpenFile(filepath.Join(dir, strconv.Itoa(port)), os.O_RDWR|os.O_CREATE, 0o666)
	if err != nil {
		return nil, false
	}
	if busy, err := filelock.TryLock(f); busy || err != nil {
		f.Close()
		return nil, false
	}
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil { // a program of the machine's own listens there
		f.Close()
		return nil, false
	}
	ln.Close()
	return func() { f.Close() }, true
}

// rangeFile holds the kernel's ephemeral port range (Linux).
const rangeFile = "/proc/sys/net/ipv4/ip_local_port_range"

// outsideEphemeral lists the ports from lowest to 65535 outside the
// ephemeral range: the kernel's, or IANA's (49152–65535) where it cannot
// be read.
func outsideEphemeral() []int {
	lo, hi := 49152, 65535
	if b, err := os.ReadFile(rangeFile); err == nil {
		if f := strings.Fields(string(b)); len(f) == 2 {
			l, err1 := strconv.Atoi(f[0])
			h, err2 := strconv.Atoi(f[1])
			if err1 == nil && err2 == nil && l <= h {
				lo, hi = l, h
			}
		}
	}
	var out []int
	for p := lowest; p <= 65535; p++ {
		if p < lo || p > hi {
			out = append(out, p)
		}
	}
	return out
}
