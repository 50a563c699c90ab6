package render

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

func checkJSONString(t *testing.T, s string) {
	t.Helper()
	var want bytes.Buffer
	if err := WriteJSONLine(&want, s); err != nil {
		t.Fatal(err)
	}
	got := append(AppendJSONString(nil, s), '\n')
	if !bytes.Equal(got, want.Bytes()) {
		t.Fatalf("AppendJSONString(%q) = %s, encoding/json writes %s", s, got, want.Bytes())
	}
}

func TestAppendJSONString(t *testing.T) {
	for _, s := range []string{
		"", "plain", `"quoted" \ back/slash`, "<b>&amp;</b>", "tab\tnew\nline\rcr\bbs\fff",
		"\x00\x01\x1f\x7f", "Şükrü – 1,017.50 × 6", "中文😀", "\u2028\u2029", "bad \xff\xfe utf8", "cut \xe2\x82",
	} {
		checkJSONString(t, s)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	alphabet := []string{"a", "\"", "\\", "\x00", "\x1f", "\n", "<", "é", "\u2028", "\xff", "\xe2", "😀", " "}
	for range 2000 {
		var b []byte
		for range rng.IntN(8) {
			b = append(b, alphabet[rng.IntN(len(alphabet))]...)
		}
		checkJSONString(t, string(b))
	}
}

func FuzzAppendJSONString(f *testing.F) {
	f.Add("Şükrü \"x\" \u2028 \xff")
	f.Fuzz(func(t *testing.T, s string) { checkJSONString(t, s) })
}
