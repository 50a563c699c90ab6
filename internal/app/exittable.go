package app

import (
	"fmt"
	"slices"
	"strings"

	"github.com/paycli/paycli/internal/cmdutil"
	"github.com/paycli/paycli/internal/iostreams"
	"github.com/spf13/cobra"
)

// exitCode is one row of the one table of exit codes: `paycli help
// exit-codes`, the exit codes each command's help lists, and the table of
// docs/exit-codes.md (checked against it by a test) all say what it says.
type exitCode struct {
	code int
	// short is the meaning in a line of a command's help; long is the
	// meaning `paycli help exit-codes` gives.
	short, long string
}

var exitCodes = []exitCode{
	{ExitOK, "success", "success (also: a local list with nothing in it, such as an empty journal)"},
	{ExitError, "unexpected error", "unexpected error"},
	{ExitUsage, "bad input or configuration; nothing was sent",
		"usage error: bad flag, argument, input file or missing configuration; or the journal holds an attempt on " +
			"the invoice, of any kind, whose outcome is not settled (unknown or queued for approval), or its lock folder " +
			"cannot be used; nothing was sent"},
	{ExitAuth, "credentials refused", "authentication failed (HTTP 401, or status_code 30), or a secret could not be fetched " +
		"from where the profile keeps it (the keyring, a *_cmd command, a *_FILE file); nothing was sent"},
	{ExitRejected, "refused by the gateway, or not found",
		"the gateway rejected the request (a status_code other than 100 and not listed below; a refund's 49, 110 or 31), " +
			"or has no transaction with the invoice a status lookup asked about, a sale that cannot be refunded " +
			"(refused before sending), or webhook verify found an invalid webhook, or a customer number holds no saved cards"},
	{ExitDeclined, "payment declined; nothing was charged", "payment declined (status_code 41 and other decline codes)"},
	{ExitDuplicate, "already done; this call charged nothing",
		"duplicate invoice (status_code 3 or 117): this call charged nothing; or the gateway already has this refund's " +
			"refund_transaction_id (status_code 104: made or queued): nothing more was refunded; or another paycli command on the invoice is in flight: " +
			"nothing was sent"},
	{ExitOutcomeUnknown, "outcome unknown: reconcile, do not send it again",
		"outcome unknown (status_code 69, or the connection failed after a call that moves money, or a saved card's deletion, was sent): " +
			"reconcile with 'paycli status --invoice ID'; re-send a refund with 'paycli refund --retry REF', a card deletion with the same 'paycli cards delete' (only their success settles them; otherwise the desk lead's 'paycli journal settle')"},
	{ExitUnavailable, "gateway or shared journal unreachable; nothing was charged",
		"gateway unreachable or unavailable (connection refused, timeout, 5xx) for a call that was safe, " +
			"or the profile's shared journal (PostgreSQL) unreachable: nothing was sent"},
	{ExitJournalRefused, "the shared journal refused your login or role; nothing was sent",
		"the profile's shared journal (PostgreSQL) refused the login (a wrong user name or password) or the role " +
			"(not granted the journal's rights): nothing was sent, and trying again changes nothing until it is fixed"},
	{ExitCancelled, "cancelled at the confirmation; nothing was sent",
		"cancelled: the confirmation of a command that moves money was answered no; nothing was sent"},
	{ExitLedgerDiffers, "the ledger and the journal differ; a person must look",
		"the audit found a difference between the gateway's ledger and the journal, or a commission not the table's, " +
			"that needs a person (paycli audit): the output lists each; sales made elsewhere alone exit 0"},
	{ExitInterrupted, "interrupted", "interrupted (Ctrl-C)"},
	{exitBrokenPipe, "stdout closed before the output was written",
		"stdout was closed before paycli wrote its output ('paycli ... | head -1'), as a shell reports " +
			"a process killed by SIGPIPE; a command that moves money keeps the exit code of what it did"},
}

// helpWidth is the width help text is wrapped to: it reads on an
// 80-column terminal.
const helpWidth = 78

// exitCodesText is `paycli help exit-codes`, written from the table.
func exitCodesText() string {
	var b strings.Builder
	b.WriteString("paycli's exit codes are part of its interface: scripts may branch on them.\n\n")
	for _, e := range exitCodes {
		b.WriteString(hanging(fmt.Sprintf("  %-4d ", e.code), e.long))
	}
	b.WriteString("\nErrors are printed on stderr, as one line saying what failed and, where it\nhelps, a second saying what to do next.")
	return b.String()
}

// commandExits lists the exit codes of a command whose Exits are set, for
// the end of its help: each with the table's short meaning, or the
// command's own note.
func commandExits(e cmdutil.Exits) string {
	codes := listedCodes(e)
	notes := map[int]string{}
	for k, note := range e.Notes {
		notes[codeOfKind(k)] = note
	}
	var b strings.Builder
	b.WriteString("Exit codes (see 'paycli help exit-codes'):\n")
	for _, e := range exitCodes {
		if !slices.Contains(codes, e.code) {
			continue
		}
		text := e.short
		if note, ok := notes[e.code]; ok {
			text = note
		}
		b.WriteString(hanging(fmt.Sprintf("  %-4d ", e.code), text))
	}
	return strings.TrimRight(b.String(), "\n")
}

// finishHelp readies the help of every command below root (finishHelpOf),
// for what reads the whole tree's help (cmd/gendocs).
func finishHelp(root *cobra.Command) {
	for _, c := range root.Commands() {
		finishHelp(c)
		finishHelpOf(c)
	}
}

// annotationHelpFinished marks a command whose help finishHelpOf readied.
const annotationHelpFinished = "paycli_help_finished"

// finishHelpOf readies the help of c, once, when it is about to be shown
// (the root's help function) or generated: a paragraph too wide for an
// 80-column terminal is wrapped (reflow), and a command whose Exits are
// set gets its exit codes at the end; a help topic gets its text. It is
// not done while the tree is built, which every command pays for,
// `paycli version` included. The root's own help is written as it is
// shown.
func finishHelpOf(c *cobra.Command) {
	if !c.HasParent() || c.Annotations[annotationHelpFinished] != "" {
		return
	}
	if topic := c.Annotations[annotationTopic]; topic != "" {
		c.Long = topicText(topic)
	}
	c.Long = reflow(c.Long, helpWidth)
	if e, ok := cmdutil.ExitsOf(c); ok {
		c.Long = strings.TrimRight(c.Long, "\n") + "\n\n" + commandExits(e)
	}
	if c.Annotations == nil {
		c.Annotations = map[string]string{}
	}
	c.Annotations[annotationHelpFinished] = "true"
}

// reflow wraps each paragraph of text that has a line wider than width,
// unless one of its lines is indented (a list, a table, an example),
// which is written as it is.
func reflow(text string, width int) string {
	paras := strings.Split(text, "\n\n")
	for i, p := range paras {
		wide, indented := false, false
		for _, line := range strings.Split(p, "\n") {
			wide = wide || len([]rune(line)) > width
			indented = indented || strings.HasPrefix(line, " ")
		}
		if wide && !indented {
			paras[i] = iostreams.Wrap(strings.Join(strings.Fields(p), " "), width)
		}
	}
	return strings.Join(paras, "\n\n")
}

// hanging writes text after first, wrapped to helpWidth, its further
// lines indented under the text's first (iostreams.Hanging).
func hanging(first, text string) string {
	return iostreams.Hanging(first, text, helpWidth) + "\n"
}

// listedCodes are the exit codes a command's help lists: those of its
// Exits' kinds, and those every command may end with.
func listedCodes(e cmdutil.Exits) []int {
	codes := []int{ExitOK, ExitError, ExitInterrupted}
	for _, k := range e.Kinds {
		codes = append(codes, codeOfKind(k))
	}
	if !e.MovesMoney {
		codes = append(codes, exitBrokenPipe)
	}
	slices.Sort(codes)
	return slices.Compact(codes)
}

// unlistedExit, when set, is told of a command that ended with an exit
// code its help does not list (listedCodes). The tests set it to fail:
// every command run by a test — in process or as the paycli binary of the
// scripts — checks that its help tells the truth about the code it
// returned, at the one place exit codes are decided (execute).
var unlistedExit func(command string, code int)

// checkListedExit reports to unlistedExit an exit code cmd's help does
// not list; a command without Exits, and cobra's own usage errors before
// the command ran, list nothing to check.
func checkListedExit(cmd *cobra.Command, started bool, code int) {
	if unlistedExit == nil || cmd == nil || !started {
		return
	}
	if e, ok := cmdutil.ExitsOf(cmd); ok && !slices.Contains(listedCodes(e), code) {
		unlistedExit(cmd.CommandPath(), code)
	}
}
