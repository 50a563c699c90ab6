package doctest

import (
	"fmt"
	"regexp"
	"strings"
)

// Lines splits output into lines for Match: trailing spaces of each line
// and trailing blank lines are dropped, since a page cannot show them.
func Lines(s string) []string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " \t\r")
	}
	for len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// Match reports whether got fits the page's want lines: "..." stands for
// any number of lines, a line ending in " (re)" is a regular expression for
// the whole line, other lines compare exactly. A bad expression is an error.
func Match(want, got []string) (bool, error) {
	want = Lines(strings.Join(want, "\n"))
	got = Lines(strings.Join(got, "\n"))
	pats := make([]*regexp.Regexp, len(want))
	for i, w := range want {
		if expr, ok := strings.CutSuffix(w, " (re)"); ok {
			re, err := regexp.Compile("^(?:" + expr + ")$")
			if err != nil {
				return false, fmt.Errorf("output line %q: %v", w, err)
			}
			pats[i] = re
		}
	}
	// memo[i][j]: want[i:] against got[j:] already known not to match.
	failed := make(map[[2]int]bool)
	var match func(i, j int) bool
	match = func(i, j int) bool {
		if failed[[2]int{i, j}] {
			return false
		}
		ok := func() bool {
			if i == len(want) {
				return j == len(got)
			}
			if want[i] == "..." {
				for k := j; k <= len(got); k++ {
					if match(i+1, k) {
						return true
					}
				}
				return false
			}
			if j == len(got) {
				return false
			}
			if pats[i] != nil {
				if !pats[i].MatchString(got[j]) {
					return false
				}
			} else if want[i] != got[j] {
				return false
			}
			return match(i+1, j+1)
		}()
		if !ok {
			failed[[2]int{i, j}] = true
		}
		return ok
	}
	return match(0, 0), nil
}
