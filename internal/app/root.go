package app

import (
	"fmt"
	"strings"

	"github.com/paycli/paycli/internal/cli/api"
	"github.com/paycli/paycli/internal/cli/audit"
	"github.com/paycli/paycli/internal/cli/cards"
	"github.com/paycli/paycli/internal/cli/commissionscmd"
	"github.com/paycli/paycli/internal/cli/complete"
	"github.com/paycli/paycli/internal/cli/completion"
	"github.com/paycli/paycli/internal/cli/configcmd"
	"github.com/paycli/paycli/internal/cli/hashcmd"
	"github.com/paycli/paycli/internal/cli/installments"
	"github.com/paycli/paycli/internal/cli/journalcmd"
	"github.com/paycli/paycli/internal/cli/link"
	"github.com/paycli/paycli/internal/cli/preauth"
	"github.com/paycli/paycli/internal/cli/refund"
	"github.com/paycli/paycli/internal/cli/sandboxcmd"
	"github.com/paycli/paycli/internal/cli/status"
	"github.com/paycli/paycli/internal/cli/tokencmd"
	"github.com/paycli/paycli/internal/cli/transactions"
	"github.com/paycli/paycli/internal/cli/versioncmd"
	"github.com/paycli/paycli/internal/cli/walletpay"
	"github.com/paycli/paycli/internal/cli/webhookcmd"
	"github.com/paycli/paycli/internal/cmdutil"
	"github.com/paycli/paycli/internal/config"
	"github.com/paycli/paycli/internal/journal"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// NewRootCmd builds the whole command tree on the factory f (NewFactory).
// Its pre-run hook binds the command that runs to f, whose configuration
// then reads that command's flags. started reports whether a command's
// own code began to run (false means cobra rejected the command line).
func NewRootCmd(f *cmdutil.Factory) (*cobra.Command, *bool) {
	root, started := newRoot(f)
	for _, c := range topLevelCommands() {
		root.AddCommand(c.build(f))
	}
	return root, started
}

// newRootFor builds the tree a run needs: the root and the one command
// the command line names (named, from namedCommand), or, when it names
// none or one that reads the whole tree (help, completion, an unknown
// command and its suggestions), every command. Building all of them costs
// `paycli version` more than its own work (docs/performance.md,
// Start-up).
func newRootFor(f *cmdutil.Factory, named topLevel, ok bool) (*cobra.Command, *bool) {
	root, started := newRoot(f)
	if ok && !named.readsTree {
		root.AddCommand(named.build(f))
		return root, started
	}
	for _, c := range topLevelCommands() {
		root.AddCommand(c.build(f))
	}
	return root, started
}

// topLevel is one of the root's commands, named before it is built.
type topLevel struct {
	name    string
	aliases []string
	// readsTree marks a command that reads the whole tree when it runs.
	readsTree bool
	// instant marks a command with nothing to finish when interrupted:
	// Main leaves the signals their default action, ending the process
	// (interruptible).
	instant bool
	build   func(*cmdutil.Factory) *cobra.Command
	// kinds are the journal kinds of a money command's operations, which
	// the app hands to the journal's readers (moneyKinds).
	kinds func() []journal.Kind
}

// moneyKinds are the kinds of every money command's operations, in the
// order of the commands: what `paycli journal --kind` takes and how
// status and `journal reconcile` settle each.
func moneyKinds() journal.Kinds {
	var kinds journal.Kinds
	for _, c := range topLevelCommands() {
		if c.kinds != nil {
			kinds = append(kinds, c.kinds()...)
		}
	}
	return kinds
}

// topLevelCommands are the root's commands; TestTopLevelCommandsAreNamed
// checks that each is named as it builds.
func topLevelCommands() []topLevel {
	return []topLevel{
		{name: "version", instant: true, build: func(f *cmdutil.Factory) *cobra.Command { return versioncmd.NewCmdVersion(f, nil) }},
		{name: "completion", readsTree: true, instant: true, build: func(f *cmdutil.Factory) *cobra.Command {
			return cmdutil.SetExits(completion.NewCmdCompletion(f), cmdutil.Exits{Kinds: cmdutil.ExitsLocal})
		}},
		{name: "hash", build: hashcmd.NewCmdHash},
		{name: "config", build: configcmd.NewCmdConfig},
		{name: "token", build: func(f *cmdutil.Factory) *cobra.Command { return tokencmd.NewCmdToken(f, nil) }},
		{name: "commissions", build: func(f *cmdutil.Factory) *cobra.Command { return commissionscmd.NewCmdCommissions(f, nil) }},
		{name: "sandbox", build: sandboxcmd.NewCmdSandbox},
		{name: "walletpay", build: func(f *cmdutil.Factory) *cobra.Command { return walletpay.NewCmdWalletPay(f, nil) }, kinds: walletpay.Kinds},
		{name: "refund", build: newRefundCmd, kinds: refund.Kinds},
		{name: "preauth", build: preauth.NewCmdPreAuth, kinds: preauth.Kinds},
		{name: "complete", build: func(f *cmdutil.Factory) *cobra.Command { return complete.NewCmdComplete(f, nil) }, kinds: complete.Kinds},
		{name: "link", build: link.NewCmdLink, kinds: link.Kinds},
		{name: "installments", build: func(f *cmdutil.Factory) *cobra.Command { return installments.NewCmdInstallments(f, nil) }},
		{name: "cards", build: cards.NewCmdCards, kinds: cards.Kinds},
		{name: "transactions", build: func(f *cmdutil.Factory) *cobra.Command { return transactions.NewCmdTransactions(f, nil) }},
		{name: "status", build: newStatusCmd},
		{name: "audit", build: func(f *cmdutil.Factory) *cobra.Command { return audit.NewCmdAudit(f, nil) }},
		{name: "journal", build: func(f *cmdutil.Factory) *cobra.Command { return journalcmd.NewCmdJournal(f, nil) }},
		{name: "webhook", build: webhookcmd.NewCmdWebhook},
		{name: "api", build: func(f *cmdutil.Factory) *cobra.Command { return api.NewCmdAPI(f, nil) }, kinds: api.Kinds},
		{name: "exit-codes", instant: true, build: func(*cmdutil.Factory) *cobra.Command { return newExitCodesTopic() }},
		{name: "environment", instant: true, build: func(*cmdutil.Factory) *cobra.Command { return newEnvironmentTopic() }},
	}
}

// namedCommand returns the root's command that args name, found as cobra
// finds it (past the global flags and their values) among stand-ins that
// carry only the names; false when args name none.
func namedCommand(args []string) (topLevel, bool) {
	probe := &cobra.Command{Use: "paycli"}
	addGlobalFlags(probe.PersistentFlags())
	commands := topLevelCommands()
	named := make(map[*cobra.Command]topLevel, len(commands))
	for _, c := range commands {
		stand := &cobra.Command{Use: c.name, Aliases: c.aliases}
		probe.AddCommand(stand)
		named[stand] = c
	}
	found, _, err := probe.Find(args)
	if err != nil {
		return topLevel{}, false
	}
	c, ok := named[found]
	return c, ok
}

// newRoot builds the root command, without its commands.
func newRoot(f *cmdutil.Factory) (*cobra.Command, *bool) {
	started := new(bool)
	root := &cobra.Command{
		Use:   "paycli",
		Short: "Commissions, wallet payments and hash keys for a ccpayment card gateway",
		Long: `paycli is a command-line tool for the merchants of a ccpayment card gateway
and the people who support them: commission tables, safe wallet payments,
bearer tokens, hash_key values, and a local emulator of the gateway.

Try it with no account: add --sandbox to any gateway command, as in
'paycli commissions --currency TRY --sandbox'. Set up your own gateway's
credentials with 'paycli config init'.`,
		SilenceErrors: true,
		SilenceUsage:  true,
		PersistentPreRunE: func(cmd *cobra.Command, args []string) error {
			// Cobra checks required flags and flag groups only after this
			// hook; checking them first keeps them usage errors (exit 2)
			// like every other complaint about the command line.
			if err := missingRequiredFlags(cmd); err != nil {
				return err
			}
			if err := cmd.ValidateFlagGroups(); err != nil {
				return &cmdutil.Error{Kind: cmdutil.KindUsage, Err: err}
			}
			*started = true
			f.BindCommand(cmd)
			if noColor, _ := cmd.Flags().GetBool("no-color"); noColor {
				f.IOStreams.SetColorEnabled(false)
			}
			return checkGlobalFlags(cmd.Flags())
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if v, _ := cmd.Flags().GetBool("version"); v {
				return runVersion(f, cmd)
			}
			return cmd.Help()
		},
	}
	root.Flags().Bool("version", false, "print paycli's version, as 'paycli version' does")
	root.CompletionOptions.DisableDefaultCmd = true
	// Flag help is wrapped to fit an 80-column terminal, as the rest of
	// the help is written to.
	root.SetUsageFunc(writeUsage)
	root.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error {
		return &cmdutil.Error{Kind: cmdutil.KindUsage, Err: err}
	})

	addGlobalFlags(root.PersistentFlags())
	_ = root.RegisterFlagCompletionFunc("output", cobra.FixedCompletions(config.OutputFormats, cobra.ShellCompDirectiveNoFileComp))
	_ = root.RegisterFlagCompletionFunc("config", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return []string{"yaml", "yml"}, cobra.ShellCompDirectiveFilterFileExt
	})
	_ = root.RegisterFlagCompletionFunc("timeout", cobra.NoFileCompletions)
	_ = root.RegisterFlagCompletionFunc("profile", func(cmd *cobra.Command, args []string, _ string) ([]string, cobra.ShellCompDirective) {
		return cmdutil.CompleteProfiles(config.LoadOptions{Flags: cmd.Flags(), LookupEnv: f.LookupEnv})
	})

	root.SetHelpFunc(func(cmd *cobra.Command, args []string) {
		finishHelpOf(cmd)
		if err := writeHelp(cmd, f.IOStreams.TerminalWidth()); err != nil {
			cmd.PrintErrln(err)
		}
	})
	return root, started
}

// runVersion is `paycli --version`: `paycli version`, with the -o given
// to the root. Like it, it reads no configuration.
func runVersion(f *cmdutil.Factory, root *cobra.Command) error {
	version, _, err := root.Find([]string{"version"})
	if err != nil || version == root {
		version = versioncmd.NewCmdVersion(f, nil)
		root.AddCommand(version)
	}
	_ = version.InheritedFlags() // -o, given to the root, is the version's too
	return version.RunE(version, nil)
}

// newStatusCmd builds `paycli status`, which offers the journal's
// invoices: the one to check is usually one paycli just tried.
func newStatusCmd(f *cmdutil.Factory) *cobra.Command {
	cmd := status.NewCmdStatus(f, nil)
	_ = cmd.RegisterFlagCompletionFunc("invoice", journalcmd.CompleteInvoice(f.JournalPath, f.Kinds))
	cmd.ValidArgsFunction = invoiceArgCompletion(journalcmd.CompleteInvoice(f.JournalPath, f.Kinds))
	return cmd
}

// newRefundCmd builds `paycli refund`, which offers the journal's
// invoices as status does.
func newRefundCmd(f *cmdutil.Factory) *cobra.Command {
	cmd := refund.NewCmdRefund(f, nil)
	_ = cmd.RegisterFlagCompletionFunc("invoice", journalcmd.CompleteInvoice(f.JournalPath, f.Kinds))
	cmd.ValidArgsFunction = invoiceArgCompletion(journalcmd.CompleteInvoice(f.JournalPath, f.Kinds))
	return cmd
}

// addGlobalFlags adds the flags every command takes to fs.
func addGlobalFlags(fs *pflag.FlagSet) {
	fs.StringP("profile", "p", "", "configuration profile to use (env PAYCLI_PROFILE)")
	fs.String("config", "", "config file (env PAYCLI_CONFIG; default <user config dir>/paycli/config.yaml)")
	fs.StringP("output", "o", "table", "output format: table, json, csv or tsv (env PAYCLI_OUTPUT)")
	fs.Bool("no-color", false, "never use colour (also NO_COLOR=1)")
	fs.Bool("debug", false, "log HTTP requests and responses to stderr, secrets redacted")
	fs.String("timeout", "30s", "time limit for the whole command, e.g. 30s or 2m (env PAYCLI_TIMEOUT)")
	fs.Bool("sandbox", false, "run against the local gateway emulator with its credentials (env PAYCLI_SANDBOX=1)")
	fs.String("sandbox-url", "", "with --sandbox, the running sandbox to use, e.g. http://127.0.0.1:8787/ccpayment (env PAYCLI_SANDBOX_URL)")
	fs.String("sandbox-state", "", "with --sandbox, the sandbox's state folder (env PAYCLI_SANDBOX_STATE; default <state dir>/paycli/sandbox)")
}

// checkGlobalFlags validates global flag values given on the command line,
// so that `paycli version -o xml` fails like any other bad flag.
func checkGlobalFlags(fs *pflag.FlagSet) error {
	for _, name := range []string{"output", "timeout"} {
		fl := fs.Lookup(name)
		if fl == nil || !fl.Changed {
			continue
		}
		if err := config.ValidateValue(name, fl.Value.String()); err != nil {
			return cmdutil.UsageErrorf("invalid --%s: %v", name, err)
		}
	}
	return nil
}

// missingRequiredFlags is the usage error of a command line without a
// flag its command requires, in the words every command uses for a
// missing flag ("missing --invoice"); nil when none is missing. It is
// cobra's check (the flags marked required, not set) with paycli's words.
func missingRequiredFlags(cmd *cobra.Command) error {
	var missing []string
	cmd.Flags().VisitAll(func(fl *pflag.Flag) {
		if req, ok := fl.Annotations[cobra.BashCompOneRequiredFlag]; ok && len(req) > 0 && req[0] == "true" && !fl.Changed {
			missing = append(missing, "--"+fl.Name)
		}
	})
	if len(missing) == 0 {
		return nil
	}
	return &cmdutil.Error{Kind: cmdutil.KindUsage, Err: fmt.Errorf("missing %s", strings.Join(missing, ", "))}
}

// invoiceArgCompletion completes the one invoice argument a command takes
// instead of --invoice (cmdutil.InvoiceArg) as the flag is completed.
func invoiceArgCompletion(complete cobra.CompletionFunc) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		if len(args) > 0 || cmd.Flags().Changed("invoice") {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		return complete(cmd, args, toComplete)
	}
}
