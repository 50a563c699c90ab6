package journalcmd

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/paycli/paycli/internal/cmdutil"
	"github.com/paycli/paycli/internal/journal"
	"github.com/paycli/paycli/internal/pgjournal"
	"github.com/paycli/paycli/internal/redact"
	"github.com/paycli/paycli/internal/render"
	"github.com/spf13/cobra"
)

// ImportOptions are the inputs of `paycli journal import`.
type ImportOptions struct {
	cmdutil.Deps
	// Journal opens the journal the profile uses, which must be a shared
	// one; JournalPath is this machine's journal file, read by default.
	Journal     func() (journal.Store, error)
	JournalPath func() (string, error)
	// From is the file to import (--from); empty: JournalPath.
	From string
}

// NewCmdImport builds `paycli journal import`.
func NewCmdImport(f *cmdutil.Factory, runF func(context.Context, *ImportOptions) error) *cobra.Command {
	opts := &ImportOptions{Deps: cmdutil.DepsOf(f), Journal: f.Journal, JournalPath: f.JournalPath}
	cmd := &cobra.Command{
		Use:   "import [--from FILE]",
		Short: "Copy this machine's journal file into the desk's shared journal",
		Long: `Copy the lines of a journal file (by default this machine's,
<state dir>/paycli/journal.jsonl) into the shared journal the profile uses,
so that the desk sees the attempts made before it shared one, and the
guards that refuse a second refund while the first one's outcome is unknown
count them on every machine.

It may be run again: a line the shared journal holds already (the same
attempt, line and time) is skipped, so a second run imports nothing. The
attempts are recorded as made by the role that imports them (the database
says who writes), with this machine's OS user and host. Attempts made in
the sandbox (--sandbox) are skipped: they stay in the file. Lines that cannot be read
(torn by a failed write, foreign) are named by byte offset and left out;
the others are imported. The file is not changed.

The shared journal takes only lines the importing role may write: an
outcome of an attempt whose intent another role wrote, a reconcile line
that settles without the gateway's check-status answer, or an intent on an
invoice whose attempt is still unsettled is refused, reported on stderr
and left out; the other lines are imported. A sandbox line is known by its
own fields (its gateway identity, or an older line's sandbox profile at a
loopback address), whatever the importing machine's sandbox.

A profile without a shared journal (no 'journal' key, no PAYCLI_JOURNAL)
has nothing to import into: exit 2.`,
		Example: `  paycli journal import
  paycli journal import --from /backup/desk-3/journal.jsonl
  paycli journal import -o json`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if cmd.Flags().Changed("from") && opts.From == "" {
				return cmdutil.UsageErrorf("invalid --from: an empty file name")
			}
			return cmdutil.Run(cmd, opts, runF, importRun)
		},
	}
	cmd.Flags().StringVar(&opts.From, "from", "", "the journal `FILE` to import (default: this machine's journal)")
	opts.AddJSONFlags(cmd)
	cmdutil.NoGateway(cmd)
	cmdutil.SetExits(cmd, cmdutil.Exits{Kinds: []cmdutil.Kind{cmdutil.KindUsage, cmdutil.KindUnavailable, cmdutil.KindJournalRefused}, Notes: map[cmdutil.Kind]string{
		cmdutil.KindUsage:       "the profile has no shared journal, or --from names no journal file",
		cmdutil.KindUnavailable: "the profile's shared journal (PostgreSQL) cannot be reached; run the import again",
	}})
	return cmd
}

// ImportResult is the JSON form of what an import did; its fields are a
// stable interface.
type ImportResult struct {
	From string `json:"from"`
	// Journal is the shared journal's URL, masked.
	Journal string `json:"journal"`
	// Imported lines were written; Skipped were there already; Sandbox
	// lines, of sandbox attempts, stay on this machine.
	Imported int `json:"imported"`
	Skipped  int `json:"skipped"`
	Sandbox  int `json:"sandbox"`
	// Refused lines were refused by the shared journal's rules (an
	// outcome of an attempt another role made, a settlement without the
	// gateway's answer, an intent on an invoice whose attempt is not
	// settled…): each with why.
	Refused []RefusedLine `json:"refused"`
	// Damaged lines could not be read; DamagedOffsets are their byte
	// offsets (the first of them, when there are many).
	Damaged        int     `json:"damaged"`
	DamagedOffsets []int64 `json:"damaged_offsets"`
}

// RefusedLine is a line the shared journal refused.
type RefusedLine struct {
	Attempt string `json:"attempt"`
	Type    string `json:"type"`
	Invoice string `json:"invoice"`
	Reason  string `json:"reason"`
}

// importRun copies the file's lines into the shared journal.
func importRun(ctx context.Context, opts *ImportOptions) error {
	format, store, err := formatAndJournal(&opts.Deps, opts.Journal)
	if err != nil {
		return err
	}
	defer store.Close()
	importer, ok := store.(journal.Importer)
	if !ok {
		return cmdutil.UsageHint(errors.New("this profile has no shared journal to import into"),
			"Point the profile at the desk's journal first ('paycli config set journal URL', the desk's postgres:// URL), or set PAYCLI_JOURNAL.")
	}
	from, entries, damage, err := readImport(opts)
	if err != nil {
		return err
	}
	res := ImportResult{From: from, Journal: journal.WhereOf(store), Damaged: damage.Lines, DamagedOffsets: damage.Offsets}
	if res.DamagedOffsets == nil {
		res.DamagedOffsets = []int64{}
	}
	entries, res.Sandbox = withoutSandbox(entries)
	done, err := importer.Import(ctx, entries)
	res.Imported = done.Written
	if err != nil {
		return readFailed(fmt.Errorf("%w (%d lines were imported before; run the import again)", err, res.Imported))
	}
	res.Refused = make([]RefusedLine, 0, len(done.Refused))
	for _, r := range done.Refused {
		if r.Err.Sandbox() { // the database found it the sandbox's
			res.Sandbox++
			continue
		}
		res.Refused = append(res.Refused, RefusedLine{Attempt: render.Escape(r.Entry.Attempt), Type: r.Entry.Type,
			Invoice: redact.Invoice(r.Entry.Invoice), Reason: r.Err.Reason()})
	}
	res.Skipped = len(entries) - res.Imported - len(done.Refused)
	warnDamage(opts.IO, from, damage)
	for _, r := range res.Refused {
		opts.IO.Notef("Not imported: the %s line of attempt %s (invoice %s): %s", r.Type, r.Attempt, render.Escape(r.Invoice), render.Escape(r.Reason))
	}
	if format == render.JSON {
		return opts.JSON.Write(ctx, opts.IO.Out, res)
	}
	fmt.Fprintf(opts.IO.Out, "Imported %s from %s into the shared journal at %s; %d skipped (already there).\n",
		render.Count(res.Imported, "line", "lines"), render.Escape(from), res.Journal, res.Skipped)
	if res.Sandbox > 0 {
		fmt.Fprintf(opts.IO.Out, "%s of sandbox attempts skipped: they stay in the file.\n", render.Count(res.Sandbox, "line", "lines"))
	}
	if len(res.Refused) > 0 {
		fmt.Fprintf(opts.IO.Out, "%s refused by the shared journal's rules (stderr says which and why).\n", render.Count(len(res.Refused), "line", "lines"))
	}
	return nil
}

// readImport reads the lines of the file to import: --from, or this
// machine's journal. A --from that names no file is a usage error; a
// machine without a journal has nothing to import.
func readImport(opts *ImportOptions) (string, []journal.Entry, journal.Damage, error) {
	from := opts.From
	if from == "" {
		path, err := opts.JournalPath()
		if err != nil {
			return "", nil, journal.Damage{}, err
		}
		from = path
	} else if _, err := os.Stat(from); errors.Is(err, fs.ErrNotExist) {
		return "", nil, journal.Damage{}, cmdutil.UsageErrorf("invalid --from: no file %s", render.Escape(from))
	}
	entries, damage, err := journal.Entries(from)
	if err != nil {
		return "", nil, journal.Damage{}, fmt.Errorf("reading %s: %w", render.Escape(from), err)
	}
	return from, entries, damage, nil
}

// withoutSandbox leaves out the lines of sandbox attempts, as the lines
// themselves say (pgjournal.IsSandboxLine: never this machine's sandbox
// state), and says how many.
func withoutSandbox(entries []journal.Entry) ([]journal.Entry, int) {
	kept := make([]journal.Entry, 0, len(entries))
	for _, e := range entries {
		if pgjournal.IsSandboxLine(e) {
			continue
		}
		kept = append(kept, e)
	}
	return kept, len(entries) - len(kept)
}
