package configcmd

import (
	"github.com/spf13/cobra"

	"github.com/paycli/paycli/internal/cmdutil"
	"github.com/paycli/paycli/internal/config"
	"github.com/paycli/paycli/internal/family"
	"github.com/paycli/paycli/internal/iostreams"
)

// addGatewayFlag adds --gateway NAME, completed with the family's names.
func addGatewayFlag(cmd *cobra.Command, name *string, usage string) {
	cmd.Flags().StringVar(name, "gateway", "", usage)
	_ = cmd.RegisterFlagCompletionFunc("gateway", completeGateways)
}

// completeGateways offers the family's names, each with its title.
func completeGateways(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	var out []string
	for _, m := range family.Members() {
		out = append(out, m.Name+"\t"+m.Title)
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

// parseGateway reads --gateway: the member's name, or a usage error (exit
// 2) listing the names paycli knows.
func parseGateway(name string) (string, error) {
	m, ok := family.Lookup(name)
	if !ok {
		return "", cmdutil.UsageErrorf("invalid --gateway: %v", &config.UnknownGatewayError{Name: name})
	}
	return m.Name, nil
}

// environmentOf is the environment a profile's base_url is in: its word
// (test, live), or the family URL it is; ok is false for any other URL.
func environmentOf(baseURL string) (family.Environment, bool) {
	if env, ok := family.ParseEnvironment(baseURL); ok {
		return env, true
	}
	_, env, ok := family.ByURL(baseURL)
	return env, ok
}

// followGateway makes the profile's base_url follow a gateway just set:
// a family URL (any member's) becomes its environment's word, so that the
// gateway's own URL is used; another URL stays and overrides the gateway,
// which is said on ios.
func followGateway(ios *iostreams.IOStreams, edit *config.Edit, profile, gateway string) error {
	current := edit.Before.Profiles[profile]["base_url"]
	m, _ := family.Lookup(gateway)
	if current == "" {
		return nil
	}
	env, known := environmentOf(current)
	if !known {
		ios.Notef("note: base_url %s stays and overrides %s's URL; to use %s's, run 'paycli config set base_url test' (or live).",
			current, m.Title, m.Title)
		return nil
	}
	if current == string(env) {
		return nil
	}
	if err := edit.Set(profile, "base_url", string(env)); err != nil {
		return cmdutil.UsageErrorf("%v", err)
	}
	ios.Notef("base_url is now %s: %s's %s URL, %s.", env, m.Title, env, m.BaseURL(env))
	return nil
}
