package iostreams

import (
	"strings"
	"unicode/utf8"
)

// Wrap breaks each line of text into lines no wider than width columns,
// at blanks only: a word is never cut, so a card number, a URL or an
// amount stays whole, and a word wider than width stands on a line of its
// own. A 'quoted command' is kept on one line when it fits. A line's
// indentation is kept, and its further lines are indented the same. The
// line breaks text already has are kept; width <= 0 leaves text as it is.
// It is paycli's one wrapping of prose (help, errors, prompts); tables
// fit their cells to columns with render's own rules.
func Wrap(text string, width int) string {
	if width <= 0 {
		return text
	}
	lines := strings.Split(text, "\n")
	for i, line := range lines {
		lines[i] = wrapLine(line, width)
	}
	return strings.Join(lines, "\n")
}

// Hanging wraps text to width after first, its further lines indented by
// first's width: "  2    bad input …" with the text's lines under "bad".
func Hanging(first, text string, width int) string {
	indent := strings.Repeat(" ", utf8.RuneCountInString(first))
	wrapped := Wrap(indent+strings.Join(strings.Fields(text), " "), width)
	return first + strings.TrimPrefix(wrapped, indent)
}

func wrapLine(line string, width int) string {
	if utf8.RuneCountInString(line) <= width {
		return line
	}
	indent := line[:len(line)-len(strings.TrimLeft(line, " "))]
	// A suggested command (": paycli …" to the end of the line) goes on a
	// line of its own, whole, so that it pastes as one command.
	if i := strings.Index(line, ": paycli "); i > len(indent) {
		return wrapLine(line[:i+1], width) + "\n" + indent + "  " + line[i+2:]
	}
	room := width - len(indent)
	var out []string
	cur := ""
	for _, w := range quotedWords(line, room) {
		switch {
		case cur == "":
			cur = w
		case utf8.RuneCountInString(cur)+1+utf8.RuneCountInString(w) <= room:
			cur += " " + w
		default:
			out, cur = append(out, indent+cur), w
		}
	}
	out = append(out, indent+cur)
	return strings.Join(out, "\n")
}

// quotedWords splits text at its blanks, keeping 'a quoted command' one
// word as long as it is no wider than room.
func quotedWords(text string, room int) []string {
	var out []string
	var quoted []string // the words of an open quotation
	closes := func(w string) bool { return strings.HasSuffix(strings.TrimRight(w, ".,;:?!)"), "'") }
	flush := func() {
		if joined := strings.Join(quoted, " "); utf8.RuneCountInString(joined) <= room {
			out = append(out, joined)
		} else {
			out = append(out, quoted...)
		}
		quoted = nil
	}
	for _, w := range strings.Fields(text) {
		switch {
		case quoted != nil:
			quoted = append(quoted, w)
			if closes(w) {
				flush()
			}
		case strings.HasPrefix(strings.TrimLeft(w, "("), "'") && !closes(strings.TrimLeft(w, "(")[1:]):
			quoted = []string{w}
		default:
			out = append(out, w)
		}
	}
	if quoted != nil {
		flush()
	}
	return out
}
