package redact

import "strings"

// Secret shows a secret (a key, a token, a hash_key) as paycli shows every
// secret: its first and last four characters, or nothing of it when it has
// twelve characters or fewer, so that a person can tell two apart without
// either being disclosed.
func Secret(s string) string {
	r := []rune(s)
	switch {
	case len(r) == 0:
		return ""
	case len(r) <= 12:
		return strings.Repeat("•", 8)
	}
	return string(r[:4]) + "••••" + string(r[len(r)-4:])
}
