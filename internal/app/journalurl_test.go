package app

import (
	"testing"

	"github.com/paycli/paycli/internal/config"
)

// TestJournalURLTakesTheKeptPassword: journal_password, fetched from the
// keyring, a command or a file, goes into the URL pgx connects with; a
// URL that has a password keeps it, and without either pgx looks in
// ~/.pgpass and PGPASSWORD.
func TestJournalURLTakesTheKeptPassword(t *testing.T) {
	for _, tc := range []struct{ url, password, want string }{
		{"postgres://desk@db.example:6432/journal", "s3cret/with@chars", "postgres://desk:s3cret%2Fwith%40chars@db.example:6432/journal"},
		{"postgres://desk:inurl@db.example/journal", "kept", "postgres://desk:inurl@db.example/journal"},
		{"postgres://db.example/journal", "pw", "postgres://:pw@db.example/journal"},
		{"postgres://desk@db.example/journal", "", "postgres://desk@db.example/journal"},
	} {
		cfg := &config.Config{Journal: tc.url, JournalPassword: tc.password}
		if got := journalURL(cfg); got != tc.want {
			t.Errorf("%s + %q: %s, want %s", tc.url, tc.password, got, tc.want)
		}
	}
}
