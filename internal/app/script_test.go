package app_test

import (
	"errors"
	"os"
	"os/exec"
	"strconv"
	"testing"

	"github.com/paycli/paycli/internal/app"
	"github.com/rogpeppe/go-internal/testscript"
)

// TestMain lets testscript run the real app.Main as the "paycli" command.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"paycli": func() { os.Exit(app.Main()) },
	})
}

// TestScripts runs the end-to-end scripts in testdata/script. Each script
// gets a fresh $HOME and XDG folders, so nothing leaks between them or from
// the machine running the tests.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
		Setup: func(env *testscript.Env) error {
			home := env.WorkDir + "/home"
			env.Setenv("HOME", home)
			env.Setenv("XDG_CONFIG_HOME", home+"/.config")
			env.Setenv("XDG_CACHE_HOME", home+"/.cache")
			env.Setenv("XDG_STATE_HOME", home+"/.local/state")
			env.Setenv("NO_COLOR", "")
			env.Setenv("CLICOLOR_FORCE", "")
			startFakeGateway(env)
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"filemode": cmdFileMode,
			"exitcode": cmdExitCode,
			"gwcalls":  cmdGWCalls,
		},
		RequireExplicitExec: true,
	})
}

// cmdFileMode checks a file's permission bits: `filemode PATH 0600`.
// Scripts that use it should start with `[windows] skip`.
func cmdFileMode(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: filemode PATH MODE")
	}
	want, err := strconv.ParseUint(args[1], 8, 32)
	if err != nil {
		ts.Fatalf("bad mode %q: %v", args[1], err)
	}
	info, err := os.Stat(ts.MkAbs(args[0]))
	ts.Check(err)
	got := info.Mode().Perm()
	if (got == os.FileMode(want)) == neg {
		not := ""
		if neg {
			not = "not "
		}
		ts.Fatalf("%s has mode %04o; want %s%04o", args[0], got, not, want)
	}
}

// cmdExitCode runs a command like exec and checks its exit code, which
// `! exec` cannot: `exitcode 2 paycli config use nope`. stdout and stderr
// are kept for the following checks.
func cmdExitCode(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exitcode CODE COMMAND [ARGS...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("bad exit code %q", args[0])
	}
	got := 0
	if err := ts.Exec(args[1], args[2:]...); err != nil {
		var exitErr *exec.ExitError
		if !errors.As(err, &exitErr) {
			ts.Fatalf("%s: %v", args[1], err)
		}
		got = exitErr.ExitCode()
	}
	if got != want {
		ts.Fatalf("%s exited with %d, want %d", args[1], got, want)
	}
}
