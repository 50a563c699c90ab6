package app

import (
	"io"
	"sync"

	"github.com/paycli/paycli/internal/cmdutil"
	"github.com/paycli/paycli/internal/config"
	"github.com/paycli/paycli/internal/gateway"
	"github.com/spf13/pflag"
)

// wireGateway fills the factory's gateway dependencies. flags returns the
// running command's parsed flags (nil before one runs).
func wireGateway(f *cmdutil.Factory, flags func() *pflag.FlagSet) {
	cacheDir := func() (string, error) {
		return config.CacheDir(config.LoadOptions{Flags: flags(), LookupEnv: f.LookupEnv})
	}
	f.TokenCache = func() (*gateway.FileTokenCache, error) {
		cfg, err := f.Config()
		if err != nil {
			return nil, err
		}
		dir, err := cacheDir()
		if err != nil {
			return nil, err
		}
		return cmdutil.NewTokenCache(cfg, dir, f.Now), nil
	}
	f.Gateway = sync.OnceValues(func() (*gateway.Client, error) {
		cfg, err := f.Config()
		if err != nil {
			return nil, err
		}
		dir, err := cacheDir()
		if err != nil {
			return nil, err
		}
		var debug io.Writer
		if fs := flags(); fs != nil {
			if on, _ := fs.GetBool("debug"); on {
				debug = f.IOStreams.ErrOut
			}
		}
		return cmdutil.NewGatewayClient(cfg, cmdutil.GatewayOptions{
			CacheDir:  dir,
			UserAgent: "paycli/" + f.Build().Version,
			Debug:     debug,
			Now:       f.Now,
		})
	})
}
