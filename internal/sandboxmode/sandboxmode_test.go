package sandboxmode

import (
	"github.com/paycli/paycli/internal/journal"
	"path/filepath"
	"testing"

	"github.com/spf13/cobra"
)

func TestDefaultStateDir(t *testing.T) {
	abs := t.TempDir() // absolute on every platform
	tests := []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"XDG_STATE_HOME": filepath.Join(abs, "state"), "HOME": abs}, filepath.Join(abs, "state", "paycli", "sandbox")},
		{map[string]string{"XDG_STATE_HOME": "relative", "HOME": abs}, filepath.Join(abs, ".local", "state", "paycli", "sandbox")},
		{map[string]string{"HOME": abs}, filepath.Join(abs, ".local", "state", "paycli", "sandbox")},
	}
	for _, tt := range tests {
		got, err := DefaultStateDir(func(k string) (string, bool) { v, ok := tt.env[k]; return v, ok })
		if err != nil || got != tt.want {
			t.Errorf("%v: %q %v, want %q", tt.env, got, err, tt.want)
		}
	}
}

func TestEnabled(t *testing.T) {
	root := &cobra.Command{Use: "paycli"}
	root.PersistentFlags().Bool("sandbox", false, "")
	leaf := &cobra.Command{Use: "commissions", Run: func(*cobra.Command, []string) {}}
	group := &cobra.Command{Use: "sandbox"}
	serve := &cobra.Command{Use: "serve", Run: func(*cobra.Command, []string) {}}
	group.AddCommand(serve)
	root.AddCommand(leaf, group)
	tests := []struct {
		cmd     *cobra.Command
		flag    string
		env     string
		want    bool
		wantErr bool
	}{
		{leaf, "", "", false, false},
		{leaf, "true", "", true, false},
		{leaf, "", "1", true, false},
		{leaf, "", "0", false, false},
		{leaf, "false", "1", false, false}, // the flag beats the environment
		{leaf, "", "maybe", false, true},
		{serve, "true", "1", false, false}, // the sandbox commands manage the sandbox themselves
	}
	for _, tt := range tests {
		fl := root.PersistentFlags().Lookup("sandbox")
		fl.Changed = tt.flag != ""
		if tt.flag != "" {
			_ = fl.Value.Set(tt.flag)
		}
		env := func(k string) (string, bool) { return tt.env, k == EnvSandbox && tt.env != "" }
		got, err := Enabled(tt.cmd, env)
		if got != tt.want || (err != nil) != tt.wantErr {
			t.Errorf("%s flag=%q env=%q: %v %v", tt.cmd.Name(), tt.flag, tt.env, got, err)
		}
	}
}

// TestIdentityIsSandboxs: the sandbox's identity says it is the sandbox's.
func TestIdentityIsSandboxs(t *testing.T) {
	if id := Identity(t.TempDir()); !journal.IsSandboxIdentity(id) {
		t.Errorf("identity %q has no sandbox prefix", id)
	}
}
