package app

import (
	"fmt"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/paycli/paycli/internal/iostreams"
	"github.com/spf13/cobra"
)

// usageWidth is the width flag help is wrapped to: the width the rest of
// the help is written to (helpWidth), on an 80-column terminal.
const usageWidth = 80

// helpLayout is the width a help is written to: usageWidth, or a
// narrower terminal's width; prose is helpWidth at most.
type helpLayout struct{ width, prose int }

func layoutFor(terminalWidth int) helpLayout {
	if terminalWidth <= 0 || terminalWidth >= usageWidth {
		return helpLayout{width: usageWidth, prose: helpWidth}
	}
	return helpLayout{width: terminalWidth, prose: terminalWidth}
}

// writeHelp writes cmd's help as gh orders it: what the command does in a
// line, then how to run it (usage, commands, flags, examples) on the
// first screen, and the long guide and its exit codes after. A help topic
// is its text. Prose is wrapped at blanks to the terminal (layoutFor).
func writeHelp(cmd *cobra.Command, terminalWidth int) error {
	w := cmd.OutOrStdout()
	lay := layoutFor(terminalWidth)
	long := trimRightSpace(fitLines(reflow(cmd.Long, lay.prose), lay.width))
	if !cmd.Runnable() && !cmd.HasSubCommands() {
		_, err := fmt.Fprintln(w, long)
		return err
	}
	if cmd.Short != "" {
		fmt.Fprintf(w, "%s\n\n", iostreams.Wrap(cmd.Short, lay.prose))
	}
	return writeUsageTo(w, cmd, lay, long)
}

// writeUsage writes cmd's usage, the part of its help after its one-line
// description, without the long guide.
func writeUsage(cmd *cobra.Command) error {
	return writeUsageTo(cmd.OutOrStderr(), cmd, layoutFor(0), "")
}

// writeUsageTo writes cmd's usage in the sections of cobra's default usage
// template, its own flags and examples first, then
// the flags every command takes, and the guide after them.
// It is Go, not a template given to cobra: a text/template in the binary
// makes reflect's MethodByName reachable, which keeps the linker from
// dropping the methods nothing calls (about 3 MiB of paycli, and a part
// of its start-up; docs/performance.md, Start-up).
func writeUsageTo(w io.Writer, cmd *cobra.Command, lay helpLayout, guide string) error {
	fmt.Fprint(w, "Usage:")
	if cmd.Runnable() {
		fmt.Fprintf(w, "\n%s", iostreams.Hanging("  ", cmd.UseLine(), lay.width))
	}
	if cmd.HasAvailableSubCommands() {
		fmt.Fprintf(w, "\n  %s [command]", cmd.CommandPath())
	}
	if len(cmd.Aliases) > 0 {
		fmt.Fprintf(w, "\n\nAliases:\n  %s", cmd.NameAndAliases())
	}
	if cmd.HasAvailableSubCommands() {
		writeSubcommands(w, cmd, lay.width)
	}
	if cmd.HasAvailableLocalFlags() {
		fmt.Fprintf(w, "\n\nFlags:\n%s", trimRightSpace(fitLines(cmd.LocalFlags().FlagUsagesWrapped(0), lay.width)))
	}
	if cmd.HasExample() {
		fmt.Fprintf(w, "\n\nExamples:\n%s", trimRightSpace(fitLines(cmd.Example, lay.width)))
	}
	if cmd.HasAvailableInheritedFlags() {
		fmt.Fprintf(w, "\n\nGlobal Flags:\n%s", trimRightSpace(fitLines(cmd.InheritedFlags().FlagUsagesWrapped(0), lay.width)))
	}
	if guide != "" {
		fmt.Fprintf(w, "\n\n%s", guide)
	}
	if cmd.HasHelpSubCommands() {
		fmt.Fprint(w, "\n\nAdditional help topics:")
		for _, sub := range cmd.Commands() {
			if sub.IsAdditionalHelpTopicCommand() {
				fmt.Fprintf(w, "\n%s", iostreams.Hanging(fmt.Sprintf("  %-*s ", sub.CommandPathPadding(), sub.CommandPath()), sub.Short, lay.width))
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
// when it has groups, as cobra's default usage does, each description
// wrapped under itself to width.
func writeSubcommands(w io.Writer, cmd *cobra.Command, width int) {
	listed := func(sub *cobra.Command) bool { return sub.IsAvailableCommand() || sub.Name() == "help" }
	line := func(sub *cobra.Command) {
		fmt.Fprintf(w, "\n%s", iostreams.Hanging(fmt.Sprintf("  %-*s ", sub.NamePadding(), sub.Name()), sub.Short, width))
	}
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

// fitLines breaks each line of help text wider than width, as its kind
// reads: a row of a list or table under its last column, a command line
// with shell continuations (" \\") between its words, a comment under its
// "#", and anything else at blanks (iostreams.Wrap).
func fitLines(text string, width int) string {
	lines := strings.Split(text, "\n")
	var out []string
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		body := strings.TrimLeft(line, " ")
		indent := line[:len(line)-len(body)]
		if column := lastColumn(body); column > 0 {
			// A row and the lines that continue its last column.
			at := len(indent) + column
			row, wide := line[at:], utf8.RuneCountInString(line) > width
			next := i + 1
			for ; next < len(lines) && continues(lines[next], at); next++ {
				row += " " + strings.TrimSpace(lines[next])
				wide = wide || utf8.RuneCountInString(lines[next]) > width
			}
			if wide {
				out, i = append(out, iostreams.Hanging(line[:at], row, width)), next-1
				continue
			}
		}
		switch {
		case utf8.RuneCountInString(line) <= width:
		case strings.HasPrefix(body, "paycli ") || strings.Contains(body, "| paycli "):
			line = wrapCommandLine(indent, body, width)
		case strings.HasPrefix(body, "# "):
			line = iostreams.Hanging(indent+"# ", body[2:], width)
		default:
			// Further lines hang under the first, as a list item's do.
			hang := indent + "    "
			line = indent + strings.TrimPrefix(iostreams.Wrap(hang+body, width), hang)
		}
		out = append(out, line)
	}
	return strings.Join(out, "\n")
}

// continues says whether line continues the last column of the row
// above it, which starts at column at: it is indented exactly that far.
func continues(line string, at int) bool {
	body := strings.TrimLeft(line, " ")
	return body != "" && len(line)-len(body) == at
}

// lastColumn is where the last column of a row of a list or table starts
// in its text (after its indentation): past its last run of two or more
// blanks; 0 for a line that has none.
func lastColumn(row string) int {
	at := strings.LastIndex(row, "  ")
	if at < 0 {
		return 0
	}
	return at + len(row[at:]) - len(strings.TrimLeft(row[at:], " "))
}

// wrapCommandLine breaks a shell command line between its words, never
// inside a quoted one, each line but the last ending in " \\" and the
// further ones indented two more, so that it still pastes as one command.
func wrapCommandLine(indent, command string, width int) string {
	var lines []string
	line, more := indent, indent+"    "
	// A line that a continuation already ends keeps it.
	words, end := shellWords(command), ""
	if n := len(words); n > 0 && words[n-1] == "\\" {
		words, end = words[:n-1], " \\"
	}
	for _, word := range flagsWithValues(words) {
		if strings.TrimSpace(line) != "" && utf8.RuneCountInString(line)+1+utf8.RuneCountInString(word)+2 > width {
			lines, line = append(lines, line+" \\"), more
		}
		if strings.TrimSpace(line) != "" {
			line += " "
		}
		line += word
	}
	return strings.Join(append(lines, line+end), "\n")
}

// flagsWithValues joins each flag to the value after it ("--amount
// 50.00"), so that a command line breaks between its options.
func flagsWithValues(words []string) []string {
	var out []string
	for _, w := range words {
		if n := len(out); n > 0 && strings.HasPrefix(out[n-1], "-") && !strings.Contains(out[n-1], " ") &&
			!strings.HasPrefix(w, "-") && w != "|" && w != ">" && w != "<" {
			out[n-1] += " " + w
			continue
		}
		out = append(out, w)
	}
	return out
}

// shellWords splits a command line at the blanks outside its quotes.
func shellWords(command string) []string {
	var words []string
	var quote rune
	start := -1
	for i, r := range command {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			}
		case r == '\'' || r == '"':
			quote = r
		case r == ' ':
			if start >= 0 {
				words, start = append(words, command[start:i]), -1
			}
			continue
		}
		if start < 0 {
			start = i
		}
	}
	if start >= 0 {
		words = append(words, command[start:])
	}
	return words
}

func trimRightSpace(s string) string { return strings.TrimRightFunc(s, unicode.IsSpace) }
