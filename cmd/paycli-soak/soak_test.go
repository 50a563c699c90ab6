package main

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/paycli/paycli/internal/cmdutil"
	"github.com/paycli/paycli/internal/devtools/soak"
	"github.com/paycli/paycli/internal/iostreams"
	"github.com/paycli/paycli/internal/render"
	"github.com/spf13/cobra"
)

// testFactory is a factory over test streams and a fixed clock.
func testFactory(t *testing.T) (*cmdutil.Factory, *iostreams.IOStreams) {
	t.Helper()
	ios, _, _, _ := iostreams.Test()
	return &cmdutil.Factory{IOStreams: ios, Now: func() time.Time { return time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC) }}, ios
}

func runCmd(cmd *cobra.Command, args ...string) error {
	cmd.SetArgs(args)
	cmd.SetOut(new(strings.Builder))
	cmd.SetErr(new(strings.Builder))
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	return cmd.Execute()
}

func isUsage(err error) bool { k, _ := cmdutil.KindOf(err); return k == cmdutil.KindUsage }

func TestSoakFlags(t *testing.T) {
	tests := []struct {
		args      []string
		wantUsage bool
		check     func(soak.Config) bool
	}{
		// The test binary has no paycli beside it.
		{nil, true, nil},
		{[]string{"--binary", "/bin/paycli"}, false, func(c soak.Config) bool {
			return c.Binary == "/bin/paycli" && c.Duration == 20*time.Second && c.Workers == 8 && c.Invoices == 40 && c.Kills == 3 &&
				c.Seed == 0 && c.FaultRate == 0.25 && c.ClientKillRate == 0.05 && c.MidFlightKillRate == 0.05 && c.ClientTimeout == 3*time.Second &&
				c.BrokenStdoutRate == 0.05 && c.DiskFullRate == 0.05 && c.CardSales == 20 && c.CardOpRate == 0.2
		}},
		{[]string{"--binary", "/bin/paycli", "--duration", "1m", "--workers", "2", "--invoices", "5", "--kills", "0", "--seed", "9", "--fault-rate", "1"},
			false, func(c soak.Config) bool {
				return c.Binary == "/bin/paycli" && c.Duration == time.Minute && c.Workers == 2 && c.Invoices == 5 && c.Kills == 0 && c.Seed == 9 && c.FaultRate == 1
			}},
		{[]string{"-o", "xml"}, true, nil},
		{[]string{"--duration", "0s"}, true, nil},
		{[]string{"--workers", "0"}, true, nil},
		{[]string{"--workers", "65"}, true, nil},
		{[]string{"--invoices", "0"}, true, nil},
		{[]string{"--kills", "-1"}, true, nil},
		{[]string{"--fault-rate", "1.5"}, true, nil},
		{[]string{"--client-timeout", "0s"}, true, nil},
		{[]string{"--client-kill-rate", "-0.5"}, true, nil},
		{[]string{"--mid-flight-kill-rate", "-0.1"}, true, nil},
		{[]string{"--client-kill-rate", "0.6", "--mid-flight-kill-rate", "0.5"}, true, nil},
		{[]string{"--broken-stdout-rate", "-0.1"}, true, nil},
		{[]string{"--card-sales", "-1"}, true, nil},
		{[]string{"--card-op-rate", "2"}, true, nil},
		{[]string{"--disk-full-rate", "1.1"}, true, nil},
		{[]string{"--broken-stdout-rate", "0.6", "--disk-full-rate", "0.5"}, true, nil},
		{[]string{"--broken-stdout-rate", "0.5", "--disk-full-rate", "0.5"}, false, func(c soak.Config) bool {
			return c.BrokenStdoutRate == 0.5 && c.DiskFullRate == 0.5
		}},
		{[]string{"extra"}, true, nil},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			f, _ := testFactory(t)
			var got *SoakOptions
			args := tt.args
			if len(args) > 0 && !slices.Contains(args, "--binary") {
				args = append(args, "--binary", "/bin/paycli")
			}
			err := runCmd(NewCmdSoak(f, func(_ context.Context, o *SoakOptions) error { got = o; return nil }), args...)
			if tt.wantUsage {
				if !isUsage(err) || got != nil {
					t.Fatalf("err %v, want a usage error before running", err)
				}
				return
			}
			if err != nil || !tt.check(got.Config) {
				t.Fatalf("err %v config %+v", err, got.Config)
			}
		})
	}
}

// TestSoakRun: the report goes to stdout; problems fail the command with
// exit 1 and are listed on stderr, and the run's folder is kept.
func TestSoakRun(t *testing.T) {
	tests := []struct {
		name     string
		problems []string
		wantErr  bool
	}{
		{"clean", []string{}, false},
		{"problems", []string{"invoice X: charged twice"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, ios := testFactory(t)
			var ran soak.Config
			opts := &SoakOptions{
				IO: ios, Format: func() (render.Format, error) { return render.JSON, nil },
				NewSeed: func() uint64 { return 42 },
				Soak: func(_ context.Context, c soak.Config) (*soak.Report, error) {
					ran = c
					return &soak.Report{Seed: c.Seed, Attempts: 3, Exits: map[string]int{"0": 1, "6": 2}, Problems: tt.problems}, nil
				},
			}
			err := soakRun(context.Background(), opts)
			if ran.Seed != 42 || ran.Dir == "" {
				t.Errorf("ran with %+v, want seed 42 and a folder", ran)
			}
			_, statErr := os.Stat(ran.Dir)
			if tt.wantErr {
				if k, _ := cmdutil.KindOf(err); err == nil || k != cmdutil.KindUnexpected {
					t.Fatalf("err %v, want an unexpected-kind error", err)
				}
				if !strings.Contains(ios.ErrOut.(interface{ String() string }).String(), "problem: invoice X: charged twice") {
					t.Error("the problem is not on stderr")
				}
				if statErr != nil {
					t.Errorf("the run's folder was removed after a failure: %v", statErr)
				}
				os.RemoveAll(ran.Dir)
			} else {
				if err != nil {
					t.Fatal(err)
				}
				if !errors.Is(statErr, os.ErrNotExist) {
					t.Errorf("the temporary folder is left behind: %v", statErr)
				}
			}
			var rep soak.Report
			if err := json.Unmarshal([]byte(ios.Out.(interface{ String() string }).String()), &rep); err != nil || rep.Attempts != 3 {
				t.Errorf("stdout is not the report: %v %+v", err, rep)
			}
		})
	}
}
