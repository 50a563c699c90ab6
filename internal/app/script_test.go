package app_test

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/paycli/paycli/internal/app"
	"github.com/paycli/paycli/internal/sandbox"
	"github.com/paycli/paycli/internal/testkit/pgtest"
	"github.com/paycli/paycli/internal/testkit/userenv"
	"github.com/rogpeppe/go-internal/testscript"
	"github.com/shopspring/decimal"
)

// TestMain lets testscript run the real app.Main as the "paycli" command.
func TestMain(m *testing.M) {
	testscript.Main(stopping{m}, map[string]func(){
		"paycli": func() { os.Exit(app.Main()) },
	})
}

// stopping runs the tests, then stops the PostgreSQL server they shared
// (testscript.Main exits: nothing runs after it).
type stopping struct{ m *testing.M }

func (s stopping) Run() int {
	userenv.Clear() // here, not for the paycli the scripts run: their PAYCLI_* are theirs
	defer app.StopSharedPostgres()
	pgtest.MoreParallel(6)
	quickRaceExit()
	return s.m.Run()
}

// quickRaceExit sets GORACE's atexit_sleep_ms to 0 (unless it is set) for
// every paycli the tests start: a race-built program otherwise sleeps a
// second as it exits while any goroutine lives, and the tests run paycli
// thousands of times. A race is still reported when it happens, and still
// makes the process exit 66. Commands built with their own environment
// pass GORACE on (raceEnv).
func quickRaceExit() {
	if v := os.Getenv("GORACE"); !strings.Contains(v, "atexit_sleep_ms") {
		_ = os.Setenv("GORACE", strings.TrimSpace(v+" atexit_sleep_ms=0"))
	}
}

// raceEnv is GORACE as quickRaceExit set it, for an environment built
// from nothing.
func raceEnv() string { return "GORACE=" + os.Getenv("GORACE") }

// TestScripts runs the end-to-end scripts in testdata/script. Each script
// gets a fresh $HOME and XDG folders, so nothing leaks between them or from
// the machine running the tests. The scripts run beside the package's
// other parallel tests, not before them.
func TestScripts(t *testing.T) {
	t.Parallel()
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
			env.Setenv("GORACE", os.Getenv("GORACE"))
			if err := startScriptGateway(env); err != nil {
				return err
			}
			// A token to pass on a command line: 30.00 TRY, wallet 001.
			tok, err := issueWalletToken("30.00", "001", false)
			if err != nil {
				return err
			}
			env.Setenv("WALLET_TOKEN_30", tok)
			return issueWalletTokens(env.WorkDir)
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

// walletTokenPlaceholder is how a script's files ask for a sandbox wallet
// token: {{wallet-token AMOUNT WALLET}} (TRY, the default card, valid for an
// hour from now), or {{wallet-token AMOUNT WALLET expired}} (expired an hour
// ago); $WALLET_TOKEN_30 is one for a command line. Tokens are issued when
// the script starts, so that no script holds a token that expires some day.
var walletTokenPlaceholder = regexp.MustCompile(`\{\{wallet-token ([0-9.]+) ([0-9]+)( expired)?\}\}`)

// issueWalletTokens replaces every walletTokenPlaceholder in the files of
// dir (a script's work folder) with a token issued now.
func issueWalletTokens(dir string) error {
	return filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil || !strings.Contains(string(data), "{{wallet-token") {
			return err
		}
		var issueErr error
		out := walletTokenPlaceholder.ReplaceAllStringFunc(string(data), func(m string) string {
			parts := walletTokenPlaceholder.FindStringSubmatch(m)
			tok, err := issueWalletToken(parts[1], parts[2], parts[3] != "")
			if err != nil {
				issueErr = fmt.Errorf("%s: %s: %w", path, m, err)
			}
			return tok
		})
		if issueErr != nil {
			return issueErr
		}
		if strings.Contains(out, "{{wallet-token") {
			return fmt.Errorf("%s: a {{wallet-token …}} placeholder is not AMOUNT WALLET [expired]", path)
		}
		return os.WriteFile(path, []byte(out), 0o600)
	})
}

// issueWalletToken issues a sandbox wallet token for amount TRY, valid for
// an hour from now or, if expired, expired an hour ago.
func issueWalletToken(amount, wallet string, expired bool) (string, error) {
	now := time.Now()
	if expired {
		now = now.Add(-2 * time.Hour)
	}
	jti := make([]byte, 12)
	_, _ = rand.Read(jti)
	return sandbox.IssueWalletToken(sandbox.WalletRequest{Amount: decimal.RequireFromString(amount), Currency: "TRY",
		CardNumber: sandbox.DefaultWalletCard, Wallet: wallet, TTL: time.Hour}, now, hex.EncodeToString(jti))
}
