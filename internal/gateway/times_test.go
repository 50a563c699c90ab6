package gateway

import (
	"testing"
	"time"
)

func TestParseTime(t *testing.T) {
	want := time.Date(2026, 11, 22, 16, 35, 3, 0, time.UTC)
	for _, s := range []string{"2026-11-22 19:35:03", "2026-11-22T19:35:03", " 2026-11-22 19:35:03.000 ", "2026-11-22T16:35:03Z", "2026-11-22T18:35:03+02:00"} {
		got, ok := ParseTime(s)
		if !ok || !got.Equal(want) {
			t.Errorf("ParseTime(%q) = %v, %v; want %v", s, got, ok, want)
		}
	}
	for _, s := range []string{"", "yesterday", "2026-11-22", "19:35:03", "2026-13-22 19:35:03"} {
		if got, ok := ParseTime(s); ok {
			t.Errorf("ParseTime(%q) = %v, want not a time", s, got)
		}
	}
}
