//go:build soak

package soak

import (
	"context"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/paycli/paycli/internal/sandbox"
)

var (
	soakDuration = flag.Duration("soak.duration", 2*time.Minute, "how long the soak starts payments")
	soakKills    = flag.Int("soak.kills", 10, "times the sandbox is killed")
	soakSeed     = flag.Uint64("soak.seed", uint64(time.Now().UnixNano()), "seed of the run")
)

// TestSoak builds paycli and soaks it (see Run). It is behind the soak
// build tag because it runs for minutes:
//
//	go test -tags soak -run TestSoak -timeout 30m ./internal/soak -soak.duration 5m -soak.kills 20
func TestSoak(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "paycli")
	build := exec.Command("go", "build", "-o", bin, "github.com/paycli/paycli/cmd/paycli")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		t.Fatalf("go build: %v", err)
	}
	cfg := Config{
		Binary: bin, Dir: t.TempDir(), Duration: *soakDuration, Workers: 8, Invoices: 400,
		Kills: *soakKills, Seed: *soakSeed, ClientKillRate: 0.05, MidFlightKillRate: 0.05, BrokenStdoutRate: 0.05, DiskFullRate: 0.05, CardSales: 40, CardOpRate: 0.2, Log: testWriter{t},
	}
	rep, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("seed %d: %d attempts, exits %v, faults %v, kills %d, journal %v, sales %v, charged while unknown %d, reconciled %d of %d",
		rep.Seed, rep.Attempts, rep.Exits, rep.Faults, rep.Kills, rep.Journal, rep.Sales, rep.UnknownCharged, rep.Reconciled, rep.Invoices)
	for _, p := range rep.Problems {
		t.Error(p)
	}
	if rep.ClientKills == 0 || rep.OpenIntents == 0 {
		t.Errorf("%d clients killed, %d intents left open: the journal's unknown listing was not exercised", rep.ClientKills, rep.OpenIntents)
	}
	if rep.ResultsUnwritten == 0 || rep.JournalRefused == 0 || rep.OutcomesUnwritten == 0 {
		t.Errorf("broken stdout and full disk not exercised: %d results unwritten, %d intents refused, %d outcomes unwritten",
			rep.ResultsUnwritten, rep.JournalRefused, rep.OutcomesUnwritten)
	}
	if rep.Kills != cfg.Kills {
		t.Errorf("%d kills, want %d", rep.Kills, cfg.Kills)
	}
	if rep.Exits["0"] == 0 || rep.Exits["7"] == 0 {
		t.Errorf("the run did not exercise success and unknown outcomes: exits %v", rep.Exits)
	}
	for _, kind := range sandbox.FaultKinds() {
		if rep.FaultsOnWalletPay[kind] == 0 {
			t.Errorf("no %s fault on a walletPay: %v", kind, rep.FaultsOnWalletPay)
		}
	}
	if rep.Reconciled != rep.Invoices {
		t.Errorf("reconciled %d of %d invoices", rep.Reconciled, rep.Invoices)
	}
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimSpace(string(p)))
	return len(p), nil
}
