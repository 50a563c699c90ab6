package app

import (
	"slices"
	"strings"
	"testing"

	"github.com/paycli/paycli/internal/iostreams"
)

// TestTopLevelCommandsAreNamed: each of the root's commands is named (and
// aliased) in topLevelCommands as it builds, so that a command line finds
// it before it is built.
func TestTopLevelCommandsAreNamed(t *testing.T) {
	ios, _, _, _ := iostreams.Test()
	f := NewFactory(ios, noEnv)
	defer f.Close()
	for _, c := range topLevelCommands() {
		cmd := c.build(f)
		if cmd.Name() != c.name || !slices.Equal(cmd.Aliases, c.aliases) {
			t.Errorf("topLevelCommands names %q (aliases %q); it builds %q (aliases %q)", c.name, c.aliases, cmd.Name(), cmd.Aliases)
		}
		found, ok := namedCommand(append([]string{c.name}, "--help"))
		if !ok || found.name != c.name {
			t.Errorf("namedCommand(%s --help) = %q, %v", c.name, found.name, ok)
		}
	}
}

// TestRunBuildsOnlyTheNamedCommand: a run builds the command its command
// line names and no other (docs/performance.md, Start-up), and the whole
// tree for what reads it: help, completion, suggestions for an unknown
// command, the root alone.
func TestRunBuildsOnlyTheNamedCommand(t *testing.T) {
	all := len(topLevelCommands())
	tests := []struct {
		args []string
		want []string // nil: every command
	}{
		{[]string{"version"}, []string{"version"}},
		{[]string{"-o", "json", "--profile", "live", "version"}, []string{"version"}},
		{[]string{"--timeout=5s", "--no-color", "sandbox", "serve", "--addr", "127.0.0.1:0"}, []string{"sandbox"}},
		{[]string{"config", "nosuch"}, []string{"config"}},
		{[]string{"walletpay", "--help"}, []string{"walletpay"}},
		{[]string{}, nil},
		{[]string{"--help"}, nil},
		{[]string{"help", "version"}, nil},
		{[]string{"versoin"}, nil},
		{[]string{"completion", "bash"}, nil},
		{[]string{"__complete", "ver"}, nil},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			ios, _, _, _ := iostreams.Test()
			f := NewFactory(ios, noEnv)
			defer f.Close()
			named, ok := namedCommand(tt.args)
			root, _ := newRootFor(f, named, ok)
			var got []string
			for _, c := range root.Commands() {
				got = append(got, c.Name())
			}
			if tt.want == nil && len(got) != all || tt.want != nil && !slices.Equal(got, tt.want) {
				t.Errorf("built %q; want %q (nil: all %d)", got, tt.want, all)
			}
		})
	}
}

// TestOnlyInstantRunsGoWithoutSignalHandling: Main leaves Ctrl-C,
// SIGTERM, SIGHUP and SIGPIPE their default action (ending the process)
// only for runs with nothing to finish: the instant commands, and command
// lines that name no command (help, shell completion, an unknown
// command). Anything that may send a request, move money, write a file or
// serve keeps the handling that lets it record an outcome and exit with
// its documented code.
func TestOnlyInstantRunsGoWithoutSignalHandling(t *testing.T) {
	instant := map[string]bool{"version": true, "completion": true, "exit-codes": true, "environment": true}
	for _, c := range topLevelCommands() {
		if c.instant != instant[c.name] {
			t.Errorf("%s: instant = %v, want %v", c.name, c.instant, instant[c.name])
		}
	}
	tests := []struct {
		args []string
		want bool
	}{
		{[]string{"version"}, false},
		{[]string{"-o", "json", "version"}, false},
		{[]string{"completion", "bash"}, false},
		{[]string{}, false},
		{[]string{"--help"}, false},
		{[]string{"help", "walletpay"}, false},
		{[]string{"__complete", "status", ""}, false},
		{[]string{"versoin"}, false},
		{[]string{"walletpay", "--invoice", "INV-1"}, true},
		{[]string{"--sandbox", "refund", "INV-1"}, true},
		{[]string{"sandbox", "serve"}, true},
		{[]string{"config", "init"}, true},
		{[]string{"webhook", "listen"}, true},
		{[]string{"walletpay", "--help"}, true},
	}
	for _, tt := range tests {
		if got := interruptible(namedCommand(tt.args)); got != tt.want {
			t.Errorf("interruptible(%q) = %v, want %v", tt.args, got, tt.want)
		}
	}
}

// BenchmarkRunVersion is `paycli version` in process, after package
// init: what a run of it costs paycli's own code (docs/performance.md,
// Start-up). BenchmarkNewRootCmd is the whole command tree, which every
// run built before a run built only its command. Compare allocs/op: cobra
// keeps every flag's completion function in a package-level map, which
// grows with b.N and slows later iterations.
func BenchmarkRunVersion(b *testing.B) {
	b.ReportAllocs()
	ios, _, out, _ := iostreams.Test()
	for b.Loop() {
		out.Reset()
		if code := Run(b.Context(), []string{"version"}, ios, noEnv); code != ExitOK {
			b.Fatalf("exit %d", code)
		}
	}
}

func BenchmarkNewRootCmd(b *testing.B) {
	b.ReportAllocs()
	ios, _, _, _ := iostreams.Test()
	f := NewFactory(ios, noEnv)
	defer f.Close()
	for b.Loop() {
		NewRootCmd(f)
	}
}
