package app

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/paycli/paycli/internal/iostreams"
)

// journalURLPrinters runs every paycli command that shows a journal URL
// it was given, with url as the journal (in a config file, PAYCLI_JOURNAL,
// `config set`) or as the owner's (`journal init`, from its flag, stdin
// and environment), in a home of its own; it returns each run's name and
// everything it wrote. The server at 127.0.0.1:1 is not there: a URL that
// passes the checks is refused as unreachable at once.
func journalURLPrinters(t testing.TB, url string) map[string]string {
	home, err := os.MkdirTemp("", "paycli-url-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(home)
	env := map[string]string{"HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, "config"),
		"XDG_CACHE_HOME": filepath.Join(home, "cache"), "XDG_STATE_HOME": filepath.Join(home, "state"),
		"PAYCLI_BASE_URL": "http://127.0.0.1:1/ccpayment", "PAYCLI_APP_ID": "app", "PAYCLI_APP_SECRET": "secret", "PAYCLI_MERCHANT_KEY": "key"}
	run := func(stdin string, extra map[string]string, args ...string) string {
		ios, in, out, errOut := iostreams.Test()
		in.WriteString(stdin)
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		Run(ctx, args, ios, func(k string) (string, bool) {
			if v, ok := extra[k]; ok {
				return v, true
			}
			v, ok := env[k]
			return v, ok
		})
		return out.String() + errOut.String()
	}
	shown := map[string]string{
		"config set journal URL":  run("", nil, "config", "set", "journal", url),
		"config set journal -":    run(url+"\n", nil, "config", "set", "journal", "-"),
		"PAYCLI_JOURNAL, journal": run("", map[string]string{"PAYCLI_JOURNAL": url}, "journal"),
		"PAYCLI_JOURNAL, refund":  run("", map[string]string{"PAYCLI_JOURNAL": url}, "refund", "--invoice", "INV-1", "--amount", "1.00", "--yes"),
		"journal init --url URL":  run("", nil, "journal", "init", "--url", url),
		"journal init --url -":    run(url+"\n", nil, "journal", "init", "--url", "-"),
		"journal init, env":       run("", map[string]string{"PAYCLI_JOURNAL_OWNER_URL": url}, "journal", "init"),
		"PAYCLI_JOURNAL, --debug": run("", map[string]string{"PAYCLI_JOURNAL": url}, "refund", "--invoice", "INV-1", "--amount", "1.00", "--yes", "--debug"),
	}
	// A config file written by hand, as config list, get and the journal
	// read it.
	cfg := filepath.Join(home, "config", "paycli", "config.yaml")
	if err := os.MkdirAll(filepath.Dir(cfg), 0o700); err != nil {
		t.Fatal(err)
	}
	quoted := "'" + strings.ReplaceAll(url, "'", "''") + "'"
	if err := os.WriteFile(cfg, []byte("default_profile: desk\nprofiles:\n  desk:\n    journal: "+quoted+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	shown["config list (file)"] = run("", nil, "config", "list")
	shown["config get journal (file)"] = run("", nil, "config", "get", "journal")
	shown["journal (file)"] = run("", nil, "journal")
	return shown
}

// TestJournalURLPasswordNeverPrinted (issue 30, defect 10): a journal URL
// whose password holds a raw '/', '#', '?', space or '@' is shown by no
// command, whole or its tail after an '@', and none calls it "not a
// postgres:// URL"; percent-encoded, none shows it either.
func TestJournalURLPasswordNeverPrinted(t *testing.T) {
	for _, pw := range []string{"QZK/WXJ", "QZK#WXJ", "QZK?WXJ", "QZK WXJ", "QZK@WXJ", "QZK%2FWXJ", "QZK:WXJ"} {
		for name, out := range journalURLPrinters(t, "postgres://ayse:"+pw+"@127.0.0.1:1/paycli") {
			for _, part := range []string{"QZK", "WXJ"} {
				if strings.Contains(out, part) {
					t.Errorf("password %q: %s shows %q:\n%s", pw, name, part, out)
				}
			}
			if strings.Contains(out, "not a postgres:// URL") {
				t.Errorf("password %q: %s calls it not a postgres:// URL:\n%s", pw, name, out)
			}
		}
	}
	// Issue 39, defect 7: pgx decodes a query's keys and values, so each
	// of these logs in with QZKWXJ (or QZK WXJ) as the password.
	for _, query := range []string{"pass%77ord=QZKWXJ", "%70assword=QZKWXJ", "%70%61%73%73%77%6F%72%64=QZKWXJ",
		"sslmode=disable&pass%77ord=QZKWXJ", "ssl%70assword=QZKWXJ", "pass%77ord=QZK%20WXJ", " pass%77ord =QZKWXJ"} {
		for name, out := range journalURLPrinters(t, "postgres://ayse@127.0.0.1:1/paycli?"+query) {
			for _, part := range []string{"QZK", "WXJ"} {
				if strings.Contains(out, part) {
					t.Errorf("query %q: %s shows %q:\n%s", query, name, part, out)
				}
			}
		}
	}
}

// FuzzJournalURLPrinters: whatever a journal URL's password holds, no
// command shows it (its runs of four capital letters or more; the rest of
// the URL and paycli's words are in lower case).
func FuzzJournalURLPrinters(f *testing.F) {
	for _, s := range []string{"/", "#", "?", " ", "@", "A/B#C?D E@F", "12/34", "%zz", "'", "\"", "&X=Y", "\t"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		if strings.ContainsAny(raw, "\x00\n\r") {
			return // not a value one line of a terminal or a file holds
		}
		pw := "QZKV" + raw + "WXJY"
		for name, out := range journalURLPrinters(t, "postgres://ayse:"+pw+"@127.0.0.1:1/paycli") {
			for _, run := range strings.FieldsFunc(pw, func(r rune) bool { return r < 'A' || r > 'Z' }) {
				if len(run) >= 4 && strings.Contains(out, run) {
					t.Fatalf("password %q: %s shows %q:\n%s", pw, name, run, out)
				}
			}
		}
	})
}
