package render

import (
	"testing"
	"time"
)

func TestFormatTimeIn(t *testing.T) {
	moment := time.Date(2026, 11, 22, 16, 35, 3, 0, time.UTC)
	istanbul := time.FixedZone("TRT", 3*3600)
	newYork := time.FixedZone("EST", -5*3600)
	tests := []struct {
		f    Format
		loc  *time.Location
		want string
	}{
		{Table, istanbul, "2026-11-22 19:35:03 +03:00"},
		{CSV, newYork, "2026-11-22 11:35:03 -05:00"},
		{TSV, time.UTC, "2026-11-22 16:35:03 +00:00"},
		{JSON, istanbul, "2026-11-22T19:35:03+03:00"},
		{JSON, time.UTC, "2026-11-22T16:35:03Z"},
	}
	for _, tt := range tests {
		if got := FormatTimeIn(moment, tt.f, tt.loc); got != tt.want {
			t.Errorf("FormatTimeIn(%s, %s) = %q, want %q", tt.f, tt.loc, got, tt.want)
		}
	}
	if got := FormatTimeIn(time.Time{}, Table, istanbul); got != "" {
		t.Errorf("zero time = %q", got)
	}
}
