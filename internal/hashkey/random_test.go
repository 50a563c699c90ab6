package hashkey_test

import (
	"math/rand/v2"
	"strings"
)

// Alphabets for random plaintexts: the characters that broke other ports
// (Turkish letters, "/", "|", "_", ":", "+", "=") and some multi-byte ones.
var (
	fieldRunes  = []rune("abcxyzABCXYZ0123456789 .-_/:+=çğıöşüÇĞİÖŞÜ€😀\u00a0")
	secretRunes = []rune("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789$%&*_-/çŞ")
)

// randomPlaintext makes a plaintext of 1–8 fields, some empty, some long,
// some holding "|" themselves.
func randomPlaintext(r *rand.Rand) string {
	fields := make([]string, 1+r.IntN(8))
	for i := range fields {
		var n int
		switch r.IntN(10) {
		case 0:
			n = 0
		case 1:
			n = 500 + r.IntN(4000)
		default:
			n = 1 + r.IntN(24)
		}
		var b strings.Builder
		for range n {
			if r.IntN(40) == 0 {
				b.WriteByte('|')
				continue
			}
			b.WriteRune(fieldRunes[r.IntN(len(fieldRunes))])
		}
		fields[i] = b.String()
	}
	return strings.Join(fields, "|")
}

func randomSecret(r *rand.Rand) string {
	n := 1 + r.IntN(64)
	var b strings.Builder
	for range n {
		b.WriteRune(secretRunes[r.IntN(len(secretRunes))])
	}
	return b.String()
}

func randomHex(r *rand.Rand, n int) string {
	const digits = "0123456789abcdef"
	b := make([]byte, n)
	for i := range b {
		b[i] = digits[r.IntN(16)]
	}
	return string(b)
}
