package config

import (
	"path/filepath"
	"testing"
)

func TestCacheDir(t *testing.T) {
	tests := []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"XDG_CACHE_HOME": "/x/cache", "HOME": "/home/u"}, filepath.Join("/x/cache", "paycli")},
		{map[string]string{"XDG_CACHE_HOME": "relative", "HOME": "/home/u"}, filepath.Join("/home/u", ".cache", "paycli")},
		{map[string]string{"HOME": "/home/u"}, filepath.Join("/home/u", ".cache", "paycli")},
	}
	for _, tt := range tests {
		got, err := CacheDir(LoadOptions{LookupEnv: func(k string) (string, bool) { v, ok := tt.env[k]; return v, ok }})
		if err != nil || got != tt.want {
			t.Errorf("CacheDir(%v) = %q, %v; want %q", tt.env, got, err, tt.want)
		}
	}
}

func TestStateDir(t *testing.T) {
	tests := []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"XDG_STATE_HOME": "/x/state", "HOME": "/home/u"}, filepath.Join("/x/state", "paycli")},
		{map[string]string{"XDG_STATE_HOME": "relative", "HOME": "/home/u"}, filepath.Join("/home/u", ".local", "state", "paycli")},
		{map[string]string{"HOME": "/home/u"}, filepath.Join("/home/u", ".local", "state", "paycli")},
	}
	for _, tt := range tests {
		got, err := StateDir(LoadOptions{LookupEnv: func(k string) (string, bool) { v, ok := tt.env[k]; return v, ok }})
		if err != nil || got != tt.want {
			t.Errorf("StateDir(%v) = %q, %v; want %q", tt.env, got, err, tt.want)
		}
	}
}
