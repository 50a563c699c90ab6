package commissionscmd

import (
	"bytes"
	"context"
	"flag"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/paycli/paycli/internal/cmdutil"
	"github.com/paycli/paycli/internal/config"
	"github.com/paycli/paycli/internal/gateway"
	"github.com/paycli/paycli/internal/iostreams"
	"github.com/paycli/paycli/internal/render"
	"github.com/paycli/paycli/internal/testkit/replay"
)

// testNow is the tests' clock: the recorded token lives two hours past it.
var testNow = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// The sandbox's commission fixtures are shared test data: the same files
// the emulator's own tests pin.
const sandboxFixtures = "../../sandbox/testdata/commissions"

func readFixture(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

const commissionsPath = "/ccpayment/api/commissions"

// newGateway replays the recorded token answer and the commissions answer
// in file (a file with its provenance); with file "" it expects no
// commissions request.
func newGateway(t testing.TB, file string) *replay.Server {
	g := replay.New(t)
	g.Answer(http.MethodPost, "/ccpayment/api/token", 200, replay.Recorded("token.json"))
	if file != "" {
		g.Answer(http.MethodPost, commissionsPath, 200, file)
	}
	return g
}

// newGatewayText is newGateway answering body, a shape the test made up
// that the command must refuse.
func newGatewayText(t testing.TB, body string) *replay.Server {
	g := newGateway(t, "")
	g.AnswerText(http.MethodPost, commissionsPath, 200, body)
	return g
}

// request is the commissions request the command sent.
func request(g *replay.Server) map[string]any { return g.Last(commissionsPath).Fields }

// testOptions returns options wired to g, on test streams.
func testOptions(t testing.TB, g *replay.Server, currency string, format render.Format, tty bool) (*Options, *bytes.Buffer, *bytes.Buffer) {
	ios, _, out, errOut := iostreams.Test()
	ios.SetStdoutTTY(tty)
	ios.SetColorEnabled(tty)
	cfg := &config.Config{DefaultCurrency: currency, Lang: "en", Profile: "default"}
	return &Options{
		Deps: cmdutil.Deps{
			IO:     ios,
			Config: func() (*config.Config, error) { return cfg, nil },
			Format: func() (render.Format, error) { return format, nil },
			Gateway: func() (*gateway.Client, error) {
				return gateway.New(g.URL+"/ccpayment", gateway.Credentials{AppID: "id", AppSecret: "secret"}, gateway.WithHTTPClient(g.Client()), gateway.WithClock(func() time.Time { return testNow }))
			},
			CommandContext: func(ctx context.Context) (context.Context, context.CancelFunc, error) {
				ctx, cancel := context.WithCancel(ctx)
				return ctx, cancel, nil
			},
		},
		By:     SideMerchant,
		Layout: LayoutMatrix,
	}, out, errOut
}

// parseArgs runs the command's flag parsing alone and returns the options
// it hands to commissionsRun.
func parseArgs(t testing.TB, args ...string) (*Options, error) {
	ios, _, _, _ := iostreams.Test()
	var got *Options
	cmd := NewCmdCommissions(&cmdutil.Factory{IOStreams: ios}, func(_ context.Context, o *Options) error { got = o; return nil })
	if args == nil {
		args = []string{} // nil would make cobra read os.Args
	}
	cmd.SetArgs(args)
	cmd.SetOut(io.Discard)
	cmd.SetErr(io.Discard)
	err := cmd.Execute()
	return got, err
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file:\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

func TestGoldens(t *testing.T) {
	tryMerchant := filepath.Join(sandboxFixtures, "try_merchant_en.json")
	tryUser := filepath.Join(sandboxFixtures, "try_user_en.json")
	seed := filepath.Join("testdata", "seed_response.json")
	tests := []struct {
		name    string
		fixture string
		format  render.Format
		tty     bool
		args    []string
	}{
		{"matrix.tty", tryMerchant, render.Table, true, nil},
		{"matrix.piped", tryMerchant, render.Table, false, nil},
		{"matrix-amount.tty", tryUser, render.Table, true, []string{"--by", "user", "--amount", "1000", "--installments", "1-6"}},
		{"matrix-amount.piped", tryUser, render.Table, false, []string{"--by", "user", "--amount", "1000", "--installments", "1-6"}},
		{"matrix-merchant-amount.piped", tryMerchant, render.Table, false, []string{"--amount", "1000", "--installments", "1,6,12"}},
		{"matrix-user-side.piped", tryUser, render.Table, false, []string{"--by", "user", "--side", "merchant", "--installments", "1-3"}},
		{"long.tty", tryMerchant, render.Table, true, []string{"--layout", "long", "--installments", "1-2"}},
		{"long.piped", tryMerchant, render.Table, false, []string{"--layout", "long", "--installments", "1-2"}},
		{"long-amount.tty", tryMerchant, render.Table, true, []string{"--layout", "long", "--amount", "1000", "--program", "bonus"}},
		{"long-amount.piped", tryMerchant, render.Table, false, []string{"--layout", "long", "--amount", "1000", "--program", "bonus"}},
		{"json", tryMerchant, render.JSON, false, []string{"--installments", "1,12"}},
		{"json-amount", tryUser, render.JSON, false, []string{"--by", "user", "--amount", "1000.00", "--installments", "7"}},
		{"csv", tryMerchant, render.CSV, false, []string{"--installments", "1,4"}},
		{"csv-amount", tryUser, render.CSV, false, []string{"--by", "user", "--amount", "1000", "--installments", "1,7"}},
		{"tsv", tryMerchant, render.TSV, false, []string{"--installments", "10"}},
		{"seed-matrix.piped", seed, render.Table, false, nil},
		{"seed-matrix-amount.piped", seed, render.Table, false, []string{"--amount", "250"}},
		{"seed-long.piped", seed, render.Table, false, []string{"--layout", "long"}},
		{"seed-json", seed, render.JSON, false, []string{"--amount", "250"}},
		{"seed-csv", seed, render.CSV, false, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			parsed, err := parseArgs(t, tt.args...)
			if err != nil {
				t.Fatal(err)
			}
			g := newGateway(t, tt.fixture)
			opts, out, errOut := testOptions(t, g, "TRY", tt.format, tt.tty)
			opts.By, opts.Layout, opts.Side = parsed.By, parsed.Layout, parsed.Side
			opts.Installments, opts.Programs, opts.Amount = parsed.Installments, parsed.Programs, parsed.Amount
			if err := commissionsRun(context.Background(), opts); err != nil {
				t.Fatalf("commissionsRun: %v (stderr %q)", err, errOut)
			}
			golden(t, tt.name, out.Bytes())
			if !tt.tty && bytes.Contains(out.Bytes(), []byte("\x1b[")) {
				t.Error("piped output has colour")
			}
			if tt.tty && tt.format == render.Table && !bytes.Contains(out.Bytes(), []byte("\x1b[1m")) {
				t.Error("terminal output has no bold header")
			}
			if tt.fixture == seed {
				want := `warning: installment 2: the entry for program "BONUS" says installment 3; shown under 2` + "\n"
				if errOut.String() != want {
					t.Errorf("stderr = %q, want %q", errOut, want)
				}
			} else if note := "Buyer pays 1,000.00 TRY in all; cells: installments, merchant's fee.\n"; errOut.String() != note && errOut.Len() != 0 ||
				(errOut.Len() != 0) != (tt.format == render.Table && parsed.Layout == LayoutMatrix && parsed.Amount != nil && parsed.By == SideMerchant) {
				t.Errorf("stderr = %q, want nothing but the note of a matrix whose totals are the price", errOut)
			}
		})
	}
}

// The cheapest cell of each column is the one highlighted.
func TestMatrixHighlightsCheapest(t *testing.T) {
	g := newGateway(t, filepath.Join(sandboxFixtures, "try_merchant_en.json"))
	opts, out, _ := testOptions(t, g, "TRY", render.Table, true)
	opts.Installments = map[int]bool{1: true, 10: true}
	if err := commissionsRun(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	hl := "\x1b[1;32m"
	lines := strings.Split(out.String(), "\n")
	for _, l := range lines {
		switch {
		case strings.HasPrefix(l, "Axess"): // 1.75% and 13.05%: cheapest in both columns
			if strings.Count(l, hl) != 2 {
				t.Errorf("Axess row not highlighted twice: %q", l)
			}
		case strings.HasPrefix(l, "Bonus"), strings.HasPrefix(l, "World"), strings.HasPrefix(l, "Maximum"):
			if strings.Contains(l, hl) {
				t.Errorf("row wrongly highlighted: %q", l)
			}
		}
	}
}

func TestRequestAndRaw(t *testing.T) {
	file := filepath.Join(sandboxFixtures, "eur_user_tr.json")
	body := readFixture(t, file)
	g := newGateway(t, file)
	opts, out, _ := testOptions(t, g, "eur", render.JSON, false)
	opts.By, opts.Raw = SideUser, true
	cfg, _ := opts.Config()
	cfg.Lang = "TR"
	if err := commissionsRun(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out.Bytes(), body) {
		t.Error("--raw changed the body")
	}
	want := map[string]any{"currency_code": "EUR", "commission_by": "user", "app_lang": "tr"}
	for k, v := range want {
		if got := request(g)[k]; got != v {
			t.Errorf("request %s = %v, want %v", k, got, v)
		}
	}
}

func TestNoData(t *testing.T) {
	for _, tt := range []struct {
		format render.Format
		raw    bool
		want   string
	}{
		{render.JSON, false, "{\n  \"currency\": \"GBP\",\n  \"commission_by\": \"merchant\",\n  \"installments\": []\n}\n"},
		{render.Table, false, ""},
		{render.CSV, false, "installment,kind,title,card_program,getpos_card_program,merchant_commission_percentage,merchant_commission_fixed,user_commission_percentage,user_commission_fixed,available,pos_id\n"},
		{render.JSON, true, ""},
	} {
		g := newGateway(t, filepath.Join("testdata", "no_data.json"))
		opts, out, errOut := testOptions(t, g, "GBP", tt.format, false)
		opts.Raw = tt.raw
		if err := commissionsRun(context.Background(), opts); err != nil {
			t.Fatalf("%s: no data is not a failure, got %v", tt.format, err)
		}
		if out.String() != tt.want {
			t.Errorf("%s raw=%v: stdout %q, want %q", tt.format, tt.raw, out, tt.want)
		}
		if !strings.Contains(errOut.String(), "No commissions found for GBP") {
			t.Errorf("stderr %q", errOut)
		}
	}
}

func TestErrors(t *testing.T) {
	tests := []struct {
		name     string
		body     string
		currency string
		format   render.Format
		jq       string
		want     string
		kind     cmdutil.Kind
		sent     bool
	}{
		{"no currency", "", "", render.Table, "", "no currency given", cmdutil.KindUsage, false},
		{"unknown currency", "", "ZZZ", render.Table, "", `"ZZZ" is not an ISO 4217 currency code`, cmdutil.KindUsage, false},
		{"bad value", `{"status_code":100,"data":{"4":[{"card_program":"Bonus","merchant_commission_percentage":"1,75"}]}}`, "TRY", render.Table, "",
			`commissions: unexpected response from the gateway: installment 4, program "Bonus", field merchant_commission_percentage: commission value: "1,75" is neither a number nor a not-offered marker (x, X, -)`, cmdutil.KindRejected, true},
		// data as a list of entries, as omnipay-sipay's tests/Mock/InstallmentRatesResponseSuccess.txt has it.
		{"entries not under their installment count", `{"status_code":100,"status_description":"Success","data":[{"pos_id":1,"installments_number":1,"commission_rate":"0.00","installment_type":"normal"},{"pos_id":1,"installments_number":2,"commission_rate":"2.50","installment_type":"normal"}]}`, "TRY", render.Table, "",
			`commissions: unexpected response from the gateway: installment 1, entry without a card program, field data[0]: an entry listed on its own, not in a list under its installment count`, cmdutil.KindRejected, true},
		{"a list where an entry belongs", `{"status_code":100,"data":{"3":[{"card_program":"Bonus"},["x"]]}}`, "TRY", render.Table, "",
			`unexpected response from the gateway: installment 3, entry without a card program, field data["3"][1]: an array where an entry belongs`, cmdutil.KindRejected, true},
		{"an entry where a list belongs", `{"status_code":100,"data":{"2":{"card_program":"Bonus","installment":2}}}`, "TRY", render.Table, "",
			`unexpected response from the gateway: installment 2, program "Bonus", field data["2"]: an entry listed on its own`, cmdutil.KindRejected, true},
		{"a string where the table belongs", `{"status_code":100,"data":"none"}`, "TRY", render.Table, "",
			`unexpected response from the gateway: entry without a card program, field data: a string where the commission table belongs`, cmdutil.KindRejected, true},
		{"jq runtime error", `{"status_code":100,"data":{}}`, "TRY", render.JSON, ".currency | keys", "--jq: ", cmdutil.KindUnexpected, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := newGatewayText(t, tt.body)
			opts, out, _ := testOptions(t, g, tt.currency, tt.format, false)
			if tt.jq != "" {
				args := []string{"--jq", tt.jq}
				parsed, err := parseArgs(t, args...)
				if err != nil {
					t.Fatal(err)
				}
				opts.JSON = parsed.JSON
			}
			err := commissionsRun(context.Background(), opts)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want %q", err, tt.want)
			}
			if k, _ := cmdutil.KindOf(err); k != tt.kind {
				t.Errorf("kind %v, want %v", k, tt.kind)
			}
			if hits := g.Count(commissionsPath); (hits > 0) != tt.sent {
				t.Errorf("commission requests: %d, want sent=%v", hits, tt.sent)
			}
			if tt.kind == cmdutil.KindUsage && out.Len() > 0 {
				t.Errorf("usage error wrote %q", out)
			}
		})
	}
}

func TestAmountFinerThanCurrency(t *testing.T) {
	for _, tt := range []struct{ currency, amount string }{{"JPY", "100.5"}, {"TRY", "10.005"}, {"KWD", "1.0001"}} {
		g := newGateway(t, "")
		opts, _, _ := testOptions(t, g, tt.currency, render.Table, false)
		parsed, err := parseArgs(t, "--amount", tt.amount)
		if err != nil {
			t.Fatal(err)
		}
		opts.Amount = parsed.Amount
		err = commissionsRun(context.Background(), opts)
		if k, _ := cmdutil.KindOf(err); k != cmdutil.KindUsage || g.Count(commissionsPath) != 0 {
			t.Errorf("%s %s: err = %v, requests %d; want a usage error before sending", tt.currency, tt.amount, err, g.Count(commissionsPath))
		}
	}
}

func TestJQ(t *testing.T) {
	g := newGateway(t, filepath.Join(sandboxFixtures, "try_merchant_en.json"))
	opts, out, _ := testOptions(t, g, "TRY", render.JSON, false)
	parsed, err := parseArgs(t, "--jq", `.installments[] | select(.installment == 12) | .entries[] | .card_program, .available, {n: .pos_id}`, "--program", "world")
	if err != nil {
		t.Fatal(err)
	}
	opts.JSON, opts.Programs = parsed.JSON, parsed.Programs
	if err := commissionsRun(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	if want := "World\nfalse\n{\"n\":1022}\n"; out.String() != want {
		t.Errorf("jq output %q, want %q", out, want)
	}
}

func TestFlags(t *testing.T) {
	tests := []struct {
		args    string
		check   func(*Options) bool
		wantErr string
	}{
		{"", func(o *Options) bool {
			return o.By == "merchant" && o.Layout == "matrix" && o.Side == "" && o.Installments == nil && o.Amount == nil && !o.JSON.Filtering()
		}, ""},
		{"--by USER --layout Long --side merchant", func(o *Options) bool { return o.By == "user" && o.Layout == "long" && o.Side == "merchant" }, ""},
		{"--installments 1,3-5,12", func(o *Options) bool {
			return len(o.Installments) == 5 && o.Installments[1] && o.Installments[4] && o.Installments[12]
		}, ""},
		{"--program bonus --program World", func(o *Options) bool { return len(o.Programs) == 2 }, ""},
		{"--amount 1017.50", func(o *Options) bool { return o.Amount.String() == "1017.5" }, ""},
		{"--raw", func(o *Options) bool { return o.Raw }, ""},
		{"--jq .currency", func(o *Options) bool {
			f, err := o.Format()
			return o.JSON.Filtering() && f == render.JSON && err == nil
		}, ""},
		{"--by bank", nil, `invalid --by "bank": use merchant or user`},
		{"--layout wide", nil, `invalid --layout "wide": use matrix or long`},
		{"--side both", nil, `invalid --side "both"`},
		{"--installments 6-2", nil, `range "6-2" runs backwards`},
		{"--installments 0", nil, `"0" is not an installment count`},
		{"--installments 1,,2", nil, "empty item"},
		{"--installments a", nil, `"a" is not an installment count`},
		{"--installments 1-100", nil, `"100" is not an installment count (1 to 99)`},
		{"--installments -1", nil, `invalid --installments: "-1" is not an installment count or range (counts are 1 to 99; ranges look like 2-6)`},
		{"--installments 3-", nil, `"3-" is not an installment count or range`},
		{"--program ", nil, "invalid --program: empty text"},
		{"--amount 1,000", nil, `invalid --amount: "1,000" is not a plain decimal; write 1000 or 1.000 (a point for decimals, no grouping)`},
		{"--amount 1,250.50", nil, `invalid --amount: "1,250.50" is not a plain decimal; did you mean 1250.50?`},
		{"--amount -5", nil, `invalid --amount: "-5" is not more than zero`},
		{"--amount 0", nil, `invalid --amount: "0" is not more than zero`},
		{"--amount 1e3", nil, `invalid --amount: "1e3" is not a plain decimal like 1250.50`},
		{"--jq .[", nil, "invalid --jq expression"},
		{"--jq $undefined", nil, "invalid --jq expression"},
		{"--raw --amount 5", nil, "cannot be combined with --amount"},
		{"--raw --jq .", nil, "cannot be combined with --jq"},
		{"extra", nil, "unexpected argument"},
	}
	for _, tt := range tests {
		t.Run(tt.args, func(t *testing.T) {
			args := strings.Fields(tt.args)
			if tt.args == "--program " {
				args = []string{"--program", " "}
			}
			got, err := parseArgs(t, args...)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				if k, _ := cmdutil.KindOf(err); k != cmdutil.KindUsage {
					t.Errorf("kind %v, want usage", k)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !tt.check(got) {
				t.Errorf("options %+v", *got)
			}
		})
	}
}

func TestCompletions(t *testing.T) {
	ios, _, _, _ := iostreams.Test()
	cmd := NewCmdCommissions(&cmdutil.Factory{IOStreams: ios}, nil)
	for flag, want := range map[string]string{"by": "user", "side": "merchant", "layout": "long", "currency": "TRY\tTurkish Lira"} {
		fn, ok := cmd.GetFlagCompletionFunc(flag)
		if !ok {
			t.Errorf("--%s has no completion", flag)
			continue
		}
		prefix := ""
		if flag == "currency" {
			prefix = "tr" // any case
		}
		got, _ := fn(cmd, nil, prefix)
		found := false
		for _, g := range got {
			found = found || g == want
		}
		if !found {
			t.Errorf("--%s completes to %q, want %q among them", flag, got, want)
		}
	}
}

// A column where every program costs the same has no cheapest cell.
func TestMatrixHighlightsNothingAmongEquals(t *testing.T) {
	g := newGateway(t, filepath.Join(sandboxFixtures, "try_merchant_en.json"))
	opts, out, _ := testOptions(t, g, "TRY", render.Table, true)
	opts.Side = SideUser // every user rate is 0 when the merchant pays
	if err := commissionsRun(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out.String(), "\x1b[1;32m") {
		t.Errorf("a column of equal cells was highlighted:\n%s", out)
	}
}

// On a terminal narrower than the matrix, the installment columns come in
// blocks that fit, each repeating PROGRAM; piped output is the same at any
// width.
func TestTablesFitTheTerminal(t *testing.T) {
	tryMerchant := filepath.Join(sandboxFixtures, "try_merchant_en.json")
	for _, tt := range []struct {
		name  string
		tty   bool
		width int
		args  []string
		same  string // for piped output: the golden it must equal
	}{
		{"matrix.80.tty", true, 80, nil, ""},
		{"matrix-amount.80.tty", true, 80, []string{"--amount", "1000"}, ""},
		{"long-amount.80.tty", true, 80, []string{"--layout", "long", "--amount", "1000", "--program", "bonus"}, ""},
		{"matrix.piped", false, 80, nil, "matrix.piped"},
		{"long-amount.piped", false, 40, []string{"--layout", "long", "--amount", "1000", "--program", "bonus"}, "long-amount.piped"},
		{"matrix.tty", true, 400, nil, "matrix.tty"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			parsed, err := parseArgs(t, tt.args...)
			if err != nil {
				t.Fatal(err)
			}
			g := newGateway(t, tryMerchant)
			opts, out, _ := testOptions(t, g, "TRY", render.Table, tt.tty)
			opts.IO.SetTerminalWidth(tt.width)
			opts.Layout, opts.Amount, opts.Programs = parsed.Layout, parsed.Amount, parsed.Programs
			if err := commissionsRun(context.Background(), opts); err != nil {
				t.Fatal(err)
			}
			if tt.same != "" {
				golden(t, tt.same, out.Bytes())
				return
			}
			golden(t, tt.name, out.Bytes())
			for i, line := range strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n") {
				if w := displayWidth(line); w > tt.width {
					t.Errorf("line %d is %d columns wide, the terminal %d: %q", i+1, w, tt.width, line)
				}
			}
			if blocks := strings.Count(out.String(), "PROGRAM"); tt.name != "long-amount.80.tty" && blocks < 2 {
				t.Errorf("PROGRAM heads %d blocks, want the matrix split", blocks)
			}
		})
	}
}

// displayWidth counts the runes of a line without its colour sequences
// (the fixtures' cells are narrow characters).
func displayWidth(line string) int {
	n := 0
	for i := 0; i < len(line); i++ {
		if line[i] == '\x1b' {
			for i < len(line) && line[i] != 'm' {
				i++
			}
			continue
		}
		if line[i]&0xc0 != 0x80 {
			n++
		}
	}
	return n
}
