package webhook_test

import (
	"encoding/json"
	"regexp"
	"strings"

	"github.com/shopspring/decimal"
)

func mustJSONf(m map[string]string) string {
	b, err := json.Marshal(m)
	if err != nil {
		panic(err)
	}
	return string(b)
}

func isRefund(status string) bool {
	return strings.EqualFold(status, "Completed") || strings.EqualFold(status, "Fail")
}

var plain = regexp.MustCompile(`^-?[0-9]{1,18}(\.[0-9]{1,12})?$`)

// sameAmount is the rule Verify is expected to apply, written out again.
func sameAmount(a, b string) bool {
	if a == b {
		return true
	}
	if !plain.MatchString(a) || !plain.MatchString(b) {
		return false
	}
	return decimal.RequireFromString(a).Equal(decimal.RequireFromString(b))
}
