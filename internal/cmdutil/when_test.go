package cmdutil

import (
	"testing"
	"time"
)

func TestParseWhen(t *testing.T) {
	zone := time.FixedZone("TRT", 3*60*60)
	now := time.Date(2026, 11, 25, 1, 30, 0, 0, zone)
	at := func(y int, mo time.Month, d, h, mi int) time.Time { return time.Date(y, mo, d, h, mi, 0, 0, zone) }
	for _, tt := range []struct {
		in       string
		endOfDay bool
		want     time.Time
	}{
		{"now", false, now},
		{"NOW", true, now},
		{"today", false, at(2026, 11, 25, 0, 0)},
		{"today", true, at(2026, 11, 26, 0, 0)},
		{"yesterday", false, at(2026, 11, 24, 0, 0)},
		{"yesterday", true, at(2026, 11, 25, 0, 0)},
		{"1d", false, now.Add(-24 * time.Hour)},
		{"1d", true, now.Add(-24 * time.Hour)},
		{"2w", false, now.Add(-14 * 24 * time.Hour)},
		{"1d12h", false, now.Add(-36 * time.Hour)},
		{"90m", false, now.Add(-90 * time.Minute)},
		{"2026-11-24", false, at(2026, 11, 24, 0, 0)},
		{"2026-11-24", true, at(2026, 11, 25, 0, 0)},
		{" 2026-11-24 15:04 ", false, at(2026, 11, 24, 15, 4)},
		{"2026-11-24T15:04", true, at(2026, 11, 24, 15, 4)},
		{"2026-11-24 15:04:05", false, at(2026, 11, 24, 15, 4).Add(5 * time.Second)},
		{"2026-11-24T15:04:00Z", false, time.Date(2026, 11, 24, 15, 4, 0, 0, time.UTC)},
		{"2026-11-24t15:04:00+01:00", false, time.Date(2026, 11, 24, 14, 4, 0, 0, time.UTC)},
	} {
		got, err := ParseWhen(tt.in, now, tt.endOfDay)
		if err != nil || !got.Equal(tt.want) {
			t.Errorf("ParseWhen(%q, %v) = %v, %v; want %v", tt.in, tt.endOfDay, got, err, tt.want)
		}
	}
	for _, bad := range []string{"", "1x", "-1h", "-1d", "d", "1d1x", "2026-02-30", "tomorrow", "1 day"} {
		if got, err := ParseWhen(bad, now, false); err == nil {
			t.Errorf("ParseWhen(%q) = %v, want an error", bad, got)
		}
	}
}

func TestParseBool(t *testing.T) {
	for in, want := range map[string]bool{"1": true, "true": true, " True ": true, "YES": true, "on": true, "y": true, "t": true,
		"0": false, "false": false, "No": false, "off": false, "n": false, "F": false} {
		if got, err := ParseBool(in); err != nil || got != want {
			t.Errorf("ParseBool(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "maybe", "2", "yess"} {
		if _, err := ParseBool(bad); err == nil {
			t.Errorf("ParseBool(%q) accepted", bad)
		}
	}
}
