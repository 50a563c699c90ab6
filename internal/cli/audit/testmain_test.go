package audit

import (
	"testing"

	"github.com/paycli/paycli/internal/testkit/userenv"
)

// TestMain keeps the user's PAYCLI_* settings out of the tests.
func TestMain(m *testing.M) { userenv.Main(m) }
