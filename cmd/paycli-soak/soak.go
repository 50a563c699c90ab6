package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	"github.com/paycli/paycli/internal/cmdutil"
	"github.com/paycli/paycli/internal/devtools/soak"
	"github.com/paycli/paycli/internal/iostreams"
	"github.com/paycli/paycli/internal/render"
	"github.com/spf13/cobra"
)

// SoakOptions are the inputs of paycli-soak.
type SoakOptions struct {
	IO     *iostreams.IOStreams
	Format func() (render.Format, error)
	// JSON writes -o json and --jq output.
	JSON *cmdutil.JSONFlags
	// Config is the run; Config.Dir empty means a temporary folder.
	Config soak.Config
	// Keep keeps the run's folder (always kept when the check fails).
	Keep bool
	// NewSeed makes a seed when Config.Seed is 0.
	NewSeed func() uint64
	// Soak runs the soak (soak.Run outside tests).
	Soak func(context.Context, soak.Config) (*soak.Report, error)
}

// NewCmdSoak builds paycli-soak: a chaos test of paycli's money-moving
// commands against a faulty, repeatedly killed sandbox (internal/soak).
func NewCmdSoak(f *cmdutil.Factory, runF func(context.Context, *SoakOptions) error) *cobra.Command {
	opts := &SoakOptions{IO: f.IOStreams, NewSeed: rand.Uint64, Soak: soak.Run, Config: soak.Config{Now: f.Now}}
	var output string
	cmd := &cobra.Command{
		Use:   "paycli-soak --binary PAYCLI [flags]",
		Short: "Chaos-test paycli's money-moving commands against a faulty sandbox that is killed and restarted",
		Long: `paycli-soak is a developer tool; it is not part of paycli's release.

Run 'paycli sandbox serve --faults --fault-rate R' as a subprocess, run many
concurrent 'paycli walletpay' subprocesses over a pool of invoices against it
(amounts ending in .41 and .69 among them), kill the server with SIGKILL and
restart it at random moments, kill some paycli processes too (some at a
random moment, some while their money-moving request is in flight: as it
is sent, or once it is answered and before its outcome is recorded) and
run each killed one again at once with the same command line, break the stdout of
some (/dev/full, a pipe nobody reads) and fill the disk under others (a
file-size limit just above the journal's size), run 'paycli refund',
'paycli preauth capture|cancel' and 'paycli api POST /api/refund' processes
on card sales made before the run (when this paycli has those commands),
and when the time is up reconcile each process's exit code, the journal and
the sandbox (check status and its store). It fails (exit 1) on any sale
charged twice, any sale answered 100 but lost, any exit 0 without a stored
sale, any charge nobody was told was unknown, any journal intent without an
outcome not listed as unknown, any exit code the journal does not bear out,
any refund made twice (two refunds of one command line, or one
refund_transaction_id applied twice), lost or beyond the sale, or any
pre-authorization captured twice, after a cancel or beyond its hold.

--binary is the paycli to test (default: the paycli beside paycli-soak).
Everything runs on loopback with a home folder of its own; the user's
configuration, journal and sandbox are not touched.`,
		Example: `  go build -o /tmp/soak/paycli ./cmd/paycli && go build -o /tmp/soak/paycli-soak ./cmd/paycli-soak
  /tmp/soak/paycli-soak --duration 20s --workers 8 --invoices 40 --kills 3 --seed 1
  go run ./cmd/paycli-soak --binary /tmp/soak/paycli --duration 5m --kills 20 -o json`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if _, err := render.ParseFormat(output); err != nil {
				return cmdutil.UsageErrorf("invalid --output: %v", err)
			}
			c := &opts.Config
			switch {
			case c.Duration <= 0:
				return cmdutil.UsageErrorf("invalid --duration %v: want a positive duration, e.g. 20s", c.Duration)
			case c.Workers < 1 || c.Workers > 64:
				return cmdutil.UsageErrorf("invalid --workers %d: want 1 to 64", c.Workers)
			case c.Invoices < 1 || c.Invoices > 10000:
				return cmdutil.UsageErrorf("invalid --invoices %d: want 1 to 10000", c.Invoices)
			case c.Kills < 0 || c.Kills > 1000:
				return cmdutil.UsageErrorf("invalid --kills %d: want 0 to 1000", c.Kills)
			case c.FaultRate < 0 || c.FaultRate > 1:
				return cmdutil.UsageErrorf("invalid --fault-rate %v: want a fraction between 0 and 1", c.FaultRate)
			case c.ClientKillRate < 0 || c.MidFlightKillRate < 0 || c.ClientKillRate+c.MidFlightKillRate > 1:
				return cmdutil.UsageErrorf("invalid --client-kill-rate %v and --mid-flight-kill-rate %v: want fractions between 0 and 1 that add up to 1 at most", c.ClientKillRate, c.MidFlightKillRate)
			case c.BrokenStdoutRate < 0 || c.DiskFullRate < 0 || c.BrokenStdoutRate+c.DiskFullRate > 1:
				return cmdutil.UsageErrorf("invalid --broken-stdout-rate %v and --disk-full-rate %v: want fractions between 0 and 1 that add up to 1 at most", c.BrokenStdoutRate, c.DiskFullRate)
			case c.CardSales < 0 || c.CardSales > 1000:
				return cmdutil.UsageErrorf("invalid --card-sales %d: want 0 to 1000", c.CardSales)
			case c.CardOpRate < 0 || c.CardOpRate > 1:
				return cmdutil.UsageErrorf("invalid --card-op-rate %v: want a fraction between 0 and 1", c.CardOpRate)
			case c.ClientTimeout <= 0:
				return cmdutil.UsageErrorf("invalid --client-timeout %v: want a positive duration, e.g. 3s", c.ClientTimeout)
			}
			if c.Binary == "" {
				binary, err := besideThisOne("paycli")
				if err != nil {
					return cmdutil.UsageHint(err, "Build one there (go build -o DIR/paycli ./cmd/paycli), or pass --binary PAYCLI.")
				}
				c.Binary = binary
			}
			return cmdutil.Run(cmd, opts, runF, soakRun)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.Config.Binary, "binary", "", "paycli binary to run as server and clients (default: the paycli beside paycli-soak)")
	fl.StringVar(&opts.Config.Dir, "dir", "", "folder for the run's home, journal and sandbox state (default: a temporary one)")
	fl.BoolVar(&opts.Keep, "keep", false, "keep the run's folder (it is always kept when the check fails)")
	fl.DurationVar(&opts.Config.Duration, "duration", 20*time.Second, "how long payments are started")
	fl.IntVar(&opts.Config.Workers, "workers", 8, "walletpay processes running at once")
	fl.IntVar(&opts.Config.Invoices, "invoices", 40, "size of the invoice pool")
	fl.IntVar(&opts.Config.Kills, "kills", 3, "times the sandbox is killed with SIGKILL and restarted")
	fl.IntVar(&opts.Config.CardSales, "card-sales", 20, "card sales and pre-authorizations made before the run, checked after it")
	fl.Float64Var(&opts.Config.CardOpRate, "card-op-rate", 0.2, "fraction of processes that refund (paycli refund or api), capture or cancel card sales instead of paying (when the binary has those commands)")
	fl.Uint64Var(&opts.Config.Seed, "seed", 0, "seed of the run's random choices (default: a random seed, printed)")
	fl.Float64Var(&opts.Config.FaultRate, "fault-rate", 0.25, "fraction of API requests the sandbox faults")
	fl.Float64Var(&opts.Config.ClientKillRate, "client-kill-rate", 0.05, "fraction of processes killed with SIGKILL in their first 50 ms")
	fl.Float64Var(&opts.Config.MidFlightKillRate, "mid-flight-kill-rate", 0.05, "fraction of processes killed with SIGKILL while their money-moving request is in flight")
	fl.Float64Var(&opts.Config.BrokenStdoutRate, "broken-stdout-rate", 0.05, "fraction of walletpay processes whose stdout is /dev/full or a pipe nobody reads")
	fl.Float64Var(&opts.Config.DiskFullRate, "disk-full-rate", 0.05, "fraction of walletpay processes that run out of disk while writing the journal (Linux)")
	fl.DurationVar(&opts.Config.ClientTimeout, "client-timeout", 3*time.Second, "each walletpay's --timeout (delay faults wait 2s longer)")
	fl.StringVarP(&output, "output", "o", string(render.Table), "output format: table, json, csv or tsv")
	opts.JSON = cmdutil.AddJSONFlags(cmd)
	opts.Format = opts.JSON.Format(func() (render.Format, error) { return render.ParseFormat(output) })
	return cmd
}

// besideThisOne is the executable named name in this executable's folder.
func besideThisOne(name string) (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("cannot find this executable: %w", err)
	}
	path := filepath.Join(filepath.Dir(exe), name)
	if info, err := os.Stat(path); err != nil || !info.Mode().IsRegular() {
		return "", fmt.Errorf("no %s beside %s", name, exe)
	}
	return path, nil
}

// soakRun runs the soak and prints its report; problems make it fail.
func soakRun(ctx context.Context, opts *SoakOptions) error {
	format, err := opts.Format()
	if err != nil {
		return err
	}
	cfg := opts.Config
	if cfg.Seed == 0 {
		cfg.Seed = opts.NewSeed()
	}
	keep := opts.Keep
	if cfg.Dir == "" {
		dir, err := os.MkdirTemp("", "paycli-soak-")
		if err != nil {
			return err
		}
		cfg.Dir = dir
		defer func() {
			if !keep {
				os.RemoveAll(dir)
			}
		}()
	}
	cfg.Log = opts.IO.ErrOut
	fmt.Fprintf(opts.IO.ErrOut, "soak: seed %d, %v, %d workers, %d invoices, %d kills, in %s\n",
		cfg.Seed, cfg.Duration, cfg.Workers, cfg.Invoices, cfg.Kills, cfg.Dir)
	rep, err := opts.Soak(ctx, cfg)
	if err != nil {
		keep = true
		return fmt.Errorf("%w (the run's files are in %s)", err, cfg.Dir)
	}
	if err := writeSoakReport(ctx, opts, format, rep); err != nil {
		return err
	}
	if len(rep.Problems) > 0 {
		keep = true
		for _, p := range rep.Problems {
			fmt.Fprintf(opts.IO.ErrOut, "problem: %s\n", p)
		}
		return cmdutil.WithKind(cmdutil.KindUnexpected, fmt.Errorf("soak: %d problems found (seed %d)", len(rep.Problems), rep.Seed),
			fmt.Sprintf("The run's journal and sandbox state are in %s.", cfg.Dir))
	}
	return nil
}

func writeSoakReport(ctx context.Context, opts *SoakOptions, format render.Format, rep *soak.Report) error {
	if format == render.JSON {
		return opts.JSON.Write(ctx, opts.IO.Out, rep)
	}
	rows := [][]string{
		{"seed", strconv.FormatUint(rep.Seed, 10)},
		{"duration", rep.Duration},
		{"workers", strconv.Itoa(rep.Workers)},
		{"invoices", strconv.Itoa(rep.Invoices)},
		{"fault rate", strconv.FormatFloat(rep.Rate, 'f', -1, 64)},
		{"attempts", strconv.Itoa(rep.Attempts)},
		{"sandbox kills", strconv.Itoa(rep.Kills)},
		{"client kills", strconv.Itoa(rep.ClientKills)},
		{"re-runs at once after a client kill", strconv.Itoa(rep.RerunsAfterKill)},
	}
	rows = append(rows, counted("killed mid-flight: ", rep.MidFlightKills)...)
	rows = append(rows, counted("exit ", rep.Exits)...)
	rows = append(rows, counted("fault ", rep.Faults)...)
	rows = append(rows, counted("fault on walletPay ", rep.FaultsOnWalletPay)...)
	rows = append(rows, counted("journal ", rep.Journal)...)
	rows = append(rows, []string{"journal intents without outcome", strconv.Itoa(rep.OpenIntents)})
	rows = append(rows, counted("trouble ", rep.Troubles)...)
	rows = append(rows,
		[]string{"intents refused (disk full, nothing sent)", strconv.Itoa(rep.JournalRefused)},
		[]string{"held back by the journal (in flight: exit 6; unknown: exit 2; nothing sent)", strconv.Itoa(rep.RefusedBeforeSending)},
		[]string{"outcomes unwritten (disk full)", strconv.Itoa(rep.OutcomesUnwritten)},
		[]string{"journal lines torn", strconv.Itoa(rep.TornLines)},
		[]string{"results unwritten (stdout broken, order on stderr)", strconv.Itoa(rep.ResultsUnwritten)},
	)
	rows = append(rows, counted("sale ", rep.Sales)...)
	rows = append(rows, counted("card sale ", rep.CardSales)...)
	rows = append(rows, counted("card process ", rep.CardOps)...)
	rows = append(rows, []string{"refund --retry processes", strconv.Itoa(rep.RefundRetries)})
	rows = append(rows, []string{"refund commands with an amount (each may refund once)", strconv.Itoa(rep.RefundCommands)})
	rows = append(rows, counted("refund in the sandbox, journal says ", rep.RefundsTold)...)
	rows = append(rows,
		[]string{"charged, told unknown", strconv.Itoa(rep.UnknownCharged)},
		[]string{"reconciled invoices", fmt.Sprintf("%d of %d", rep.Reconciled, rep.Invoices)},
		[]string{"problems", strconv.Itoa(len(rep.Problems))},
	)
	if format != render.Table {
		return render.WriteRecords(opts.IO.Out, format, []string{"count", "value"}, rows)
	}
	table := cmdutil.TableOptions(opts.IO)
	table.RightAlign, table.Wrap = []int{1}, []int{0}
	return render.WriteTable(opts.IO.Out, table, []string{"COUNT", "VALUE"}, rows)
}

// counted lists a map's counts as rows, keys sorted, each prefixed.
func counted(prefix string, m map[string]int) [][]string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	rows := make([][]string, 0, len(keys))
	for _, k := range keys {
		rows = append(rows, []string{prefix + k, strconv.Itoa(m[k])})
	}
	return rows
}
