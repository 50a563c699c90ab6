package hashkey_test

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/paycli/paycli/internal/hashkey"
)

// knownAnswers are the vectors of docs/hash-keys.md, computed with the gateway's
// reference PHP code (app_secret "app_secret").
var knownAnswers = []struct {
	iv, salt, plaintext, hashKey string
}{
	{"1234567890123456", "abcd", "100.00|1|TRY|test_merchant_key|INV-001", "1234567890123456:abcd:GkZzGukgzQ+ALi__py__dJME3Hn8I__odhD__n9JxjOyBvj5Ilu4S__PTudv6AH0__7yJL"},
	{"abcdef0123456789", "0f1e", "1|100.00|INV-001|VP17000000000000001|TRY", "abcdef0123456789:0f1e:rlmFmMUzLyfVb54RwWFByDiKz3dlh1F5PpXHpW+zgCxEzqQWIHFOM4j9i7c8IKyN"},
	{"abcdef0123456789", "0f1e", "merchant_key_x|INV-001", "abcdef0123456789:0f1e:v8v1R7rhFm2DJIFgtQEJSMF7mqUSUjFi9gmf3EQjIVc="},
	{"abcdef0123456789", "0f1e", "10.5|INV-001|merchant_key_x", "abcdef0123456789:0f1e:dyob2GUOqwy3CaXpBdQwI7VIGIAgAbLvEQ1QraI__aGI="},
	{"0123456789abcdef", "9a9a", "Şükrü Çağlar|İŞLEM-1", "0123456789abcdef:9a9a:UCLBlWjRCajYl7rN0NxGsn+LBRuep91JiNWdLAdGuto="},
}

const kaSecret = "app_secret"

func TestGenerateWithKnownAnswers(t *testing.T) {
	for _, ka := range knownAnswers {
		t.Run(ka.plaintext, func(t *testing.T) {
			got, err := hashkey.GenerateWith(kaSecret, ka.plaintext, ka.iv, ka.salt)
			if err != nil {
				t.Fatal(err)
			}
			if got != ka.hashKey {
				t.Errorf("GenerateWith = %s\nwant          %s", got, ka.hashKey)
			}
		})
	}
}

func TestDecryptKnownAnswers(t *testing.T) {
	for _, ka := range knownAnswers {
		t.Run(ka.plaintext, func(t *testing.T) {
			got, err := hashkey.Decrypt(kaSecret, ka.hashKey)
			if err != nil {
				t.Fatal(err)
			}
			if got != ka.plaintext {
				t.Errorf("Decrypt = %q, want %q", got, ka.plaintext)
			}
			// Pasted values often carry a newline or blanks around them.
			if got, err := hashkey.Decrypt(kaSecret, " "+ka.hashKey+"\n"); err != nil || got != ka.plaintext {
				t.Errorf("Decrypt with surrounding space = %q, %v", got, err)
			}
		})
	}
}

// TestKnownAnswersAreReallySlashed guards the "/" → "__" rule itself: the
// first vector's ciphertext holds several "/", all of which must go.
func TestKnownAnswersAreReallySlashed(t *testing.T) {
	got, err := hashkey.GenerateWith(kaSecret, knownAnswers[0].plaintext, knownAnswers[0].iv, knownAnswers[0].salt)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(got, "/") || strings.Count(got, "__") < 2 {
		t.Errorf("hash_key %s: want every '/' replaced by '__'", got)
	}
}

// TestGenerateMatchesSpecByHand recomputes §6.6 step by step with the
// standard library and no shared code, for random inputs.
func TestGenerateMatchesSpecByHand(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 200 {
		secret, plaintext := randomSecret(r), randomPlaintext(r)
		iv, salt := randomHex(r, 16), randomHex(r, 4)

		p := sha1.Sum([]byte(secret))
		k := sha256.Sum256([]byte(hex.EncodeToString(p[:]) + salt))
		key := []byte(hex.EncodeToString(k[:])[:32])
		block, _ := aes.NewCipher(key)
		n := aes.BlockSize - len(plaintext)%aes.BlockSize
		padded := append([]byte(plaintext), bytes.Repeat([]byte{byte(n)}, n)...)
		cipher.NewCBCEncrypter(block, []byte(iv)).CryptBlocks(padded, padded)
		want := strings.ReplaceAll(iv+":"+salt+":"+base64.StdEncoding.EncodeToString(padded), "/", "__")

		got, err := hashkey.GenerateWith(secret, plaintext, iv, salt)
		if err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Fatalf("secret %q plaintext %q: got %s, want %s", secret, plaintext, got, want)
		}
	}
}

func TestRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	fixed := []string{
		"",
		"|",
		"||||",
		"a||b|",
		"Şükrü Çağlar|İŞLEM-1|ğüşıöç ĞÜŞİÖÇ",
		"a/b//c///d|e__f|g_h",
		"x:y:z|iv:salt:ct",
		strings.Repeat("uzun değer/|", 5000),
		"exactly16bytes!!",
		"\x00\x01\t\n",
	}
	var plaintexts []string
	plaintexts = append(plaintexts, fixed...)
	for range 500 {
		plaintexts = append(plaintexts, randomPlaintext(r))
	}
	for i, pt := range plaintexts {
		secret := kaSecret
		if i >= len(fixed) {
			secret = randomSecret(r)
		}
		hk, err := hashkey.GenerateFrom(randReader{r}, secret, pt)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(hk, "/") {
			t.Fatalf("hash_key %q still holds '/'", hk)
		}
		got, err := hashkey.Decrypt(secret, hk)
		if err != nil {
			t.Fatalf("plaintext %q secret %q: %v", pt, secret, err)
		}
		if got != pt {
			t.Fatalf("round trip of %q gave %q", pt, got)
		}
		if fields := hashkey.Split(got); hashkey.Join(fields...) != pt {
			t.Fatalf("Split/Join of %q do not round-trip: %q", pt, fields)
		}
	}
}

// randReader reads from a math/rand source, so tests are reproducible.
type randReader struct{ r *rand.Rand }

func (rr randReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(rr.r.Uint32())
	}
	return len(p), nil
}

var hashKeyShape = regexp.MustCompile(`^[0-9a-f]{16}:[0-9a-f]{4}:[A-Za-z0-9+_=]+$`)

func TestGenerateFromUsesTheReader(t *testing.T) {
	// Ten bytes: eight make the iv, two the salt, as lowercase hex.
	src := []byte{0xDE, 0xAD, 0xBE, 0xEF, 0x01, 0x23, 0x45, 0x67, 0x89, 0xAB, 0xFF}
	hk, err := hashkey.GenerateFrom(bytes.NewReader(src), kaSecret, "a|b")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(hk, "deadbeef01234567:89ab:") {
		t.Errorf("hash_key %s: want iv deadbeef01234567 and salt 89ab from the reader", hk)
	}
	want, _ := hashkey.GenerateWith(kaSecret, "a|b", "deadbeef01234567", "89ab")
	if hk != want {
		t.Errorf("GenerateFrom = %s, GenerateWith = %s", hk, want)
	}

	// A reader that runs dry is an error, not a weak key.
	if _, err := hashkey.GenerateFrom(bytes.NewReader(src[:9]), kaSecret, "a"); err == nil {
		t.Error("GenerateFrom with 9 random bytes: want an error")
	}

	// Different randomness, different values; always the gateway's shape.
	r := randReader{rand.New(rand.NewPCG(5, 6))}
	seen := map[string]bool{}
	for range 100 {
		hk, err := hashkey.GenerateFrom(r, kaSecret, "a|b")
		if err != nil {
			t.Fatal(err)
		}
		if !hashKeyShape.MatchString(hk) {
			t.Fatalf("hash_key %q is not iv:salt:base64 in lowercase hex", hk)
		}
		if seen[hk[:21]] {
			t.Fatalf("iv and salt %s repeated", hk[:21])
		}
		seen[hk[:21]] = true
	}
}

func TestGenerateUsesCryptoRand(t *testing.T) {
	a, err := hashkey.Generate(kaSecret, "a|b")
	if err != nil {
		t.Fatal(err)
	}
	b, err := hashkey.Generate(kaSecret, "a|b")
	if err != nil {
		t.Fatal(err)
	}
	if !hashKeyShape.MatchString(a) || !hashKeyShape.MatchString(b) {
		t.Fatalf("hash_keys %q, %q: not in the gateway's shape", a, b)
	}
	if a[:21] == b[:21] {
		t.Errorf("two calls chose the same iv and salt %s", a[:21])
	}
}

func TestGenerateWithRejectsBadIVAndSalt(t *testing.T) {
	for _, c := range []struct{ iv, salt string }{
		{"123456789012345", "abcd"},   // iv too short
		{"12345678901234567", "abcd"}, // iv too long
		{"ABCDEF0123456789", "abcd"},  // uppercase is not what the gateway makes
		{"12345678:0123456", "abcd"},  // would split apart
		{"1234567890123456", "abc"},   // salt too short
		{"1234567890123456", "ab:d"},  // would split apart
		{"1234567890123456", "ab_d"},  // "__" could appear
		{"1234567890123456", "abcde"}, // salt too long
		{"1234567890123456", ""},      // empty salt
		{"çalışma12345678", "abcd"},   // not hex
	} {
		if _, err := hashkey.GenerateWith(kaSecret, "x", c.iv, c.salt); err == nil {
			t.Errorf("GenerateWith(iv %q, salt %q): want an error", c.iv, c.salt)
		}
	}
}

// encryptRaw encrypts already padded bytes the way the gateway would, so
// tests can build values with bad padding or a non-UTF-8 plaintext.
func encryptRaw(t *testing.T, secret, iv, salt string, padded []byte) string {
	t.Helper()
	p := sha1.Sum([]byte(secret))
	k := sha256.Sum256([]byte(hex.EncodeToString(p[:]) + salt))
	block, err := aes.NewCipher([]byte(hex.EncodeToString(k[:])[:32]))
	if err != nil {
		t.Fatal(err)
	}
	ct := make([]byte, len(padded))
	cipher.NewCBCEncrypter(block, []byte(iv)).CryptBlocks(ct, padded)
	return strings.ReplaceAll(iv+":"+salt+":"+base64.StdEncoding.EncodeToString(ct), "/", "__")
}

func TestDecryptErrors(t *testing.T) {
	const iv, salt = "1234567890123456", "abcd"
	good := knownAnswers[0].hashKey
	const secret = "Gizli-Anahtar-42"
	badPadding := encryptRaw(t, secret, iv, salt, []byte("0123456789abcde\x00"))
	padTooLong := encryptRaw(t, secret, iv, salt, []byte("0123456789abcde\x11"))
	mixedPad := encryptRaw(t, secret, iv, salt, []byte("0123456789abc\x02\x03\x03"))
	notUTF8 := encryptRaw(t, secret, iv, salt, []byte("ok|\xff\xfe|x\x09\x09\x09\x09\x09\x09\x09\x09\x09"))

	tests := []struct {
		name    string
		secret  string
		hashKey string
		kind    error
		reason  string
	}{
		{"empty", kaSecret, "", hashkey.ErrMalformed, "found 1 part"},
		{"one part", kaSecret, "hello", hashkey.ErrMalformed, "found 1 part"},
		{"two parts", kaSecret, "1234567890123456:abcd", hashkey.ErrMalformed, "found 2 part"},
		{"iv too short", kaSecret, "123:abcd:" + strings.SplitN(good, ":", 3)[2], hashkey.ErrMalformed, "iv must be 16"},
		{"iv too long", kaSecret, "12345678901234567:abcd:AAAAAAAAAAAAAAAAAAAAAA==", hashkey.ErrMalformed, "iv must be 16"},
		{"not base64", kaSecret, "1234567890123456:abcd:not*base64!", hashkey.ErrMalformed, "not base64"},
		{"plus lost to URL decoding", kaSecret, strings.ReplaceAll(knownAnswers[4].hashKey, "+", " "), hashkey.ErrMalformed, "'+' lost to URL decoding"},
		{"single underscore", kaSecret, "1234567890123456:abcd:AAAA_AAAAAAAAAAAAAAAAA==", hashkey.ErrMalformed, "not base64"},
		{"empty ciphertext", kaSecret, "1234567890123456:abcd:", hashkey.ErrMalformed, "0 bytes"},
		{"partial block", kaSecret, "1234567890123456:abcd:AAAAAAAA", hashkey.ErrMalformed, "6 bytes"},
		{"bad padding (zero)", secret, badPadding, hashkey.ErrWrongKey, "bad padding"},
		{"bad padding (too long)", secret, padTooLong, hashkey.ErrWrongKey, "bad padding"},
		{"bad padding (mixed)", secret, mixedPad, hashkey.ErrWrongKey, "bad padding"},
		{"not UTF-8", secret, notUTF8, hashkey.ErrWrongKey, "not UTF-8"},
		{"wrong secret", "not_the_app_secret", good, hashkey.ErrWrongKey, ""},
		{"wrong salt", kaSecret, strings.Replace(good, ":abcd:", ":abce:", 1), hashkey.ErrWrongKey, ""},
		{"slash not restored", kaSecret, strings.ReplaceAll(good, "__", "_"), hashkey.ErrMalformed, "not base64"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pt, err := hashkey.Decrypt(tt.secret, tt.hashKey)
			if err == nil {
				t.Fatalf("Decrypt(%q) = %q, want an error", tt.hashKey, pt)
			}
			if !errors.Is(err, tt.kind) {
				t.Errorf("error %q: want errors.Is %v", err, tt.kind)
			}
			other := hashkey.ErrWrongKey
			if tt.kind == hashkey.ErrWrongKey {
				other = hashkey.ErrMalformed
			}
			if errors.Is(err, other) {
				t.Errorf("error %q is also %v", err, other)
			}
			var de *hashkey.DecryptError
			if !errors.As(err, &de) {
				t.Fatalf("error %T is not a *DecryptError", err)
			}
			if !strings.HasPrefix(err.Error(), tt.kind.Error()+": ") || !strings.Contains(de.Reason, tt.reason) {
				t.Errorf("error %q: want %q with reason containing %q", err, tt.kind, tt.reason)
			}
			// ("app_secret" itself is a word of the message.)
			if tt.secret != kaSecret && strings.Contains(err.Error(), tt.secret) {
				t.Errorf("error %q holds the app_secret", err)
			}
		})
	}
}

// TestDecryptIgnoresExtraParts follows the gateway, which reads the first
// three parts of the value split on ":" and ignores the rest.
func TestDecryptIgnoresExtraParts(t *testing.T) {
	ka := knownAnswers[2]
	got, err := hashkey.Decrypt(kaSecret, ka.hashKey+":extra:parts")
	if err != nil || got != ka.plaintext {
		t.Errorf("Decrypt with extra parts = %q, %v; want %q", got, err, ka.plaintext)
	}
}

// TestWrongSecretsAreRejected decrypts with many random wrong secrets. A
// wrong key can, rarely, yield valid padding and UTF-8 by chance; the
// test allows for that but not for a wrong secret that gives back the
// plaintext.
func TestWrongSecretsAreRejected(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	const n = 2000
	passed := 0
	for range n {
		secret := randomSecret(r)
		pt := randomPlaintext(r)
		hk, err := hashkey.GenerateFrom(randReader{r}, secret, pt)
		if err != nil {
			t.Fatal(err)
		}
		got, err := hashkey.Decrypt(secret+"x", hk)
		switch {
		case err == nil && got == pt:
			t.Fatalf("a wrong secret decrypted %q", pt)
		case err == nil:
			passed++
		case !errors.Is(err, hashkey.ErrWrongKey):
			t.Fatalf("wrong secret: error %v, want ErrWrongKey", err)
		}
	}
	// Valid padding by chance is about 1 in 256 per value; valid UTF-8 on
	// top of it rarer still. 2% would mean the checks are not working.
	if passed > n/50 {
		t.Errorf("%d of %d wrong secrets decrypted without error", passed, n)
	}
}

func TestDecryptNeverReturnsInvalidUTF8(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for range 2000 {
		ct := make([]byte, 16*(1+r.IntN(4)))
		for i := range ct {
			ct[i] = byte(r.Uint32())
		}
		hk := randomHex(r, 16) + ":" + randomHex(r, 4) + ":" + strings.ReplaceAll(base64.StdEncoding.EncodeToString(ct), "/", "__")
		pt, err := hashkey.Decrypt(kaSecret, hk)
		if err == nil && !utf8.ValidString(pt) {
			t.Fatalf("Decrypt(%q) returned invalid UTF-8 %q", hk, pt)
		}
		if err != nil && !errors.Is(err, hashkey.ErrWrongKey) {
			t.Fatalf("Decrypt(%q): %v; want ErrWrongKey for a well-shaped value", hk, err)
		}
	}
}
