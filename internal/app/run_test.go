package app

import (
	"errors"
	"fmt"

	"context"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"strings"
	"testing"

	"github.com/paycli/paycli/internal/iostreams"
)

func noEnv(string) (string, bool) { return "", false }

func run(t *testing.T, ctx context.Context, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	ios, _, out, errOut := iostreams.Test()
	code = Run(ctx, args, ios, noEnv)
	return code, out.String(), errOut.String()
}

func TestRunUsageErrors(t *testing.T) {
	tests := []struct {
		args       []string
		wantStderr string
	}{
		{[]string{"versoin"}, "error: unknown command \"versoin\" for \"paycli\"\nDid you mean 'version'? Run 'paycli --help' for the list of commands.\n"},
		{[]string{"version", "--nope"}, "error: unknown flag: --nope\nRun 'paycli version --help' for usage.\n"},
		{[]string{"version", "extra"}, "error: unexpected argument \"extra\": paycli version takes no arguments\nRun 'paycli version --help' for usage.\n"},
		{[]string{"version", "--timeout", "soon"}, "error: invalid --timeout: \"soon\" is not a duration (e.g. 30s, 2m)\nRun 'paycli version --help' for usage.\n"},
		{[]string{"completion"}, "error: missing the shell: bash, zsh, fish or powershell\nRun 'paycli completion --help' for usage.\n"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			code, stdout, stderr := run(t, context.Background(), tt.args...)
			if code != ExitUsage {
				t.Errorf("exit code = %d, want %d", code, ExitUsage)
			}
			if stdout != "" {
				t.Errorf("stdout = %q, want nothing", stdout)
			}
			if stderr != tt.wantStderr {
				t.Errorf("stderr:\n got %q\nwant %q", stderr, tt.wantStderr)
			}
		})
	}
}

func TestRunSuccessWritesOnlyStdout(t *testing.T) {
	code, stdout, stderr := run(t, context.Background(), "version")
	if code != ExitOK || stderr != "" || !strings.HasPrefix(stdout, "paycli ") {
		t.Fatalf("code %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

func TestRunHelpTopic(t *testing.T) {
	code, stdout, _ := run(t, context.Background(), "help", "exit-codes")
	if code != ExitOK {
		t.Fatalf("code %d", code)
	}
	for _, want := range []string{"  7    outcome unknown", "  130  interrupted"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("help exit-codes lacks %q", want)
		}
	}
}

func TestRunNoColorFlag(t *testing.T) {
	ios, _, _, _ := iostreams.Test()
	ios.SetColorEnabled(true)
	if code := Run(context.Background(), []string{"version", "--no-color"}, ios, noEnv); code != ExitOK {
		t.Fatalf("code %d", code)
	}
	if ios.ColorEnabled() {
		t.Error("--no-color left colour on")
	}
}

// TestRunMissingRequiredFlagIsUsage walks the whole command tree: every
// command with a required flag, run without it, exits 2 with the usage hint.
func TestRunMissingRequiredFlagIsUsage(t *testing.T) {
	var checked int
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			walk(sub)
		}
		if !c.Runnable() || c.Hidden {
			return
		}
		var required []string
		c.LocalFlags().VisitAll(func(fl *pflag.Flag) {
			if v, ok := fl.Annotations[cobra.BashCompOneRequiredFlag]; ok && len(v) > 0 && v[0] == "true" {
				required = append(required, fl.Name)
			}
		})
		if len(required) == 0 {
			return
		}
		checked++
		path := strings.Fields(c.CommandPath())[1:]
		t.Run(strings.Join(path, " "), func(t *testing.T) {
			code, stdout, stderr := run(t, context.Background(), path...)
			if code != ExitUsage {
				t.Errorf("exit code = %d, want %d (stderr %q)", code, ExitUsage, stderr)
			}
			if stdout != "" {
				t.Errorf("stdout = %q, want nothing", stdout)
			}
			want := "error: missing --" + required[0]
			if !strings.HasPrefix(stderr, want) {
				t.Errorf("stderr = %q, want it to start %q", stderr, want)
			}
			hint := fmt.Sprintf("Run '%s --help' for usage.\n", c.CommandPath())
			if !strings.HasSuffix(stderr, hint) {
				t.Errorf("stderr = %q, want it to end %q", stderr, hint)
			}
		})
	}
	walk(NewCommandTree())
	if checked == 0 {
		t.Fatal("no command has a required flag; the walk found nothing to check")
	}
}

// TestDescribeMasksBeforeCutting: a URL's password is masked before the
// error line is cut, so a cut between the password and the '@' that ends
// it cannot leave the password unrecognised.
func TestDescribeMasksBeforeCutting(t *testing.T) {
	// The cut after maxErrorLine characters falls inside "s3cret".
	prefix := strings.Repeat("x", maxErrorLine-len(" https://merchant:s3"))
	msg, _ := describe(errors.New(prefix+" https://merchant:s3cret@gw.example/ccpayment"), ExitError)
	if strings.Contains(msg, "merchant") || strings.Contains(msg, "s3") {
		t.Errorf("the cut line shows the URL's userinfo: …%s", msg[len(prefix)-10:])
	}
}

// TestDescribeKeepsOrderNumbers: the error line is not run through the
// card masker: an order number whose digits pass the Luhn check by chance
// is shown whole (an invoice id is masked where a message puts it in).
func TestDescribeKeepsOrderNumbers(t *testing.T) {
	const line = "order VP17953766355293785 is not the order of invoice CM-X1; nothing was sent"
	if msg, _ := describe(errors.New(line), ExitRejected); msg != line {
		t.Errorf("describe = %q, want %q", msg, line)
	}
}

// TestCobraErrorsMaskCards: cobra's errors echo only what was typed, so a
// card number typed into the wrong flag is masked there.
func TestCobraErrorsMaskCards(t *testing.T) {
	for _, args := range [][]string{
		{"refund", "--invoice", "INV-1", "--full", "--parallel", "4111111111111111x"},
		{"4111111111111111"},
	} {
		code, _, stderr := run(t, context.Background(), args...)
		if code != ExitUsage || strings.Contains(stderr, "4111111111111111") || !strings.Contains(stderr, "411111******1111") {
			t.Errorf("%v: exit %d, stderr:\n%s", args, code, stderr)
		}
	}
}

// TestUsageErrorsMaskCards: paycli's own usage errors (exit 2) echo what
// was typed; a card number typed in the wrong place — an argument a
// command does not take, the invoice given twice, a currency, a config key
// — is masked in them.
func TestUsageErrorsMaskCards(t *testing.T) {
	for _, args := range [][]string{
		{"version", "4111111111111111"},
		{"status", "4111111111111111", "--invoice", "INV-1"},
		{"status", "INV-1", "4111111111111111"},
		{"commissions", "--currency", "4111111111111111"},
		{"config", "get", "4111111111111111"},
		{"walletpay", "--batch", "4111111111111111", "--yes"},
	} {
		code, _, stderr := run(t, context.Background(), args...)
		if code != ExitUsage || strings.Contains(stderr, "4111111111111111") || !strings.Contains(stderr, "411111******1111") {
			t.Errorf("%v: exit %d, stderr:\n%s", args, code, stderr)
		}
	}
}

// TestRunErrorLineIsBoundedAndMasked: an error quoting a huge value stays
// one readable line, and a URL's password never reaches stderr.
func TestRunErrorLineIsBoundedAndMasked(t *testing.T) {
	huge := "https://merchant:s3cret@" + strings.Repeat("a", 1<<20) + ".example/ccpayment"
	ios, _, _, errOut := iostreams.Test()
	env := map[string]string{"PAYCLI_BASE_URL": huge, "PAYCLI_APP_ID": "1", "PAYCLI_APP_SECRET": "s", "PAYCLI_CONFIG": t.TempDir() + "/c.yaml"}
	code := Run(context.Background(), []string{"token", "--timeout", "1s"}, ios, func(k string) (string, bool) { v, ok := env[k]; return v, ok })
	if code == ExitOK {
		t.Fatal("token with a huge base URL succeeded")
	}
	if errOut.Len() > 2000 {
		t.Errorf("stderr is %d bytes long", errOut.Len())
	}
	if strings.Contains(errOut.String(), "s3cret") || strings.Contains(errOut.String(), "merchant:") {
		t.Errorf("stderr shows the URL's userinfo: %.300s", errOut)
	}
}
