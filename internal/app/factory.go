package app

import (
	"path/filepath"
	"time"

	"github.com/paycli/paycli/internal/buildinfo"
	"github.com/paycli/paycli/internal/cmdutil"
	"github.com/paycli/paycli/internal/config"
	"github.com/paycli/paycli/internal/iostreams"
	"github.com/paycli/paycli/internal/journal"
	"github.com/paycli/paycli/internal/sandboxmode"
	"github.com/spf13/cobra"
)

// NewFactory builds the real dependencies. Config is resolved lazily, from
// the flags of whichever command runs (set by the root's pre-run hook).
// It is the clock's home: the one place paycli's code reads the wall
// clock (time.Now); everything else is handed f.Now (archtest checks).
func NewFactory(ios *iostreams.IOStreams, lookupEnv func(string) (string, bool)) *cmdutil.Factory {
	f := &cmdutil.Factory{
		Build:     buildinfo.Read,
		IOStreams: ios,
		LookupEnv: lookupEnv,
		Now:       time.Now,
	}
	f.JournalPath = func() (string, error) {
		dir, err := config.StateDir(config.LoadOptions{LookupEnv: f.LookupEnv})
		if err != nil {
			return "", err
		}
		return filepath.Join(dir, journal.FileName), nil
	}
	f.SandboxMode = func(cmd *cobra.Command) (bool, error) { return sandboxmode.Enabled(cmd, f.LookupEnv) }
	return f
}
