package hashkey_test

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/paycli/paycli/internal/hashkey"
)

// The cross-check runs the gateway's own reference code (testdata/reference.php)
// on many random cases, in both directions. It needs php-cli with the
// openssl extension; .ci/tools.sh installs it where apt-get is available.

// runReference feeds JSON Lines to `php testdata/reference.php mode` and
// returns one decoded answer per case.
func runReference[Out any](t *testing.T, mode string, cases []map[string]string) []Out {
	t.Helper()
	php, err := exec.LookPath("php")
	if err != nil {
		t.Skip("php is not on PATH: skipping the cross-check against the gateway's reference PHP code (install php-cli to run it)")
	}
	if err := exec.CommandContext(t.Context(), php, "-r", `exit(function_exists("openssl_encrypt") ? 0 : 1);`).Run(); err != nil {
		t.Skip("php has no openssl extension: skipping the cross-check against the gateway's reference PHP code")
	}
	var in bytes.Buffer
	enc := json.NewEncoder(&in)
	for _, c := range cases {
		if err := enc.Encode(c); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.CommandContext(t.Context(), php, "testdata/reference.php", mode)
	cmd.Stdin = &in
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("php reference.php %s: %v\n%s", mode, err, stderr.String())
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

type phpValidated struct {
	OK        bool     `json:"ok"`
	DataB64   string   `json:"data_b64"`
	FieldsB64 []string `json:"fields_b64"`
}

func (v phpValidated) text(t *testing.T) (string, []string) {
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

type referenceCase struct{ secret, plaintext string }

func referenceCases() []referenceCase {
	r := rand.New(rand.NewPCG(11, 12))
	cases := []referenceCase{
		{"app_secret", ""},
		{"app_secret", "|"},
		{"app_secret", "Şükrü Çağlar|İŞLEM-1"},
		{"app_secret", strings.Repeat("çok uzun/|", 3000)},
	}
	for range 400 {
		cases = append(cases, referenceCase{randomSecret(r), randomPlaintext(r)})
	}
	return cases
}

// TestReferenceSameBytes: with the same iv and salt, Go and PHP make the
// same hash_key, byte for byte.
func TestReferenceSameBytes(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	cases := referenceCases()
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
	got := runReference[struct {
		HashKey string `json:"hash_key"`
	}](t, "generate", in)
	for i := range cases {
		if got[i].HashKey != want[i] {
			t.Errorf("secret %q plaintext %q:\n php %s\n  go %s", cases[i].secret, cases[i].plaintext, got[i].HashKey, want[i])
		}
	}
}

// TestReferenceDecryptsGo: PHP's validateHashKey reads what Go's Generate
// makes (random iv and salt from crypto/rand).
func TestReferenceDecryptsGo(t *testing.T) {
	cases := referenceCases()
	var in []map[string]string
	for _, c := range cases {
		hk, err := hashkey.Generate(c.secret, c.plaintext)
		if err != nil {
			t.Fatal(err)
		}
		in = append(in, map[string]string{"app_secret": c.secret, "hash_key": hk})
	}
	got := runReference[phpValidated](t, "validate", in)
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

// TestGoDecryptsReference: Go's Decrypt reads what PHP's generateHashKey
// makes with its own mt_rand iv and salt.
func TestGoDecryptsReference(t *testing.T) {
	cases := referenceCases()
	var in []map[string]string
	for _, c := range cases {
		in = append(in, map[string]string{"app_secret": c.secret, "data": c.plaintext})
	}
	got := runReference[struct {
		HashKey string `json:"hash_key"`
	}](t, "generate", in)
	for i, c := range cases {
		pt, err := hashkey.Decrypt(c.secret, got[i].HashKey)
		if err != nil || pt != c.plaintext {
			t.Errorf("php's %s (secret %q): Go decrypted %q, %v; want %q", got[i].HashKey, c.secret, pt, err, c.plaintext)
		}
	}
}

// TestReferenceAgreesOnDamage: for damaged values and wrong secrets, when
// PHP refuses a value Go refuses it too, and when Go accepts one PHP reads
// the same text.
func TestReferenceAgreesOnDamage(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 16))
	var in []map[string]string
	for _, c := range referenceCases() {
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
	got := runReference[phpValidated](t, "validate", in)
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
