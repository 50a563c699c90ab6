package journalcmd

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/paycli/paycli/internal/cmdutil"
	"github.com/paycli/paycli/internal/config"
	"github.com/paycli/paycli/internal/pgjournal"
	"github.com/paycli/paycli/internal/redact"
	"github.com/paycli/paycli/internal/render"
	"github.com/spf13/cobra"
)

// InitOptions are the inputs of `paycli journal init`.
type InitOptions struct {
	cmdutil.Deps
	// URL is the database's; Grants the operator roles to grant; Leads
	// the roles to make desk leads (operators who may also settle an
	// attempt by hand: journal settle).
	URL    string
	Grants []string
	Leads  []string
	// Init creates or migrates the schema (pgjournal.Init outside tests).
	Init func(ctx context.Context, url string, roles, leads []string) (pgjournal.InitResult, error)
}

// hasPassword reports whether a journal URL carries a password (a user
// name alone, postgres://desk_admin@host/db, is no secret to warn about).
// A URL net/url cannot read is taken to hold one, as redact.URL masks it.
func hasPassword(raw string) bool {
	u, err := url.Parse(raw)
	if err != nil {
		return redact.URL(raw) != raw
	}
	_, set := u.User.Password()
	return set
}

// NewCmdInit builds `paycli journal init`.
func NewCmdInit(f *cmdutil.Factory, runF func(context.Context, *InitOptions) error) *cobra.Command {
	opts := &InitOptions{Deps: cmdutil.DepsOf(f), Init: pgjournal.Init}
	var urlFlag string
	cmd := &cobra.Command{
		Use:   "init --url URL [--grant ROLE]... [--lead ROLE]...",
		Short: "Create or update a desk's shared journal in PostgreSQL",
		Long: `Create the shared journal's schema (paycli) in the PostgreSQL database at
--url, or bring it up to this paycli's version, and grant each --grant role
what an operator needs: to read the journal and append to it, never to
change or delete a line (the database refuses UPDATE, DELETE and TRUNCATE
to every role, the owner's included).

Run it as the database's owner (or a role that may create a schema in it),
once when a desk sets the journal up, and again after upgrading paycli: it
is idempotent, applies each pending step in one transaction, and is safe
while operators work. Each operator then points a profile at the journal
with their own role ('paycli config set journal postgres://ROLE@HOST/DB'),
or sets PAYCLI_JOURNAL. The roles must exist; creating them (CREATE ROLE
ayse LOGIN PASSWORD …) is the database administrator's. docs/journal.md says
how a desk sets it up.

--lead ROLE makes ROLE a desk lead: an operator who may also settle an
attempt by hand ('paycli journal settle'), as a member of the database's
role paycli_lead (schema step 5 creates it, which needs CREATEROLE, or the
database administrator creates it: CREATE ROLE paycli_lead NOLOGIN). The
database refuses such a settlement from anyone else.

The URL's password is never printed. A password written in --url is seen
by every user of the machine (ps) and kept in the shell's history: give
--url - to read the URL from stdin, --url @FILE to read it from a file, or
set ` + OwnerURLEnv + ` instead (or keep the password in ~/.pgpass and
out of the URL). A password's '/', '?', '#', '@' and spaces are written
percent-encoded (%2F, %3F, %23, %40, %20). TLS settings pass through as the
URL gives them (sslmode=verify-full, sslrootcert=FILE, …).`,
		Example: `  paycli journal init --url postgres://desk_admin@db.example/paycli?sslmode=verify-full --grant ayse --grant mehmet --lead zeynep
  paycli journal init --url postgres://desk_admin@localhost/paycli -o json
  pass show desk/journal-owner-url | paycli journal init --url - --grant ayse`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			url, err := ownerURL(cmd.Context(), f, urlFlag)
			if err != nil {
				return err
			}
			opts.URL = url
			if opts.URL == "" {
				return cmdutil.UsageHint(errors.New("missing --url"), "Give the owner's URL with --url - (read from stdin), --url @FILE, or "+OwnerURLEnv+".")
			}
			// The check a profile's journal URL gets, whose refusals never
			// show the password; pgx's own follows.
			if err := config.ValidateValue("journal", opts.URL); err != nil {
				return cmdutil.UsageHint(fmt.Errorf("invalid --url: %w", err),
					"Give the database's URL: postgres://ROLE@HOST[:PORT]/DATABASE[?sslmode=…].")
			}
			if urlFlag != "" && urlFlag != "-" && !strings.HasPrefix(urlFlag, "@") && hasPassword(opts.URL) {
				opts.IO.Warnf("the password in --url is seen by other users (ps) and stays in your shell history; next time use --url - or %s", OwnerURLEnv)
			}
			if err := pgjournal.CheckURL(opts.URL); err != nil {
				return cmdutil.UsageHint(fmt.Errorf("invalid --url %s: %w", redact.URL(opts.URL), err),
					"Give the database's URL: postgres://ROLE@HOST[:PORT]/DATABASE[?sslmode=…].")
			}
			for _, r := range opts.Grants {
				if strings.TrimSpace(r) == "" {
					return cmdutil.UsageErrorf("invalid --grant: an empty role name")
				}
			}
			for _, r := range opts.Leads {
				if strings.TrimSpace(r) == "" {
					return cmdutil.UsageErrorf("invalid --lead: an empty role name")
				}
			}
			return cmdutil.Run(cmd, opts, runF, initRun)
		},
	}
	cmdutil.NoGateway(cmd)
	cmd.Flags().StringVar(&urlFlag, "url", "", "the PostgreSQL `URL` of the journal's database, - to read it from stdin, @FILE from a file (else $"+OwnerURLEnv+")")
	cmd.Flags().StringArrayVar(&opts.Grants, "grant", nil, "an operator `ROLE` to let read and append to the journal (repeatable)")
	cmd.Flags().StringArrayVar(&opts.Leads, "lead", nil, "a `ROLE` to make a desk lead: an operator who may also settle an attempt by hand with journal settle (repeatable)")
	opts.AddJSONFlags(cmd)
	cmdutil.SetExits(cmd, cmdutil.Exits{Kinds: []cmdutil.Kind{cmdutil.KindUsage, cmdutil.KindUnavailable, cmdutil.KindJournalRefused}, Notes: map[cmdutil.Kind]string{
		cmdutil.KindUsage:       "bad --url, --grant or --lead, or a role that may not create the schema, the role paycli_lead or grant them",
		cmdutil.KindUnavailable: "the database is unreachable, or refused the connection",
	}})
	return cmd
}

// OwnerURLEnv holds the owner's URL for journal init when --url is not
// given, so that its password need not be on a command line.
const OwnerURLEnv = "PAYCLI_JOURNAL_OWNER_URL"

// ownerURL is the URL journal init uses: --url's value (read from stdin for
// -, from a file for @FILE), else OwnerURLEnv's.
func ownerURL(ctx context.Context, f *cmdutil.Factory, flag string) (string, error) {
	if flag != "" {
		return cmdutil.ReadValue(ctx, f.IOStreams.In, "url", flag, "URL")
	}
	if f.LookupEnv != nil {
		if v, ok := f.LookupEnv(OwnerURLEnv); ok {
			return strings.TrimSpace(v), nil
		}
	}
	return "", nil
}

// initRun creates or migrates the schema and grants the roles.
func initRun(ctx context.Context, opts *InitOptions) error {
	format, err := opts.Format()
	if err != nil {
		return err
	}
	res, err := opts.Init(ctx, opts.URL, opts.Grants, opts.Leads)
	var unavailable *pgjournal.UnavailableError
	var noRole *pgjournal.NoRoleError
	var newer *pgjournal.NewerSchemaError
	var pooler *pgjournal.PoolerError
	var pgErr interface{ SQLState() string }
	var login *pgjournal.LoginError
	switch {
	case errors.As(err, &pooler):
		return cmdutil.UsageHint(err, "Run it against a pool in session mode (PgBouncer: pool_mode = session) or the database's own host and port: see 'Behind a connection pooler' in docs/journal.md.")
	case errors.As(err, &login) && login.Password:
		return cmdutil.WithKind(cmdutil.KindJournalRefused, err, "Check the owner's user name and password in the URL (or ~/.pgpass); whoever runs the database resets them.")
	case errors.As(err, &unavailable):
		return cmdutil.WithKind(cmdutil.KindUnavailable, err, "Check the URL, that the server runs and lets this role in (pg_hba.conf), and the password (~/.pgpass or the URL).")
	case errors.As(err, &noRole):
		return cmdutil.UsageHint(fmt.Errorf("invalid --grant or --lead: %w; the schema is at version %d", err, pgjournal.SchemaVersion()),
			"Create the role first (CREATE ROLE … LOGIN), then run 'paycli journal init' again.")
	case errors.As(err, &newer):
		return cmdutil.UsageHint(err, "Upgrade paycli: an older one must not write to this journal.")
	case errors.As(err, &pgErr) && pgErr.SQLState() == "42501" && strings.Contains(err.Error(), pgjournal.LeadRole):
		// Schema step 5 creates the lead role, or --lead grants it.
		return cmdutil.UsageHint(fmt.Errorf("journal init at %s: %w", redact.URL(opts.URL), err),
			"The database administrator runs: CREATE ROLE "+pgjournal.LeadRole+" NOLOGIN; GRANT "+pgjournal.LeadRole+" TO OWNER WITH ADMIN OPTION; (OWNER being the role that runs journal init), then 'paycli journal init' again.")
	case errors.As(err, &pgErr) && pgErr.SQLState() == "42501": // insufficient_privilege
		return cmdutil.UsageHint(fmt.Errorf("journal init at %s: %w", redact.URL(opts.URL), err),
			"Run it as the database's owner (the role that may create the paycli schema and grant on it), not as an operator's role.")
	case err != nil:
		return fmt.Errorf("journal init at %s: %w", redact.URL(opts.URL), err)
	}
	// The database's settings that weaken durability, on stderr.
	for _, warning := range res.Warnings {
		opts.IO.Warnf("%s", warning)
	}
	if format == render.JSON {
		return opts.JSON.Write(ctx, opts.IO.Out, res)
	}
	w := opts.IO.Out
	where := redact.URL(opts.URL)
	if len(res.Applied) == 0 {
		fmt.Fprintf(w, "The journal at %s is up to date (schema version %d).\n", where, res.Version)
	} else {
		steps := make([]string, len(res.Applied))
		for i, v := range res.Applied {
			steps[i] = strconv.Itoa(v)
		}
		noun := "step"
		if len(steps) > 1 {
			noun = "steps"
		}
		fmt.Fprintf(w, "The journal at %s is at schema version %d (applied %s %s).\n", where, res.Version, noun, strings.Join(steps, ", "))
	}
	for _, r := range res.Granted {
		fmt.Fprintf(w, "Role %s may read the journal and append to it.\n", r)
	}
	for _, r := range res.Leads {
		fmt.Fprintf(w, "Role %s is a desk lead: it may read and append, and settle an attempt by hand (paycli journal settle).\n", r)
	}
	return nil
}
