package app

import (
	"fmt"
	"strings"

	"github.com/paycli/paycli/internal/config"
	"github.com/paycli/paycli/internal/sandboxmode"
	"github.com/spf13/cobra"
)

// annotationTopic names the text of a help topic, written when the topic
// is shown (finishHelpOf): topicText.
const annotationTopic = "paycli_topic"

// newExitCodesTopic is `paycli help exit-codes`: a help topic, not a command.
func newExitCodesTopic() *cobra.Command {
	return &cobra.Command{
		Use:         "exit-codes",
		Short:       "What paycli's exit codes mean",
		Annotations: map[string]string{annotationTopic: "exit-codes"},
	}
}

// newEnvironmentTopic is `paycli help environment`.
func newEnvironmentTopic() *cobra.Command {
	return &cobra.Command{
		Use:         "environment",
		Short:       "Environment variables paycli reads",
		Annotations: map[string]string{annotationTopic: "environment"},
	}
}

// topicText is the text of the help topic named name.
func topicText(name string) string {
	switch name {
	case "exit-codes":
		return exitCodesText()
	case "environment":
		return environmentHelp()
	}
	return ""
}

// envVar is one line of `paycli help environment`.
type envVar struct {
	name, help string
}

// environmentHelp lists every environment variable paycli reads. The
// PAYCLI_<KEY> lines come from config.Keys, so a new configuration key is
// documented here without anyone remembering to.
func environmentHelp() string {
	settings := []envVar{
		{config.EnvPrefix + "_CONFIG", "config file to read (like --config); default\n<user config dir>/paycli/config.yaml"},
		{config.EnvPrefix + "_PROFILE", "profile to use (like --profile); default: the file's\ndefault_profile, else \"default\""},
	}
	for _, k := range config.Keys {
		var notes []string
		if k.Flag != "" {
			notes = append(notes, "like --"+k.Flag)
		}
		if k.Default != "" {
			notes = append(notes, "default "+k.Default)
		}
		if k.Secret {
			notes = append(notes, "secret, shown masked")
		}
		help := k.Help
		if len(notes) > 0 {
			help += "\n(" + strings.Join(notes, "; ") + ")"
		}
		settings = append(settings, envVar{k.Env(), help})
	}
	settings = append(settings, envVar{sandboxmode.EnvSandbox, "1, true, yes or on runs gateway commands against the local\nsandbox (like --sandbox); 0, false, no or off does not"})
	settings = append(settings, envVar{sandboxmode.EnvSandboxURL, "the running sandbox --sandbox commands use (like --sandbox-url),\ne.g. http://127.0.0.1:8787/ccpayment"})
	settings = append(settings, envVar{sandboxmode.EnvSandboxState, "the sandbox's state folder for --sandbox commands (like\n--sandbox-state)"})

	var b strings.Builder
	b.WriteString(`paycli reads the environment variables below. For every setting the
precedence is: command-line flag > environment > config file > default.
An empty variable counts as unset.

`)
	section(&b, "Settings", settings)
	section(&b, "Colour", []envVar{
		{"NO_COLOR", "any non-empty value turns colour off (like --no-color)"},
		{"CLICOLOR_FORCE", "non-empty and not \"0\": colour even when stdout is not a\nterminal (NO_COLOR still wins)"},
		{"TERM", "\"dumb\" turns colour off"},
	})
	section(&b, "Network", []envVar{
		{"HTTPS_PROXY", "proxy for https:// gateway URLs (lower-case https_proxy too)"},
		{"HTTP_PROXY", "proxy for http:// gateway URLs (lower-case http_proxy too)"},
		{"NO_PROXY", "hosts that bypass the proxy (lower-case no_proxy too);\nloopback addresses never use a proxy"},
	})
	section(&b, "Files", []envVar{
		{"XDG_CONFIG_HOME", "base of the config file: $XDG_CONFIG_HOME/paycli/config.yaml"},
		{"XDG_CACHE_HOME", "base of the token cache: $XDG_CACHE_HOME/paycli/"},
		{"XDG_STATE_HOME", "base of the payment journal and sandbox state:\n$XDG_STATE_HOME/paycli/"},
		{"HOME", "used when the XDG_* variables are unset or not absolute\n($HOME/.config, $HOME/.cache, $HOME/.local/state)"},
	})
	return strings.TrimRight(b.String(), "\n")
}

// section writes a titled, two-column list; continuation lines of a help
// text are indented under its first line.
func section(b *strings.Builder, title string, vars []envVar) {
	width := 0
	for _, v := range vars {
		width = max(width, len(v.name))
	}
	fmt.Fprintf(b, "%s:\n", title)
	for _, v := range vars {
		for i, line := range strings.Split(v.help, "\n") {
			name := ""
			if i == 0 {
				name = v.name
			}
			fmt.Fprintf(b, "  %-*s  %s\n", width, name, line)
		}
	}
	b.WriteString("\n")
}
