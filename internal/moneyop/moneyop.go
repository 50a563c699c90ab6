// Package moneyop is the one pipeline every money-moving command runs
// through: walletpay, refund, pre-authorization capture and cancel, 3D
// completion and `paycli api` on the paths that move money. A command
// parses its flags and hands the pipeline an Operation, a type of its own
// whose methods say what the operation is; the pipeline owns everything
// that makes moving money safe, so that each operation gets it once:
//
//   - checks before anything exists: a bad input exits 2 with nothing sent
//     and nothing journaled;
//   - a summary on stderr, and confirmation on a terminal (--yes without
//     one); --dry-run prints the exact request, secrets redacted (as JSON
//     with -o json) and sends nothing;
//   - one command at a time on an invoice: the invoice's lock in the
//     journal (journal.Store.Lock) is held from the first look at the
//     invoice until the outcome is recorded, except while a person is
//     asked to confirm (the look is then taken again, and the command
//     refused if the invoice changed meanwhile); another command on it is
//     refused at once (exit 6);
//   - one rule over every attempt on the invoice: while an attempt of any
//     kind on the invoice and gateway account is not settled (in flight,
//     of unknown outcome, queued: journal.Blocking), every money command on
//     it is refused (exit 2, nothing sent) with the command that settles
//     it. No operation can replace that rule; a Resender can only
//     narrow it, to the re-send of that very attempt. The store keeps the
//     same rule on its own (journal.ErrUnsettled);
//   - a journal intent line before the request leaves (with its deadline,
//     when its time limit runs out) and an outcome line after, also when
//     Ctrl-C, a signal or the time limit cut it off; the outcome is on
//     disk before anything is printed;
//   - the request is sent exactly once and never retried: an unknown
//     outcome exits 7 with the `paycli status` command that resolves it;
//   - the batch runner: JSON Lines in, one JSON result per line in input
//     order, --parallel, a progress bar on a stderr terminal, resume from
//     the journal, invoices repeated in the file, Ctrl-C finishing the
//     calls in flight, and the exit code of the most serious outcome;
//   - no full card number in what it shows: an invoice id that happens to
//     be a card number shows as its first 6 and last 4 digits
//     (redact.Invoice) wherever a summary, prompt, verdict, message or
//     batch result names it — the pipeline's sentences and the
//     operations' own (Description.Prompt, Result's verdict, Outcome.Say)
//     put it in so — and the summary's other input rows go through the
//     card masker (redact.Cards); order numbers and refund ids, the
//     gateway's and paycli's references, stay whole. The journal, resume
//     and duplicate detection keep the values whole; a suggested command
//     never names a masked invoice (Env.StatusCommand).
//
// docs/architecture.md describes the data flow and how to add an operation.
package moneyop

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/paycli/paycli/internal/cmdutil"
	"github.com/paycli/paycli/internal/config"
	"github.com/paycli/paycli/internal/gateway"
	"github.com/paycli/paycli/internal/journal"
	"github.com/paycli/paycli/internal/redact"
	"github.com/paycli/paycli/internal/render"
)

// Operation is one kind of money-moving call: a type of the command's
// package whose methods say what the operation is — its input, checks,
// request, answer and result. In is its input (one command's flags, or one
// batch line), Req the gateway call it makes and Ans the gateway's answer
// to it. Everything else is the pipeline's, and no method of an operation
// decides it: the invoice's lock, the rule over unsettled attempts
// (narrowed only by Resender), the confirmation, the journal intent
// before sending and the outcome after, the one send, the exit code. The
// pipeline calls the methods in this order, each at most once per input:
// Check, Prepare (Preparer), Describe, then (unless it is a dry run, which
// the pipeline prints with the client's DryRun) Call exactly once per
// attempt, Classify, and Result for a success.
//
// What only some operations have is a small interface of its own, which
// the pipeline looks for: LineParser (a batch), Preparer, Locator,
// Resender, Keyed, AnswerPrinter, PlainPrinter, StatusReader and DeskAction.
type Operation[In any, Req gateway.Call, Ans any] interface {
	// Kind is the journal kind of its attempts ("walletpay", "refund", …),
	// named by the operation: written on every line, it never changes.
	Kind() string
	// Invoice is the invoice the journal, the invoice's lock and the batch
	// know an input by; "" for an input that names none (an api body).
	// It is also given what ParseLine made of a line it refused (a nil
	// pointer, or the line read leniently), to name that line's invoice.
	Invoice(In) string
	// Check validates an input before anything exists — no clock, no
	// network — and returns it normalised (trimmed). A *FieldError names
	// the field, so that a command can say "invalid --email".
	Check(In) (In, error)
	// Describe says what a prepared input will do, for the summary, the
	// prompt and the journal intent, and gives the request that does it;
	// the gateway client signs it when it is sent or dry-run.
	Describe(In) (Description, Req)
	// Call sends the request with the client's method, once
	// (client.Refund(ctx, req)). It is never retried.
	Call(ctx context.Context, client *gateway.Client, req Req) (Ans, error)
	// Classify turns Call's answer into an outcome. A success answer whose
	// own fields disagree is Unknown, never Succeeded.
	Classify(In, Ans, error) Outcome
	// Result describes a succeeded answer: the fields printed on stdout
	// and the one-line verdict shown on a stderr terminal, which names the
	// invoice as redact.Invoice shows it.
	Result(In, Ans) ([]render.Field, string)
}

// LineParser is an operation that has a batch: ParseLine decodes one
// batch line strictly; an error makes the line invalid, and Check runs on
// the result.
type LineParser[In any] interface {
	ParseLine([]byte) (In, error)
}

// Preparer is an operation with checks that can go stale or need the
// gateway (a wallet token's expiry; a refund's remaining amount): Prepare
// runs only for an input that is about to be sent, after the journal has
// decided a batch line, before the summary of a single one. An error
// carrying a cmdutil kind keeps its exit code, and so does the gateway's
// own; any other one is bad input (exit 2).
type Preparer[In any] interface {
	Prepare(context.Context, *Env, In) (In, error)
}

// Locator is an operation whose input may name its invoice only through
// the journal (refund --retry REF): Locate finds it, from env.Journal,
// before the pipeline locks it. Its errors are those of Prepare.
type Locator[In any] interface {
	Locate(context.Context, *Env, In) (In, error)
}

// Resender is an operation whose input may re-send one attempt (refund
// --retry REF re-sends its refund, with its refund_transaction_id).
// Resend names that attempt. It cannot replace the pipeline's rule, only
// narrow it: the pipeline refuses every input while the invoice holds an
// attempt whose outcome is not settled, of any kind (journal.Blocking),
// and lets one through only when every such attempt is the one Resend
// names, of the operation's kind, and the input's Description.Ref is that
// attempt's Ref (journal.MayResend). It is called with the invoice locked
// and its attempts of every kind and account, and returns the input for
// Prepare and the attempt it re-sends (nil for a new attempt), or why the
// input may not be sent.
type Resender[In any] interface {
	Resend(*Env, In, []journal.Attempt) (In, *journal.Attempt, error)
}

// Kinded is any operation, whatever its type arguments: its kind.
type Kinded interface {
	Kind() string
}

// AnswerPrinter is an operation that prints the gateway's answer as it
// came (paycli api) instead of Result's fields: once the outcome is
// journaled, for every outcome, so that a declined or rejected answer is
// seen whole too; Result then only gives the verdict. PrintAnswer is
// given the zero Ans when no answer arrived; its errors are warnings.
type AnswerPrinter[Ans any] interface {
	PrintAnswer(context.Context, Ans) error
}

// PlainPrinter is an operation whose result, in the table format, is its
// own text rather than Result's fields: a payment link prints the link
// alone, so that a pipeline reads it, and a QR code of it on a terminal.
// JSON output and --jq still write Result's fields. Its errors are
// warnings, as a closed stdout's are.
type PlainPrinter[In, Ans any] interface {
	PrintPlain(w io.Writer, in In, ans Ans) error
}

// Keyed is an operation whose batch lines the journal knows by a key of
// their own rather than by their invoice: a refund, of which one invoice
// may have several, in several batches. Invoices repeated within one
// batch are still duplicates; resuming a batch goes by the key: the
// pipeline writes Key(in) in the intent (journal.Entry.Key) and asks
// Resume about a line whose key the journal already holds.
type Keyed[In any] interface {
	// Key is the input's resume key; it is known before Prepare.
	Key(In) string
	// Resume decides a batch line from the attempts of its key in the
	// run's scope, oldest first (or from its invoice's unresolved ones):
	// send it, skip it (orderNo: what it was made with), or report it
	// unknown (hint: the command that resolves it).
	Resume(env *Env, attempts []journal.Attempt) (d journal.ResumeDecision, orderNo, hint string)
	// CheckKeys refuses a batch whose lines cannot all be meant, given
	// every attempt of the journal: a refund id given to two refunds.
	// An error is a usage error: nothing of the batch is sent.
	CheckKeys(env *Env, lines []BatchInput[In], attempts []journal.Attempt) error
}

// BatchInput is a valid batch line: its number and its input.
type BatchInput[In any] struct {
	Line int
	In   In
}

// Description is what an input will do, in words and journal fields.
type Description struct {
	// Title heads the stderr summary: "Wallet payment".
	Title string
	// Noun names the operation in messages ("the payment succeeded …");
	// empty means "payment".
	Noun string
	// NotDone says what a refused attempt did not do, in its error:
	// "nothing was refunded"; empty means "nothing was charged".
	NotDone string
	// Rows are the summary's lines; the pipeline adds Profile and Gateway.
	Rows [][2]string
	// Prompt is the confirmation question: "Charge 150.00 TRY to …?"; an
	// invoice in it is put in as redact.Invoice shows it.
	Prompt string
	// Amount, Currency, Card (masked: first 6, last 4) and Wallet go into
	// the journal intent as they are.
	Amount, Currency, Card, Wallet string
	// Ref goes into the journal intent's ref: the operation's own id for
	// the attempt, chosen before sending and re-used when it is retried
	// (a refund's refund_transaction_id). Empty for most operations.
	Ref string
	// Reason goes into the journal intent's reason: why a desk action was
	// taken, as its operator said (cards delete --reason).
	Reason string
	// Secrets are strings no journal message or batch result may hold
	// (a token, the payer's e-mail), should a gateway text echo them.
	Secrets []string
}

// noun is d.Noun, or "payment".
func (d Description) noun() string {
	if d.Noun == "" {
		return "payment"
	}
	return d.Noun
}

// notDone is d.NotDone, or "nothing was charged".
func (d Description) notDone() string {
	if d.NotDone == "" {
		return "nothing was charged"
	}
	return d.NotDone
}

// Outcome is what one attempt came to.
type Outcome struct {
	// Class is the journal's outcome class (journal.Succeeded, …).
	Class      string
	StatusCode *int
	OrderNo    string
	// Err is what went wrong; nil when Class is Succeeded.
	Err error
	// Why says, for an Unknown outcome, why it is not known.
	Why string
	// Message is the journal's message for a success (the gateway's text);
	// for a failure the pipeline uses Err.
	Message string
	// Say, when set, is the sentence a failure is reported with instead of
	// the pipeline's words for its class ("this refund was already made"
	// rather than "this call charged nothing"). An invoice in it is put in
	// as redact.Invoice shows it: the pipeline shows Say as it is. For a
	// rejection it says only what happened ("the gateway refused the
	// refund: …"): the pipeline adds the gateway's words and NotDone.
	Say string
	// Hint, when set, replaces the `paycli status` line suggested for a
	// duplicate or unknown outcome (a refund suggests its --retry command),
	// and is what to do after a rejection.
	Hint string
	// Refused: the operation's own call was refused for its credentials
	// (HTTP 401, status_code 30). Nothing was processed and the call was
	// not repeated; the user runs the command again (exit 3).
	Refused bool
}

// FieldError is a problem with one field of an input; Field is the flag
// name without dashes (the batch key is the same word).
type FieldError struct {
	Field string
	Err   error
}

func (e *FieldError) Error() string { return fmt.Sprintf("invalid %s: %v", e.Field, e.Err) }
func (e *FieldError) Unwrap() error { return e.Err }

// Env is what every attempt of one run shares.
type Env struct {
	Config *config.Config
	Client *gateway.Client
	Now    func() time.Time
	// GatewayFlags are the global flags (--profile, --sandbox) that a
	// suggested command repeats to reach the same gateway.
	GatewayFlags []string
	// Identity is the gateway identity written on every journal line;
	// Alias the account's name on an earlier paycli's lines
	// (journal.AccountOf), written beside it and counted as the account's.
	Identity string
	Alias    string
	// Journal records the run's attempts and holds its invoices' locks.
	Journal journal.Store

	// kind is the operation's journal kind (Operation.Kind), one of kinds
	// (Options.Kinds), which say whether check status settles it.
	kind  string
	kinds journal.Kinds
}

// StatusCommand is the command line that tells what happened to invoice.
// It never prints an invoice id that reads as a card number
// (cmdutil.StatusCommandLine).
func (e *Env) StatusCommand(invoice string) string {
	return cmdutil.StatusCommandLine(invoice, e.GatewayFlags)
}

// Scope is the run's journal scope: the operation's kind on this gateway
// account (Identity), with the profile and base URL that match lines
// written before lines carried the identity.
func (e *Env) Scope() journal.Scope {
	return journal.ScopeFor(e.kind, e.Config.Profile, e.Config.BaseURL, e.Identity, slices.Contains(e.GatewayFlags, "--sandbox")).WithAlias(e.Alias)
}

// unknownCommand is the command that finds out what became of an attempt
// on invoice whose outcome is unknown: the `paycli status` line, unless the
// invoice id reads as a card number. That line cannot name such an invoice
// (it is shown masked, and the masked id would look up another invoice), so
// where `paycli journal reconcile` settles the operation's kind
// (Options.Kinds, journal.Kinds.Reconcilable) it is suggested instead: it takes the
// invoice ids from the journal, which keeps them whole, and asks the
// gateway about every unknown attempt of the profile, this one included.
// Elsewhere the status line says where the invoice id is to be found.
func (e *Env) unknownCommand(invoice string) string {
	if redact.HasCard(invoice) && e.kinds.Reconcilable(e.kind) {
		return cmdutil.ReconcileCommandLine(e.GatewayFlags)
	}
	return cmdutil.StatusCommandLine(invoice, e.GatewayFlags)
}

// resolveCommand is the command that settles a, an attempt whose outcome
// is not settled: one of unknown outcome whose kind is re-sent by its Ref
// (a refund: paycli refund --retry REF, which the gateway makes at most
// once: journal.Kind.Resend) is re-sent; any other, a queued one
// included, is looked up (unknownCommand).
func (e *Env) resolveCommand(a journal.Attempt) string {
	// A queued refund was made or will be refused by the gateway's team:
	// check status tells which, a re-send would not.
	if resend := e.kinds.For(a).ResendCommand(a, e.GatewayFlags); resend != "" && a.Class() != journal.Queued {
		return resend
	}
	return e.unknownCommand(a.Intent.Invoice)
}

// Options are the pipeline's inputs from the command: its dependencies
// and the flags every money-moving command has.
type Options struct {
	// Deps: JSON writes -o json and --jq output of a single operation's
	// result.
	cmdutil.Deps
	// JournalPath names the journal file in messages; Journal opens the
	// run's journal (the factory's: cmdutil.Factory.Journal).
	JournalPath func() (string, error)
	Journal     func() (journal.Store, error)
	// GatewayIdentity names the gateway account for the journal; nil means
	// journal.AccountOf the client's base URL, app_id and merchant_key.
	GatewayIdentity func() (string, error)
	// NewAttemptID names a journal attempt (crypto/rand outside tests).
	NewAttemptID func() string
	// Kinds are the operations' kinds the app registers
	// (cmdutil.Factory.Kinds): whether check status settles this one.
	Kinds journal.Kinds

	Yes    bool
	DryRun bool
	// Batch is the --batch file, or - for stdin; Parallel how many of its
	// lines are in flight at once.
	Batch    string
	Parallel int
	// GatewayFlags: see Env.GatewayFlags.
	GatewayFlags []string
}

// options lets Start take a command's options, which embed Options.
func (o *Options) options() *Options { return o }

// ErrJournal marks a failure to write the intent: nothing was sent.
var ErrJournal = errors.New("cannot record the attempt in the payment journal; nothing was sent")

// scrub removes secrets from a message bound for the journal or output.
func scrub(msg string, secrets []string) string {
	for _, s := range secrets {
		if s != "" {
			msg = strings.ReplaceAll(msg, s, "•••")
		}
	}
	return msg
}

// scrubbedError is err with its text scrubbed of secrets (scrub), for an
// error that may quote the gateway; errors.Is and errors.As see err, so
// that its exit code and hint are kept.
type scrubbedError struct {
	err     error
	secrets []string
}

func (e scrubbedError) Error() string { return scrub(e.err.Error(), e.secrets) }
func (e scrubbedError) Unwrap() error { return e.err }

// LookUp asks the gateway what it knows of invoice (check status with the
// sale's refunds: gateway.Client.CheckStatus), for a Prepare that must see
// the sale before acting on it. A pending answer (status_code 69) comes
// back with its fields and an error matching gateway.ErrPending; an answer
// about another invoice is refused (*gateway.InconsistentError).
func (e *Env) LookUp(ctx context.Context, invoice string) (*gateway.CheckStatusResult, error) {
	return e.Client.CheckStatus(ctx, invoice)
}
