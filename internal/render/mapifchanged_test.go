package render

import (
	"slices"
	"strings"
	"testing"
)

func TestMapIfChanged(t *testing.T) {
	upper := func(s string) (string, bool) { u := strings.ToUpper(s); return u, u != s }
	for _, tt := range []struct {
		name, in, want string
		same           bool
	}{
		{"nothing changes", "A B C", "A B C", true},
		{"first changes", "a B C", "A B C", false},
		{"middle changes, later too", "A b c", "A B C", false},
		{"last changes", "A B c", "A B C", false},
		{"empty", "", "", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			in := strings.Fields(tt.in)
			before := slices.Clone(in)
			got := mapIfChanged(in, upper)
			if !slices.Equal(got, strings.Fields(tt.want)) {
				t.Errorf("mapIfChanged(%q) = %q, want %q", in, got, tt.want)
			}
			if !slices.Equal(in, before) {
				t.Errorf("mapIfChanged wrote to its input: %q, was %q", in, before)
			}
			if same := len(in) > 0 && &got[0] == &in[0]; len(in) > 0 && same != tt.same {
				t.Errorf("mapIfChanged(%q) returned its input: %v, want %v", in, same, tt.same)
			}
		})
	}
}
