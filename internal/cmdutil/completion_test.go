package cmdutil

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

func TestCompleteCurrency(t *testing.T) {
	tests := []struct {
		typed string
		want  []string
	}{
		{"KW", []string{"KWD\tKuwaiti Dinar"}},
		{"kw", []string{"KWD\tKuwaiti Dinar"}},
		{"TRY", []string{"TRY\tTurkish Lira"}},
		{"QQ", nil},
		// Nothing typed: the gateway's currencies, not ISO 4217's 165.
		{"", []string{"TRY\tTurkish Lira", "USD\tUS Dollar", "EUR\tEuro"}},
		// Typed: the gateway's first, then the others, in this order.
		{"E", []string{"EUR\tEuro", "EGP\tEgyptian Pound", "ERN\tNakfa", "ETB\tEthiopian Birr"}},
	}
	for _, tt := range tests {
		got, d := CompleteCurrency(nil, nil, tt.typed)
		if !slices.Equal(got, tt.want) {
			t.Errorf("CompleteCurrency(%q) = %q, want %q", tt.typed, got, tt.want)
		}
		if d != cobra.ShellCompDirectiveNoFileComp|cobra.ShellCompDirectiveKeepOrder {
			t.Errorf("CompleteCurrency(%q): directive %d", tt.typed, d)
		}
	}
	// Every ISO 4217 code is still offered once its first letter is typed.
	n := 0
	for c := 'A'; c <= 'Z'; c++ {
		got, _ := CompleteCurrency(nil, nil, string(c))
		n += len(got)
	}
	if n < 150 {
		t.Errorf("all currencies: %d", n)
	}
}

func TestCompleteValueOrAtFile(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"ok.jwt", "other.jwt", ".hidden.jwt"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "tokens"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "tokens", "t1.jwt"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	sep := string(filepath.Separator)
	const atDirective = cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveNoSpace
	tests := []struct {
		typed     string
		want      []string
		directive cobra.ShellCompDirective
	}{
		{"", []string{"@", "-"}, atDirective},
		{"eyJ", nil, cobra.ShellCompDirectiveNoFileComp},
		{"@", []string{"@ok.jwt", "@other.jwt", "@tokens" + sep}, atDirective},
		{"@o", []string{"@ok.jwt", "@other.jwt"}, atDirective},
		{"@.h", []string{"@.hidden.jwt"}, atDirective},
		{"@tokens" + sep, []string{"@tokens" + sep + "t1.jwt"}, atDirective},
		{"@" + dir + sep + "ok", []string{"@" + dir + sep + "ok.jwt"}, atDirective},
		{"@missing" + sep, nil, atDirective},
	}
	for _, tt := range tests {
		got, d := CompleteValueOrAtFile(nil, nil, tt.typed)
		var names []string
		for _, c := range got {
			name, _, _ := strings.Cut(c, "\t")
			names = append(names, name)
		}
		if !slices.Equal(names, tt.want) {
			t.Errorf("CompleteValueOrAtFile(%q) = %q, want %q", tt.typed, names, tt.want)
		}
		if d != tt.directive {
			t.Errorf("CompleteValueOrAtFile(%q): directive %d, want %d", tt.typed, d, tt.directive)
		}
	}
}
