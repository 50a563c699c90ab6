package cmdutil

import (
	"maps"
	"slices"
	"strings"
	"testing"
)

// TestParseInstallmentsBounds: counts run from 1 to MaxInstallment, both
// included; a range includes both ends and may be a single count; one
// that runs backwards is refused.
func TestParseInstallmentsBounds(t *testing.T) {
	span := func(a, b int) []int {
		var s []int
		for n := a; n <= b; n++ {
			s = append(s, n)
		}
		return s
	}
	for _, tc := range []struct {
		in   string
		want []int // nil: refused
	}{
		{"1", []int{1}},
		{"99", []int{99}},
		{"0", nil},
		{"100", nil},
		{"1-99", span(1, 99)},
		{"0-3", nil},
		{"98-100", nil},
		{"2-6", span(2, 6)},
		{"3-3", []int{3}},
		{"4-3", nil},
		{" 1, 3-5 ,12", []int{1, 3, 4, 5, 12}},
		{"1,,2", nil},
		{"-1", nil},
		{"2-", nil},
		{"x", nil},
	} {
		got, err := ParseInstallments(tc.in)
		if tc.want == nil {
			if err == nil {
				t.Errorf("ParseInstallments(%q) = %v, want refused", tc.in, slices.Sorted(maps.Keys(got)))
			}
			continue
		}
		if err != nil {
			t.Errorf("ParseInstallments(%q): %v", tc.in, err)
			continue
		}
		if keys := slices.Sorted(maps.Keys(got)); !slices.Equal(keys, tc.want) {
			t.Errorf("ParseInstallments(%q) = %v, want %v", tc.in, keys, tc.want)
		}
	}
	if _, err := ParseInstallments("4-3"); err == nil || !strings.Contains(err.Error(), "write 3-4") {
		t.Errorf("a backward range: %v, want the range the other way round suggested", err)
	}
}

// FuzzParseInstallments: whatever the input, a parsed set holds only
// counts from 1 to MaxInstallment, and a refusal is one line.
func FuzzParseInstallments(f *testing.F) {
	for _, s := range []string{"1", "1,3,6", "2-6", "1,3-5,12", "99", "0", "100", "4-3", "-1", "1-999999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := ParseInstallments(s)
		if err != nil {
			if strings.Contains(err.Error(), "\n") && !strings.Contains(s, "\n") {
				t.Errorf("ParseInstallments(%q): error on several lines: %v", s, err)
			}
			return
		}
		for n := range got {
			if n < 1 || n > MaxInstallment {
				t.Errorf("ParseInstallments(%q) holds %d", s, n)
			}
		}
	})
}

func TestUnofferedInstallments(t *testing.T) {
	offered := func(n int) bool { return n <= 6 || n == 9 || n == 12 }
	for _, c := range []struct {
		list string
		want []string
	}{
		{"13", []string{"13"}},
		{"3,13", []string{"13"}},
		{"7-8, 10-11 ,12", []string{"7-8", "10-11"}},
		{"1-99", nil},
		{"9", nil},
	} {
		if got := UnofferedInstallments(c.list, offered); !slices.Equal(got, c.want) {
			t.Errorf("UnofferedInstallments(%q) = %q, want %q", c.list, got, c.want)
		}
	}
}

func TestCountList(t *testing.T) {
	for _, c := range []struct {
		counts []int
		want   string
	}{
		{nil, ""},
		{[]int{3}, "3"},
		{[]int{1, 2}, "1 and 2"},
		{[]int{1, 2, 3, 4, 5, 6, 9, 12}, "1-6, 9 and 12"},
		{[]int{2, 3, 5, 6, 7}, "2, 3 and 5-7"},
	} {
		if got := CountList(c.counts); got != c.want {
			t.Errorf("CountList(%v) = %q, want %q", c.counts, got, c.want)
		}
	}
}
