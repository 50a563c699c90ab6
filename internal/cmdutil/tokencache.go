package cmdutil

import (
	"time"

	"github.com/paycli/paycli/internal/config"
	"github.com/paycli/paycli/internal/gateway"
)

// NewTokenCache is the token cache of a resolved configuration, in dir
// (<user cache dir>/paycli): one file per profile, gateway and app_id. It
// is the only place a cache is built, so `paycli token --clear` and every
// gateway client agree on where a token lives. The gateway is named by
// cfg.GatewayName, so the in-process sandbox, on a new port each run,
// reuses one file.
func NewTokenCache(cfg *config.Config, dir string, now func() time.Time) *gateway.FileTokenCache {
	return gateway.NewFileTokenCache(dir, cfg.Profile, cfg.GatewayID, now)
}
