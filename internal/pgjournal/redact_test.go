package pgjournal

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/paycli/paycli/internal/redact"
)

// withSecrets makes a connection string of template: its capital letters
// are lowered (and so are the %XX escapes of capitals), and each '$'
// becomes a secret of its own ("QAAQ", "QABQ", …). A secret's letters are
// then the only capitals in the string, decoded or not, and no secret can
// be read across two others.
func withSecrets(template string) (conn string, secrets []string) {
	var b strings.Builder
	for i := 0; i < len(template); i++ {
		c := template[i]
		switch {
		case c == '$':
			const inside = "ABCDEFGHIJKLMNOPRSTUVWXYZ" // no 'Q'
			n := len(secrets)
			secret := "Q" + string(inside[n/len(inside)%len(inside)]) + string(inside[n%len(inside)]) + "Q"
			secrets = append(secrets, secret)
			b.WriteString(secret)
		case c >= 'A' && c <= 'Z':
			b.WriteByte(c + 'a' - 'A')
		case c == '%' && i+2 < len(template) && capitalEscaped(template[i+1:i+3]):
			fmt.Fprintf(&b, "%%%02x", unhex(template[i+1:i+3])+'a'-'A')
			i += 2
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), secrets
}

// unhex is the byte two hex digits spell, 0 for none.
func unhex(hex string) byte {
	c, err := strconv.ParseUint(hex, 16, 8)
	if err != nil {
		return 0
	}
	return byte(c)
}

// capitalEscaped tells whether %hex spells a capital letter.
func capitalEscaped(hex string) bool { c := unhex(hex); return c >= 'A' && c <= 'Z' }

// FuzzRedactURLHidesWhatPgxReads (issue 39, defect 7): whatever pgx reads
// as the password of a connection string (a URL's userinfo or query, its
// keys percent-encoded or not; a key=value string), redact.URL shows none
// of it. The oracle is pgx's own parser: each secret of the string that
// pgconn.ParseConfig puts in Config.Password must be gone from the masked
// text. A string pgx refuses logs in nowhere and is left out.
func FuzzRedactURLHidesWhatPgxReads(f *testing.F) {
	for _, s := range []string{
		"postgres://ayse:$@h/paycli",
		"postgres://ayse@h/paycli?pass%77ord=$",
		"postgres://ayse@h/paycli?%70%61%73%73%77%6f%72%64=$&sslmode=disable",
		"postgresql://h/paycli?sslmode=disable&password=$",
		"postgres://h/paycli? pass%77ord =$",
		"postgres://u:$@h/d?password=$&password=$",
		"host=h password=$ user=ayse",
		`host=h password=$\ $ user=ayse`,
		"host=h password='$ $' user=ayse",
		"host=h password=$&$",
		"a.b=1 password=$'$",
		"password = $",
		"x='y'password=$",
	} {
		f.Add(s)
	}
	f.Setenv("PGPASSWORD", "")
	f.Setenv("PGSERVICE", "")
	f.Setenv("PGPASSFILE", "/nonexistent/pgpass")
	f.Fuzz(func(t *testing.T, template string) {
		conn, secrets := withSecrets(template)
		cfg, err := pgconn.ParseConfig(conn)
		if err != nil {
			return
		}
		shown := redact.URL(conn)
		for _, secret := range secrets {
			if strings.Contains(cfg.Password, secret) && strings.Contains(shown, secret) {
				t.Fatalf("pgx reads password %q from %q; redact.URL shows %q: %q", cfg.Password, conn, secret, shown)
			}
		}
	})
}
