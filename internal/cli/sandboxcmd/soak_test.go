package sandboxcmd

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/paycli/paycli/internal/cmdutil"
	"github.com/paycli/paycli/internal/render"
	"github.com/paycli/paycli/internal/sandbox"
	"github.com/paycli/paycli/internal/soak"
)

func TestSoakFlags(t *testing.T) {
	exe, _ := os.Executable()
	tests := []struct {
		args      []string
		wantUsage bool
		check     func(soak.Config) bool
	}{
		{nil, false, func(c soak.Config) bool {
			return c.Binary == exe && c.Duration == 20*time.Second && c.Workers == 8 && c.Invoices == 40 && c.Kills == 3 &&
				c.Seed == 0 && c.FaultRate == 0.25 && c.ClientKillRate == 0.05 && c.ClientTimeout == 3*time.Second &&
				c.BrokenStdoutRate == 0.05 && c.DiskFullRate == 0.05 && c.CardSales == 20 && c.CardOpRate == 0.2
		}},
		{[]string{"--binary", "/bin/paycli", "--duration", "1m", "--workers", "2", "--invoices", "5", "--kills", "0", "--seed", "9", "--fault-rate", "1"},
			false, func(c soak.Config) bool {
				return c.Binary == "/bin/paycli" && c.Duration == time.Minute && c.Workers == 2 && c.Invoices == 5 && c.Kills == 0 && c.Seed == 9 && c.FaultRate == 1
			}},
		{[]string{"--duration", "0s"}, true, nil},
		{[]string{"--workers", "0"}, true, nil},
		{[]string{"--workers", "65"}, true, nil},
		{[]string{"--invoices", "0"}, true, nil},
		{[]string{"--kills", "-1"}, true, nil},
		{[]string{"--fault-rate", "1.5"}, true, nil},
		{[]string{"--client-timeout", "0s"}, true, nil},
		{[]string{"--client-kill-rate", "-0.5"}, true, nil},
		{[]string{"--broken-stdout-rate", "-0.1"}, true, nil},
		{[]string{"--card-sales", "-1"}, true, nil},
		{[]string{"--card-op-rate", "2"}, true, nil},
		{[]string{"--disk-full-rate", "1.1"}, true, nil},
		{[]string{"--broken-stdout-rate", "0.6", "--disk-full-rate", "0.5"}, true, nil},
		{[]string{"--broken-stdout-rate", "0.5", "--disk-full-rate", "0.5"}, false, func(c soak.Config) bool {
			return c.BrokenStdoutRate == 0.5 && c.DiskFullRate == 0.5
		}},
		{[]string{"extra"}, true, nil},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			f, _ := testFactory(t, nil)
			var got *SoakOptions
			err := runCmd(NewCmdSoak(f, func(_ context.Context, o *SoakOptions) error { got = o; return nil }), tt.args...)
			if tt.wantUsage {
				if !isUsage(err) || got != nil {
					t.Fatalf("err %v, want a usage error before running", err)
				}
				return
			}
			if err != nil || !tt.check(got.Config) {
				t.Fatalf("err %v config %+v", err, got.Config)
			}
		})
	}
}

// TestSoakRun: the report goes to stdout; problems fail the command with
// exit 1 and are listed on stderr, and the run's folder is kept.
func TestSoakRun(t *testing.T) {
	tests := []struct {
		name     string
		problems []string
		wantErr  bool
	}{
		{"clean", []string{}, false},
		{"problems", []string{"invoice X: charged twice"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, ios := testFactory(t, nil)
			var ran soak.Config
			opts := &SoakOptions{
				IO: ios, Format: func() (render.Format, error) { return render.JSON, nil },
				NewSeed: func() uint64 { return 42 },
				Soak: func(_ context.Context, c soak.Config) (*soak.Report, error) {
					ran = c
					return &soak.Report{Seed: c.Seed, Attempts: 3, Exits: map[string]int{"0": 1, "6": 2}, Problems: tt.problems}, nil
				},
			}
			err := SoakRun(context.Background(), opts)
			if ran.Seed != 42 || ran.Dir == "" {
				t.Errorf("ran with %+v, want seed 42 and a folder", ran)
			}
			_, statErr := os.Stat(ran.Dir)
			if tt.wantErr {
				if k, _ := cmdutil.KindOf(err); err == nil || k != cmdutil.KindUnexpected {
					t.Fatalf("err %v, want an unexpected-kind error", err)
				}
				if !strings.Contains(ios.ErrOut.(interface{ String() string }).String(), "problem: invoice X: charged twice") {
					t.Error("the problem is not on stderr")
				}
				if statErr != nil {
					t.Errorf("the run's folder was removed after a failure: %v", statErr)
				}
				os.RemoveAll(ran.Dir)
			} else {
				if err != nil {
					t.Fatal(err)
				}
				if !errors.Is(statErr, os.ErrNotExist) {
					t.Errorf("the temporary folder is left behind: %v", statErr)
				}
			}
			var rep soak.Report
			if err := json.Unmarshal([]byte(ios.Out.(interface{ String() string }).String()), &rep); err != nil || rep.Attempts != 3 {
				t.Errorf("stdout is not the report: %v %+v", err, rep)
			}
		})
	}
}

func TestServeFaultFlags(t *testing.T) {
	tests := []struct {
		args      []string
		wantUsage bool
	}{
		{[]string{"--faults", "--fault-rate", "0.25", "--fault-seed", "7", "--fault-delay", "2s"}, false},
		{[]string{"--faults", "--fault-rate", "1"}, false},
		{[]string{"--fault-rate", "0.25"}, true}, // needs --faults
		{[]string{"--faults", "--fault-rate", "1.5"}, true},
		{[]string{"--faults", "--fault-rate", "-0.1"}, true},
		{[]string{"--faults", "--fault-rate", "0.5", "--fault-delay", "0s"}, true},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			got, err := parseServe(t, tt.args...)
			if tt.wantUsage {
				if !isUsage(err) || got != nil {
					t.Fatalf("err %v, want a usage error before running", err)
				}
				return
			}
			if err != nil || !got.Faults || got.FaultRate <= 0 {
				t.Fatalf("err %v opts %+v", err, got)
			}
		})
	}
}

// TestServeRandomFaults: serve with --fault-rate 1 faults every API
// request and logs each fault on stderr; the health probe still answers.
func TestServeRandomFaults(t *testing.T) {
	_, ios := testFactory(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ready := make(chan string, 1)
	opts := &ServeOptions{IO: ios, Now: time.Now, Addr: "127.0.0.1:0", StateDir: t.TempDir(), Listen: net.Listen, Faults: true,
		FaultRate: 1, FaultSeed: 3, FaultDelay: 10 * time.Millisecond, Ready: func(u string) { ready <- u }}
	done := make(chan error, 1)
	go func() { done <- ServeRun(ctx, opts) }()
	var base string
	select {
	case base = <-ready:
	case err := <-done:
		t.Fatalf("serve ended: %v", err)
	}
	if !sandbox.Probe(ctx, base) {
		t.Error("the health probe got a fault")
	}
	// A new connection each time: a request written to a connection the
	// last fault closed would never reach the server.
	client := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	for range 5 {
		resp, err := client.Post(base+"/api/token", "application/json", strings.NewReader(`{"app_id":"x","app_secret":"y"}`))
		if err == nil {
			resp.Body.Close()
		}
	}
	cancel()
	<-done
	stderr := ios.ErrOut.(interface{ String() string }).String()
	if n := strings.Count(stderr, "fault: POST /ccpayment/api/token "); n != 5 {
		t.Errorf("%d faults logged, want 5:\n%s", n, stderr)
	}
	if !strings.Contains(stderr, "random:       1 of API requests, seed 3") {
		t.Errorf("stderr does not announce the random faults:\n%s", stderr)
	}
}
