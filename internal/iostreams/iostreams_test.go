package iostreams

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
)

func envOf(m map[string]string) Env {
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

func TestDecideColor(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		tty  bool
		want bool
	}{
		{"terminal", nil, true, true},
		{"piped", nil, false, false},
		{"NO_COLOR on a terminal", map[string]string{"NO_COLOR": "1"}, true, false},
		{"empty NO_COLOR is ignored", map[string]string{"NO_COLOR": ""}, true, true},
		{"CLICOLOR_FORCE when piped", map[string]string{"CLICOLOR_FORCE": "1"}, false, true},
		{"CLICOLOR_FORCE=0 does not force", map[string]string{"CLICOLOR_FORCE": "0"}, false, false},
		{"NO_COLOR beats CLICOLOR_FORCE", map[string]string{"NO_COLOR": "1", "CLICOLOR_FORCE": "1"}, true, false},
		{"TERM=dumb", map[string]string{"TERM": "dumb"}, true, false},
		{"CLICOLOR_FORCE beats TERM=dumb", map[string]string{"TERM": "dumb", "CLICOLOR_FORCE": "1"}, true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := DecideColor(envOf(tt.env), tt.tty); got != tt.want {
				t.Errorf("DecideColor = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestPromptsNeedATerminal(t *testing.T) {
	ctx := context.Background()
	s, in, _, _ := Test()
	in.WriteString("y\n")
	if _, err := s.Confirm(ctx, "go?"); !errors.Is(err, ErrNoTerminal) {
		t.Fatalf("Confirm without terminal: err = %v, want ErrNoTerminal", err)
	}
	if _, err := s.PromptSecret(ctx, "secret"); !errors.Is(err, ErrNoTerminal) {
		t.Fatalf("PromptSecret without terminal: err = %v, want ErrNoTerminal", err)
	}
	s.SetStdinTTY(true)
	if _, err := s.Prompt(ctx, "q", ""); !errors.Is(err, ErrNoTerminal) {
		t.Fatalf("Prompt with only stdin a terminal: err = %v, want ErrNoTerminal", err)
	}
}

func TestPromptAndConfirm(t *testing.T) {
	ctx := context.Background()
	s, in, _, errOut := Test()
	s.SetStdinTTY(true)
	s.SetStdoutTTY(true)
	in.WriteString("\nvalue\n yes \nno\n  s3cret  \n")

	if got, err := s.Prompt(ctx, "Base URL", "https://x"); err != nil || got != "https://x" {
		t.Fatalf("empty answer: got %q, %v; want the default", got, err)
	}
	if got, err := s.Prompt(ctx, "Name", ""); err != nil || got != "value" {
		t.Fatalf("got %q, %v", got, err)
	}
	if ok, err := s.Confirm(ctx, "Charge?"); err != nil || !ok {
		t.Fatalf("yes: got %v, %v", ok, err)
	}
	if ok, err := s.Confirm(ctx, "Charge?"); err != nil || ok {
		t.Fatalf("no: got %v, %v", ok, err)
	}
	if got, err := s.PromptSecret(ctx, "Secret"); err != nil || got != "s3cret" {
		t.Fatalf("secret: got %q, %v", got, err)
	}
	want := "Base URL [https://x]: Name: Charge? [y/N] Charge? [y/N] Secret: "
	if errOut.String() != want {
		t.Errorf("prompts on stderr:\n got %q\nwant %q", errOut.String(), want)
	}
}

func TestConfirmAtEndOfInputIsNo(t *testing.T) {
	ctx := context.Background()
	s, _, _, _ := Test()
	s.SetStdinTTY(true)
	s.SetStdoutTTY(true)
	if ok, err := s.Confirm(ctx, "Charge?"); err != nil || ok {
		t.Fatalf("EOF: got %v, %v; want false, nil", ok, err)
	}
}

func TestPromptGivesUpWhenCancelled(t *testing.T) {
	s, _, _, _ := Test()
	s.SetStdinTTY(true)
	s.SetStdoutTTY(true)
	s.In = blockingReader{} // a user who never answers
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := s.Prompt(ctx, "q", ""); !errors.Is(err, context.Canceled) {
		t.Errorf("Prompt: err = %v, want context.Canceled", err)
	}
	if _, err := s.Confirm(ctx, "q"); !errors.Is(err, context.Canceled) {
		t.Errorf("Confirm: err = %v, want context.Canceled", err)
	}
	if _, err := s.PromptSecret(ctx, "q"); !errors.Is(err, context.Canceled) {
		t.Errorf("PromptSecret: err = %v, want context.Canceled", err)
	}
}

func TestCancelledPromptLosesNoInput(t *testing.T) {
	s, _, _, _ := Test()
	s.SetStdinTTY(true)
	s.SetStdoutTTY(true)
	r, w := io.Pipe()
	s.In = r
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := s.Prompt(ctx, "first", "")
		done <- err
	}()
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled Prompt: err = %v", err)
	}
	go func() { _, _ = io.WriteString(w, "typed late\n") }()
	got, err := s.Prompt(context.Background(), "second", "")
	if err != nil || got != "typed late" {
		t.Fatalf("next Prompt got %q, %v; want the line typed after the cancel", got, err)
	}
}

type blockingReader struct{}

func (blockingReader) Read([]byte) (int, error) { select {} }

func TestReadLineIsBounded(t *testing.T) {
	long := strings.Repeat("a", MaxLineBytes)
	s, in, _, _ := Test()
	in.WriteString(long + "\r\nnext\n" + long + "b\nnever read")
	if got, err := s.ReadLine(); err != nil || got != long {
		t.Fatalf("a line of exactly MaxLineBytes: %d bytes, %v", len(got), err)
	}
	if got, err := s.ReadLine(); err != nil || got != "next" {
		t.Fatalf("next line: %q, %v", got, err)
	}
	if _, err := s.ReadLine(); !errors.Is(err, ErrLineTooLong) {
		t.Fatalf("a line one byte too long: %v, want ErrLineTooLong", err)
	}
}
