package iostreams

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

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

// FuzzWrap: whatever the text and width, wrapping loses, cuts and adds no
// word, keeps the text's own line breaks, and leaves no line wider than
// the width unless it holds a single word too wide for it.
func FuzzWrap(f *testing.F) {
	f.Add("error: invalid --amount: 99,999.00 TRY is more than what remains refundable", 20)
	f.Add("  2    bad input, 'paycli status --invoice X' to see\nnext", 12)
	f.Add("    '' ' '' x", 1)
	f.Add("Run it again to settle it: paycli cards delete --customer-number 5070 --yes", 30)
	f.Fuzz(func(t *testing.T, text string, width int) {
		width %= 200
		got := Wrap(text, width)
		if !slices.Equal(strings.Fields(got), strings.Fields(text)) {
			t.Fatalf("Wrap(%q, %d) = %q: the words changed", text, width, got)
		}
		if strings.Count(got, "\n") < strings.Count(text, "\n") {
			t.Fatalf("Wrap(%q, %d) = %q: a line break was lost", text, width, got)
		}
		if width <= 0 {
			return
		}
		for _, line := range strings.Split(got, "\n") {
			// A suggested command is kept whole on a line of its own.
			command := strings.HasPrefix(strings.TrimLeft(line, " "), "paycli ") && strings.Contains(text, ": "+strings.TrimLeft(line, " "))
			if utf8.RuneCountInString(line) > width && len(strings.Fields(line)) > 1 && !slices.Contains(strings.Split(text, "\n"), line) && !command {
				t.Fatalf("Wrap(%q, %d): line %q is wider than %d", text, width, line, width)
			}
		}
	})
}

// TestWarnfAndNotefWrapOnlyOnATerminal: a warning or a note is one line,
// byte for byte, on a pipe (scripts grep it), and broken at blanks to
// the width of stderr's terminal, never inside a word.
func TestWarnfAndNotefWrapOnlyOnATerminal(t *testing.T) {
	ios, _, _, errOut := Test()
	ios.SetErrTerminalWidth(30)
	ios.Warnf("the outcome (%s) could not be written to the journal: %v", "approved", "disk full")
	ios.Notef("Recorded in the journal: %s.", "attempt 7f3a9c approved")
	want := "warning: the outcome (approved) could not be written to the journal: disk full\n" +
		"Recorded in the journal: attempt 7f3a9c approved.\n"
	if got := errOut.String(); got != want {
		t.Errorf("piped stderr:\n%q\nwant\n%q", got, want)
	}
	errOut.Reset()
	ios.SetStderrTTY(true)
	ios.Warnf("the outcome (%s) could not be written to the journal: %v", "approved", "disk full")
	ios.Notef("Recorded in the journal: %s.", "attempt 7f3a9c approved")
	want = "warning: the outcome\n(approved) could not be\nwritten to the journal: disk\nfull\n" +
		"Recorded in the journal:\nattempt 7f3a9c approved.\n"
	if got := errOut.String(); got != want {
		t.Errorf("stderr on a 30-column terminal:\n%s\nwant\n%s", got, want)
	}
}

// TestWrapKeepsASuggestedCommandWhole: "…: paycli …" too long for the line
// puts the command on a line of its own, unbroken, so that it pastes whole.
func TestWrapKeepsASuggestedCommandWhole(t *testing.T) {
	cmd := "paycli cards delete --customer-number 5070 --card-token 0123456789abcdef0123456789abcdef --reason 'KVKK 12' --sandbox --yes"
	got := Wrap("Run the same command again to settle it: "+cmd, 80)
	if got != "Run the same command again to settle it:\n  "+cmd {
		t.Errorf("Wrap:\n%s", got)
	}
	if short := "See it: paycli status --invoice I-1"; Wrap(short, 80) != short {
		t.Errorf("a line that fits changed: %q", Wrap(short, 80))
	}
}
