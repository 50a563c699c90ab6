package webhookcmd

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/paycli/paycli/internal/cmdutil"
	"github.com/paycli/paycli/internal/config"
	"github.com/paycli/paycli/internal/iostreams"
	"github.com/paycli/paycli/internal/render"
	"github.com/paycli/paycli/internal/webhook"
)

func runVerify(t *testing.T, format render.Format, input string, secret string) (string, error) {
	t.Helper()
	ios, in, out, _ := iostreams.Test()
	in.WriteString(input)
	opts := &VerifyOptions{Deps: cmdutil.Deps{
		IO:      ios,
		Config:  func() (*config.Config, error) { c := testConfig(); c.AppSecret = secret; return c, nil },
		Format:  func() (render.Format, error) { return format, nil },
		Palette: func() render.Palette { return render.Palette{} },
	}, File: "-",
		Open: func(string) (io.ReadCloser, error) { return nil, os.ErrNotExist }}
	err := verifyRun(context.Background(), opts)
	return out.String(), err
}

func wantKind(t *testing.T, err error, kind cmdutil.Kind, msg string) {
	t.Helper()
	if k, _ := cmdutil.KindOf(err); err == nil || k != kind || !strings.Contains(err.Error(), msg) {
		t.Errorf("error %v (kind %v), want kind %v with %q", err, k, kind, msg)
	}
}

func TestVerifyLines(t *testing.T) {
	_, valid := encode(t, webhook.Form, signedSale(t, "150.00"))
	changed := signedSale(t, "150.00")
	changed["total"] = "150.01"
	_, invalid := encode(t, webhook.JSON, changed)
	_, validJSON := encode(t, webhook.JSON, signedSale(t, "99"))
	input := valid + "\r\n\n" + invalid + "\n" + "   \n" + validJSON // no final newline
	out, err := runVerify(t, render.Table, input, testSecret)
	want := `line 1: sale INV-1001 VP17000000000000001 150.00 TRY status=1 hash=valid
line 3: sale INV-1001 VP17000000000000001 150.01 TRY status=1 hash=INVALID (total differs: the body says "150.01", the hash_key "150.00")
line 5: sale INV-1001 VP17000000000000001 99 TRY status=1 hash=valid
`
	if out != want {
		t.Errorf("stdout:\n%s\nwant:\n%s", out, want)
	}
	wantKind(t, err, cmdutil.KindRejected, "1 of 3 webhooks are invalid")

	out, err = runVerify(t, render.JSON, valid+"\n"+invalid+"\n", testSecret)
	wantKind(t, err, cmdutil.KindRejected, "1 of 2")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	var first, second map[string]any
	if len(lines) != 2 || json.Unmarshal([]byte(lines[0]), &first) != nil || json.Unmarshal([]byte(lines[1]), &second) != nil {
		t.Fatalf("JSON lines:\n%s", out)
	}
	if first["line"] != 1.0 || first["hash"] != "valid" || second["line"] != 2.0 || second["field"] != "total" {
		t.Errorf("JSON lines:\n%s", out)
	}

	out, err = runVerify(t, render.CSV, valid+"\n", testSecret)
	if err != nil || out != "line,kind,invoice_id,order_id,amount,currency_code,status,encoding,hash,field,reason\n1,sale,INV-1001,VP17000000000000001,150.00,TRY,1,form,valid,,\n" {
		t.Errorf("csv: %v\n%s", err, out)
	}
}

func TestVerifyAllValidExitsZero(t *testing.T) {
	_, valid := encode(t, webhook.Form, signedSale(t, "150.00"))
	if _, err := runVerify(t, render.Table, valid+"\n"+valid+"\n", testSecret); err != nil {
		t.Errorf("all valid: %v", err)
	}
}

func TestVerifySingleMultiLineBody(t *testing.T) {
	m := signedSale(t, "150.00")
	pretty, _ := json.MarshalIndent(m, "", "  ")
	out, err := runVerify(t, render.Table, "\n"+string(pretty)+"\n", testSecret)
	if err != nil || out != "line 2: sale INV-1001 VP17000000000000001 150.00 TRY status=1 hash=valid\n" {
		t.Errorf("pretty JSON: %v\n%s", err, out)
	}
	// Two pretty objects are not one body: each line is read on its own.
	out, err = runVerify(t, render.Table, string(pretty)+"\n"+string(pretty), testSecret)
	wantKind(t, err, cmdutil.KindRejected, "webhooks are invalid")
	if !strings.HasPrefix(out, "line 1: - - - - - status=- hash=INVALID (not a webhook body: invalid JSON") {
		t.Errorf("two pretty objects:\n%s", out)
	}
}

func TestVerifyWrongSecretHint(t *testing.T) {
	_, valid := encode(t, webhook.Form, signedSale(t, "150.00"))
	_, err := runVerify(t, render.Table, valid+"\n", "other_secret")
	wantKind(t, err, cmdutil.KindRejected, "1 of 1")
	if h := cmdutil.HintOf(err); !strings.Contains(h, `check the app_secret (it came from profile "default")`) {
		t.Errorf("hint %q", h)
	}
}

func TestVerifyUnreadable(t *testing.T) {
	_, err := runVerify(t, render.Table, "\n  \n", testSecret)
	wantKind(t, err, cmdutil.KindUsage, "stdin holds no webhook body")

	out, err := runVerify(t, render.Table, "status=1\n"+strings.Repeat("x", webhook.MaxBodySize+10)+"\nstatus=2\n", testSecret)
	wantKind(t, err, cmdutil.KindUsage, "line 2 is longer than 64 KiB")
	if !strings.HasPrefix(out, "line 1: ") {
		t.Errorf("the line before the long one: %q", out)
	}

	ios, _, _, _ := iostreams.Test()
	opts := &VerifyOptions{Deps: cmdutil.Deps{
		IO:      ios,
		Config:  func() (*config.Config, error) { return testConfig(), nil },
		Format:  func() (render.Format, error) { return render.Table, nil },
		Palette: func() render.Palette { return render.Palette{} },
	}, File: "captured.txt",
		Open: func(name string) (io.ReadCloser, error) {
			return nil, &os.PathError{Op: "open", Path: name, Err: os.ErrNotExist}
		}}
	err = verifyRun(context.Background(), opts)
	wantKind(t, err, cmdutil.KindUsage, "cannot read captured.txt: file does not exist")

	opts.Open = func(string) (io.ReadCloser, error) { return io.NopCloser(failingReader{}), nil }
	err = verifyRun(context.Background(), opts)
	wantKind(t, err, cmdutil.KindUsage, "cannot read captured.txt: disk on fire")
}

type failingReader struct{}

func (failingReader) Read([]byte) (int, error) { return 0, errors.New("disk on fire") }

func TestVerifyArgs(t *testing.T) {
	ios, _, _, _ := iostreams.Test()
	ios.SetStdinTTY(true)
	cmd := NewCmdVerify(testFactory(ios, testConfig()), func(context.Context, *VerifyOptions) error { return nil })
	wantUsage(t, execute(t, cmd), "missing input")
	var got string
	cmd = NewCmdVerify(testFactory(ios, testConfig()), func(_ context.Context, o *VerifyOptions) error { got = o.File; return nil })
	if err := execute(t, cmd, "x.txt"); err != nil || got != "x.txt" {
		t.Errorf("file arg: %v, %q", err, got)
	}
	wantUsage(t, execute(t, NewCmdVerify(testFactory(ios, testConfig()), nil), "a", "b"), "too many arguments")
}

// TestVerifyJQ: --jq filters each line's JSON and implies -o json, whatever
// the configured output; the exit code still says whether all were valid.
func TestVerifyJQ(t *testing.T) {
	_, valid := encode(t, webhook.Form, signedSale(t, "150.00"))
	changed := signedSale(t, "150.00")
	changed["total"] = "150.01"
	_, invalid := encode(t, webhook.JSON, changed)
	ios, in, out, _ := iostreams.Test()
	in.WriteString(valid + "\n" + invalid + "\n")
	f := &cmdutil.Factory{IOStreams: ios, Config: func() (*config.Config, error) {
		c := testConfig()
		c.Output = "table"
		return c, nil
	}}
	cmd := NewCmdVerify(f, nil)
	cmd.SetArgs([]string{"-", "--jq", `select(.hash != "valid") | "\(.line) \(.field)"`})
	cmd.SilenceUsage, cmd.SilenceErrors = true, true
	err := cmd.Execute()
	wantKind(t, err, cmdutil.KindRejected, "1 of 2 webhooks are invalid")
	if out.String() != "2 total\n" {
		t.Errorf("stdout %q", out)
	}
}
