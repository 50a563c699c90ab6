package commissionscmd

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/paycli/paycli/internal/cmdutil"
	"github.com/paycli/paycli/internal/commission"
	"github.com/paycli/paycli/internal/iostreams"
	"github.com/paycli/paycli/internal/money"
	"github.com/paycli/paycli/internal/render"
	"github.com/shopspring/decimal"
)

// benchBody is a commissions response with programs card programs on each
// of 12 installment counts, plus the two special entries on installment 1.
func benchBody(programs int) []byte {
	var b strings.Builder
	b.WriteString(`{"status_code":100,"status_description":"Success","data":{`)
	for n := 1; n <= 12; n++ {
		if n > 1 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `"%d":[`, n)
		for p := range programs {
			if p > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, `{"title":"Regular Commission","card_program":"Program %03d","merchant_commission_percentage":"%d.%02d00","merchant_commission_fixed":"0.0000","user_commission_percentage":0,"user_commission_fixed":0,"currency_code":"TRY","installment":%d,"pos_id":%d,"getpos_card_program":"PROGRAM_%03d"}`,
				(p*7919)%programs, n, p%100, n, 1000+p, p)
		}
		if n == 1 {
			b.WriteString(`,{"title":"Save Card Token Payment Commission","card_program":"","merchant_commission_percentage":"2.1000","merchant_commission_fixed":"0.0000","user_commission_percentage":"-","user_commission_fixed":"-","currency_code":"TRY","installment":1}`)
			b.WriteString(`,{"title":"Foreign Card Commission","card_program":"","merchant_commission_percentage":"3.4900","merchant_commission_fixed":"0.5000","user_commission_percentage":"-","user_commission_fixed":"-","currency_code":"TRY","installment":1}`)
		}
		b.WriteString("]")
	}
	b.WriteString("}}")
	return []byte(b.String())
}

// BenchmarkDecodeRender measures what the command does after the response
// arrives: decode, place, work out amounts, render. Figures are recorded
// in docs/performance.md.
func BenchmarkDecodeRender(b *testing.B) {
	try, _ := money.LookupCurrency("TRY")
	amount := decimal.NewFromInt(1000)
	for _, programs := range []int{10, 40, 160} {
		body := benchBody(programs)
		for _, v := range []struct {
			name   string
			format render.Format
			layout string
			amount *decimal.Decimal
		}{
			{"matrix", render.Table, LayoutMatrix, nil},
			{"matrix-amount", render.Table, LayoutMatrix, &amount},
			{"long", render.Table, LayoutLong, nil},
			{"json", render.JSON, LayoutMatrix, nil},
			{"csv", render.CSV, LayoutLong, nil},
			{"csv-amount", render.CSV, LayoutLong, &amount},
		} {
			b.Run(fmt.Sprintf("programs=%d/%s", programs, v.name), func(b *testing.B) {
				ios, _, out, _ := iostreams.Test()
				opts := &Options{Deps: cmdutil.Deps{IO: ios}, By: SideMerchant, Layout: v.layout}
				b.SetBytes(int64(len(body)))
				b.ReportAllocs()
				cpu := processCPU()
				for b.Loop() {
					out.Reset()
					res, _, err := Decode(body, try, SideMerchant, commission.Filter{}, v.amount)
					if err != nil {
						b.Fatal(err)
					}
					if err := write(context.Background(), opts, v.format, res); err != nil {
						b.Fatal(err)
					}
				}
				reportCPU(b, cpu)
				if out.Len() == 0 || bytes.Count(out.Bytes(), []byte("\n")) < programs {
					b.Fatalf("output too short: %d bytes", out.Len())
				}
			})
		}
	}
}

// BenchmarkStages measures each stage of the command on its own, for 10,
// 40 and 160 programs × 12 installment counts: decode (body to
// commission.Schedule), normalise (place, sort and, with -amount, work
// out the amounts: commission.Rows) and render in each format from a
// placed result; decode-floor is encoding/json's own cost for the body.
// ns/entry shows that the cost is linear in entries.
func BenchmarkStages(b *testing.B) {
	try, _ := money.LookupCurrency("TRY")
	amount := decimal.NewFromInt(1000)
	for _, programs := range []int{10, 40, 160} {
		body := benchBody(programs)
		entries := 12*programs + 2
		perEntry := func(b *testing.B, cpu time.Duration) {
			reportCPU(b, cpu)
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(entries), "ns/entry")
		}
		schedule, err := commission.DecodeResponse(body)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("programs=%d/decode", programs), func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			cpu := processCPU()
			for b.Loop() {
				if _, err := commission.DecodeResponse(body); err != nil {
					b.Fatal(err)
				}
			}
			perEntry(b, cpu)
		})
		// decode-floor is what encoding/json alone costs for this body:
		// one pass into the plainest shape that keeps every field (a map of
		// raw values per entry), with nothing read out of it. No decoder
		// built on encoding/json can be faster than this; it is the floor
		// docs/performance.md compares the 5 ms budget with.
		b.Run(fmt.Sprintf("programs=%d/decode-floor", programs), func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			cpu := processCPU()
			for b.Loop() {
				var env struct {
					Data map[string][]map[string]json.RawMessage `json:"data"`
				}
				if err := json.Unmarshal(body, &env); err != nil || len(env.Data) != 12 {
					b.Fatal(err, len(env.Data))
				}
			}
			perEntry(b, cpu)
		})
		for _, v := range []struct {
			name string
			sale *commission.Sale
		}{
			{"normalise", nil},
			{"normalise-amount", &commission.Sale{Amount: amount, MinorUnit: try.MinorUnit}},
		} {
			b.Run(fmt.Sprintf("programs=%d/%s", programs, v.name), func(b *testing.B) {
				b.ReportAllocs()
				cpu := processCPU()
				for b.Loop() {
					if _, _, err := commission.Rows(schedule, commission.Filter{}, v.sale); err != nil {
						b.Fatal(err)
					}
				}
				perEntry(b, cpu)
			})
		}
		for _, v := range []struct {
			name   string
			format render.Format
			layout string
			amount *decimal.Decimal
		}{
			{"render-matrix", render.Table, LayoutMatrix, nil},
			{"render-matrix-amount", render.Table, LayoutMatrix, &amount},
			{"render-long", render.Table, LayoutLong, nil},
			{"render-json", render.JSON, LayoutMatrix, nil},
			{"render-csv", render.CSV, LayoutLong, nil},
			{"render-csv-amount", render.CSV, LayoutLong, &amount},
		} {
			res, _, err := Decode(body, try, SideMerchant, commission.Filter{}, v.amount)
			if err != nil {
				b.Fatal(err)
			}
			b.Run(fmt.Sprintf("programs=%d/%s", programs, v.name), func(b *testing.B) {
				ios, _, out, _ := iostreams.Test()
				opts := &Options{Deps: cmdutil.Deps{IO: ios}, By: SideMerchant, Layout: v.layout}
				b.ReportAllocs()
				cpu := processCPU()
				for b.Loop() {
					out.Reset()
					if err := write(context.Background(), opts, v.format, res); err != nil {
						b.Fatal(err)
					}
				}
				perEntry(b, cpu)
			})
		}
	}
}
