// Package hashkey makes and checks the gateway's hash_key values,
// byte-compatible with the gateway's own (docs/protocol.md, hash_key):
//
//	iv       = 16 random lowercase hex characters, used as 16 raw ASCII bytes
//	salt     = 4 random lowercase hex characters
//	password = hex(sha1(app_secret))
//	key      = first 32 characters of hex(sha256(password + salt)), as ASCII bytes
//	hash_key = iv ":" salt ":" base64(AES-256-CBC(PKCS#7(plaintext)))
//	           with every "/" replaced by "__"
//
// The plaintext is a layout's fields joined by "|" (see Layouts).
package hashkey

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// Sizes of the random parts, in characters.
const (
	ivLen   = 16
	saltLen = 4
)

// Error kinds returned by Decrypt; test with errors.Is.
var (
	// ErrMalformed: the text is not shaped like a hash_key at all.
	ErrMalformed = errors.New("not a hash_key")
	// ErrWrongKey: the shape is right but it does not decrypt, which means
	// the app_secret is wrong or the hash_key was damaged.
	ErrWrongKey = errors.New("wrong app_secret or damaged hash_key")
)

// DecryptError explains why a hash_key did not decrypt. Its message never
// holds the app_secret or the plaintext.
type DecryptError struct {
	Sentinel error // ErrMalformed or ErrWrongKey
	Reason   string
}

func (e *DecryptError) Error() string { return e.Sentinel.Error() + ": " + e.Reason }
func (e *DecryptError) Unwrap() error { return e.Sentinel }

func malformed(format string, args ...any) error {
	return &DecryptError{Sentinel: ErrMalformed, Reason: fmt.Sprintf(format, args...)}
}

func wrongKey(reason string) error { return &DecryptError{Sentinel: ErrWrongKey, Reason: reason} }

// Generate makes a hash_key for plaintext with a random iv and salt.
func Generate(appSecret, plaintext string) (string, error) {
	return GenerateFrom(rand.Reader, appSecret, plaintext)
}

// GenerateFrom is Generate with the randomness taken from r.
func GenerateFrom(r io.Reader, appSecret, plaintext string) (string, error) {
	var raw [(ivLen + saltLen) / 2]byte
	if _, err := io.ReadFull(r, raw[:]); err != nil {
		return "", fmt.Errorf("reading randomness: %w", err)
	}
	hexed := hex.EncodeToString(raw[:])
	return GenerateWith(appSecret, plaintext, hexed[:ivLen], hexed[ivLen:])
}

// GenerateWith makes a hash_key with the given iv and salt, which must be
// what the gateway itself would choose: 16 and 4 lowercase hex characters.
// (Anything else could hold ":" or "_" and make a value that does not
// split back apart.) It exists for known-answer tests and for reproducing
// a value seen elsewhere; its only errors are about iv and salt.
func GenerateWith(appSecret, plaintext, iv, salt string) (string, error) {
	if !isLowerHex(iv, ivLen) {
		return "", fmt.Errorf("iv must be %d lowercase hex characters, got %q", ivLen, iv)
	}
	if !isLowerHex(salt, saltLen) {
		return "", fmt.Errorf("salt must be %d lowercase hex characters, got %q", saltLen, salt)
	}
	block, err := aes.NewCipher(deriveKey(appSecret, salt))
	if err != nil {
		return "", err
	}
	padded := pad([]byte(plaintext), aes.BlockSize)
	ct := make([]byte, len(padded))
	cipher.NewCBCEncrypter(block, []byte(iv)).CryptBlocks(ct, padded)
	enc := base64.StdEncoding.EncodeToString(ct)
	return strings.ReplaceAll(iv+":"+salt+":"+enc, "/", "__"), nil
}

// Decrypt returns the plaintext of a hash_key, as the gateway reads it
// (docs/protocol.md, hash_key, Checking one): every "__" becomes "/", the
// text is split on ":", and the first three parts are iv, salt and
// ciphertext (further parts are ignored, as the gateway ignores them).
// Surrounding white space is dropped.
//
// It never panics. Every failure is a *DecryptError: ErrMalformed when the
// text is not shaped like a hash_key (fewer than three parts, an iv that is
// not 16 characters, a ciphertext that is not base64 or not whole AES
// blocks), ErrWrongKey when it is shaped right but does not decrypt (bad
// padding, or a plaintext that is not UTF-8) — which means the app_secret
// is wrong or the value was damaged. A wrong app_secret goes unnoticed
// only when the garbage it yields happens to be padded and valid UTF-8,
// which is rare (well under 1 in 256) but possible; callers that know the
// layout should also check the field count.
func Decrypt(appSecret, hashKey string) (string, error) {
	s := strings.ReplaceAll(strings.TrimSpace(hashKey), "__", "/")
	parts := strings.Split(s, ":")
	if len(parts) < 3 {
		return "", malformed("expected iv:salt:ciphertext, found %d part(s)", len(parts))
	}
	iv, salt, enc := parts[0], parts[1], parts[2]
	if len(iv) != ivLen {
		return "", malformed("iv must be %d characters, found %d", ivLen, len(iv))
	}
	ct, err := base64.StdEncoding.DecodeString(enc)
	if err != nil {
		if strings.Contains(enc, " ") {
			// A hash_key pasted from a URL or form body often had its
			// "+" decoded to a space on the way.
			return "", malformed("ciphertext is not base64: it holds a space (was a '+' lost to URL decoding?)")
		}
		return "", malformed("ciphertext is not base64")
	}
	if len(ct) == 0 || len(ct)%aes.BlockSize != 0 {
		return "", malformed("ciphertext is %d bytes, not a positive multiple of %d", len(ct), aes.BlockSize)
	}
	block, err := aes.NewCipher(deriveKey(appSecret, salt))
	if err != nil {
		return "", err
	}
	pt := make([]byte, len(ct))
	cipher.NewCBCDecrypter(block, []byte(iv)).CryptBlocks(pt, ct)
	pt, ok := unpad(pt, aes.BlockSize)
	if !ok {
		return "", wrongKey("bad padding after decryption")
	}
	if !utf8.Valid(pt) {
		return "", wrongKey("decrypted text is not UTF-8")
	}
	return string(pt), nil
}

func isLowerHex(s string, n int) bool {
	if len(s) != n {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// deriveKey returns the 32 ASCII bytes used as the AES-256 key.
func deriveKey(appSecret, salt string) []byte {
	p := sha1.Sum([]byte(appSecret))
	password := hex.EncodeToString(p[:])
	k := sha256.Sum256([]byte(password + salt))
	return []byte(hex.EncodeToString(k[:])[:32])
}

func pad(b []byte, size int) []byte {
	n := size - len(b)%size
	return append(bytes.Clone(b), bytes.Repeat([]byte{byte(n)}, n)...)
}

func unpad(b []byte, size int) ([]byte, bool) {
	if len(b) == 0 {
		return nil, false
	}
	n := int(b[len(b)-1])
	if n == 0 || n > size || n > len(b) {
		return nil, false
	}
	for _, c := range b[len(b)-n:] {
		if int(c) != n {
			return nil, false
		}
	}
	return b[:len(b)-n], true
}

// Split returns a plaintext's fields.
func Split(plaintext string) []string { return strings.Split(plaintext, "|") }

// Join makes a plaintext from fields.
func Join(fields ...string) string { return strings.Join(fields, "|") }
