package hashkey_test

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/paycli/paycli/internal/hashkey"
)

// The cross-check runs paycli's own PHP implementation of the hash_key
// (testdata/crosscheck.php, written from docs/protocol.md on PHP's hash and
// openssl functions) on many random cases, in both directions. It needs
// php-cli with the openssl extension; .ci/tools.sh installs it where
// apt-get is available.

const crossCheckScript = "testdata/crosscheck.php"

// runCrossCheck feeds JSON Lines to `php testdata/crosscheck.php mode` and
// returns one decoded answer per case.
func runCrossCheck[Out any](t *testing.T, mode string, cases []map[string]string) []Out {
	t.Helper()
	php, err := exec.LookPath("php")
	if err != nil {
		t.Skip("php is not on PATH: skipping the cross-check against testdata/crosscheck.php (install php-cli to run it)")
	}
	if err := exec.CommandContext(t.Context(), php, "-r", `exit(function_exists("openssl_encrypt") ? 0 : 1);`).Run(); err != nil {
		t.Skip("php has no openssl extension: skipping the cross-check against testdata/crosscheck.php")
	}
	// Opened here too, not only by php, so that go test's cache notices
	// when the script changes.
	if _, err := os.ReadFile(crossCheckScript); err != nil {
		t.Fatal(err)
	}
	var in bytes.Buffer
	enc := json.NewEncoder(&in)
	for _, c := range cases {
		if err := enc.Encode(c); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.CommandContext(t.Context(), php, crossCheckScript, mode)
	cmd.Stdin = &in
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("php crosscheck.php %s: %v\n%s", mode, err, stderr.String())
	}
	var answers []Out
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var a Out
		if err := json.Unmarshal(sc.Bytes(), &a); err != nil {
			t.Fatalf("php answer %q: %v", sc.Text(), err)
		}
		answers = append(answers, a)
	}
	if len(answers) != len(cases) {
		t.Fatalf("php answered %d of %d cases\n%s", len(answers), len(cases), stderr.String())
	}
	return answers
}

type phpChecked struct {
	OK        bool     `json:"ok"`
	DataB64   string   `json:"data_b64"`
	FieldsB64 []string `json:"fields_b64"`
}

func (v phpChecked) text(t *testing.T) (string, []string) {
	t.Helper()
	data, err := base64.StdEncoding.DecodeString(v.DataB64)
	if err != nil {
		t.Fatal(err)
	}
	fields := make([]string, len(v.FieldsB64))
	for i, f := range v.FieldsB64 {
		b, err := base64.StdEncoding.DecodeString(f)
		if err != nil {
			t.Fatal(err)
		}
		fields[i] = string(b)
	}
	return string(data), fields
}

type crossCheckCase struct{ secret, plaintext string }

func crossCheckCases() []crossCheckCase {
	r := rand.New(rand.NewPCG(11, 12))
	cases := []crossCheckCase{
		{"app_secret", ""},
		{"app_secret", "|"},
		{"app_secret", "Şükrü Çağlar|İŞLEM-1"},
		{"app_secret", strings.Repeat("çok uzun/|", 3000)},
	}
	for range 400 {
		cases = append(cases, crossCheckCase{randomSecret(r), randomPlaintext(r)})
	}
	return cases
}

type phpMade struct {
	HashKey string `json:"hash_key"`
}

// TestCrossCheckKnownAnswers: the PHP side makes docs/hash-keys.md's known
// answers too, so the cross-check below compares Go with a PHP side that
// is itself tied to the gateway's values.
func TestCrossCheckKnownAnswers(t *testing.T) {
	var in []map[string]string
	for _, ka := range knownAnswers {
		in = append(in, map[string]string{"app_secret": kaSecret, "data": ka.plaintext, "iv": ka.iv, "salt": ka.salt})
	}
	got := runCrossCheck[phpMade](t, "make", in)
	for i, ka := range knownAnswers {
		if got[i].HashKey != ka.hashKey {
			t.Errorf("plaintext %q:\n  php %s\n want %s", ka.plaintext, got[i].HashKey, ka.hashKey)
		}
	}
}

// TestCrossCheckSameBytes: with the same iv and salt, Go and PHP make the
// same hash_key, byte for byte.
func TestCrossCheckSameBytes(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	cases := crossCheckCases()
	var in []map[string]string
	var want []string
	for _, c := range cases {
		iv, salt := randomHex(r, 16), randomHex(r, 4)
		hk, err := hashkey.GenerateWith(c.secret, c.plaintext, iv, salt)
		if err != nil {
			t.Fatal(err)
		}
		in = append(in, map[string]string{"app_secret": c.secret, "data": c.plaintext, "iv": iv, "salt": salt})
		want = append(want, hk)
	}
	got := runCrossCheck[phpMade](t, "make", in)
	for i := range cases {
		if got[i].HashKey != want[i] {
			t.Errorf("secret %q plaintext %q:\n php %s\n  go %s", cases[i].secret, cases[i].plaintext, got[i].HashKey, want[i])
		}
	}
}

// TestCrossCheckOpensGo: PHP's hashkey_open reads what Go's Generate makes
// (random iv and salt from crypto/rand).
func TestCrossCheckOpensGo(t *testing.T) {
	cases := crossCheckCases()
	var in []map[string]string
	for _, c := range cases {
		hk, err := hashkey.Generate(c.secret, c.plaintext)
		if err != nil {
			t.Fatal(err)
		}
		in = append(in, map[string]string{"app_secret": c.secret, "hash_key": hk})
	}
	got := runCrossCheck[phpChecked](t, "check", in)
	for i, c := range cases {
		if !got[i].OK {
			t.Errorf("php could not decrypt %s (secret %q, plaintext %q)", in[i]["hash_key"], c.secret, c.plaintext)
			continue
		}
		data, fields := got[i].text(t)
		if data != c.plaintext || !slices.Equal(fields, hashkey.Split(c.plaintext)) {
			t.Errorf("php decrypted %q as %q, fields %q", c.plaintext, data, fields)
		}
	}
}

// TestGoOpensCrossCheck: Go's Decrypt reads what PHP's hashkey_make makes
// with its own random iv and salt (random_bytes).
func TestGoOpensCrossCheck(t *testing.T) {
	cases := crossCheckCases()
	var in []map[string]string
	for _, c := range cases {
		in = append(in, map[string]string{"app_secret": c.secret, "data": c.plaintext})
	}
	got := runCrossCheck[phpMade](t, "make", in)
	for i, c := range cases {
		pt, err := hashkey.Decrypt(c.secret, got[i].HashKey)
		if err != nil || pt != c.plaintext {
			t.Errorf("php's %s (secret %q): Go decrypted %q, %v; want %q", got[i].HashKey, c.secret, pt, err, c.plaintext)
		}
	}
}

// TestCrossCheckAgreesOnDamage: for damaged values and wrong secrets, when
// PHP refuses a value Go refuses it too, and when Go accepts one PHP reads
// the same text.
func TestCrossCheckAgreesOnDamage(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 16))
	var in []map[string]string
	for _, c := range crossCheckCases() {
		hk, err := hashkey.GenerateFrom(randReader{r}, c.secret, c.plaintext)
		if err != nil {
			t.Fatal(err)
		}
		secret := c.secret
		switch r.IntN(3) {
		case 0:
			secret += "x"
		case 1: // change one character of the ciphertext
			b := []byte(hk)
			i := 22 + r.IntN(len(b)-22)
			if b[i] == 'A' {
				b[i] = 'B'
			} else {
				b[i] = 'A'
			}
			hk = string(b)
		case 2: // change the salt
			hk = hk[:17] + randomHex(r, 4) + hk[21:]
		}
		in = append(in, map[string]string{"app_secret": secret, "hash_key": hk})
	}
	got := runCrossCheck[phpChecked](t, "check", in)
	agreedRefusals := 0
	for i, c := range in {
		pt, err := hashkey.Decrypt(c["app_secret"], c["hash_key"])
		switch {
		case !got[i].OK && err == nil:
			t.Errorf("%s: php refused it, Go decrypted %q", c["hash_key"], pt)
		case !got[i].OK:
			agreedRefusals++
			if !errors.Is(err, hashkey.ErrWrongKey) && !errors.Is(err, hashkey.ErrMalformed) {
				t.Errorf("%s: untyped error %v", c["hash_key"], err)
			}
		case err == nil:
			if data, _ := got[i].text(t); data != pt {
				t.Errorf("%s: php read %q, Go %q", c["hash_key"], data, pt)
			}
		}
		// PHP accepting a value that Go refuses is allowed: PHP hands back
		// any bytes, Go insists on UTF-8.
	}
	if agreedRefusals < len(in)/2 {
		t.Errorf("only %d of %d damaged values were refused by both", agreedRefusals, len(in))
	}
}

// TestCrossCheckTransactionsLayout: getTransactions' hash_key (the
// integration document §11.12) is made with the merchant_key as its
// password, not the app_secret; PHP and Go read each other's, keyed so,
// for the document's own request (a daily listing of 2021-02-10, no other
// filter) and one with every filter.
func TestCrossCheckTransactionsLayout(t *testing.T) {
	l, ok := hashkey.LookupLayout("transactions")
	if !ok || l.Key != hashkey.KeyMerchantKey {
		t.Fatalf("layout transactions = %+v, %v; want one keyed by the merchant_key", l, ok)
	}
	// The merchant_key of the document's example request.
	const merchantKey = "$2y$10$w/ODdbTmfubcbUCUq/ia3OoJFMUmkM1UVNBiIQIuLfUlPmaLUT1he"
	var plaintexts []string
	for _, values := range []map[string]string{
		{"date": "2021-02-10", "invoice_id": "", "currency_id": "", "payment_method_id": "", "min_amount": "", "max_amount": "", "transaction_state": ""},
		{"date": "2021-02-10 21:00:00", "invoice_id": "3905388578454743445487", "currency_id": "1", "payment_method_id": "3",
			"min_amount": "10", "max_amount": "250.50", "transaction_state": "11"},
	} {
		p, err := l.Plaintext(values)
		if err != nil {
			t.Fatal(err)
		}
		plaintexts = append(plaintexts, p)
	}
	if plaintexts[0] != "2021-02-10||||||" {
		t.Fatalf("plaintext of the document's request = %q", plaintexts[0])
	}
	var goMade, phpAsk []map[string]string
	for _, p := range plaintexts {
		hk, err := hashkey.Generate(merchantKey, p)
		if err != nil {
			t.Fatal(err)
		}
		goMade = append(goMade, map[string]string{"app_secret": merchantKey, "hash_key": hk})
		phpAsk = append(phpAsk, map[string]string{"app_secret": merchantKey, "data": p})
	}
	for i, got := range runCrossCheck[phpChecked](t, "check", goMade) {
		if data, _ := got.text(t); !got.OK || data != plaintexts[i] {
			t.Errorf("php opened Go's %s as %q (ok %v), want %q", goMade[i]["hash_key"], data, got.OK, plaintexts[i])
		}
	}
	for i, got := range runCrossCheck[phpMade](t, "make", phpAsk) {
		if pt, err := hashkey.Decrypt(merchantKey, got.HashKey); err != nil || pt != plaintexts[i] {
			t.Errorf("Go opened php's %s as %q, %v; want %q", got.HashKey, pt, err, plaintexts[i])
		}
	}
}
