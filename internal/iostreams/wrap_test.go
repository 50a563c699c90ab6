package iostreams

import "testing"

func TestWrap(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		width      int
		want       string
	}{
		{"fits", "Refund 50.00 TRY?", 80, "Refund 50.00 TRY?"},
		{"no width", "a b c", 0, "a b c"},
		{"at blanks", "Refund 50.00 TRY of INV-1 to 435508******4358? [y/N]", 30,
			"Refund 50.00 TRY of INV-1 to\n435508******4358? [y/N]"},
		{"a word wider than the width stands alone, whole", "see http://127.0.0.1:8787/ccpayment now", 10,
			"see\nhttp://127.0.0.1:8787/ccpayment\nnow"},
		{"a quoted command stays whole", "run it with 'paycli status --invoice X' to see", 30,
			"run it with\n'paycli status --invoice X' to\nsee"},
		{"a quoted command wider than the width breaks", "'paycli status --invoice INV-1001'", 20,
			"'paycli status\n--invoice INV-1001'"},
		{"indentation kept", "    one two three four", 14, "    one two\n    three four"},
		{"line breaks kept", "one two\nthree", 80, "one two\nthree"},
	} {
		if got := Wrap(tc.text, tc.width); got != tc.want {
			t.Errorf("%s: Wrap(%q, %d) =\n%s\nwant\n%s", tc.name, tc.text, tc.width, got, tc.want)
		}
	}
}

func TestHanging(t *testing.T) {
	got := Hanging("  2    ", "bad input or configuration; nothing was sent", 30)
	want := "  2    bad input or\n       configuration; nothing\n       was sent"
	if got != want {
		t.Errorf("Hanging =\n%s\nwant\n%s", got, want)
	}
}

func TestWrapForStderrOnlyOnATerminal(t *testing.T) {
	ios, _, _, _ := Test()
	ios.SetErrTerminalWidth(10)
	if got := ios.WrapForStderr("one two three"); got != "one two three" {
		t.Errorf("piped stderr wrapped: %q", got)
	}
	ios.SetStderrTTY(true)
	if got := ios.WrapForStderr("one two three"); got != "one two\nthree" {
		t.Errorf("terminal stderr: %q", got)
	}
}
