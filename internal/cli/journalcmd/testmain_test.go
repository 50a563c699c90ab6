package journalcmd

import (
	"os"
	"testing"

	"github.com/paycli/paycli/internal/testkit/pgtest"
	"github.com/paycli/paycli/internal/testkit/userenv"
)

// pg is the package's shared PostgreSQL server: each test makes a database
// of its own on it (roles belong to the cluster, and every test gives them
// the same part: zeynep the lead, ayse and mehmet operators). None stops it.
var pg pgtest.Shared

// TestMain keeps the user's PAYCLI_* settings out of the tests, and stops
// the shared server after them.
func TestMain(m *testing.M) {
	userenv.Clear()
	code := m.Run()
	pg.Stop()
	os.Exit(code)
}
