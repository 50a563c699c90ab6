package audit

import (
	"testing"
	"time"
)

// TestRange: a DAY, a range, today in the gateway's zone, and bad input
// refused with one clear line.
func TestRange(t *testing.T) {
	// 22:30 UTC on the 4th is already the 5th in Istanbul (UTC+3).
	now := time.Date(2025, 3, 4, 22, 30, 0, 0, time.UTC)
	tests := []struct {
		day, from, to string
		want          string
		bad           bool
	}{
		{want: "2025-03-05/2025-03-06"},
		{day: "2025-03-01", want: "2025-03-01/2025-03-02"},
		{from: "2025-03-01", to: "2025-03-03", want: "2025-03-01/2025-03-04"},
		{day: "2025-13-01", bad: true},
		{from: "2025-03-03", to: "2025-03-01", bad: true},
		{from: "2025-03-03", bad: true},
		{day: "2025-03-01", from: "2025-03-01", to: "2025-03-02", bad: true},
	}
	for _, tt := range tests {
		from, to, err := Range(tt.day, tt.from, tt.to, now)
		if tt.bad != (err != nil) {
			t.Errorf("%+v: error %v", tt, err)
			continue
		}
		if got := from.Format(time.DateOnly) + "/" + to.Format(time.DateOnly); !tt.bad && got != tt.want {
			t.Errorf("%+v: %s, want %s", tt, got, tt.want)
		}
	}
}
