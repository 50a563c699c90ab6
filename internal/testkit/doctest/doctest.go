// Package doctest reads the examples in paycli's Markdown documentation so a
// test can run them, and matches what they print against what the page
// says they print. The pages stay ordinary Markdown that reads well on
// GitHub; the convention is documented for writers in docs/README.md:
//
//   - A fenced block tagged `console` is a transcript. A line starting with
//     "$ " is a command (a trailing "\" continues it on the next line); the
//     lines after it, up to the next command or the end of the block, are
//     what it prints: stdout and stderr together, as a terminal shows them.
//   - A command must exit 0 unless it ends with a comment "# exit N".
//   - An output line "..." stands for any number of lines (also none); an
//     output line ending in " (re)" is a regular expression for the whole
//     line. Every other line is compared exactly (trailing spaces ignored).
//   - Blocks tagged sh, bash, shell or console with the word "untested" in
//     their info string (```sh untested) are illustrations that are not run.
//     A sh/bash/shell block naming paycli without that word is an error, as
//     is an untagged or text block with a "$ paycli" line, so an example
//     cannot silently escape the test.
//
// This package only parses and matches; the test in internal/app runs the
// commands in process with app.Run.
package doctest

import (
	"bufio"
	"bytes"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Example is one command of a console block with the output the page shows.
type Example struct {
	File string // the page, as given to Parse
	Line int    // 1-based line of the "$ " line
	// Command is the command's text after "$ ", continuation lines joined
	// with a space, without the trailing comment.
	Command  string
	ExitCode int      // from "# exit N"; 0 otherwise
	Want     []string // expected output lines
}

// Where is the example's position as file:line, for failure messages.
func (e Example) Where() string { return fmt.Sprintf("%s:%d", e.File, e.Line) }

// Page is what Parse found in one Markdown file.
type Page struct {
	Examples []Example
	// Untested counts shell blocks marked "untested".
	Untested int
}

var (
	fenceRE    = regexp.MustCompile("^( *)(```+|~~~+)\\s*(.*)$")
	exitRE     = regexp.MustCompile(`^exit (\d+)$`)
	shellLangs = map[string]bool{"sh": true, "bash": true, "shell": true, "zsh": true}
)

// Parse reads the examples of one page. name is used in positions and
// errors. A malformed block (output before any command, an unclosed fence,
// a shell block that names paycli but is neither a transcript nor marked
// untested) is an error naming its line.
func Parse(name string, data []byte) (*Page, error) {
	p := &parser{name: name, page: &Page{}}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for sc.Scan() {
		p.lineNo++
		if err := p.line(sc.Text()); err != nil {
			return nil, err
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	if p.inFence {
		return nil, fmt.Errorf("%s:%d: code block never closed", name, p.fenceLine)
	}
	return p.page, nil
}

// parser is Parse's position in a page, from one line to the next.
type parser struct {
	name      string
	page      *Page
	lineNo    int
	inFence   bool
	fence     string // the opening fence, to find its match
	indent    string // spaces before the opening fence
	fenceLine int
	kind      string // see blockKind
	untested  bool
	cur       *Example
	pending   strings.Builder // a command continued with "\"
	contLine  int
	shellHits int // lines of a shell or plain block that run paycli
}

// line reads one line of the page.
func (p *parser) line(line string) error {
	if !p.inFence {
		if m := fenceRE.FindStringSubmatch(line); m != nil {
			p.inFence, p.indent, p.fence, p.fenceLine = true, m[1], m[2], p.lineNo
			p.kind, p.untested = blockKind(m[3])
			p.shellHits = 0
		}
		return nil
	}
	// A block in a list item is indented; its lines are read without
	// that indentation.
	if t := strings.TrimLeft(line, " "); len(line)-len(t) <= len(p.indent) {
		line = t
	} else {
		line = line[len(p.indent):]
	}
	if strings.HasPrefix(line, p.fence) && strings.TrimSpace(strings.TrimLeft(line, p.fence[:1])) == "" {
		return p.closeFence()
	}
	if p.untested {
		return nil
	}
	switch p.kind {
	case "shell":
		if t := strings.TrimSpace(line); strings.HasPrefix(t, "paycli ") || strings.Contains(t, "$(paycli ") || strings.Contains(t, "| paycli ") {
			p.shellHits++
		}
	case "plain":
		// An untagged or text block may show output that mentions
		// paycli; only a transcript line is an example.
		if strings.HasPrefix(strings.TrimSpace(line), "$ paycli ") {
			p.shellHits++
		}
	case "console":
		return p.consoleLine(line)
	}
	return nil
}

// closeFence ends a block, refusing a shell block that runs paycli
// untested.
func (p *parser) closeFence() error {
	if p.pending.Len() > 0 {
		return fmt.Errorf("%s:%d: command continued with \\ at the end of its block", p.name, p.contLine)
	}
	p.flush()
	switch {
	case p.untested && (p.kind == "console" || p.kind == "shell"):
		p.page.Untested++
	case (p.kind == "shell" || p.kind == "plain") && p.shellHits > 0:
		return fmt.Errorf("%s:%d: a code block runs paycli but is not tested: write it as a ```console transcript (\"$ \" before each command, its output below), or mark it ```sh untested if it cannot run in a test",
			p.name, p.fenceLine)
	}
	p.inFence, p.kind = false, ""
	return nil
}

// consoleLine reads a line of a transcript: a command ("$ ", perhaps
// continued with "\"), or a line of the last command's output.
func (p *parser) consoleLine(line string) error {
	if p.pending.Len() > 0 {
		text, more := strings.CutSuffix(line, "\\")
		p.pending.WriteString(" " + strings.TrimSpace(text))
		if !more {
			if err := finishCommand(p.cur, p.pending.String()); err != nil {
				return fmt.Errorf("%s:%d: %v", p.name, p.cur.Line, err)
			}
			p.pending.Reset()
		}
		return nil
	}
	if cmd, ok := strings.CutPrefix(line, "$ "); ok {
		p.flush()
		p.cur = &Example{File: p.name, Line: p.lineNo}
		if text, more := strings.CutSuffix(cmd, "\\"); more {
			p.pending.WriteString(strings.TrimSpace(text))
			p.contLine = p.lineNo
			return nil
		}
		if err := finishCommand(p.cur, cmd); err != nil {
			return fmt.Errorf("%s:%d: %v", p.name, p.lineNo, err)
		}
		return nil
	}
	if p.cur == nil {
		if strings.TrimSpace(line) == "" {
			return nil
		}
		return fmt.Errorf("%s:%d: output before any command in a console block (commands start with \"$ \")", p.name, p.lineNo)
	}
	p.cur.Want = append(p.cur.Want, line)
	return nil
}

// flush ends the example being read.
func (p *parser) flush() {
	if p.cur != nil {
		p.page.Examples = append(p.page.Examples, *p.cur)
		p.cur = nil
	}
}

// blockKind reads a fence's info string: "console" for a transcript,
// "shell" for sh/bash/shell/zsh, "plain" for an untagged or text block, ""
// for any other language; untested is the word "untested" after the
// language.
func blockKind(info string) (kind string, untested bool) {
	words := strings.Fields(info)
	if len(words) == 0 {
		return "plain", false
	}
	switch {
	case words[0] == "console":
		kind = "console"
	case shellLangs[words[0]]:
		kind = "shell"
	case words[0] == "text":
		kind = "plain"
	}
	return kind, slices.Contains(words[1:], "untested")
}

// finishCommand sets the command text and the expected exit code from its
// trailing "# exit N" comment.
func finishCommand(e *Example, text string) error {
	words, comment, err := Split(text)
	if err != nil {
		return err
	}
	if len(words) == 0 {
		return fmt.Errorf("empty command")
	}
	e.Command = strings.TrimSpace(text)
	if comment != "" {
		if i := strings.LastIndex(e.Command, "#"); i >= 0 {
			e.Command = strings.TrimSpace(e.Command[:i])
		}
		m := exitRE.FindStringSubmatch(strings.TrimSpace(comment))
		if m == nil {
			return fmt.Errorf("comment %q: the only comment a command may carry is \"# exit N\"", comment)
		}
		e.ExitCode, _ = strconv.Atoi(m[1])
	}
	return nil
}

// Split breaks a command line into words the way a POSIX shell would for
// the simple commands the docs use: single quotes keep everything, double
// quotes and backslashes escape, an unquoted "|" or ">" is a word of its own
// (a pipe, a redirection), and an unquoted "#" at the start of a word begins a comment,
// returned without the "#". Variables are not expanded here; words keep
// "$NAME" for the runner, marked by Word.Expand.
func Split(line string) (words []Word, comment string, err error) {
	s := &splitter{line: line}
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == ' ' || c == '\t':
			s.end()
		case c == '#' && !s.inWord:
			return s.words, strings.TrimSpace(line[i+1:]), nil
		case c == '|' || c == '>':
			s.operator(c)
		case c == '\'':
			i, err = s.singleQuoted(i)
		case c == '"':
			i, err = s.doubleQuoted(i)
		case c == '\\' && i+1 < len(line):
			i++
			s.write(escapeDollar(string(line[i])))
		case c == '$':
			s.expand = true
			s.writeByte(c)
		case s.homeTilde(i):
			s.expand = true
			s.write("${HOME}")
		default:
			s.writeByte(c)
		}
		if err != nil {
			return nil, "", err
		}
	}
	s.end()
	return s.words, "", nil
}

// splitter is Split's state: the words so far and the one being read.
type splitter struct {
	line   string
	words  []Word
	cur    strings.Builder
	expand bool // the current word holds a variable
	inWord bool // a word has begun (it may be empty: "")
}

// end closes the current word, if one has begun.
func (s *splitter) end() {
	if s.inWord {
		s.words = append(s.words, Word{Text: s.cur.String(), Expand: s.expand})
	}
	s.cur.Reset()
	s.inWord, s.expand = false, false
}

func (s *splitter) write(text string) {
	s.cur.WriteString(text)
	s.inWord = true
}

func (s *splitter) writeByte(c byte) {
	s.cur.WriteByte(c)
	s.inWord = true
}

// operator is an unquoted "|" (a pipe) or ">" (a redirection): a word of
// its own.
func (s *splitter) operator(c byte) {
	s.end()
	s.words = append(s.words, Word{Text: string(c), Pipe: c == '|', Redirect: c == '>'})
}

// singleQuoted reads the single-quoted text that starts at i, kept as it
// is, and returns the index of its closing quote.
func (s *splitter) singleQuoted(i int) (int, error) {
	j := strings.IndexByte(s.line[i+1:], '\'')
	if j < 0 {
		return i, fmt.Errorf("unterminated ' in %q", s.line)
	}
	s.write(escapeDollar(s.line[i+1 : i+1+j]))
	return i + j + 1, nil
}

// doubleQuoted reads the double-quoted text that starts at i, where a
// backslash escapes " \ $ and `, and returns the index of its closing
// quote.
func (s *splitter) doubleQuoted(i int) (int, error) {
	line := s.line
	s.inWord = true
	for i++; i < len(line) && line[i] != '"'; i++ {
		if line[i] == '\\' && i+1 < len(line) && strings.IndexByte("\"\\$`", line[i+1]) >= 0 {
			i++
			s.cur.WriteString(escapeDollar(string(line[i])))
			continue
		}
		if line[i] == '$' {
			s.expand = true
		}
		s.cur.WriteByte(line[i])
	}
	if i >= len(line) {
		return i, fmt.Errorf("unterminated \" in %q", line)
	}
	return i, nil
}

// homeTilde tells whether the "~" at i stands for $HOME: at the start of
// a word and, as in an assignment (export NAME=~/file), after "=", when
// a "/" or the word's end follows.
func (s *splitter) homeTilde(i int) bool {
	line := s.line
	return line[i] == '~' && (!s.inWord || line[i-1] == '=') &&
		(i+1 == len(line) || strings.IndexByte("/ \t", line[i+1]) >= 0)
}

// escapeDollar protects a quoted or escaped "$" from expansion.
func escapeDollar(s string) string { return strings.ReplaceAll(s, "$", "$$") }

// Word is one word of a command line.
type Word struct {
	Text     string
	Pipe     bool // an unquoted "|"
	Redirect bool // an unquoted ">"
	Expand   bool // holds $NAME or ${NAME} to expand; a literal $ is "$$"
}

var varRE = regexp.MustCompile(`\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)`)

// Value returns the word with its variables replaced by lookup's values (an
// unset variable is empty, as in a shell).
func (w Word) Value(lookup func(string) string) string {
	if !w.Expand {
		return strings.ReplaceAll(w.Text, "$$", "$")
	}
	return varRE.ReplaceAllStringFunc(w.Text, func(m string) string {
		if m == "$$" {
			return "$"
		}
		name := strings.Trim(m, "${}")
		return lookup(name)
	})
}
