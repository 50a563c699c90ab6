// Package iostreams owns paycli's standard streams: terminal detection, the
// colour decision (made once, here) and prompts. Commands never touch
// os.Stdin/os.Stdout directly, so tests can drive them with Test().
package iostreams

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"golang.org/x/term"
)

// ErrNoTerminal is returned by prompts when stdin or stdout is not a terminal.
var ErrNoTerminal = errors.New("no terminal to prompt on")

// IOStreams bundles the standard streams with what paycli knows about them.
type IOStreams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer

	stdinTTY  bool
	stdoutTTY bool
	stderrTTY bool
	color     bool
	// termWidth is stdout's terminal width in columns; 0 when unknown.
	termWidth int
	// errTermWidth is stderr's, for the prose written there.
	errTermWidth int

	// readSecret turns echo off, shows the question (ask), and reads a
	// line; it puts the terminal back as it was, even if ctx ends first.
	// nil means read a plain line.
	readSecret func(ctx context.Context, ask func()) (string, error)
	lineReader *bufio.Reader
	// pendingLine is a line read that a cancelled prompt left running.
	pendingLine chan readResult
}

// Env is the subset of the environment that the colour decision reads.
type Env func(key string) (string, bool)

// System returns streams bound to the process's stdin, stdout and stderr.
func System() *IOStreams {
	s := &IOStreams{
		In:        os.Stdin,
		Out:       os.Stdout,
		ErrOut:    os.Stderr,
		stdinTTY:  isTerminal(os.Stdin),
		stdoutTTY: isTerminal(os.Stdout),
		stderrTTY: isTerminal(os.Stderr),
	}
	s.color = DecideColor(os.LookupEnv, s.stdoutTTY)
	if s.stdoutTTY {
		s.termWidth = DecideTerminalWidth(os.LookupEnv, func() (int, error) {
			w, _, err := term.GetSize(int(os.Stdout.Fd()))
			return w, err
		})
	}
	if s.stderrTTY {
		s.errTermWidth = DecideTerminalWidth(os.LookupEnv, func() (int, error) {
			w, _, err := term.GetSize(int(os.Stderr.Fd()))
			return w, err
		})
	}
	if s.stdinTTY {
		fd := int(os.Stdin.Fd())
		s.readSecret = func(ctx context.Context, ask func()) (string, error) {
			state, err := term.GetState(fd)
			if err != nil {
				return "", err
			}
			// Echo goes off before the question shows: what is typed (or
			// pasted) as soon as it appears is never echoed. ReadPassword
			// then restores this echo-less state, and, if Ctrl-C cancels
			// ctx meanwhile, it never returns: put the terminal back here.
			defer func() { _ = term.Restore(fd, state) }()
			if err := echoOff(fd); err != nil {
				return "", err
			}
			ask()
			v, err := readCtx(ctx, func() (string, error) {
				b, err := term.ReadPassword(fd)
				return string(b), err
			})
			return v, err
		}
	}
	return s
}

// Test returns streams backed by buffers. Nothing is a terminal and colour is
// off until a test says otherwise with the Set* methods.
func Test() (s *IOStreams, in *bytes.Buffer, out *bytes.Buffer, errOut *bytes.Buffer) {
	in, out, errOut = &bytes.Buffer{}, &bytes.Buffer{}, &bytes.Buffer{}
	return &IOStreams{In: in, Out: out, ErrOut: errOut}, in, out, errOut
}

func isTerminal(f *os.File) bool { return term.IsTerminal(int(f.Fd())) }

// DecideColor applies the colour conventions in order: NO_COLOR (any
// non-empty value) turns colour off, CLICOLOR_FORCE (non-empty, not "0")
// turns it on, TERM=dumb turns it off, and otherwise colour follows whether
// stdout is a terminal. The --no-color flag is applied later, by the root
// command, through SetColorEnabled.
func DecideColor(env Env, stdoutTTY bool) bool {
	if v, ok := env("NO_COLOR"); ok && v != "" {
		return false
	}
	if v, ok := env("CLICOLOR_FORCE"); ok && v != "" && v != "0" {
		return true
	}
	if v, _ := env("TERM"); v == "dumb" {
		return false
	}
	return stdoutTTY
}

func (s *IOStreams) IsStdinTTY() bool  { return s.stdinTTY }
func (s *IOStreams) IsStdoutTTY() bool { return s.stdoutTTY }
func (s *IOStreams) IsStderrTTY() bool { return s.stderrTTY }

// ColorEnabled reports the colour decision; render applies it to each colour.
func (s *IOStreams) ColorEnabled() bool { return s.color }

func (s *IOStreams) SetStdinTTY(v bool)     { s.stdinTTY = v }
func (s *IOStreams) SetStdoutTTY(v bool)    { s.stdoutTTY = v }
func (s *IOStreams) SetStderrTTY(v bool)    { s.stderrTTY = v }
func (s *IOStreams) SetColorEnabled(v bool) { s.color = v }

// TerminalWidth is the width of the terminal stdout writes to, in columns;
// 0 when stdout is not a terminal (output for pipes and files is never
// fitted to a width) or its width is unknown.
func (s *IOStreams) TerminalWidth() int {
	if !s.stdoutTTY {
		return 0
	}
	return s.termWidth
}

// SetTerminalWidth sets the width TerminalWidth reports on a terminal.
func (s *IOStreams) SetTerminalWidth(columns int) { s.termWidth = columns }

// ErrTerminalWidth is the width of the terminal stderr writes to, in
// columns; 0 when stderr is not a terminal or its width is unknown.
func (s *IOStreams) ErrTerminalWidth() int {
	if !s.stderrTTY {
		return 0
	}
	return s.errTermWidth
}

// SetErrTerminalWidth sets the width ErrTerminalWidth reports on a terminal.
func (s *IOStreams) SetErrTerminalWidth(columns int) { s.errTermWidth = columns }

// WrapForStderr wraps text (Wrap) to stderr's terminal, leaving it as it
// is for a pipe or a file: a terminal would otherwise break a line
// wherever it runs out of columns, inside a word or a card number.
func (s *IOStreams) WrapForStderr(text string) string {
	return Wrap(text, s.ErrTerminalWidth())
}

// Warnf writes "warning: " and the formatted text on stderr, as one line
// ended by a newline, wrapped at blanks to stderr's terminal (WrapForStderr)
// and byte for byte as it is on a pipe or a file, where scripts grep it.
func (s *IOStreams) Warnf(format string, a ...any) {
	fmt.Fprintln(s.ErrOut, s.Warning(format, a...))
}

// Warning is the text Warnf writes, without its newline, for a command
// whose goroutines share stderr through a writer of its own that keeps
// their lines whole.
func (s *IOStreams) Warning(format string, a ...any) string {
	return s.WrapForStderr("warning: " + fmt.Sprintf(format, a...))
}

// Notef writes the formatted text on stderr, ended by a newline and
// wrapped as Warnf's: a note, a hint or the advice that follows a result.
// Not for \r status lines or tables, which must not be wrapped.
func (s *IOStreams) Notef(format string, a ...any) {
	fmt.Fprintln(s.ErrOut, s.WrapForStderr(fmt.Sprintf(format, a...)))
}

// DecideTerminalWidth is the width of stdout's terminal: COLUMNS when it
// is a positive number (the customary override, also for terminals that
// do not report a size), otherwise what the terminal reports (size), or 0.
func DecideTerminalWidth(env Env, size func() (int, error)) int {
	if v, ok := env("COLUMNS"); ok {
		if n, err := strconv.Atoi(strings.TrimSpace(v)); err == nil && n > 0 {
			return n
		}
	}
	if w, err := size(); err == nil && w > 0 {
		return w
	}
	return 0
}

// CanPrompt reports whether paycli may ask the user something: both stdin
// and stdout must be terminals.
func (s *IOStreams) CanPrompt() bool { return s.stdinTTY && s.stdoutTTY }

func (s *IOStreams) reader() *bufio.Reader {
	if s.lineReader == nil {
		s.lineReader = bufio.NewReader(s.In)
	}
	return s.lineReader
}

type readResult struct {
	s   string
	err error
}

// readCtx runs a blocking read, giving up when ctx ends. A read abandoned
// this way stays blocked on its source; the process is usually about to
// exit then.
func readCtx(ctx context.Context, read func() (string, error)) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	ch := make(chan readResult, 1)
	go func() {
		v, err := read()
		ch <- readResult{v, err}
	}()
	select {
	case r := <-ch:
		return r.s, r.err
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

// readLineCtx is ReadLine giving up when ctx ends. A line read abandoned
// by a cancelled prompt is not lost: the next prompt takes it over rather
// than start a second read of stdin.
func (s *IOStreams) readLineCtx(ctx context.Context) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	ch := s.pendingLine
	s.pendingLine = nil
	if ch == nil {
		ch = make(chan readResult, 1)
		go func() {
			v, err := s.ReadLine()
			ch <- readResult{v, err}
		}()
	}
	select {
	case r := <-ch:
		return r.s, r.err
	case <-ctx.Done():
		s.pendingLine = ch
		return "", ctx.Err()
	}
}

// MaxLineBytes caps one line read from stdin: a hash_key, a secret or an
// answer is far shorter, and a stream without line breaks (/dev/zero, a
// binary file) must not fill memory.
const MaxLineBytes = 64 << 10

// ErrLineTooLong is returned by ReadLine for a line longer than
// MaxLineBytes. The rest of that line is left unread; callers stop reading.
var ErrLineTooLong = fmt.Errorf("the line is longer than %d KiB", MaxLineBytes>>10)

// ReadLine reads one line from stdin without its line ending. At end of
// input it returns what was read, or io.EOF if nothing was. A line longer
// than MaxLineBytes is ErrLineTooLong, found after reading at most one
// buffer more than the limit.
func (s *IOStreams) ReadLine() (string, error) {
	r := s.reader()
	var line []byte
	for {
		chunk, err := r.ReadSlice('\n')
		line = append(line, chunk...)
		if len(line) > MaxLineBytes+2 { // +2: the line ending is not part of the line
			return "", ErrLineTooLong
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err == io.EOF && len(line) > 0 {
			err = nil
		}
		text := strings.TrimRight(string(line), "\r\n")
		if len(text) > MaxLineBytes {
			return "", ErrLineTooLong
		}
		return text, err
	}
}

// Prompt asks for a value on stderr, offering def when the answer is empty.
// It gives up when ctx ends (Ctrl-C).
func (s *IOStreams) Prompt(ctx context.Context, question, def string) (string, error) {
	if !s.CanPrompt() {
		return "", ErrNoTerminal
	}
	if def != "" {
		fmt.Fprint(s.ErrOut, s.WrapForStderr(fmt.Sprintf("%s [%s]:", question, def))+" ")
	} else {
		fmt.Fprint(s.ErrOut, s.WrapForStderr(question+":")+" ")
	}
	ans, err := s.readLineCtx(ctx)
	if err != nil {
		return "", err
	}
	ans = strings.TrimSpace(ans)
	if ans == "" {
		return def, nil
	}
	return ans, nil
}

// PromptSecret asks for a secret without echoing it. It gives up when ctx
// ends, leaving the terminal as it found it.
func (s *IOStreams) PromptSecret(ctx context.Context, question string) (string, error) {
	if !s.CanPrompt() {
		return "", ErrNoTerminal
	}
	ask := func() { fmt.Fprint(s.ErrOut, s.WrapForStderr(question+":")+" ") }
	var (
		ans string
		err error
	)
	if s.readSecret != nil {
		ans, err = s.readSecret(ctx, ask)
		fmt.Fprintln(s.ErrOut)
	} else {
		ask()
		ans, err = s.readLineCtx(ctx)
	}
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(ans), nil
}

// Confirm asks a yes/no question whose default is no. It gives up when ctx
// ends.
func (s *IOStreams) Confirm(ctx context.Context, question string) (bool, error) {
	if !s.CanPrompt() {
		return false, ErrNoTerminal
	}
	fmt.Fprint(s.ErrOut, s.WrapForStderr(question+" [y/N]")+" ")
	ans, err := s.readLineCtx(ctx)
	if err != nil && !errors.Is(err, io.EOF) {
		return false, err
	}
	switch strings.ToLower(strings.TrimSpace(ans)) {
	case "y", "yes":
		return true, nil
	}
	return false, nil
}
