// Package hashcmd implements `paycli hash`: make and check the gateway's
// hash_key values with the configured app_secret, and list the layouts
// (which fields, in which order) that each kind of request uses.
package hashcmd

import (
	"errors"
	"fmt"
	"strings"

	"github.com/paycli/paycli/internal/cmdutil"
	"github.com/paycli/paycli/internal/config"
	"github.com/paycli/paycli/internal/hashkey"
	"github.com/spf13/cobra"
)

// NewCmdHash builds the `paycli hash` group.
func NewCmdHash(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "hash <command>",
		Short: "Make and check the gateway's hash_key values",
		Long: `Make and check the gateway's hash_key values.

A hash_key is "iv:salt:ciphertext": the fields of a request or callback,
joined by "|", encrypted with a key derived from the app_secret. The
app_secret and merchant_key come from the configuration (the profile, or
PAYCLI_APP_SECRET and PAYCLI_MERCHANT_KEY), never from the command line.
'paycli hash layouts' lists which fields each kind of request uses.`,
		Args: cmdutil.UnknownSubcommand,
		RunE: func(cmd *cobra.Command, args []string) error { return cmd.Help() },
	}
	cmd.AddCommand(
		cmdutil.NoGateway(NewCmdGenerate(f, nil)),
		cmdutil.NoGateway(NewCmdValidate(f, nil)),
		NewCmdLayouts(f, nil),
	)
	return cmd
}

// decryptError categorises a failure of hashkey.Decrypt for the user: a
// value that does not decrypt is bad input (exit 2), and when the shape
// was right the likely cause is the app_secret, so the hint says where it
// came from.
func decryptError(cfg *config.Config, err error) error {
	if errors.Is(err, hashkey.ErrWrongKey) {
		return cmdutil.UsageHint(err, wrongKeyHint(cfg))
	}
	if errors.Is(err, hashkey.ErrMalformed) {
		return cmdutil.UsageHint(err, "A hash_key looks like iv:salt:ciphertext, e.g. 1234567890123456:abcd:GkZz...")
	}
	return err
}

func wrongKeyHint(cfg *config.Config) string {
	where := fmt.Sprintf("profile %q", cfg.Profile)
	switch cfg.Source("app_secret") {
	case config.SourceEnv:
		where = "PAYCLI_APP_SECRET"
	case config.SourceFlag:
		where = "the command line"
	}
	return fmt.Sprintf("Check the app_secret (it came from %s): it must be the one the hash_key was made with.", where)
}

// layoutCompletion completes --layout with the layouts' names and help.
func layoutCompletion(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
	names := make([]cobra.Completion, len(hashkey.Layouts))
	for i, l := range hashkey.Layouts {
		names[i] = cobra.CompletionWithDesc(l.Name, l.Help)
	}
	return names, cobra.ShellCompDirectiveNoFileComp
}

// lookupLayout finds a layout named by --layout or says which exist.
func lookupLayout(name string) (hashkey.Layout, error) {
	l, ok := hashkey.LookupLayout(name)
	if !ok {
		return hashkey.Layout{}, cmdutil.UsageHint(
			fmt.Errorf("unknown layout %q", name),
			"Layouts: "+strings.Join(hashkey.LayoutNames(), ", ")+" ('paycli hash layouts' shows their fields).")
	}
	return l, nil
}
