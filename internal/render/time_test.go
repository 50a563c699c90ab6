package render

import (
	"testing"
	"time"
)

func TestFormatTime(t *testing.T) {
	saved := time.Local
	defer func() { time.Local = saved }()
	time.Local = time.FixedZone("TRT", 3*3600)
	at := time.Date(2026, 11, 22, 12, 16, 5, 0, time.UTC)
	if got := FormatTime(at); got != "2026-11-22 15:16:05 +03:00" {
		t.Errorf("FormatTime = %q", got)
	}
	if got := FormatTimeRFC3339(at); got != "2026-11-22T15:16:05+03:00" {
		t.Errorf("FormatTimeRFC3339 = %q", got)
	}
	if FormatTime(time.Time{}) != "" || FormatTimeRFC3339(time.Time{}) != "" {
		t.Error("zero time not empty")
	}
}
