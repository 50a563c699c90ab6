package cmdutil

import (
	"context"
	"time"

	"github.com/spf13/cobra"

	"github.com/paycli/paycli/internal/config"
	"github.com/paycli/paycli/internal/gateway"
	"github.com/paycli/paycli/internal/iostreams"
	"github.com/paycli/paycli/internal/render"
)

// Deps are the dependencies that command options take from the Factory,
// embedded in each command's options so that they are declared and filled
// (DepsOf) in one place. A run uses those it needs; a test fills those its
// run uses with its own fakes. What only some commands take (the journal,
// the gateway identity, the kinds) stays in their own options, with why.
type Deps struct {
	IO     *iostreams.IOStreams
	Config func() (*config.Config, error)
	// Format resolves the output format; AddJSONFlags makes --jq imply JSON.
	Format func() (render.Format, error)
	// JSON writes -o json and --jq output; AddJSONFlags sets it, nil
	// writes plain JSON.
	JSON           *JSONFlags
	Palette        func() render.Palette
	Gateway        func() (*gateway.Client, error)
	CommandContext func(context.Context) (context.Context, context.CancelFunc, error)
	Now            func() time.Time
}

// DepsOf is f's dependencies as a command's options take them.
func DepsOf(f *Factory) Deps {
	return Deps{
		IO:             f.IOStreams,
		Config:         f.Config,
		Format:         f.OutputFormat,
		Palette:        f.Palette,
		Gateway:        f.Gateway,
		CommandContext: f.CommandContext,
		Now:            f.Now,
	}
}

// AddJSONFlags registers --jq on cmd (AddJSONFlags) and makes it imply
// -o json in Format.
func (d *Deps) AddJSONFlags(cmd *cobra.Command) {
	d.JSON = AddJSONFlags(cmd)
	d.Format = d.JSON.Format(d.Format)
}

// FormatAndConfig resolves the output format, then the configuration:
// the order of every run that reads both, so that a bad -o is named first.
func (d *Deps) FormatAndConfig() (render.Format, *config.Config, error) {
	format, err := d.Format()
	if err != nil {
		return format, nil, err
	}
	cfg, err := d.Config()
	return format, cfg, err
}

// AppSecret is FormatAndConfig, then the profile's app_secret
// (RequireAppSecret, saying why): how the runs that use the secret here
// rather than send it open (hash validate, webhook listen and verify).
func (d *Deps) AppSecret(why string) (render.Format, *config.Config, string, error) {
	format, cfg, err := d.FormatAndConfig()
	if err != nil {
		return format, cfg, "", err
	}
	secret, err := RequireAppSecret(cfg, why)
	return format, cfg, secret, err
}

// Need says what a run's gateway calls need besides the credentials.
type Need int

const (
	// Credentials alone: app_id and app_secret (commissions, token).
	Credentials Need = iota
	// MerchantKey too: the calls carry merchant_key, so a profile without
	// one is refused before anything is sent.
	MerchantKey
)

// Client resolves the output format, then builds the gateway client, and
// with MerchantKey refuses a profile without merchant_key: the order every
// command that calls the gateway opens them in, so that a bad -o is named
// before missing credentials.
func (d *Deps) Client(need Need) (render.Format, *gateway.Client, error) {
	format, err := d.Format()
	if err != nil {
		return format, nil, err
	}
	client, err := d.Gateway()
	if err != nil {
		return format, nil, err
	}
	if need == MerchantKey {
		if err := client.RequireMerchantKey(); err != nil {
			return format, nil, err
		}
	}
	return format, client, nil
}

// Call is what Open opened for a run that calls the gateway.
type Call struct {
	Format render.Format
	Client *gateway.Client
	cancel context.CancelFunc
}

// Close releases the context Open returned.
func (c Call) Close() { c.cancel() }

// Open is Client, then ctx limited by the configured timeout
// (CommandContext), which the caller releases with Close. A run that reads
// from the user or dry-runs before it calls takes Client and
// CommandContext apart, so that the timeout runs only from the call.
func (d *Deps) Open(ctx context.Context, need Need) (context.Context, Call, error) {
	format, client, err := d.Client(need)
	if err != nil {
		return ctx, Call{}, err
	}
	ctx, cancel, err := d.CommandContext(ctx)
	if err != nil {
		return ctx, Call{}, err
	}
	return ctx, Call{Format: format, Client: client, cancel: cancel}, nil
}

// Run ends a command's RunE once its flags are checked: it calls runF when
// a test gave one (to see the options the command parsed), run otherwise,
// with the command's context.
func Run[O any](cmd *cobra.Command, opts O, runF, run func(context.Context, O) error) error {
	if runF != nil {
		run = runF
	}
	return run(cmd.Context(), opts)
}
