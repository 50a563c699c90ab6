package app

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/paycli/paycli/internal/iostreams"
)

// TestInstallmentsAgreeWithCommissions: `paycli installments --sandbox`
// prints, for every installment count a card can pay in, the figures
// `paycli commissions --amount` prints for the same program and count:
// what the buyer pays in all and per installment, the merchant's fee and
// net. Both sides, for both commission_by values and several cards.
func TestInstallmentsAgreeWithCommissions(t *testing.T) {
	home := t.TempDir()
	env := map[string]string{
		"HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, "config"), "XDG_CACHE_HOME": filepath.Join(home, "cache"),
		"XDG_STATE_HOME": filepath.Join(home, "state"),
	}
	run := func(args ...string) []byte {
		t.Helper()
		ios, _, out, errOut := iostreams.Test()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if code := Run(ctx, append(args, "--sandbox", "-o", "json"), ios, func(k string) (string, bool) { v, ok := env[k]; return v, ok }); code != 0 {
			t.Fatalf("paycli %v: exit %d\n%s", args, code, errOut)
		}
		return out.Bytes()
	}
	type amounts struct {
		BuyerTotal             json.Number `json:"buyer_total"`
		InstallmentAmount      json.Number `json:"installment_amount"`
		FirstInstallmentAmount json.Number `json:"first_installment_amount"`
		MerchantFee            json.Number `json:"merchant_fee"`
		MerchantNet            json.Number `json:"merchant_net"`
	}
	compared := 0
	for _, by := range []string{"merchant", "user"} {
		var table struct {
			Installments []struct {
				Installment int `json:"installment"`
				Entries     []struct {
					Program string   `json:"getpos_card_program"`
					Kind    string   `json:"kind"`
					Amounts *amounts `json:"amounts"`
				} `json:"entries"`
			} `json:"installments"`
		}
		if err := json.Unmarshal(run("commissions", "--currency", "TRY", "--amount", "1000", "--by", by), &table); err != nil {
			t.Fatal(err)
		}
		want := map[[2]any]amounts{}
		for _, inst := range table.Installments {
			for _, e := range inst.Entries {
				switch {
				case e.Amounts == nil:
				case e.Kind == "foreign_card":
					// getpos names a card issued abroad FOREIGN.
					want[[2]any{inst.Installment, "FOREIGN"}] = *e.Amounts
				case e.Program != "":
					want[[2]any{inst.Installment, e.Program}] = *e.Amounts
				}
			}
		}
		// Cards of three programs (docs/sandbox.md), and one issued abroad.
		for _, bin := range []string{"435508", "540667", "552879", "999999"} {
			var got struct {
				Options []struct {
					Installments int    `json:"installments"`
					Program      string `json:"card_program"`
					amounts
				} `json:"options"`
			}
			if err := json.Unmarshal(run("installments", "--bin", bin, "--amount", "1000", "--currency", "TRY", "--by", by), &got); err != nil {
				t.Fatal(err)
			}
			if len(got.Options) == 0 {
				t.Errorf("BIN %s by %s: no options", bin, by)
			}
			for _, o := range got.Options {
				w, ok := want[[2]any{o.Installments, o.Program}]
				if !ok {
					t.Errorf("BIN %s by %s: %s in %d installments is not in the commission table", bin, by, o.Program, o.Installments)
					continue
				}
				if o.amounts != w {
					t.Errorf("BIN %s by %s, %s in %d: installments say %+v, commissions %+v", bin, by, o.Program, o.Installments, o.amounts, w)
				}
				compared++
			}
		}
	}
	if compared < 24 {
		t.Errorf("only %d options compared", compared)
	}
	t.Logf("%d options agree", compared)
}
