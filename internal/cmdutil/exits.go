package cmdutil

import (
	"strconv"
	"strings"

	"github.com/spf13/cobra"
)

// Exits says how a command may end, for the exit codes its help lists
// (internal/app writes the list from its one table of exit codes, with
// each kind's code and meaning). Success, an unexpected error and an
// interruption are possible for every command and need not be named.
type Exits struct {
	// Kinds are the error kinds the command may return.
	Kinds []Kind
	// Notes say what a kind means for this command, in place of the
	// table's general words ("no transaction with that invoice id").
	Notes map[Kind]string
	// MovesMoney: a closed stdout does not change the exit code, which is
	// that of what was done (a payment made is 0); others exit 141.
	MovesMoney bool
}

// The kinds of the usual kinds of commands.
var (
	// ExitsLocal: a command that reads only its input and the configuration.
	ExitsLocal = []Kind{KindUsage}
	// ExitsGateway: a command that asks the gateway something.
	ExitsGateway = []Kind{KindUsage, KindAuth, KindRejected, KindUnavailable}
	// ExitsMoney: a command that moves money (internal/moneyop); it opens
	// the journal, whose shared form may refuse the login.
	ExitsMoney = []Kind{KindUsage, KindAuth, KindRejected, KindDeclined, KindDuplicate, KindOutcomeUnknown, KindUnavailable, KindJournalRefused, KindCancelled}
)

// Annotations that hold a command's Exits (a command keeps text only).
const (
	exitsKindsKey = "paycli_exit_kinds"
	exitsMoneyKey = "paycli_exit_moves_money"
	exitsNoteKey  = "paycli_exit_note_"
)

// SetExits records how cmd may end, in its annotations.
func SetExits(cmd *cobra.Command, e Exits) *cobra.Command {
	if cmd.Annotations == nil {
		cmd.Annotations = map[string]string{}
	}
	kinds := make([]string, len(e.Kinds))
	for i, k := range e.Kinds {
		kinds[i] = strconv.Itoa(int(k))
	}
	cmd.Annotations[exitsKindsKey] = strings.Join(kinds, ",")
	delete(cmd.Annotations, exitsMoneyKey)
	if e.MovesMoney {
		cmd.Annotations[exitsMoneyKey] = "true"
	}
	for k, note := range e.Notes {
		cmd.Annotations[exitsNoteKey+strconv.Itoa(int(k))] = note
	}
	return cmd
}

// NoteExit says what kind means for cmd in particular (SetExits' Notes),
// for a command whose Exits something else set (moneyop).
func NoteExit(cmd *cobra.Command, kind Kind, note string) {
	if cmd.Annotations == nil {
		cmd.Annotations = map[string]string{}
	}
	cmd.Annotations[exitsNoteKey+strconv.Itoa(int(kind))] = note
}

// ExitsOf returns what SetExits recorded for cmd; false when nothing was.
func ExitsOf(cmd *cobra.Command) (Exits, bool) {
	text, ok := cmd.Annotations[exitsKindsKey]
	if !ok {
		return Exits{}, false
	}
	e := Exits{MovesMoney: cmd.Annotations[exitsMoneyKey] == "true", Notes: map[Kind]string{}}
	for s := range strings.SplitSeq(text, ",") {
		if n, err := strconv.Atoi(s); err == nil {
			e.Kinds = append(e.Kinds, Kind(n))
		}
	}
	for key, note := range cmd.Annotations {
		if n, ok := strings.CutPrefix(key, exitsNoteKey); ok {
			if k, err := strconv.Atoi(n); err == nil {
				e.Notes[Kind(k)] = note
			}
		}
	}
	return e, true
}
