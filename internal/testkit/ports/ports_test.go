package ports

import (
	"net"
	"strconv"
	"testing"
)

// TestReservedPortsAreOutsideTheEphemeralRangeAndHeld: a reserved port is
// one the kernel never hands out on its own, bindable, and no other
// reservation (another open of its lock file, as another process makes)
// gets it until it is released.
func TestReservedPortsAreOutsideTheEphemeralRangeAndHeld(t *testing.T) {
	outside := map[int]bool{}
	for _, p := range outsideEphemeral() {
		outside[p] = true
	}
	seen := map[int]bool{}
	for range 20 {
		p := Reserve(t)
		if !outside[p] || seen[p] {
			t.Fatalf("port %d: outside the ephemeral range %v, reserved twice %v", p, outside[p], seen[p])
		}
		seen[p] = true
	}
	port, release, err := reserve()
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		t.Fatalf("the reserved port %d cannot be bound: %v", port, err)
	}
	ln.Close()
	dir := lockDir()
	if _, ok := lock(dir, port); ok {
		t.Fatalf("port %d was locked twice", port)
	}
	release()
	again, ok := lock(dir, port)
	if !ok {
		t.Fatalf("port %d stays locked after release", port)
	}
	again()
}
