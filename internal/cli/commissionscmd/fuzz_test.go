package commissionscmd

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/paycli/paycli/internal/cmdutil"
	"github.com/paycli/paycli/internal/commission"
	"github.com/paycli/paycli/internal/iostreams"
	"github.com/paycli/paycli/internal/money"
	"github.com/paycli/paycli/internal/render"
	"github.com/shopspring/decimal"
)

// FuzzDecodeRender feeds arbitrary response bodies through everything the
// command does after the response arrives. Whatever the body, paycli must
// either refuse it with an UnexpectedResponseError or print it in every
// format, and amounts must add up.
func FuzzDecodeRender(f *testing.F) {
	for _, name := range []string{"try_merchant_en.json", "usd_user_tr.json"} {
		if b, err := os.ReadFile(filepath.Join(sandboxFixtures, name)); err == nil {
			f.Add(b)
		}
	}
	if b, err := os.ReadFile(filepath.Join("testdata", "seed_response.json")); err == nil {
		f.Add(b)
	}
	f.Add([]byte(`{"status_code":100,"data":[]}`))
	f.Add([]byte(`{"status_code":100,"data":{"3":[{"card_program":"A","merchant_commission_percentage":"1e2","user_commission_fixed":-5,"installment":"9"}]}}`))
	f.Add([]byte(`{"status_code":100,"data":{"0":[{"merchant_commission_percentage":"-","user_commission_percentage":0.3333}]}}`))

	kwd, _ := money.LookupCurrency("KWD")
	amount := decimal.RequireFromString("12.345")
	f.Fuzz(func(t *testing.T, body []byte) {
		res, _, err := Decode(body, kwd, SideUser, commission.Filter{}, &amount)
		if err != nil {
			var unexpected *UnexpectedResponseError
			if !errors.As(err, &unexpected) {
				t.Fatalf("error of the wrong class: %v", err)
			}
			return
		}
		for _, r := range res.Rows {
			if a := r.Amounts; a != nil {
				sum := a.FirstInstallmentAmount.Add(a.InstallmentAmount.Mul(decimal.NewFromInt(int64(r.Installment - 1))))
				if !sum.Equal(a.BuyerTotal) {
					t.Fatalf("installments add up to %s, buyer total %s", sum, a.BuyerTotal)
				}
			}
		}
		for _, format := range []render.Format{render.Table, render.JSON, render.CSV} {
			for _, layout := range []string{LayoutMatrix, LayoutLong} {
				ios, _, _, _ := iostreams.Test()
				ios.SetColorEnabled(true)
				opts := &Options{Deps: cmdutil.Deps{IO: ios}, By: SideUser, Layout: layout}
				if err := write(context.Background(), opts, format, res); err != nil {
					t.Fatalf("%s %s: %v", format, layout, err)
				}
			}
		}
	})
}
