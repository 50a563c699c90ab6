package app

import (
	"context"
	"errors"

	"github.com/paycli/paycli/internal/cmdutil"
	"github.com/paycli/paycli/internal/config"
	"github.com/paycli/paycli/internal/gateway"
	"github.com/paycli/paycli/internal/iostreams"
	"github.com/paycli/paycli/internal/journal"
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
		apiErr     *gateway.APIError
	)
	switch {
	case errors.As(err, &fileErr), errors.As(err, &profileErr), errors.As(err, &valueErr),
		errors.Is(err, gateway.ErrInvalidBaseURL), errors.Is(err, gateway.ErrInvalidRequest), errors.Is(err, gateway.ErrNoMerchantKey),
		errors.Is(err, iostreams.ErrLineTooLong):
		return ExitUsage
	// An unknown outcome outranks an interruption: a walletPay cut off by
	// Ctrl-C may have charged the card, and exit 7 says "reconcile".
	case errors.Is(err, gateway.ErrOutcomeUnknown), errors.Is(err, gateway.ErrPending):
		return ExitOutcomeUnknown
	case errors.Is(err, context.Canceled):
		return ExitInterrupted
	case errors.Is(err, gateway.ErrUnauthorized):
		return ExitAuth
	// A refund_transaction_id used before: the gateway has it, made or queued.
	case errors.Is(err, gateway.ErrDuplicateInvoice), errors.Is(err, gateway.ErrRefundIDUsed):
		return ExitDuplicate
	case errors.Is(err, gateway.ErrDeclined):
		return ExitDeclined
	// The journal (a shared journal's database) refused an intent: the
	// invoice holds an attempt whose outcome is not settled; nothing was sent.
	case errors.Is(err, journal.ErrUnsettled):
		return ExitUsage
	case errors.Is(err, gateway.ErrUnavailable), errors.Is(err, context.DeadlineExceeded), errors.Is(err, journal.ErrUnavailable):
		return ExitUnavailable
	// An answer that arrived but could not be read is not "unreachable"
	// (8), nor a refusal (4): nothing paycli expected.
	case errors.Is(err, gateway.ErrUnreadable):
		return ExitError
	// Any other answer that is not a success is a rejection, including
	// ErrNoData and ErrNotFound: commands for which "nothing found" is an
	// answer handle those themselves and exit 0.
	case errors.As(err, &apiErr):
		return ExitRejected
	}
	return ExitError
}

func codeOfKind(k cmdutil.Kind) int {
	switch k {
	case cmdutil.KindJournalRefused:
		return ExitJournalRefused
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
	case cmdutil.KindCancelled:
		return ExitCancelled
	case cmdutil.KindLedgerDiffers:
		return ExitLedgerDiffers
	}
	return ExitError
}
