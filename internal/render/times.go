package render

import "time"

// TableTimeLayout is how tables, CSV and TSV show a moment: local time with
// its offset, so that a reader in any zone (and a support engineer in
// another one) reads the same instant.
const TableTimeLayout = "2006-01-02 15:04:05 -07:00"

// FormatTime is the one way paycli prints a moment: in JSON RFC 3339 with
// the offset, elsewhere TableTimeLayout; both in the local zone (TZ). The
// zero time prints as "".
func FormatTime(t time.Time, f Format) string {
	return FormatTimeIn(t, f, time.Local)
}

// FormatTimeIn is FormatTime in the zone loc (tests and callers that must
// not depend on the machine's zone).
func FormatTimeIn(t time.Time, f Format, loc *time.Location) string {
	if t.IsZero() {
		return ""
	}
	t = t.In(loc)
	if f == JSON {
		return t.Format(time.RFC3339)
	}
	return t.Format(TableTimeLayout)
}

// Time is a moment in JSON output, written as FormatTime writes it for
// JSON: RFC 3339 in the local zone, to the second, so that -o json and a
// table show a moment alike. The zero time is "".
type Time struct{ time.Time }

// MarshalJSON writes FormatTime's JSON form.
func (t Time) MarshalJSON() ([]byte, error) {
	return []byte(`"` + FormatTime(t.Time, JSON) + `"`), nil
}

// CompactTime is how a listing of one line per item shows a moment: one of
// today (the local day of now) as its clock time, "15:04:05"; any other as
// its date, "2006-01-02". The whole moment is for JSON and detail views.
// The zero time is "".
func CompactTime(t, now time.Time) string {
	if t.IsZero() {
		return ""
	}
	t, now = t.In(time.Local), now.In(time.Local)
	if y, m, d := t.Date(); y == now.Year() && m == now.Month() && d == now.Day() {
		return t.Format(time.TimeOnly)
	}
	return t.Format(time.DateOnly)
}
