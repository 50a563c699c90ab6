package journalcmd

import (
	"errors"
	"fmt"

	"github.com/paycli/paycli/internal/cmdutil"
	"github.com/paycli/paycli/internal/journal"
	"github.com/paycli/paycli/internal/redact"
	"github.com/spf13/cobra"
)

// Account is the gateway account a listing or a summary shows: the
// profile's (its journal.Identity), or under --sandbox the sandbox's.
type Account struct {
	// Identity is the gateway identity the account's lines carry; Scope
	// the lines that are the account's (an earlier paycli's too: its
	// Alias and profile).
	Identity string
	Scope    journal.Scope
	// Name says which account it is, for a person: `profile "live" at
	// https://…`, or "the sandbox".
	Name string
}

// accountFunc names the account of the command's profile (f.GatewayIdentity).
// Nil when the factory names no account (a test's): every account shows.
func accountFunc(f *cmdutil.Factory) func() (Account, error) {
	if f.GatewayIdentity == nil || f.Config == nil {
		return nil
	}
	return func() (Account, error) {
		id, err := f.GatewayIdentity()
		if err != nil {
			return Account{}, err
		}
		if journal.IsSandboxIdentity(id) {
			return Account{Identity: id, Scope: journal.Scope{Gateway: id}, Name: "the sandbox"}, nil
		}
		cfg, err := f.Config()
		if err != nil {
			return Account{}, err
		}
		if cfg.BaseURL == "" {
			return Account{}, errNoGateway
		}
		scope := journal.ScopeFor("", cfg.Profile, cfg.BaseURL, id, false).WithAlias(journal.AppAlias(id, cfg.BaseURL, cfg.AppID))
		return Account{Identity: id, Scope: scope,
			Name: fmt.Sprintf("profile %q at %s", cfg.Profile, redact.URL(cfg.BaseURL))}, nil
	}
}

// errNoGateway is a profile that names no gateway: it has no account to
// show alone.
var errNoGateway = errors.New("the profile names no gateway; --sandbox shows the sandbox's")

// addAccountFlag adds --all-accounts.
func addAccountFlag(cmd *cobra.Command, all *bool) {
	cmd.Flags().BoolVar(all, "all-accounts", false, "every gateway account's attempts (live and sandbox), not only the profile's")
}

// accountScope is the account a run shows, and what it says of it: zero
// Identity shows every account.
type accountScope struct {
	Account
	// all: every account, as asked (--all-accounts) or for want of a
	// profile (why).
	all bool
	why string
}

// scopeOf decides the account a run shows.
func scopeOf(all bool, account func() (Account, error)) accountScope {
	switch {
	case all:
		return accountScope{all: true}
	case account == nil:
		return accountScope{all: true}
	}
	a, err := account()
	if errors.Is(err, errNoGateway) {
		return accountScope{all: true, why: err.Error()}
	}
	if err != nil || a.Identity == "" {
		return accountScope{all: true, why: "no profile to choose one by"}
	}
	return accountScope{Account: a}
}

// holds reports whether e was made on the account (under its identity or
// an earlier paycli's alias of it); a line of no identity
// (written before lines carried one) is no account's.
func (s accountScope) holds(e journal.Entry) bool {
	return s.all || (e.Gateway != "" && s.Scope.SameAccount(e))
}

// note says which account was shown, and how many attempts of others
// were left out, for stderr; accounts is how many accounts the shown
// attempts belong to (every account shown for want of a profile is worth
// a word only when there are several).
func (s accountScope) note(hidden, accounts int) string {
	switch {
	case s.all && s.why != "" && accounts > 1:
		return "Every gateway account's attempts (" + s.why + ")."
	case s.all:
		return ""
	case hidden == 0:
		return "Gateway account: " + s.Name + "."
	}
	return fmt.Sprintf("Gateway account: %s; %s of other accounts not shown (--all-accounts lists them).", s.Name, countAttempts(hidden))
}

func countAttempts(n int) string {
	if n == 1 {
		return "1 attempt"
	}
	return fmt.Sprintf("%d attempts", n)
}
