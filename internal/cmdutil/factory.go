// Package cmdutil holds what every command shares: the Factory of lazily
// built dependencies, error categories and flag helpers.
package cmdutil

import (
	"github.com/paycli/paycli/internal/build"
	"time"

	"github.com/paycli/paycli/internal/config"
	"github.com/paycli/paycli/internal/gateway"
	"github.com/paycli/paycli/internal/iostreams"
	"github.com/paycli/paycli/internal/render"
)

// Factory builds the dependencies commands need. Each field is a function
// so that a command only pays for what it uses; internal/app fills them in
// and tests replace them.
type Factory struct {
	// Build reports the binary's version.
	Build     func() build.Info
	IOStreams *iostreams.IOStreams
	// LookupEnv reads the environment (os.LookupEnv outside tests).
	LookupEnv func(string) (string, bool)
	// Now is the clock.
	Now func() time.Time
	// Config resolves the configuration for the running command (flags
	// included). It is computed once per run.
	Config func() (*config.Config, error)
	// Gateway builds the gateway client from Config alone (NewGatewayClient),
	// once per run: missing credentials or an unusable base URL are usage
	// errors, before anything is sent.
	Gateway func() (*gateway.Client, error)
	// TokenCache is the selected profile's token cache.
	TokenCache func() (*gateway.FileTokenCache, error)
}

// OutputFormat returns the --output format resolved through the
// configuration (flag > PAYCLI_OUTPUT > file > table).
func (f *Factory) OutputFormat() (render.Format, error) {
	cfg, err := f.Config()
	if err != nil {
		return "", err
	}
	return render.ParseFormat(cfg.Output)
}

// Palette returns the colours for stdout, obeying the colour decision.
func (f *Factory) Palette() render.Palette {
	return render.Palette{Enabled: f.IOStreams.ColorEnabled()}
}
