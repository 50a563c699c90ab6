package hashcmd

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/paycli/paycli/internal/cmdutil"
	"github.com/paycli/paycli/internal/config"
	"github.com/paycli/paycli/internal/hashkey"
	"github.com/paycli/paycli/internal/iostreams"
	"github.com/spf13/cobra"
)

// The first known answer of docs/hash-keys.md and the randomness that makes
// it: eight bytes of iv and two of salt, hex-encoded.
const (
	kaHashKey   = "1234567890123456:abcd:GkZzGukgzQ+ALi__py__dJME3Hn8I__odhD__n9JxjOyBvj5Ilu4S__PTudv6AH0__7yJL"
	kaPlaintext = "100.00|1|TRY|test_merchant_key|INV-001"
)

var kaRandom = []byte{0x12, 0x34, 0x56, 0x78, 0x90, 0x12, 0x34, 0x56, 0xab, 0xcd}

func testConfig() *config.Config {
	return &config.Config{Profile: "default", AppSecret: "app_secret", MerchantKey: "test_merchant_key", Output: "table"}
}

func testFactory(ios *iostreams.IOStreams, cfg *config.Config) *cmdutil.Factory {
	return &cmdutil.Factory{
		IOStreams: ios,
		LookupEnv: func(string) (string, bool) { return "", false },
		Config:    func() (*config.Config, error) { return cfg, nil },
	}
}

// execute runs cmd with args the way the root does, with a global
// --output flag for the commands that read it.
func execute(t *testing.T, cmd *cobra.Command, args ...string) error {
	t.Helper()
	cmd.SetArgs(args)
	cmd.SetOut(&bytes.Buffer{})
	cmd.SetErr(&bytes.Buffer{})
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	_, err := cmd.ExecuteC()
	return err
}

// wantUsage checks err is a usage error (exit 2) whose message holds msg.
func wantUsage(t *testing.T, err error, msg string) {
	t.Helper()
	if err == nil {
		t.Fatalf("want a usage error containing %q, got none", msg)
	}
	if kind, _ := cmdutil.KindOf(err); kind != cmdutil.KindUsage {
		t.Errorf("error %q: kind %v, want KindUsage", err, kind)
	}
	if !strings.Contains(err.Error(), msg) {
		t.Errorf("error %q: want it to contain %q", err, msg)
	}
}

func TestNewCmdGenerateFlags(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		want     GenerateOptions
		wantErr  string
		wantHint string
		byCobra  bool // an error cobra reports, before the command's code
	}{
		{
			name: "payment with the issue's aliases",
			args: []string{"--layout", "payment", "--total", "100.00", "--installment", "1", "--currency", "TRY", "--invoice", "INV-1"},
			want: GenerateOptions{Layout: "payment", Values: map[string]string{"total": "100.00", "installment": "1", "currency_code": "TRY", "invoice_id": "INV-1"}},
		},
		{
			name: "payment with field names",
			args: []string{"--layout", "payment", "--total", "100", "--installment", "3", "--currency-code", "949", "--invoice-id", "I/1"},
			want: GenerateOptions{Layout: "payment", Values: map[string]string{"total": "100", "installment": "3", "currency_code": "949", "invoice_id": "I/1"}},
		},
		{
			name: "empty values are values",
			args: []string{"--layout", "checkstatus", "--invoice-id", ""},
			want: GenerateOptions{Layout: "checkstatus", Values: map[string]string{"invoice_id": ""}},
		},
		{
			name: "savecard",
			args: []string{"--layout", "savecard", "--customer-number", "C1", "--card-holder-name", "Şükrü Çağlar", "--card-number", "4355084355084358", "--expiry-month", "12", "--expiry-year", "2030"},
			want: GenerateOptions{Layout: "savecard", Values: map[string]string{"customer_number": "C1", "card_holder_name": "Şükrü Çağlar", "card_number": "4355084355084358", "expiry_month": "12", "expiry_year": "2030"}},
		},
		{
			name: "plaintext",
			args: []string{"--plaintext", "a|b|c"},
			want: GenerateOptions{Plaintext: "a|b|c", HasPlaintext: true, Values: map[string]string{}},
		},
		{
			name: "empty plaintext",
			args: []string{"--plaintext", ""},
			want: GenerateOptions{HasPlaintext: true, Values: map[string]string{}},
		},
		{
			name: "iv and salt",
			args: []string{"--plaintext", "x", "--iv", "1234567890123456", "--salt", "abcd"},
			want: GenerateOptions{Plaintext: "x", HasPlaintext: true, Values: map[string]string{}, IV: "1234567890123456", Salt: "abcd"},
		},
		{name: "nothing", args: nil, wantErr: "missing --layout (or --plaintext)", wantHint: "Layouts: payment, walletpay"},
		{name: "unknown layout", args: []string{"--layout", "paymnet"}, wantErr: `unknown layout "paymnet"`, wantHint: "'paycli hash layouts'"},
		{name: "missing fields", args: []string{"--layout", "payment", "--total", "1"}, wantErr: "layout payment needs --installment, --currency, --invoice"},
		{name: "foreign field", args: []string{"--layout", "checkstatus", "--invoice-id", "I", "--amount", "1", "--total", "2"}, wantErr: "layout checkstatus has no field for --amount, --total", wantHint: "invoice_id|merchant_key"},
		{name: "alias and field", args: []string{"--layout", "checkstatus", "--invoice-id", "I", "--invoice", "J"}, wantErr: "--invoice and --invoice-id both set invoice_id"},
		{name: "pipe in a value", args: []string{"--layout", "checkstatus", "--invoice-id", "I|J"}, wantErr: "--invoice-id may not contain '|'"},
		{name: "plaintext and layout", args: []string{"--plaintext", "a", "--layout", "payment"}, wantErr: "give it without --layout"},
		{name: "plaintext and field", args: []string{"--plaintext", "a", "--total", "1"}, wantErr: "give it without --layout"},
		{name: "iv alone", args: []string{"--plaintext", "a", "--iv", "1234567890123456"}, wantErr: "--iv and --salt go together"},
		{name: "currency not a code", args: []string{"--layout", "payment", "--total", "1", "--installment", "1", "--currency", "949", "--invoice", "I"}, wantErr: `--currency "949" is not a three-letter currency code`},
		{name: "merchant key is never a flag", args: []string{"--layout", "checkstatus", "--invoice-id", "I", "--merchant-key", "m"}, wantErr: "unknown flag: --merchant-key", byCobra: true},
		{name: "app secret is never a flag", args: []string{"--plaintext", "x", "--app-secret", "s"}, wantErr: "unknown flag: --app-secret", byCobra: true},
		{name: "arguments", args: []string{"--plaintext", "a", "b"}, wantErr: `unexpected argument "b"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ios, _, _, _ := iostreams.Test()
			var got *GenerateOptions
			cmd := NewCmdGenerate(testFactory(ios, testConfig()), func(_ context.Context, o *GenerateOptions) error {
				got = o
				return nil
			})
			err := execute(t, cmd, tt.args...)
			if tt.wantErr != "" && tt.byCobra {
				// The root turns cobra's own flag errors into usage errors.
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || got != nil {
					t.Fatalf("error %v, want %q", err, tt.wantErr)
				}
				return
			}
			if tt.wantErr != "" {
				wantUsage(t, err, tt.wantErr)
				if !strings.Contains(cmdutil.HintOf(err), tt.wantHint) {
					t.Errorf("hint %q: want it to contain %q", cmdutil.HintOf(err), tt.wantHint)
				}
				if got != nil {
					t.Error("runF was called after a bad command line")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.Layout != tt.want.Layout || got.Plaintext != tt.want.Plaintext || got.HasPlaintext != tt.want.HasPlaintext ||
				got.IV != tt.want.IV || got.Salt != tt.want.Salt || !equalMaps(got.Values, tt.want.Values) {
				t.Errorf("options %+v\nwant    %+v", *got, tt.want)
			}
		})
	}
}

func equalMaps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

func TestGenerateRun(t *testing.T) {
	tests := []struct {
		name    string
		opts    GenerateOptions
		cfg     *config.Config
		want    string
		wantErr string
		hint    string
	}{
		{
			name: "layout, merchant_key from the configuration",
			opts: GenerateOptions{Layout: "payment", Values: map[string]string{"total": "100.00", "installment": "1", "currency_code": "TRY", "invoice_id": "INV-001"}},
			want: kaHashKey + "\n",
		},
		{
			name: "the transactions layout, made with the merchant_key",
			opts: GenerateOptions{Layout: "transactions", IV: "0123456789abcdef", Salt: "9a9a", Values: map[string]string{"date": "2021-02-10",
				"invoice_id": "", "currency_id": "", "payment_method_id": "", "min_amount": "", "max_amount": "", "transaction_state": ""}},
			cfg:  &config.Config{Profile: "live", AppSecret: "s", MerchantKey: "mk"},
			want: must(hashkey.GenerateWith("mk", "2021-02-10||||||", "0123456789abcdef", "9a9a")) + "\n",
		},
		{
			name: "plaintext",
			opts: GenerateOptions{Plaintext: kaPlaintext, HasPlaintext: true},
			want: kaHashKey + "\n",
		},
		{
			name: "given iv and salt",
			opts: GenerateOptions{Plaintext: "Şükrü Çağlar|İŞLEM-1", HasPlaintext: true, IV: "0123456789abcdef", Salt: "9a9a"},
			want: "0123456789abcdef:9a9a:UCLBlWjRCajYl7rN0NxGsn+LBRuep91JiNWdLAdGuto=\n",
		},
		{
			name:    "bad iv",
			opts:    GenerateOptions{Plaintext: "x", HasPlaintext: true, IV: "0123456789ABCDEF", Salt: "9a9a"},
			wantErr: "--iv/--salt: iv must be 16 lowercase hex characters",
		},
		{
			name:    "no app_secret",
			opts:    GenerateOptions{Plaintext: "x", HasPlaintext: true},
			cfg:     &config.Config{Profile: "live", MerchantKey: "m"},
			wantErr: `no app_secret configured for profile "live"`,
			hint:    "'paycli config set app_secret -'",
		},
		{
			name:    "no merchant_key",
			opts:    GenerateOptions{Layout: "checkstatus", Values: map[string]string{"invoice_id": "I"}},
			cfg:     &config.Config{Profile: "default", AppSecret: "s"},
			wantErr: `layout checkstatus needs merchant_key, and none is configured for profile "default"`,
			hint:    "PAYCLI_MERCHANT_KEY",
		},
		{
			name: "plaintext needs no merchant_key",
			opts: GenerateOptions{Plaintext: kaPlaintext, HasPlaintext: true},
			cfg:  &config.Config{AppSecret: "app_secret"},
			want: kaHashKey + "\n",
		},
		{
			name:    "merchant_key holding a pipe",
			opts:    GenerateOptions{Layout: "checkstatus", Values: map[string]string{"invoice_id": "I"}},
			cfg:     &config.Config{AppSecret: "s", MerchantKey: "a|b"},
			wantErr: "merchant_key may not contain '|'",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ios, _, out, errOut := iostreams.Test()
			cfg := tt.cfg
			if cfg == nil {
				cfg = testConfig()
			}
			opts := tt.opts
			opts.IO = ios
			opts.Config = func() (*config.Config, error) { return cfg, nil }
			opts.Random = bytes.NewReader(kaRandom)
			err := generateRun(context.Background(), &opts)
			if tt.wantErr != "" {
				wantUsage(t, err, tt.wantErr)
				if !strings.Contains(cmdutil.HintOf(err), tt.hint) {
					t.Errorf("hint %q: want %q", cmdutil.HintOf(err), tt.hint)
				}
				if out.Len() > 0 {
					t.Errorf("stdout %q after an error", out)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if out.String() != tt.want {
				t.Errorf("stdout %q, want %q", out, tt.want)
			}
			if errOut.Len() > 0 {
				t.Errorf("stderr %q", errOut)
			}
		})
	}
}

// TestGenerateRandomness: without --iv/--salt each run draws a new iv
// and salt from the injected reader.
func TestGenerateRandomness(t *testing.T) {
	ios, _, out, _ := iostreams.Test()
	opts := GenerateOptions{IO: ios, Config: func() (*config.Config, error) { return testConfig(), nil },
		Random: bytes.NewReader(append(append([]byte{}, kaRandom...), make([]byte, 10)...)), Plaintext: "x", HasPlaintext: true}
	for range 2 {
		if err := generateRun(context.Background(), &opts); err != nil {
			t.Fatal(err)
		}
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "1234567890123456:abcd:") || !strings.HasPrefix(lines[1], "0000000000000000:0000:") {
		t.Errorf("stdout %q", out)
	}
	if err := generateRun(context.Background(), &opts); err == nil {
		t.Error("an exhausted random source: want an error")
	}
}

func TestNewCmdValidateArgs(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		stdinTTY bool
		wantHash string
		wantLay  string
		wantErr  string
	}{
		{name: "argument", args: []string{kaHashKey}, wantHash: kaHashKey},
		{name: "argument and layout", args: []string{kaHashKey, "--layout", "payment"}, wantHash: kaHashKey, wantLay: "payment"},
		{name: "dash", args: []string{"-"}, stdinTTY: true, wantHash: "-"},
		{name: "piped stdin", args: nil, wantHash: "-"},
		{name: "terminal stdin", args: nil, stdinTTY: true, wantErr: "missing hash_key"},
		{name: "two arguments", args: []string{"a", "b"}, wantErr: "too many arguments"},
		{name: "unknown layout", args: []string{"a", "--layout", "nope"}, wantErr: `unknown layout "nope"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ios, _, _, _ := iostreams.Test()
			ios.SetStdinTTY(tt.stdinTTY)
			var got *ValidateOptions
			cmd := NewCmdValidate(testFactory(ios, testConfig()), func(_ context.Context, o *ValidateOptions) error {
				got = o
				return nil
			})
			err := execute(t, cmd, tt.args...)
			if tt.wantErr != "" {
				wantUsage(t, err, tt.wantErr)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.HashKey != tt.wantHash || got.Layout != tt.wantLay {
				t.Errorf("HashKey %q Layout %q; want %q %q", got.HashKey, got.Layout, tt.wantHash, tt.wantLay)
			}
		})
	}
}

// runValidate runs `paycli hash validate` with the test configuration.
func runValidate(t *testing.T, stdin string, cfg *config.Config, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	ios, in, out, errOut := iostreams.Test()
	in.WriteString(stdin)
	cmd := NewCmdValidate(testFactory(ios, cfg), nil)
	cmd.Flags().StringP("output", "o", "table", "")
	// The factory reads --output through the configuration.
	format := "table"
	for i, a := range args {
		if a == "-o" && i+1 < len(args) {
			format = args[i+1]
		}
	}
	cfg.Output = format
	err = execute(t, cmd, args...)
	return out.String(), errOut.String(), err
}

func TestValidateOneHashKey(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"table", []string{kaHashKey}, `#  VALUE
1  100.00
2  1
3  TRY
4  test_merchant_key
5  INV-001
`},
		{"table with layout", []string{kaHashKey, "--layout", "payment"}, `FIELD          VALUE
total          100.00
installment    1
currency_code  TRY
merchant_key   test_merchant_key
invoice_id     INV-001
`},
		{"csv with layout", []string{kaHashKey, "--layout", "walletpay", "-o", "csv"}, `field,value
total,100.00
installment,1
currency_code,TRY
merchant_key,test_merchant_key
invoice_id,INV-001
`},
		{"json", []string{kaHashKey, "-o", "json"}, `{
  "plaintext": "100.00|1|TRY|test_merchant_key|INV-001",
  "fields": [
    "100.00",
    "1",
    "TRY",
    "test_merchant_key",
    "INV-001"
  ]
}
`},
		{"json with layout", []string{kaHashKey, "-o", "json", "--layout", "payment"}, `{
  "plaintext": "100.00|1|TRY|test_merchant_key|INV-001",
  "fields": [
    "100.00",
    "1",
    "TRY",
    "test_merchant_key",
    "INV-001"
  ],
  "layout": "payment",
  "named": {
    "total": "100.00",
    "installment": "1",
    "currency_code": "TRY",
    "merchant_key": "test_merchant_key",
    "invoice_id": "INV-001"
  }
}
`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, err := runValidate(t, "", testConfig(), tt.args...)
			if err != nil {
				t.Fatal(err)
			}
			if out != tt.want {
				t.Errorf("stdout:\n%s\nwant:\n%s", out, tt.want)
			}
			if errOut != "" {
				t.Errorf("stderr %q", errOut)
			}
		})
	}
}

func TestValidateOneHashKeyErrors(t *testing.T) {
	wrong := testConfig()
	wrong.AppSecret = "not_the_app_secret"
	tests := []struct {
		name    string
		cfg     *config.Config
		args    []string
		wantErr string
		hint    string
	}{
		{"wrong app_secret", wrong, []string{kaHashKey}, "wrong app_secret or damaged hash_key: bad padding after decryption", `Check the app_secret (it came from profile "default")`},
		{"not a hash_key", testConfig(), []string{"hello"}, "not a hash_key: expected iv:salt:ciphertext, found 1 part(s)", "iv:salt:ciphertext"},
		{"other layout", testConfig(), []string{kaHashKey, "--layout", "refund"}, "layout refund has 3 fields, the hash_key holds 5", "made for another layout"},
		{"no app_secret", &config.Config{Profile: "p"}, []string{kaHashKey}, `no app_secret configured for profile "p"`, "PAYCLI_APP_SECRET"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, _, err := runValidate(t, "", tt.cfg, tt.args...)
			wantUsage(t, err, tt.wantErr)
			if err.Error() != tt.wantErr && !strings.HasPrefix(tt.wantErr, "no app_secret") {
				t.Errorf("error %q, want %q", err, tt.wantErr)
			}
			if !strings.Contains(cmdutil.HintOf(err), tt.hint) {
				t.Errorf("hint %q: want %q", cmdutil.HintOf(err), tt.hint)
			}
			if out != "" {
				t.Errorf("stdout %q after an error", out)
			}
		})
	}
}

// lines of stdin for the stream tests: two good values, a blank line, a
// value that is not a hash_key, a value for another layout.
var streamInput = strings.Join([]string{
	kaHashKey,
	"",
	"  " + kaHashKey + "  ",
	"garbage",
	"abcdef0123456789:0f1e:v8v1R7rhFm2DJIFgtQEJSMF7mqUSUjFi9gmf3EQjIVc=",
}, "\n") + "\n"

func TestValidateStdinJSONLines(t *testing.T) {
	out, errOut, err := runValidate(t, streamInput, testConfig(), "-", "-o", "json", "--layout", "payment")
	wantUsage(t, err, "2 of 4 lines did not decrypt")
	if hint := cmdutil.HintOf(err); hint != `Each failed line has an "error" field in the output.` {
		t.Errorf("hint %q", hint)
	}
	named := `"named":{"total":"100.00","installment":"1","currency_code":"TRY","merchant_key":"test_merchant_key","invoice_id":"INV-001"}`
	want := `{"line":1,"plaintext":"100.00|1|TRY|test_merchant_key|INV-001","fields":["100.00","1","TRY","test_merchant_key","INV-001"],"layout":"payment",` + named + `}
{"line":3,"plaintext":"100.00|1|TRY|test_merchant_key|INV-001","fields":["100.00","1","TRY","test_merchant_key","INV-001"],"layout":"payment",` + named + `}
{"line":4,"error":"not a hash_key: expected iv:salt:ciphertext, found 1 part(s)"}
{"line":5,"error":"layout payment has 5 fields, the hash_key holds 2"}
`
	if out != want {
		t.Errorf("stdout:\n%s\nwant:\n%s", out, want)
	}
	if errOut != "" {
		t.Errorf("stderr %q: failures belong in the JSON Lines", errOut)
	}
	for line := range strings.Lines(out) {
		if !json.Valid([]byte(line)) {
			t.Errorf("not JSON: %q", line)
		}
	}
}

func TestValidateStdinTable(t *testing.T) {
	out, errOut, err := runValidate(t, streamInput, testConfig(), "-")
	wantUsage(t, err, "1 of 4 lines did not decrypt")
	want := `LINE  PLAINTEXT
   1  100.00|1|TRY|test_merchant_key|INV-001
   3  100.00|1|TRY|test_merchant_key|INV-001
   5  merchant_key_x|INV-001
`
	if out != want {
		t.Errorf("stdout:\n%s\nwant:\n%s", out, want)
	}
	if errOut != "line 4: not a hash_key: expected iv:salt:ciphertext, found 1 part(s)\n" {
		t.Errorf("stderr %q", errOut)
	}
}

func TestValidateStdinCSVWithLayout(t *testing.T) {
	out, _, err := runValidate(t, "abcdef0123456789:0f1e:v8v1R7rhFm2DJIFgtQEJSMF7mqUSUjFi9gmf3EQjIVc=\r\n", testConfig(), "-", "-o", "csv", "--layout", "checkstatus")
	if err != nil {
		t.Fatal(err)
	}
	if want := "line,invoice_id,merchant_key\n1,merchant_key_x,INV-001\n"; out != want {
		t.Errorf("stdout %q, want %q", out, want)
	}
}

func TestValidateStdinWrongSecret(t *testing.T) {
	cfg := testConfig()
	cfg.AppSecret = "wrong"
	out, errOut, err := runValidate(t, kaHashKey+"\n"+kaHashKey+"\n", cfg, "-")
	wantUsage(t, err, "2 of 2 lines did not decrypt")
	if hint := cmdutil.HintOf(err); !strings.Contains(hint, "Check the app_secret") {
		t.Errorf("hint %q: want advice about the app_secret", hint)
	}
	if out != "" || strings.Count(errOut, "wrong app_secret or damaged hash_key") != 2 {
		t.Errorf("stdout %q stderr %q", out, errOut)
	}
}

// No hash_key on stdin is a usage error (exit 2), as webhook verify's no
// webhook is: an empty capture is a mistake, not a success.
func TestValidateStdinEmpty(t *testing.T) {
	for _, format := range []string{"table", "json"} {
		for _, in := range []string{"", "\n  \n"} {
			out, errOut, err := runValidate(t, in, testConfig(), "-", "-o", format)
			wantUsage(t, err, "stdin holds no hash_key")
			if out != "" || errOut != "" {
				t.Errorf("-o %s: input %q gave %q, %q", format, in, out, errOut)
			}
		}
	}
}

func TestLayouts(t *testing.T) {
	run := func(format string) string {
		ios, _, out, _ := iostreams.Test()
		cfg := testConfig()
		cfg.Output = format
		if err := execute(t, NewCmdLayouts(testFactory(ios, cfg), nil)); err != nil {
			t.Fatal(err)
		}
		return out.String()
	}

	table := run("table")
	lines := strings.Split(strings.TrimSuffix(table, "\n"), "\n")
	if len(lines) != len(hashkey.Layouts)+1 {
		t.Fatalf("table has %d lines:\n%s", len(lines), table)
	}
	if got := strings.Fields(lines[0]); strings.Join(got, " ") != "LAYOUT FIELDS DESCRIPTION" {
		t.Errorf("header %q", lines[0])
	}
	if got := strings.Fields(lines[1])[:2]; got[0] != "payment" || got[1] != "total|installment|currency_code|merchant_key|invoice_id" {
		t.Errorf("first row %q", lines[1])
	}

	var parsed []layoutJSON
	if err := json.Unmarshal([]byte(run("json")), &parsed); err != nil {
		t.Fatal(err)
	}
	if len(parsed) != len(hashkey.Layouts) || parsed[3].Name != "refund" || strings.Join(parsed[3].Fields, "|") != "amount|invoice_id|merchant_key" ||
		strings.Join(parsed[3].Amounts, ",") != "amount" || parsed[2].Amounts == nil || parsed[3].Description == "" {
		t.Errorf("json: %+v", parsed)
	}

	csv := run("csv")
	if !strings.HasPrefix(csv, "name,fields,description\npayment,total|installment|currency_code|merchant_key|invoice_id,\"card payments (2D, 3D, pre-authorization)\"\n") {
		t.Errorf("csv:\n%s", csv)
	}
}

func TestLayoutCompletion(t *testing.T) {
	got, directive := layoutCompletion(nil, nil, "")
	if len(got) != len(hashkey.Layouts) || !strings.HasPrefix(got[0], "payment\t") || directive != cobra.ShellCompDirectiveNoFileComp {
		t.Errorf("completions %q, directive %v", got, directive)
	}
}

// TestDecryptErrorCategories: every failure of hashkey.Decrypt is
// bad input, exit 2 through cmdutil; other errors pass through.
func TestDecryptErrorCategories(t *testing.T) {
	cfg := testConfig()
	for _, hk := range []string{"", "a:b", "1234567890123456:abcd:***", kaHashKey[:len(kaHashKey)-4] + "AAA="} {
		_, err := hashkey.Decrypt(cfg.AppSecret, hk)
		if err == nil {
			t.Fatalf("%q decrypted", hk)
		}
		if kind, _ := cmdutil.KindOf(decryptError(cfg, err)); kind != cmdutil.KindUsage {
			t.Errorf("%q: kind %v", hk, kind)
		}
	}
	other := errors.New("disk on fire")
	if decryptError(cfg, other) != other {
		t.Error("an error that is not about the hash_key must pass through")
	}
}

// On a terminal the configured merchant_key is masked wherever the
// hash_key holds it, in every format; --show-secrets and piped output print
// the text exactly.
func TestValidateMasksMerchantKeyOnATerminal(t *testing.T) {
	tests := []struct {
		name      string
		tty, show bool
		args      []string
		want      string
	}{
		{"terminal", true, false, []string{kaHashKey, "--layout", "payment"}, "merchant_key   test••••_key\n"},
		{"terminal, JSON", true, false, []string{kaHashKey, "-o", "json"}, `"plaintext": "100.00|1|TRY|test••••_key|INV-001"`},
		{"terminal, asked", true, true, []string{kaHashKey, "--layout", "payment", "--show-secrets"}, "merchant_key   test_merchant_key\n"},
		{"piped", false, false, []string{kaHashKey, "--layout", "payment"}, "merchant_key   test_merchant_key\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ios, _, out, _ := iostreams.Test()
			ios.SetStdoutTTY(tt.tty)
			cfg := testConfig()
			cfg.Output = "table"
			for i, a := range tt.args {
				if a == "-o" {
					cfg.Output = tt.args[i+1]
				}
			}
			cmd := NewCmdValidate(testFactory(ios, cfg), nil)
			cmd.Flags().StringP("output", "o", "table", "")
			if err := execute(t, cmd, tt.args...); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(out.String(), tt.want) {
				t.Errorf("stdout:\n%s\nwant it to hold %q", out.String(), tt.want)
			}
			if masked := strings.Contains(out.String(), "test_merchant_key"); masked == (tt.tty && !tt.show) {
				t.Errorf("merchant_key in the clear: %v, want %v", masked, !(tt.tty && !tt.show))
			}
		})
	}
}

// TestValidateMasksCardNumberOnATerminal: a savecard hash_key holds the
// card number; on a terminal it shows as first 6 / last 4, unless
// --show-secrets; piped output is the text as it is.
func TestValidateMasksCardNumberOnATerminal(t *testing.T) {
	hk, err := hashkey.GenerateWith("app_secret", "test_merchant_key|C-1|Ada Lovelace|4355084355084358|12|2030", "0123456789abcdef", "abcd")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name      string
		tty, show bool
		wantClear bool
	}{
		{"terminal", true, false, false},
		{"terminal, asked", true, true, true},
		{"piped", false, false, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ios, _, out, _ := iostreams.Test()
			ios.SetStdoutTTY(tt.tty)
			args := []string{hk, "--layout", "savecard"}
			if tt.show {
				args = append(args, "--show-secrets")
			}
			cmd := NewCmdValidate(testFactory(ios, testConfig()), nil)
			cmd.Flags().StringP("output", "o", "table", "")
			if err := execute(t, cmd, args...); err != nil {
				t.Fatal(err)
			}
			if clear := strings.Contains(out.String(), "4355084355084358"); clear != tt.wantClear {
				t.Errorf("card number in the clear: %v, want %v:\n%s", clear, tt.wantClear, out)
			}
			if !tt.wantClear && !strings.Contains(out.String(), "435508") {
				t.Errorf("the masked card keeps its first 6 digits:\n%s", out)
			}
		})
	}
}

// executeUnderRoot runs cmd below a root that carries -o as paycli's
// root does, and returns stdout.
func executeUnderRoot(t *testing.T, cmd *cobra.Command, ios *iostreams.IOStreams, args ...string) (string, error) {
	t.Helper()
	root := &cobra.Command{Use: "paycli", SilenceErrors: true, SilenceUsage: true}
	root.PersistentFlags().StringP("output", "o", "table", "")
	root.AddCommand(cmd)
	root.SetArgs(append([]string{cmd.Name()}, args...))
	root.SetOut(&bytes.Buffer{})
	root.SetErr(&bytes.Buffer{})
	_, err := root.ExecuteC()
	return ios.Out.(*bytes.Buffer).String(), err
}

// TestGenerateJSON: -o json and --jq on the command line print the
// hash_key in an object; a configured output format leaves the bare
// hash_key that $(paycli hash generate …) captures.
func TestGenerateJSON(t *testing.T) {
	payment := []string{"--layout", "payment", "--total", "100.00", "--installment", "1", "--currency", "TRY", "--invoice", "INV-001", "--iv", "1234567890123456", "--salt", "abcd"}
	tests := []struct {
		name      string
		args      []string
		cfgOutput string
		want      string
	}{
		{"-o json", append([]string{"-o", "json"}, payment...), "table",
			"{\n  \"hash_key\": \"" + kaHashKey + "\",\n  \"layout\": \"payment\"\n}\n"},
		{"-o json with --plaintext has no layout", []string{"-o", "json", "--plaintext", kaPlaintext, "--iv", "1234567890123456", "--salt", "abcd"}, "table",
			"{\n  \"hash_key\": \"" + kaHashKey + "\"\n}\n"},
		{"--jq", append([]string{"--jq", ".hash_key"}, payment...), "table", kaHashKey + "\n"},
		{"--jq on the whole object", append([]string{"--jq", "."}, payment...), "csv",
			`{"hash_key":"` + kaHashKey + `","layout":"payment"}` + "\n"},
		{"configured json leaves the bare value", payment, "json", kaHashKey + "\n"},
		{"-o csv leaves the bare value", append([]string{"-o", "csv"}, payment...), "table", kaHashKey + "\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ios, _, _, errOut := iostreams.Test()
			cfg := testConfig()
			cfg.Output = tt.cfgOutput
			out, err := executeUnderRoot(t, NewCmdGenerate(testFactory(ios, cfg), nil), ios, tt.args...)
			if err != nil {
				t.Fatal(err)
			}
			if out != tt.want {
				t.Errorf("stdout %q\nwant   %q", out, tt.want)
			}
			if errOut.Len() > 0 {
				t.Errorf("stderr %q", errOut)
			}
		})
	}
}

// TestGenerateBadJQ: a bad expression is refused before anything is made.
func TestGenerateBadJQ(t *testing.T) {
	ios, _, _, _ := iostreams.Test()
	out, err := executeUnderRoot(t, NewCmdGenerate(testFactory(ios, testConfig()), nil), ios, "--plaintext", "x", "--jq", ".[")
	wantUsage(t, err, "invalid --jq expression")
	if out != "" {
		t.Errorf("stdout %q", out)
	}
}

func must(s string, err error) string {
	if err != nil {
		panic(err)
	}
	return s
}
