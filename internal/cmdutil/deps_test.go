package cmdutil

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/paycli/paycli/internal/config"
	"github.com/paycli/paycli/internal/gateway"
	"github.com/paycli/paycli/internal/render"
)

func TestOpenOpensInOrderAndChecksTheMerchantKey(t *testing.T) {
	newClient := func(merchantKey string) *gateway.Client {
		c, err := gateway.New("https://provisioning.sipay.com.tr/ccpayment", gateway.Credentials{AppID: "id", AppSecret: "secret", MerchantKey: merchantKey},
			gateway.WithClock(func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) }))
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	errFormat, errGateway := errors.New("bad -o"), errors.New("no credentials")
	tests := []struct {
		name      string
		formatErr error
		gwErr     error
		client    *gateway.Client
		need      Need
		want      error
		// opened lists what Open asked for, in order.
		opened string
	}{
		{name: "a bad format stops first", formatErr: errFormat, want: errFormat, opened: "F"},
		{name: "no client, no context", gwErr: errGateway, want: errGateway, opened: "FG"},
		{name: "merchant_key needed and missing", client: newClient(""), need: MerchantKey, want: gateway.ErrNoMerchantKey, opened: "FG"},
		{name: "credentials alone need no merchant_key", client: newClient(""), need: Credentials, opened: "FGC"},
		{name: "merchant_key needed and there", client: newClient("key"), need: MerchantKey, opened: "FGC"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opened := ""
			d := Deps{
				Format: func() (render.Format, error) { opened += "F"; return render.CSV, tt.formatErr },
				Gateway: func() (*gateway.Client, error) {
					opened += "G"
					return tt.client, tt.gwErr
				},
				CommandContext: func(ctx context.Context) (context.Context, context.CancelFunc, error) {
					opened += "C"
					ctx, cancel := context.WithCancel(ctx)
					return ctx, cancel, nil
				},
			}
			ctx, call, err := d.Open(context.Background(), tt.need)
			if !errors.Is(err, tt.want) || opened != tt.opened {
				t.Fatalf("Open: %v after %q; want %v after %q", err, opened, tt.want, tt.opened)
			}
			if err != nil {
				return
			}
			if call.Format != render.CSV || call.Client != tt.client {
				t.Errorf("Open gave format %q, client %p; want csv, %p", call.Format, call.Client, tt.client)
			}
			if ctx.Err() != nil {
				t.Fatalf("the run's context is done before Close: %v", ctx.Err())
			}
			call.Close()
			if ctx.Err() == nil {
				t.Error("Close left the run's context running")
			}
		})
	}
}

func TestDepsAddJSONFlagsMakesJQImplyJSON(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want render.Format
	}{
		{nil, render.Table},
		{[]string{"--jq", ".x"}, render.JSON},
	} {
		var got render.Format
		d := Deps{Format: func() (render.Format, error) { return render.Table, nil }}
		cmd := &cobra.Command{Use: "x", RunE: func(*cobra.Command, []string) error {
			var err error
			got, err = d.Format()
			return err
		}}
		d.AddJSONFlags(cmd)
		cmd.SetArgs(tt.args)
		if err := cmd.Execute(); err != nil {
			t.Fatal(err)
		}
		if got != tt.want || d.JSON.Filtering() != (tt.want == render.JSON) {
			t.Errorf("%q: format %q (filtering %v), want %q", tt.args, got, d.JSON.Filtering(), tt.want)
		}
	}
}

func TestFormatAndConfigNamesABadFormatFirst(t *testing.T) {
	errFormat := errors.New("bad -o")
	asked := false
	d := Deps{
		Format: func() (render.Format, error) { return "", errFormat },
		Config: func() (*config.Config, error) { asked = true; return nil, errors.New("no profile") },
	}
	if _, _, err := d.FormatAndConfig(); !errors.Is(err, errFormat) || asked {
		t.Errorf("FormatAndConfig: %v (configuration asked: %v); want the format's error first", err, asked)
	}
}

func TestAppSecretRefusesAProfileWithoutOne(t *testing.T) {
	errFormat := errors.New("bad -o")
	tests := []struct {
		name       string
		formatErr  error
		appSecret  string
		wantSecret string
		wantErr    string
	}{
		{name: "a bad format is named first", formatErr: errFormat, appSecret: "s3cret", wantErr: "bad -o"},
		{name: "no app_secret is refused, saying why", wantErr: `no app_secret configured for profile "live": it checks`},
		{name: "the secret", appSecret: "s3cret", wantSecret: "s3cret"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			asked := false
			d := Deps{
				Format: func() (render.Format, error) { return render.JSON, tt.formatErr },
				Config: func() (*config.Config, error) {
					asked = true
					return &config.Config{Profile: "live", AppSecret: tt.appSecret}, nil
				},
			}
			format, cfg, secret, err := d.AppSecret("it checks")
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("AppSecret: %v; want an error with %q", err, tt.wantErr)
				}
				if tt.formatErr != nil && asked {
					t.Error("the configuration was read after a bad format")
				}
				return
			}
			if err != nil || secret != tt.wantSecret || format != render.JSON || cfg == nil || cfg.Profile != "live" {
				t.Errorf("AppSecret = %q, %q, %v, %v; want JSON, the profile, %q", format, secret, cfg, err, tt.wantSecret)
			}
		})
	}
}

// TestRunCallsTheTestsRunFInsteadOfRun: a test's runF replaces the run
// function (which must not run), and both get the command's context.
func TestRunCallsTheTestsRunFInsteadOfRun(t *testing.T) {
	type key struct{}
	type options struct{ name string }
	cmd := &cobra.Command{}
	cmd.SetContext(context.WithValue(context.Background(), key{}, "the command's"))
	record := func(ran *string, label string) func(context.Context, *options) error {
		return func(ctx context.Context, o *options) error {
			*ran = label + " " + o.name + " " + ctx.Value(key{}).(string)
			return nil
		}
	}
	opts := &options{name: "opts"}
	for _, tt := range []struct {
		withRunF bool
		want     string
	}{
		{withRunF: true, want: "runF opts the command's"},
		{withRunF: false, want: "run opts the command's"},
	} {
		var ran string
		var runF func(context.Context, *options) error
		if tt.withRunF {
			runF = record(&ran, "runF")
		}
		if err := Run(cmd, opts, runF, record(&ran, "run")); err != nil {
			t.Fatal(err)
		}
		if ran != tt.want {
			t.Errorf("runF given %v: ran %q, want %q", tt.withRunF, ran, tt.want)
		}
	}
}
