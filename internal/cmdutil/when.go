package cmdutil

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// WhenHelp says what ParseWhen reads, for flag help and errors.
const WhenHelp = "a duration ago (30m, 24h, 7d, 2w), today, yesterday, now, a date (2026-11-24) or a date and time (2026-11-24 15:04 or RFC 3339); dates and times are in your time zone unless written with one"

// ParseWhen reads a moment given on a command line, as `--since` and
// `--until` take it, relative to now and in now's time zone (the user's):
//
//   - a duration ago: Go's (90m, 24h) with days (d) and weeks (w) in front
//     ("1d", "1d12h", "2w");
//   - "now", "today", "yesterday";
//   - a date (2006-01-02), a date and time (2006-01-02 15:04[:05], or with
//     a T), or RFC 3339 with its own offset.
//
// A day (today, yesterday, a date) is its start, or with endOfDay its end
// (the start of the next day), so that `--until yesterday` takes in all of
// yesterday.
func ParseWhen(s string, now time.Time, endOfDay bool) (time.Time, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	loc := now.Location()
	day := func(d time.Time) time.Time {
		start := time.Date(d.Year(), d.Month(), d.Day(), 0, 0, 0, 0, loc)
		if endOfDay {
			return start.AddDate(0, 0, 1)
		}
		return start
	}
	switch t {
	case "":
		return time.Time{}, fmt.Errorf("empty: write %s", WhenHelp)
	case "now":
		return now, nil
	case "today":
		return day(now), nil
	case "yesterday":
		return day(now.AddDate(0, 0, -1)), nil
	}
	if d, ok := parseAgo(t); ok {
		if d < 0 {
			return time.Time{}, fmt.Errorf("%q: a duration ago must not be negative", s)
		}
		return now.Add(-d), nil
	}
	if d, err := time.ParseInLocation("2006-01-02", t, loc); err == nil {
		return day(d), nil
	}
	if d, err := time.Parse(time.RFC3339, strings.ToUpper(t)); err == nil {
		return d, nil
	}
	for _, layout := range []string{"2006-01-02 15:04", "2006-01-02 15:04:05", "2006-01-02t15:04", "2006-01-02t15:04:05"} {
		if d, err := time.ParseInLocation(layout, t, loc); err == nil {
			return d, nil
		}
	}
	return time.Time{}, fmt.Errorf("%q: write %s", s, WhenHelp)
}

// parseAgo reads a duration with optional weeks and days in front.
func parseAgo(s string) (time.Duration, bool) {
	var total time.Duration
	rest := s
	for _, unit := range []struct {
		suffix byte
		size   time.Duration
	}{{'w', 7 * 24 * time.Hour}, {'d', 24 * time.Hour}} {
		i := 0
		for i < len(rest) && rest[i] >= '0' && rest[i] <= '9' {
			i++
		}
		if i > 0 && i < len(rest) && rest[i] == unit.suffix {
			n, err := strconv.Atoi(rest[:i])
			if err != nil || n > 100000 {
				return 0, false
			}
			total += time.Duration(n) * unit.size
			rest = rest[i+1:]
		}
	}
	if rest == "" {
		return total, total > 0 || s == "0d" || s == "0w"
	}
	d, err := time.ParseDuration(rest)
	if err != nil {
		return 0, false
	}
	return total + d, true
}
