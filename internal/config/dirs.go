package config

import (
	"fmt"
	"os"
	"path/filepath"
)

// CacheDir returns paycli's cache folder (tokens live there):
// $XDG_CACHE_HOME/paycli, else $HOME/.cache/paycli when the environment is
// injected, else <os.UserCacheDir()>/paycli. Like Path, it reads the
// injected environment so that tests never touch the real one.
func CacheDir(opts LoadOptions) (string, error) {
	dir, err := userDir(opts, "XDG_CACHE_HOME", ".cache", os.UserCacheDir)
	if err != nil {
		return "", fmt.Errorf("cannot find a cache folder: %w; set XDG_CACHE_HOME", err)
	}
	return filepath.Join(dir, "paycli"), nil
}

// StateDir returns paycli's state folder (the payment journal and the
// sandbox's state live there): $XDG_STATE_HOME/paycli, else
// $HOME/.local/state/paycli when the environment is injected, else
// <os.UserConfigDir()>/paycli on systems with neither. It reads the injected
// environment so that tests never touch the real one.
func StateDir(opts LoadOptions) (string, error) {
	dir, err := userDir(opts, "XDG_STATE_HOME", filepath.Join(".local", "state"), os.UserConfigDir)
	if err != nil {
		return "", fmt.Errorf("cannot find a state folder: %w; set XDG_STATE_HOME", err)
	}
	return filepath.Join(dir, "paycli"), nil
}
