package pgtest

import (
	"os"
	"testing"
)

// TestMain runs the package's tests all at once: each starts servers of
// its own and mostly waits on them, not on a CPU.
func TestMain(m *testing.M) {
	MoreParallel(6)
	os.Exit(m.Run())
}
