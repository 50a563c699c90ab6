package app

import (
	"fmt"
	"io"
	"strings"
	"unicode"

	"github.com/spf13/cobra"
)

// usageWidth is the width flag help is wrapped to: the width the rest of
// the help is written to (helpWidth), on an 80-column terminal.
const usageWidth = 80

// writeUsage writes cmd's usage as cobra's default usage template does,
// but with the flag help wrapped to usageWidth and a shorter last line.
// It is Go, not a template given to cobra: a text/template in the binary
// makes reflect's MethodByName reachable, which keeps the linker from
// dropping the methods nothing calls (about 3 MiB of paycli, and a part
// of its start-up; docs/performance.md, Start-up).
func writeUsage(cmd *cobra.Command) error {
	w := cmd.OutOrStderr()
	fmt.Fprint(w, "Usage:")
	if cmd.Runnable() {
		fmt.Fprintf(w, "\n  %s", cmd.UseLine())
	}
	if cmd.HasAvailableSubCommands() {
		fmt.Fprintf(w, "\n  %s [command]", cmd.CommandPath())
	}
	if len(cmd.Aliases) > 0 {
		fmt.Fprintf(w, "\n\nAliases:\n  %s", cmd.NameAndAliases())
	}
	if cmd.HasExample() {
		fmt.Fprintf(w, "\n\nExamples:\n%s", cmd.Example)
	}
	if cmd.HasAvailableSubCommands() {
		writeSubcommands(w, cmd)
	}
	if cmd.HasAvailableLocalFlags() {
		fmt.Fprintf(w, "\n\nFlags:\n%s", trimRightSpace(cmd.LocalFlags().FlagUsagesWrapped(usageWidth)))
	}
	if cmd.HasAvailableInheritedFlags() {
		fmt.Fprintf(w, "\n\nGlobal Flags:\n%s", trimRightSpace(cmd.InheritedFlags().FlagUsagesWrapped(usageWidth)))
	}
	if cmd.HasHelpSubCommands() {
		fmt.Fprint(w, "\n\nAdditional help topics:")
		for _, sub := range cmd.Commands() {
			if sub.IsAdditionalHelpTopicCommand() {
				fmt.Fprintf(w, "\n  %-*s %s", sub.CommandPathPadding(), sub.CommandPath(), sub.Short)
			}
		}
	}
	if cmd.HasAvailableSubCommands() {
		fmt.Fprintf(w, "\n\nUse \"%s [command] --help\" for more about a command.", cmd.CommandPath())
	}
	_, err := fmt.Fprintln(w)
	return err
}

// writeSubcommands lists cmd's subcommands, under their groups' titles
// when it has groups, as cobra's default usage does.
func writeSubcommands(w io.Writer, cmd *cobra.Command) {
	listed := func(sub *cobra.Command) bool { return sub.IsAvailableCommand() || sub.Name() == "help" }
	line := func(sub *cobra.Command) { fmt.Fprintf(w, "\n  %-*s %s", sub.NamePadding(), sub.Name(), sub.Short) }
	if len(cmd.Groups()) == 0 {
		fmt.Fprint(w, "\n\nAvailable Commands:")
		for _, sub := range cmd.Commands() {
			if listed(sub) {
				line(sub)
			}
		}
		return
	}
	for _, group := range cmd.Groups() {
		fmt.Fprintf(w, "\n\n%s", group.Title)
		for _, sub := range cmd.Commands() {
			if sub.GroupID == group.ID && listed(sub) {
				line(sub)
			}
		}
	}
	if !cmd.AllChildCommandsHaveGroup() {
		fmt.Fprint(w, "\n\nAdditional Commands:")
		for _, sub := range cmd.Commands() {
			if sub.GroupID == "" && listed(sub) {
				line(sub)
			}
		}
	}
}

func trimRightSpace(s string) string { return strings.TrimRightFunc(s, unicode.IsSpace) }
