package app_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/paycli/paycli/internal/app"
	"github.com/paycli/paycli/internal/iostreams"
	"github.com/spf13/cobra"
)

// complete runs cobra's hidden `__complete` command, which every shell's
// completion script calls, and returns the candidates (with their
// descriptions after a tab) and the directive. The shell scripts filter the
// candidates by what was typed, so the tests complete empty words.
func complete(t *testing.T, env map[string]string, args ...string) ([]string, cobra.ShellCompDirective) {
	t.Helper()
	ios, _, out, errOut := iostreams.Test()
	lookup := func(name string) (string, bool) { v, ok := env[name]; return v, ok }
	if code := app.Run(t.Context(), append([]string{"__complete"}, args...), ios, lookup); code != 0 {
		t.Fatalf("__complete %s: exit %d: %s", strings.Join(args, " "), code, errOut)
	}
	lines := strings.Split(strings.TrimRight(out.String(), "\n"), "\n")
	last := lines[len(lines)-1]
	var d int
	if _, err := fmt.Sscanf(last, ":%d", &d); err != nil {
		t.Fatalf("no directive in %q", out)
	}
	return lines[:len(lines)-1], cobra.ShellCompDirective(d)
}

func hermeticEnv(t *testing.T) map[string]string {
	home := t.TempDir()
	return map[string]string{
		"HOME":            home,
		"XDG_CONFIG_HOME": home + "/.config",
		"XDG_CACHE_HOME":  home + "/.cache",
		"XDG_STATE_HOME":  home + "/.local/state",
	}
}

func TestCompletions(t *testing.T) {
	env := hermeticEnv(t)
	// Two profiles in the config file, for --profile and `config use`.
	for _, args := range [][]string{
		{"config", "set", "lang", "tr"},
		{"config", "set", "lang", "en", "--profile", "live"},
	} {
		ios, _, _, errOut := iostreams.Test()
		lookup := func(name string) (string, bool) { v, ok := env[name]; return v, ok }
		if code := app.Run(t.Context(), args, ios, lookup); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
	}
	const noFiles = cobra.ShellCompDirectiveNoFileComp
	const keepOrder = cobra.ShellCompDirectiveKeepOrder
	tests := []struct {
		args      []string
		want      []string // candidates without descriptions; nil = none
		directive cobra.ShellCompDirective
	}{
		{[]string{"version", "-o", ""}, []string{"table", "json", "csv", "tsv"}, noFiles},
		{[]string{"hash", "layouts", "--output", ""}, []string{"table", "json", "csv", "tsv"}, noFiles},
		{[]string{"config", "list", "--profile", ""}, []string{"default", "live"}, noFiles},
		{[]string{"token", "-p", ""}, []string{"default", "live"}, noFiles},
		{[]string{"config", "use", ""}, []string{"default", "live"}, noFiles},
		{[]string{"config", "get", ""}, []string{"gateway", "base_url", "app_id", "app_secret", "merchant_key", "default_currency", "lang", "timeout", "output", "ca_cert", "journal", "journal_password",
			"app_secret_cmd", "app_secret_file", "merchant_key_cmd", "merchant_key_file", "journal_password_cmd", "journal_password_file"}, noFiles},
		{[]string{"hash", "generate", "--layout", ""}, []string{"payment", "walletpay", "checkstatus", "refund", "confirm", "complete", "sale-webhook", "refund-webhook", "savecard", "editcard", "deletecard", "link", "transactions"}, noFiles},
		{[]string{"hash", "validate", "x", "--layout", ""}, []string{"payment", "walletpay", "checkstatus", "refund", "confirm", "complete", "sale-webhook", "refund-webhook", "savecard", "editcard", "deletecard", "link", "transactions"}, noFiles},
		{[]string{"sandbox", "wallet-token", "--wallet", ""}, []string{"001", "012"}, noFiles},
		{[]string{"sandbox", "wallet-token", "--currency", ""}, []string{"EUR", "TRY", "USD"}, noFiles},
		{[]string{"sandbox", "wallet-token", "--card", ""}, []string{"4022770000000004", "4029400000000001", "4355080000000005", "4508030000000006", "4921300000000002", "5289390000000006", "5400610000000001", "5406670000000009", "5456160000000000", "5528790000000008"}, noFiles},
		{[]string{"sandbox", "wallet-token", "--amount", ""}, nil, noFiles},
		{[]string{"sandbox", "serve", "--addr", ""}, nil, noFiles},
		{[]string{"sandbox", "serve", "--state", ""}, nil, cobra.ShellCompDirectiveFilterDirs},
		{[]string{"sandbox", "reset", "--state", ""}, nil, cobra.ShellCompDirectiveFilterDirs},
		{[]string{"completion", ""}, []string{"bash", "zsh", "fish", "powershell"}, noFiles},
		{[]string{"config", "set", "output", ""}, []string{"table", "json", "csv", "tsv"}, noFiles},
		{[]string{"config", "set", "lang", ""}, []string{"tr", "en"}, noFiles},
		{[]string{"config", "set", "base_url", ""}, []string{"test", "live", "https://provisioning.sipay.com.tr/ccpayment", "https://app.sipay.com.tr/ccpayment"}, noFiles},
		{[]string{"config", "set", "gateway", ""}, []string{"sipay", "halkode", "iqmoney", "parolapara", "paybull", "qnbpay", "vepara"}, noFiles},
		{[]string{"config", "init", "--gateway", ""}, []string{"sipay", "halkode", "iqmoney", "parolapara", "paybull", "qnbpay", "vepara"}, noFiles},
		{[]string{"config", "set", "lang", "tr", "--gateway", ""}, []string{"sipay", "halkode", "iqmoney", "parolapara", "paybull", "qnbpay", "vepara"}, noFiles},
		{[]string{"sandbox", "serve", "--as", ""}, []string{"sipay", "qnbpay"}, noFiles},
		{[]string{"config", "set", "ca_cert", ""}, nil, cobra.ShellCompDirectiveDefault},
		{[]string{"config", "set", "app_id", ""}, nil, noFiles},
		{[]string{"config", "set", "lang", "tr", ""}, nil, noFiles},
		{[]string{"version", "--config", ""}, []string{"yaml", "yml"}, cobra.ShellCompDirectiveFilterFileExt},
		{[]string{"version", "--timeout", ""}, nil, noFiles},
		{[]string{"hash", "generate", "--layout", "payment", "--invoice-id", ""}, nil, noFiles},
		{[]string{"hash", "generate", "--currency", "TR"}, []string{"TRY"}, noFiles | keepOrder},
		{[]string{"hash", "generate", "--currency-code", "eu"}, []string{"EUR"}, noFiles | keepOrder},
		// The gateway's currencies, not ISO 4217's 165; typed, theirs first.
		{[]string{"commissions", "--currency", ""}, []string{"TRY", "USD", "EUR"}, noFiles | keepOrder},
		{[]string{"installments", "--currency", "e"}, []string{"EUR", "EGP", "ERN", "ETB"}, noFiles | keepOrder},
		{[]string{"commissions", "--currency", "u"}, []string{"USD", "UAH", "UGX", "USN", "UYI", "UYU", "UYW", "UZS"}, noFiles | keepOrder},
		{[]string{"hash", "generate", "--layout", "payment", "--total", ""}, nil, noFiles},
		{[]string{"commissions", "--currency", "us"}, []string{"USD", "USN"}, noFiles | keepOrder},
		{[]string{"commissions", "--by", ""}, []string{"merchant", "user"}, noFiles},
		{[]string{"commissions", "--side", ""}, []string{"merchant", "user"}, noFiles},
		{[]string{"commissions", "--layout", ""}, []string{"matrix", "long"}, noFiles},
		{[]string{"walletpay", "--batch", ""}, nil, cobra.ShellCompDirectiveDefault},
		{[]string{"walletpay", "--token", ""}, []string{"@", "-"}, noFiles | cobra.ShellCompDirectiveNoSpace},
		{[]string{"walletpay", "--token", "eyJ"}, nil, noFiles},
		{[]string{"walletpay", "--invoice", ""}, nil, noFiles},
		{[]string{"status", "--invoice", ""}, nil, noFiles},
		{[]string{"journal", "--since", ""}, []string{"1h", "24h", "7d", "today", "yesterday"}, noFiles},
		{[]string{"journal", "--outcome", ""}, []string{"succeeded", "queued", "declined", "duplicate", "rejected", "unknown", "not_sent", "not_found"}, noFiles},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			got, directive := complete(t, env, tt.args...)
			var names []string
			for _, c := range got {
				name, _, _ := strings.Cut(c, "\t")
				names = append(names, name)
			}
			if strings.Join(names, " ") != strings.Join(tt.want, " ") {
				t.Errorf("candidates %q, want %q", names, tt.want)
			}
			if directive != tt.directive {
				t.Errorf("directive %d, want %d", directive, tt.directive)
			}
		})
	}
}

// TestCompletionDescriptions checks that candidates carrying a description
// say what they are.
func TestCompletionDescriptions(t *testing.T) {
	env := hermeticEnv(t)
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"sandbox", "wallet-token", "--wallet", ""}, "012\tother wallet"},
		{[]string{"sandbox", "wallet-token", "--card", ""}, "5528790000000008\tBONUS"},
		{[]string{"hash", "generate", "--layout", ""}, "checkstatus\tcheck status"},
	}
	for _, tt := range tests {
		got, _ := complete(t, env, tt.args...)
		if !slices.Contains(got, tt.want) {
			t.Errorf("%v: candidates %q, want one to be %q", tt.args, got, tt.want)
		}
	}
}

// TestInvoiceCompletionFromJournal checks that `status --invoice` and
// `journal --invoice` (and their invoice argument) offer the journal's
// invoices, latest attempt first, each once, described by the sale — not
// by a later refund of it.
func TestInvoiceCompletionFromJournal(t *testing.T) {
	env := hermeticEnv(t)
	dir := filepath.Join(env["XDG_STATE_HOME"], "paycli")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	lines := []string{
		`{"type":"intent","attempt":"a1","time":"2026-11-22T10:00:00Z","profile":"default","base_url":"x","invoice":"INV-1","amount":"10.00","currency":"TRY","card":"435508******4358"}`,
		`{"type":"outcome","attempt":"a1","time":"2026-11-22T10:00:01Z","profile":"default","base_url":"x","invoice":"INV-1","amount":"10.00","currency":"TRY","card":"435508******4358","outcome":"declined","status_code":41}`,
		`{"type":"intent","attempt":"a2","time":"2026-11-22T10:01:00Z","profile":"default","base_url":"x","invoice":"INV-2","amount":"20.00","currency":"TRY","card":"435508******4358"}`,
		`{"type":"intent","attempt":"a3","time":"2026-11-22T10:02:00Z","profile":"default","base_url":"x","invoice":"INV-1","amount":"10.00","currency":"TRY","card":"435508******4358"}`,
		`{"type":"outcome","attempt":"a3","time":"2026-11-22T10:02:01Z","profile":"default","base_url":"x","invoice":"INV-1","amount":"10.00","currency":"TRY","card":"435508******4358","outcome":"succeeded","status_code":100,"order_no":"VP1"}`,
		`{"type":"intent","attempt":"a4","time":"2026-11-22T10:03:00Z","profile":"default","base_url":"x","invoice":"OTHER-9","amount":"5.00","currency":"USD","card":"435508******4358"}`,
		`{"type":"intent","kind":"refund","attempt":"a5","time":"2026-11-22T10:04:00Z","profile":"default","base_url":"x","invoice":"INV-1","amount":"4.50","currency":"TRY","card":"435508******4358","ref":"RF1"}`,
		`{"type":"outcome","kind":"refund","attempt":"a5","time":"2026-11-22T10:04:01Z","profile":"default","base_url":"x","invoice":"INV-1","amount":"4.50","currency":"TRY","card":"435508******4358","ref":"RF1","outcome":"succeeded","status_code":100}`,
		`{"type":"intent","kind":"refund","attempt":"a6","time":"2026-11-22T10:05:00Z","profile":"default","base_url":"x","invoice":"ONLY-REFUND","amount":"1000.00","currency":"TRY","card":"435508******4358","ref":"RF2"}`,
	}
	if err := os.WriteFile(filepath.Join(dir, "journal.jsonl"), []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		args []string
		want []string
	}{
		{[]string{"status", "--invoice", ""}, []string{"ONLY-REFUND\trefund unknown, 1,000.00 TRY", "INV-1\twalletpay succeeded, 10.00 TRY, 1 refund",
			"OTHER-9\twalletpay unknown, 5.00 USD", "INV-2\twalletpay unknown, 20.00 TRY"}},
		{[]string{"status", "--invoice", "INV"}, []string{"INV-1\twalletpay succeeded, 10.00 TRY, 1 refund", "INV-2\twalletpay unknown, 20.00 TRY"}},
		{[]string{"status", "INV"}, []string{"INV-1\twalletpay succeeded, 10.00 TRY, 1 refund", "INV-2\twalletpay unknown, 20.00 TRY"}},
		{[]string{"refund", "IN"}, []string{"INV-1\twalletpay succeeded, 10.00 TRY, 1 refund", "INV-2\twalletpay unknown, 20.00 TRY"}},
		{[]string{"journal", "--invoice", "OT"}, []string{"OTHER-9\twalletpay unknown, 5.00 USD"}},
		{[]string{"journal", "OT"}, []string{"OTHER-9\twalletpay unknown, 5.00 USD"}},
	}
	for _, tt := range tests {
		got, directive := complete(t, env, tt.args...)
		if !slices.Equal(got, tt.want) {
			t.Errorf("%v: candidates %q, want %q", tt.args, got, tt.want)
		}
		if directive != cobra.ShellCompDirectiveNoFileComp {
			t.Errorf("%v: directive %d", tt.args, directive)
		}
	}
}
