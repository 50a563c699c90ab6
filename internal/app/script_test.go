package app_test

import (
	"os"
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
		Cmds:                scriptCmds,
		RequireExplicitExec: true,
	})
}
