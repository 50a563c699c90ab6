package render

import (
	"bytes"
	"testing"

	"github.com/olekukonko/tablewriter/pkg/twwidth"
)

// TestTablesTurnTheWidthCacheOff: once a table is written, tablewriter's
// process-wide width cache is off (capacity 0), which is what makes a
// run's tables cheaper (docs/performance.md, Commissions).
func TestTablesTurnTheWidthCacheOff(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteTable(&buf, TableOptions{}, []string{"A"}, [][]string{{"1"}}); err != nil {
		t.Fatal(err)
	}
	if size, capacity, _ := twwidth.GetCacheStats(); capacity != 0 || size != 0 {
		t.Errorf("width cache after a table: size %d, capacity %d; want it off", size, capacity)
	}
}
