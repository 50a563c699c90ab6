package app

import (
	"context"
	"strings"
	"testing"

	"github.com/paycli/paycli/internal/config"
)

// Every variable paycli reads is listed in `paycli help environment`, each
// at the start of its own line; the PAYCLI_<KEY> lines follow config.Keys.
func TestEnvironmentTopicListsEveryVariable(t *testing.T) {
	code, stdout, stderr := run(t, context.Background(), "help", "environment")
	if code != ExitOK || stderr != "" {
		t.Fatalf("code %d, stderr %q", code, stderr)
	}
	want := []string{"PAYCLI_CONFIG", "PAYCLI_PROFILE", "NO_COLOR", "CLICOLOR_FORCE", "TERM",
		"HTTPS_PROXY", "HTTP_PROXY", "NO_PROXY", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME", "HOME", "PAYCLI_SANDBOX",
		"PAYCLI_SANDBOX_URL", "PAYCLI_SANDBOX_STATE"}
	for _, k := range config.Keys {
		want = append(want, k.Env())
	}
	listed := map[string]bool{}
	for _, line := range strings.Split(stdout, "\n") {
		if strings.HasPrefix(line, "  ") && !strings.HasPrefix(line, "   ") {
			listed[strings.Fields(line)[0]] = true
		}
	}
	for _, name := range want {
		if !listed[name] {
			t.Errorf("help environment does not list %s", name)
		}
	}
	if len(listed) != len(want) {
		t.Errorf("help environment lists %d variables, want %d: %v", len(listed), len(want), listed)
	}
}

// A key's line carries its help, its flag and its default from config.Keys.
func TestEnvironmentTopicDescribesKeys(t *testing.T) {
	text := environmentHelp()
	for _, k := range config.Keys {
		i := strings.Index(text, "  "+k.Env()+" ")
		if i < 0 {
			t.Errorf("%s missing", k.Env())
			continue
		}
		entry := text[i:]
		if next := strings.Index(entry[2:], "\n  PAYCLI_"); next >= 0 {
			entry = entry[:next+2]
		}
		flat := strings.Join(strings.Fields(entry), " ")
		if !strings.Contains(flat, strings.Join(strings.Fields(k.Help), " ")) {
			t.Errorf("%s entry lacks its help %q:\n%s", k.Env(), k.Help, entry)
		}
		if k.Flag != "" && !strings.Contains(flat, "like --"+k.Flag) {
			t.Errorf("%s entry lacks its flag --%s:\n%s", k.Env(), k.Flag, entry)
		}
		if k.Default != "" && !strings.Contains(flat, "default "+k.Default) {
			t.Errorf("%s entry lacks its default %s:\n%s", k.Env(), k.Default, entry)
		}
	}
}
