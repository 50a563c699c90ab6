package userenv

import (
	"os"
	"testing"
)

// TestClearKeepsOnlyTheKnobs: the user's settings go, whatever their
// name; the knobs and other programs' variables stay.
func TestClearKeepsOnlyTheKnobs(t *testing.T) {
	gone := []string{"PAYCLI_BASE_URL", "PAYCLI_PROFILE", "PAYCLI_APP_SECRET_FILE", "PAYCLI_JOURNAL", "PAYCLI_SOMETHING_NEW"}
	kept := []string{"PAYCLI_REQUIRE_POSTGRES", "PAYCLI_MODEL_SEED", "PAYCLI_JOURNAL_GEN", "PAYCLIX", "NOT_PAYCLI_BASE_URL"}
	for _, name := range append(gone, kept...) {
		t.Setenv(name, "x")
	}
	Clear()
	for _, name := range gone {
		if _, ok := os.LookupEnv(name); ok {
			t.Errorf("%s is still set", name)
		}
	}
	for _, name := range kept {
		if v, ok := os.LookupEnv(name); !ok || v != "x" {
			t.Errorf("%s was cleared", name)
		}
	}
}
