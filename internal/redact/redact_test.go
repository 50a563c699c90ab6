package redact

import (
	"strings"
	"testing"
)

func TestURL(t *testing.T) {
	tests := []struct{ in, want string }{
		{"https://user:pass@gw.example/ccpayment", "https://xxxxx@gw.example/ccpayment"},
		{"https://user@gw.example", "https://xxxxx@gw.example"},
		{"https://:p%40ss@gw.example:8443/x", "https://xxxxx@gw.example:8443/x"},
		{"https://gw.example/ccpayment", "https://gw.example/ccpayment"},
		// An '@' after a '/', '?' or '#' may end a password its writer did
		// not percent-encode: the URL is masked to its last '@'.
		{"https://gw.example/a@b?c=d@e#f@g", "https://xxxxx@g"},
		{"https://gw.example/ccpayment?x=1", "https://gw.example/ccpayment?x=1"},
		{`Get "https://u:p@127.0.0.1:1/ccpayment/api/token": refused`, `Get "https://xxxxx@127.0.0.1:1/ccpayment/api/token": refused`},
		{"two: http://a:b@x and https://c:d@y/", "two: http://xxxxx@x and https://xxxxx@y/"},
		{"mail me at someone@example.com", "mail me at someone@example.com"},
		// PostgreSQL URLs may carry the password (and a client key's
		// passphrase) in the query, as libpq and pgx read them.
		{"postgres://db.example/paycli?password=s3cr%26t&sslmode=verify-full", "postgres://db.example/paycli?password=xxxxx&sslmode=verify-full"},
		{"postgres://ayse@db/p?sslmode=require&sslpassword=k3y", "postgres://xxxxx@db/p?sslmode=require&sslpassword=xxxxx"},
		{`at "postgres://db/p?PASSWORD=x": refused`, `at "postgres://db/p?PASSWORD=xxxxx": refused`},
		{"https://gw.example/x?mypassword=open", "https://gw.example/x?mypassword=open"},
		{`"host=db port=1 password=Sekr3t" is not a postgres:// URL`, `"host=db port=1 password=xxxxx" is not a postgres:// URL`},
		{`password='a \' b' host=db`, `password=xxxxx host=db`},
		{"", ""},
		// Issue 30, defect 10: a password with a raw '/', '#', '?', space or
		// '@', as one value and quoted in a text.
		{"postgres://ayse:pa/ss@db.example/paycli", "postgres://xxxxx@db.example/paycli"},
		{"postgres://ayse:pa#ss@db.example/paycli", "postgres://xxxxx@db.example/paycli"},
		{"postgres://ayse:pa?ss@db.example/paycli", "postgres://xxxxx@db.example/paycli"},
		{"postgres://ayse:pa ss@db.example/paycli", "postgres://xxxxx@db.example/paycli"},
		{"postgres://ayse:pa@ss@db.example/paycli", "postgres://xxxxx@db.example/paycli"},
		{"postgres://ayse:123/a b#c?d@e@db.example:5432/paycli?sslmode=disable", "postgres://xxxxx@db.example:5432/paycli?sslmode=disable"},
		{`"postgres://ayse:p/a#s?s@w@db/x" is not valid`, `"postgres://xxxxx@db/x" is not valid`},
		{"journal at postgres://ayse:p/a#s?s@w@db/x: refused", "journal at postgres://xxxxx@db/x: refused"},
		{"postgres://db/p?password=a#b&c d&sslmode=disable", "postgres://db/p?password=xxxxx&sslmode=disable"},
		{"host=db password=a b#c&d user=ayse", "host=db password=xxxxx user=ayse"},
		{"host=db password = 'x y' user=ayse", "host=db password = xxxxx user=ayse"},
		// Issue 39, defect 7: pgx decodes a query's keys and trims their
		// spaces, so each of these is the password; a key=value string's
		// value runs past '&' and an escaped space.
		{"postgres://ayse@h/paycli?pass%77ord=PW", "postgres://xxxxx@h/paycli?pass%77ord=xxxxx"},
		{"postgres://h/p?%70%61%73%73%77%6F%72%64=PW&sslmode=disable", "postgres://h/p?%70%61%73%73%77%6F%72%64=xxxxx&sslmode=disable"},
		{"postgres://h/p?sslmode=disable&ssl%70assword=PW", "postgres://h/p?sslmode=disable&ssl%70assword=xxxxx"},
		{"postgres://h/p? pass%77ord =PW", "postgres://h/p? pass%77ord =xxxxx"},
		{`at "postgres://h/p?Pass%57ord=PW": refused`, `at "postgres://h/p?Pass%57ord=xxxxx": refused`},
		{`host=h password=PW\ SECRET user=a`, "host=h password=xxxxx user=a"},
		{"host=h password=PW&SECRET=1 user=a", "host=h password=xxxxx user=a"},
		{"a.b=1 password=PW'SECRET", "a.b=1 password=xxxxx"},
		// Keys pgx reads as another name stay.
		{"postgres://h/p?pass%77ords=x&%2570assword=y", "postgres://h/p?pass%77ords=x&%2570assword=y"},
	}
	for _, tt := range tests {
		if got := URL(tt.in); got != tt.want {
			t.Errorf("URL(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func FuzzURL(f *testing.F) {
	f.Add("https://user:pass@gw.example/ccpayment")
	f.Add("x://@")
	f.Add("postgres://h/d?password=p&sslpassword=q")
	f.Fuzz(func(t *testing.T, s string) {
		got := URL(s)
		if again := URL(got); again != got {
			t.Errorf("URL is not idempotent: %q -> %q -> %q", s, got, again)
		}
	})
}

// secretRuns are the runs of capital letters in pw, the parts of a
// password that no masked text may show (the URLs around them are written
// in lower case; a password's digits may read as a port).
func secretRuns(pw string) []string {
	return strings.FieldsFunc(pw, func(r rune) bool { return r < 'A' || r > 'Z' })
}

// passwordOf keeps raw's capital letters, digits and the characters in
// specials, and makes sure it has a secret run.
func passwordOf(raw, specials string) string {
	var b strings.Builder
	for _, r := range raw {
		if r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune(specials, r) {
			b.WriteRune(r)
		}
	}
	return "PW" + b.String() + "SECRET"
}

// FuzzURLHidesPasswords (issue 30, defect 10): a password of any of the
// characters its writer may leave unencoded never shows, in a URL given
// alone or quoted in a text, in a URL's query or a key=value string.
func FuzzURLHidesPasswords(f *testing.F) {
	for _, s := range []string{"/", "#", "?", " ", "@", "A/B#C?D E@F", "12/34", "@@", "%zz", ":80/", "'X'", "&X", "#&?=@/"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		check := func(form, pw, shown string) {
			for _, run := range secretRuns(pw) {
				if strings.Contains(shown, run) {
					t.Fatalf("%s: password %q: %q shows %q", form, pw, shown, run)
				}
			}
		}
		pw := passwordOf(raw, "/#?@ :%&='\"`<>")
		check("URL alone", pw, URL("postgres://ayse:"+pw+"@db.example:5432/paycli?sslmode=disable"))
		check("user alone", pw, URL("postgres://"+pw+"@db.example/paycli"))
		// In a text a URL ends at white space or a quote: its printers
		// mask it alone before quoting it.
		pw = passwordOf(raw, "/#?@:%&=")
		check("URL in a text", pw, URL(`the shared journal at "postgres://ayse:`+pw+`@db.example/paycli": refused`))
		// A query's or key=value string's parameter ends where the next
		// starts ("&key=", " key="): a password holding one is cut there.
		pw = passwordOf(raw, "/#?@ :%&")
		check("query", pw, URL("postgres://db.example/paycli?password="+pw+"&sslmode=disable"))
		check("key=value", pw, URL("host=db.example password="+pw+" user=ayse"))
	})
}

// TestURLAloneWithNewline: a URL given alone is masked whole even when its
// password holds a line break.
func TestURLAloneWithNewline(t *testing.T) {
	if got := URL("postgres://ayse:PW\nSECRET@db/p"); got != "postgres://xxxxx@db/p" {
		t.Errorf("got %q", got)
	}
	if got := URL("host=db password=PW\nSECRET user=ayse"); got != "host=db password=xxxxx user=ayse" {
		t.Errorf("got %q", got)
	}
}
