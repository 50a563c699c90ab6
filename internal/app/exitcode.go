package app

import (
	"context"
	"errors"

	"github.com/paycli/paycli/internal/cmdutil"
	"github.com/paycli/paycli/internal/config"
)

// ExitCode maps an error to paycli's exit code. It is the only place that
// does: commands return categorised errors, and this decides.
func ExitCode(err error) int {
	if err == nil {
		return ExitOK
	}
	if kind, ok := cmdutil.KindOf(err); ok {
		return codeOfKind(kind)
	}
	var (
		fileErr    *config.FileError
		profileErr *config.ProfileError
		valueErr   *config.ValueError
	)
	switch {
	case errors.As(err, &fileErr), errors.As(err, &profileErr), errors.As(err, &valueErr):
		return ExitUsage
	case errors.Is(err, context.Canceled):
		return ExitInterrupted
	}
	return ExitError
}

func codeOfKind(k cmdutil.Kind) int {
	switch k {
	case cmdutil.KindUsage:
		return ExitUsage
	case cmdutil.KindAuth:
		return ExitAuth
	case cmdutil.KindRejected:
		return ExitRejected
	case cmdutil.KindDeclined:
		return ExitDeclined
	case cmdutil.KindDuplicate:
		return ExitDuplicate
	case cmdutil.KindOutcomeUnknown:
		return ExitOutcomeUnknown
	case cmdutil.KindUnavailable:
		return ExitUnavailable
	case cmdutil.KindInterrupted:
		return ExitInterrupted
	}
	return ExitError
}
