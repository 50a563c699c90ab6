package config

import (
	"strings"
	"testing"
)

// TestJournalURLWithUnencodedPassword (issue 30, defect 10): a journal URL
// whose password holds a raw '/', '#', '?', space or '@' is refused with
// how to write it, never called "not a postgres:// URL", and never shown
// with its password (nor its tail after an '@'), even past the length at
// which a value is shortened.
func TestJournalURLWithUnencodedPassword(t *testing.T) {
	for _, tc := range []struct{ pw, want string }{
		{"PA/SS", `holds a character a URL takes only percent-encoded`},
		{"PA#SS", `'/' as %2F, '@' as %40, ' ' as %20`},
		{"PA?SS", `percent-encoded`},
		{"PA SS", `percent-encoded`},
		{"PA@SS", `percent-encoded`},
		{"PAŞ%ZZ", `percent-encoded`},
	} {
		for _, url := range []string{
			"postgres://ayse:" + tc.pw + "@db.example:5432/paycli",
			"postgresql://ayse:" + tc.pw + "@" + strings.Repeat("d", 90) + ".example/paycli?sslmode=verify-full",
		} {
			err := ValidateValue("journal", url)
			if err == nil {
				t.Errorf("ValidateValue(journal, %q) = nil, want a refusal", url)
				continue
			}
			msg := err.Error()
			for _, part := range []string{tc.pw, "PA", "SS"} {
				if strings.Contains(msg, part) {
					t.Errorf("ValidateValue(journal, %q) = %q: shows %q", url, msg, part)
				}
			}
			if !strings.Contains(msg, tc.want) || strings.Contains(msg, "not a postgres:// URL") || !strings.Contains(msg, "xxxxx@") {
				t.Errorf("ValidateValue(journal, %q) = %q, want it masked and saying %s", url, msg, tc.want)
			}
		}
	}
	// Encoded, the same passwords are taken.
	for _, pw := range []string{"PA%2FSS", "PA%23SS", "PA%3FSS", "PA%20SS", "PA%40SS", "a:b:c"} {
		if err := ValidateValue("journal", "postgres://ayse:"+pw+"@db.example/paycli"); err != nil {
			t.Errorf("password %q refused: %v", pw, err)
		}
	}
}

// TestJournalURLScheme: a URL's scheme is case-insensitive (RFC 3986), so
// POSTGRES:// is taken where it is set, as the shared journal takes it
// (pgjournal lower-cases it before pgx reads it); another scheme is not.
func TestJournalURLScheme(t *testing.T) {
	for _, url := range []string{"POSTGRES://ayse:s3cret@db.example/paycli", "PostgreSQL://ayse@db.example/paycli"} {
		if err := ValidateValue("journal", url); err != nil {
			t.Errorf("%s refused: %v", url, err)
		}
	}
	err := ValidateValue("journal", "MYSQL://ayse:s3cret@db.example/paycli")
	if err == nil || !strings.Contains(err.Error(), "not a postgres:// URL") || strings.Contains(err.Error(), "s3cret") {
		t.Errorf("MYSQL:// = %v, want a refusal that hides the password", err)
	}
}

// FuzzJournalURLCheckHidesPassword: whatever a password holds, the
// journal check's refusal never shows it (its runs of four capital
// letters or more; the rest of the URL is lower case).
func FuzzJournalURLCheckHidesPassword(f *testing.F) {
	for _, s := range []string{"/", "#", "?", " ", "@", "A/B#C?D E@F", "12/34", "%zz", "\"", "\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		pw := "PW" + raw + "SECRET"
		for _, url := range []string{"postgres://ayse:" + pw + "@db.example:5432/paycli", "postgres://" + pw + "@db/p", "mysql://ayse:" + pw + "@db/p",
			"POSTGRES://ayse:" + pw + "@db/p", "postgres://ayse:" + pw + "@" + strings.Repeat("h", 100) + "/p"} {
			err := ValidateValue("journal", url)
			if err == nil {
				continue
			}
			shown, _, _ := strings.Cut(strings.ReplaceAll(err.Error(), "POSTGRES", ""), "write each") // its advice is fixed text
			for _, run := range strings.FieldsFunc(pw, func(r rune) bool { return r < 'A' || r > 'Z' }) {
				if len(run) >= 4 && strings.Contains(shown, run) { // shorter: "UTF", "XX"
					t.Fatalf("ValidateValue(journal, %q) = %q shows %q", url, err, run)
				}
			}
		}
	})
}
