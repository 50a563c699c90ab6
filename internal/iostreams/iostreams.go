// Package iostreams owns paycli's standard streams: terminal detection, the
// colour decision (made once, here) and prompts. Commands never touch
// os.Stdin/os.Stdout directly, so tests can drive them with Test().
package iostreams

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
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

	// readSecret reads a line without echo; nil means read a plain line.
	readSecret func() (string, error)
	lineReader *bufio.Reader
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
	if s.stdinTTY {
		fd := int(os.Stdin.Fd())
		s.readSecret = func() (string, error) {
			b, err := term.ReadPassword(fd)
			return string(b), err
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

// CanPrompt reports whether paycli may ask the user something: both stdin
// and stdout must be terminals.
func (s *IOStreams) CanPrompt() bool { return s.stdinTTY && s.stdoutTTY }

func (s *IOStreams) reader() *bufio.Reader {
	if s.lineReader == nil {
		s.lineReader = bufio.NewReader(s.In)
	}
	return s.lineReader
}

// ReadLine reads one line from stdin without its line ending. At end of
// input it returns what was read, or io.EOF if nothing was.
func (s *IOStreams) ReadLine() (string, error) {
	line, err := s.reader().ReadString('\n')
	if err == io.EOF && line != "" {
		err = nil
	}
	return strings.TrimRight(line, "\r\n"), err
}

// Prompt asks for a value on stderr, offering def when the answer is empty.
func (s *IOStreams) Prompt(question, def string) (string, error) {
	if !s.CanPrompt() {
		return "", ErrNoTerminal
	}
	if def != "" {
		fmt.Fprintf(s.ErrOut, "%s [%s]: ", question, def)
	} else {
		fmt.Fprintf(s.ErrOut, "%s: ", question)
	}
	ans, err := s.ReadLine()
	if err != nil {
		return "", err
	}
	ans = strings.TrimSpace(ans)
	if ans == "" {
		return def, nil
	}
	return ans, nil
}

// PromptSecret asks for a secret without echoing it.
func (s *IOStreams) PromptSecret(question string) (string, error) {
	if !s.CanPrompt() {
		return "", ErrNoTerminal
	}
	fmt.Fprintf(s.ErrOut, "%s: ", question)
	var (
		ans string
		err error
	)
	if s.readSecret != nil {
		ans, err = s.readSecret()
		fmt.Fprintln(s.ErrOut)
	} else {
		ans, err = s.ReadLine()
	}
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(ans), nil
}

// Confirm asks a yes/no question whose default is no.
func (s *IOStreams) Confirm(question string) (bool, error) {
	if !s.CanPrompt() {
		return false, ErrNoTerminal
	}
	fmt.Fprintf(s.ErrOut, "%s [y/N] ", question)
	ans, err := s.ReadLine()
	if err != nil && !errors.Is(err, io.EOF) {
		return false, err
	}
	switch strings.ToLower(strings.TrimSpace(ans)) {
	case "y", "yes":
		return true, nil
	}
	return false, nil
}
