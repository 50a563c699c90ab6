package hashkey_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/paycli/paycli/internal/hashkey"
)

// FuzzDecrypt feeds Decrypt arbitrary text, as `paycli hash validate` does
// with whatever a user pastes. Decrypt must not panic, must fail only with
// a *DecryptError of one of its two kinds, and what it returns must be
// UTF-8 that encrypts back to itself. The committed seed corpus is in
// testdata/fuzz/FuzzDecrypt.
func FuzzDecrypt(f *testing.F) {
	for _, ka := range knownAnswers {
		f.Add(kaSecret, ka.hashKey)
	}
	f.Add(kaSecret, "")
	f.Add("x", "1234567890123456:abcd:")
	f.Fuzz(func(t *testing.T, secret, hashKey string) {
		pt, err := hashkey.Decrypt(secret, hashKey)
		if err != nil {
			var de *hashkey.DecryptError
			if !errors.As(err, &de) || (de.Sentinel != hashkey.ErrMalformed && de.Sentinel != hashkey.ErrWrongKey) {
				t.Fatalf("Decrypt(%q): unexpected error %#v", hashKey, err)
			}
			return
		}
		if !utf8.ValidString(pt) {
			t.Fatalf("Decrypt(%q) returned invalid UTF-8", hashKey)
		}
		parts := strings.Split(strings.ReplaceAll(strings.TrimSpace(hashKey), "__", "/"), ":")
		again, err := hashkey.GenerateWith(secret, pt, parts[0], parts[1])
		if err != nil {
			return // iv or salt not in the gateway's form; Decrypt accepts them anyway
		}
		if back, err := hashkey.Decrypt(secret, again); err != nil || back != pt {
			t.Fatalf("re-encrypted %q decrypts to %q, %v", pt, back, err)
		}
	})
}

// FuzzRoundTrip checks that every plaintext survives Generate and Decrypt,
// whatever the secret and the randomness.
func FuzzRoundTrip(f *testing.F) {
	f.Add("app_secret", "100.00|1|TRY|test_merchant_key|INV-001", []byte("0123456789"))
	f.Add("ş", "Şükrü Çağlar|İŞLEM-1", []byte{0xff, 0, 0xff, 0, 0xff, 0, 0xff, 0, 0xff, 0})
	f.Add("", "", []byte("ten bytes!"))
	f.Add("k", "a/b//c|d__e|", []byte("//////////"))
	f.Fuzz(func(t *testing.T, secret, plaintext string, random []byte) {
		random = append(random, make([]byte, 10)...) // GenerateFrom needs ten bytes
		hk, err := hashkey.GenerateFrom(bytes.NewReader(random), secret, plaintext)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(hk, "/") || strings.Count(hk, ":") != 2 {
			t.Fatalf("hash_key %q: want iv:salt:ciphertext without '/'", hk)
		}
		got, err := hashkey.Decrypt(secret, hk)
		if !utf8.ValidString(plaintext) {
			if !errors.Is(err, hashkey.ErrWrongKey) {
				t.Fatalf("non-UTF-8 plaintext: Decrypt gave %q, %v; want ErrWrongKey", got, err)
			}
			return
		}
		// Decrypt trims the hash_key, never the plaintext inside it.
		if err != nil || got != plaintext {
			t.Fatalf("round trip of %q gave %q, %v", plaintext, got, err)
		}
	})
}

func BenchmarkGenerate(b *testing.B) {
	const pt = "100.00|1|TRY|test_merchant_key|INV-001"
	b.ReportAllocs()
	for b.Loop() {
		if _, err := hashkey.Generate(kaSecret, pt); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecrypt(b *testing.B) {
	hk := knownAnswers[0].hashKey
	b.ReportAllocs()
	for b.Loop() {
		if _, err := hashkey.Decrypt(kaSecret, hk); err != nil {
			b.Fatal(err)
		}
	}
}
