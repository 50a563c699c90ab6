//go:build perfpeers

// Command walletpay-bodies prints N walletPay request bodies for the
// sandbox, one JSON object per line, each for a new invoice of 150.00 TRY
// with its own wallet token and hash_key. docs/perf/walletpay.lua feeds
// them to wrk, so that the sandbox and stripe-mock are loaded by the same
// client. Built only by docs/perf/run.sh (go build -tags perfpeers).
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/paycli/paycli/internal/hashkey"
	"github.com/paycli/paycli/internal/sandbox"
	"github.com/shopspring/decimal"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: walletpay-bodies N RUN-ID")
		os.Exit(2)
	}
	n, err := strconv.Atoi(os.Args[1])
	if err != nil || n < 1 {
		fmt.Fprintln(os.Stderr, "N must be a positive number")
		os.Exit(2)
	}
	now := time.Now()
	enc := json.NewEncoder(os.Stdout)
	for i := range n {
		invoice := fmt.Sprintf("WRK-%s-%d", os.Args[2], i)
		wt, err := sandbox.IssueWalletToken(sandbox.WalletRequest{Amount: decimal.RequireFromString("150.00"), Currency: "TRY",
			CardNumber: sandbox.DefaultWalletCard, Wallet: sandbox.WalletDeviceVendor, TTL: time.Hour}, now, invoice)
		if err != nil {
			panic(err)
		}
		hk, err := hashkey.Generate(sandbox.AppSecret, hashkey.Join("150.00", "1", "TRY", sandbox.MerchantKey, invoice))
		if err != nil {
			panic(err)
		}
		if err := enc.Encode(map[string]string{"merchant_key": sandbox.MerchantKey, "invoice_id": invoice, "hash_key": hk,
			"wallet_transient_token": wt, "name": "Bench", "surname": "Load", "bill_email": "bench@example.com"}); err != nil {
			panic(err)
		}
	}
}
