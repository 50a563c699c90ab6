package cmdutil

import (
	"fmt"
	"strconv"
	"strings"
)

// MaxInstallment bounds an installment count given on a command line: no
// gateway offers more, and it keeps "1-999999999" from building a huge set.
const MaxInstallment = 99

// ParseInstallments reads a list of installment counts and ranges:
// "1,3,6", "2-6", "1,3-5,12".
func ParseInstallments(s string) (map[int]bool, error) {
	out := map[int]bool{}
	for part := range strings.SplitSeq(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			return nil, fmt.Errorf("%q: empty item; write counts and ranges like 1,3,6 or 2-6", s)
		}
		if strings.HasPrefix(part, "-") || strings.HasSuffix(part, "-") {
			// "-1" would otherwise read as a range with no start.
			return nil, fmt.Errorf("%q is not an installment count or range (counts are 1 to %d; ranges look like 2-6)", part, MaxInstallment)
		}
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := installmentCount(lo)
		if err != nil {
			return nil, err
		}
		b := a
		if isRange {
			if b, err = installmentCount(hi); err != nil {
				return nil, err
			}
			if b < a {
				return nil, fmt.Errorf("range %q runs backwards; write %d-%d", part, b, a)
			}
		}
		for n := a; n <= b; n++ {
			out[n] = true
		}
	}
	return out, nil
}

func installmentCount(s string) (int, error) {
	s = strings.TrimSpace(s)
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > MaxInstallment {
		return 0, fmt.Errorf("%q is not an installment count (1 to %d)", s, MaxInstallment)
	}
	return n, nil
}

// UnofferedInstallments returns the items of an --installments list (s,
// which ParseInstallments accepted) that name no count exists has: a
// count, or a range without one count of it. A filter naming nothing
// that exists is bad input; a range that covers some counts is not.
func UnofferedInstallments(s string, exists func(int) bool) []string {
	var none []string
	for part := range strings.SplitSeq(s, ",") {
		counts, err := ParseInstallments(part)
		if err != nil {
			continue
		}
		offered := false
		for n := range counts {
			offered = offered || exists(n)
		}
		if !offered {
			none = append(none, strings.TrimSpace(part))
		}
	}
	return none
}

// CountList writes sorted installment counts for a message, runs of three
// or more as ranges: "1-6, 9 and 12".
func CountList(counts []int) string {
	var words []string
	for i := 0; i < len(counts); {
		j := i
		for j+1 < len(counts) && counts[j+1] == counts[j]+1 {
			j++
		}
		switch {
		case j-i >= 2:
			words = append(words, fmt.Sprintf("%d-%d", counts[i], counts[j]))
		default:
			for k := i; k <= j; k++ {
				words = append(words, strconv.Itoa(counts[k]))
			}
		}
		i = j + 1
	}
	return JoinAnd(words)
}

// JoinAnd joins words as a sentence lists them: "a", "a and b", "a, b and c".
func JoinAnd(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " and " + words[len(words)-1]
}
