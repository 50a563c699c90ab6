package moneyop

import (
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/paycli/paycli/internal/cmdutil"
	"github.com/paycli/paycli/internal/gateway"
	"github.com/paycli/paycli/internal/journal"
	"github.com/paycli/paycli/internal/redact"
)

// TestCheckModeFlags: every refusal is a usage error (exit 2) with the
// message the commands' scripts and docs show, the noun included or left
// out, and a command's own single-operation check replaces Required.
func TestCheckModeFlags(t *testing.T) {
	payment := Modes{Noun: "payment", Batched: []string{"invoice", "token"}, Required: []string{"invoice", "token"}}
	lines := Modes{Batched: []string{"invoice", "amount"}, Required: []string{"invoice"}}
	own := Modes{Batched: []string{"invoice"}, Single: func() error { return cmdutil.UsageErrorf("own check") }}
	cases := []struct {
		name  string
		modes Modes
		args  []string
		want  string
	}{
		{"single ok", payment, []string{"--invoice", "I", "--token", "T"}, ""},
		{"missing all", payment, nil, "missing --invoice, --token (or use --batch FILE)"},
		{"missing one", lines, []string{"--amount", "1"}, "missing --invoice (or use --batch FILE)"},
		{"parallel alone", lines, []string{"--invoice", "I", "--parallel", "2"}, "--parallel only applies to --batch"},
		{"batch jq noun", payment, []string{"--batch", "f", "--yes", "--jq", ".x"}, "--jq filters a single payment's result; a batch prints JSON Lines already (pipe them to jq)"},
		{"batch jq", lines, []string{"--batch", "f", "--yes", "--jq", ".x"}, "--jq filters a single result; a batch prints JSON Lines already (pipe them to jq)"},
		{"batch flag noun", payment, []string{"--batch", "f", "--yes", "--token", "T"}, "--token cannot be used with --batch: each line of the batch carries its own payment"},
		{"batch dry-run", lines, []string{"--batch", "f", "--yes", "--dry-run"}, "--dry-run cannot be used with --batch: each line of the batch carries its own"},
		{"batch no yes", lines, []string{"--batch", "f"}, "--batch needs --yes: a batch never asks for confirmation, and moves money"},
		{"batch ok", lines, []string{"--batch", "f", "--yes", "--parallel", "32"}, ""},
		{"parallel 1", lines, []string{"--batch", "f", "--yes", "--parallel", "1"}, ""},
		{"parallel 0", lines, []string{"--batch", "f", "--yes", "--parallel", "0"}, "invalid --parallel 0: use 1 to " + strconv.Itoa(MaxParallel)},
		{"parallel 33", lines, []string{"--batch", "f", "--yes", "--parallel", "33"}, "invalid --parallel 33: use 1 to " + strconv.Itoa(MaxParallel)},
		{"own single check", own, nil, "own check"},
		{"own check not in batch", own, []string{"--batch", "f", "--yes"}, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var opts Options
			cmd := &cobra.Command{Use: "x"}
			fl := cmd.Flags()
			for _, name := range []string{"invoice", "token", "amount", "jq"} {
				fl.String(name, "", "")
			}
			fl.BoolVarP(&opts.Yes, "yes", "y", false, "")
			fl.BoolVar(&opts.DryRun, "dry-run", false, "")
			fl.StringVar(&opts.Batch, "batch", "", "")
			fl.IntVar(&opts.Parallel, "parallel", DefaultParallel, "")
			if err := fl.Parse(tc.args); err != nil {
				t.Fatal(err)
			}
			err := CheckModeFlags(cmd, &opts, tc.modes)
			if tc.want == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			if err == nil || err.Error() != tc.want {
				t.Fatalf("got %v, want %q", err, tc.want)
			}
			if k, ok := cmdutil.KindOf(err); !ok || k != cmdutil.KindUsage {
				t.Errorf("kind %v, %v: want usage (exit 2)", k, ok)
			}
		})
	}
}

// TestSuccess: a success answer is succeeded with its order number; one
// whose fields contradict it (the client's *gateway.InconsistentError) is
// unknown (exit 7), saying how, with the order number it names.
func TestSuccess(t *testing.T) {
	o := Success("ORD-1", "ok")
	if o.Class != journal.Succeeded || o.OrderNo != "ORD-1" || o.Message != "ok" || o.StatusCode == nil || *o.StatusCode != gateway.StatusSuccess || o.Err != nil {
		t.Errorf("agreeing success: %+v", o)
	}
	inconsistent := &gateway.InconsistentError{Endpoint: gateway.EndpointCompletePayment, StatusCode: 100, Reasons: []string{`its status is "cancel"`}, OrderNo: "ORD-1"}
	o = ClassifyError(gateway.EndpointCompletePayment, inconsistent)
	if o.Class != journal.Unknown || !errors.Is(o.Err, gateway.ErrOutcomeUnknown) || o.OrderNo != "ORD-1" || o.StatusCode == nil || *o.StatusCode != 100 ||
		o.Why != `the gateway answered status_code 100 but its status is "cancel"` {
		t.Errorf("contradicted success: %+v", o)
	}
}

// TestNewRefundIDShowsWhole: a refund_transaction_id paycli makes is never
// masked as a card number where paycli shows it (the dry run's body): its
// hex could otherwise hold a Luhn-valid run of digits, about once in a few
// hundred.
func TestNewRefundIDShowsWhole(t *testing.T) {
	for range 5000 {
		ref := NewRefundID()
		if len(ref) != 26 || !strings.HasPrefix(ref, "RF") || redact.Cards(ref) != ref {
			t.Fatalf("ref %q", ref)
		}
	}
}
