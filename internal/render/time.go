package render

import "time"

// TimeLayout is how tables show a moment: local time with its offset from
// UTC, so that two commands printing the same moment print the same text
// and say which zone it is in.
const TimeLayout = "2006-01-02 15:04:05 -07:00"

// FormatTime is t in local time with its offset (TimeLayout), for tables;
// "" for the zero time.
func FormatTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.Local().Format(TimeLayout)
}

// FormatTimeRFC3339 is t in local time as RFC 3339 with its offset, for
// JSON and CSV; "" for the zero time.
func FormatTimeRFC3339(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.Local().Format(time.RFC3339)
}
