package sandbox

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/paycli/paycli/internal/hashkey"
	"github.com/shopspring/decimal"
	bolt "go.etcd.io/bbolt"
)

// TestWalletPaySuccess pins walletPay's result object (docs/protocol.md,
// walletPay): exactly its field names, with their JSON types.
func TestWalletPaySuccess(t *testing.T) {
	fx := newFixture(t)
	body := payBody(t, "INV-1", fx.walletToken("150.00", "TRY"), "150.00", "TRY")
	body["wallet"] = "012" // ignored: the wallet type comes from the token
	body["wallet_type"] = "012"
	res := fx.authed("/api/walletPay", body)
	if res.Code != 200 || res.status() != 100 || res.desc() != "Payment successfully completed" {
		t.Fatalf("got HTTP %d %s", res.Code, res.Raw)
	}
	d := res.data()
	numbers := []string{"merchant_commission", "user_commission", "merchant_commission_percentage", "merchant_commission_fixed"}
	integers := []string{"service_status", "payment_status", "error_code"}
	strs := []string{"order_no", "order_id", "invoice_id", "service_payment_method", "credit_card_no", "transaction_type",
		"payment_method", "error", "auth_code", "host_reference_id", "payment_reason_code", "payment_reason_code_detail"}
	want := slices.Concat(numbers, integers, strs)
	slices.Sort(want)
	if got := slices.Sorted(maps.Keys(d)); !slices.Equal(got, want) {
		t.Fatalf("fields %v\nwant %v", got, want)
	}
	for _, k := range append(numbers, integers...) {
		if _, ok := d[k].(float64); !ok {
			t.Errorf("%s = %#v, want a JSON number", k, d[k])
		}
	}
	for _, k := range strs {
		if _, ok := d[k].(string); !ok {
			t.Errorf("%s = %#v, want a JSON string", k, d[k])
		}
	}
	// 150.00 on an AXESS card (BIN 435508): 1.75% of 150 = 2.625 -> 2.63.
	checks := map[string]any{
		"service_status": 1.0, "payment_status": 1.0, "error_code": 100.0, "error": "Success",
		"order_id": "VP00000000000000001", "order_no": "VP00000000000000001", "invoice_id": "INV-1",
		"service_payment_method": "WALLET_001", "credit_card_no": "435508******4358",
		"transaction_type": "Auth", "payment_method": "CREDITCARD",
		"merchant_commission": 2.63, "user_commission": 0.0, "merchant_commission_percentage": 1.75, "merchant_commission_fixed": 0.0,
		"payment_reason_code": "", "payment_reason_code_detail": "",
	}
	for k, v := range checks {
		if d[k] != v {
			t.Errorf("%s = %#v, want %#v", k, d[k], v)
		}
	}
	if len(d["auth_code"].(string)) != 6 || len(d["host_reference_id"].(string)) != 12 {
		t.Errorf("auth_code %v host_reference_id %v", d["auth_code"], d["host_reference_id"])
	}
	sale, ok, err := fx.store.Get("INV-1")
	if err != nil || !ok || sale.State != StateCompleted || sale.Wallet != "001" || sale.CardProgram != "AXESS" {
		t.Fatalf("stored sale %+v ok=%v err=%v", sale, ok, err)
	}
}

func TestWalletPayCommission(t *testing.T) {
	tests := []struct {
		card, amount, currency, wallet string
		wantCommission, wantPct        float64
		wantFixed                      float64
		wantMethod                     string
	}{
		{"5456165456165454", "200.00", "TRY", "012", 4.23, 1.99, 0.25, "WALLET_012"}, // MAXIMUM: 200*1.99% + 0.25
		{"4111111111111111", "100", "TRY", "001", 3.99, 3.49, 0.5, "WALLET_001"},     // foreign card
		{"5528795528795526", "10.00", "USD", "001", 0.25, 2.5, 0, "WALLET_001"},      // BONUS
	}
	for _, tt := range tests {
		t.Run(tt.card, func(t *testing.T) {
			fx := newFixture(t)
			wt := fx.walletTokenWith(WalletRequest{Amount: decimal.RequireFromString(tt.amount), Currency: tt.currency,
				CardNumber: tt.card, Wallet: tt.wallet, TTL: time.Minute})
			res := fx.authed("/api/walletPay", payBody(t, "INV-C", wt, tt.amount, tt.currency))
			d := res.data()
			if res.status() != 100 || d["merchant_commission"] != tt.wantCommission || d["merchant_commission_percentage"] != tt.wantPct ||
				d["merchant_commission_fixed"] != tt.wantFixed || d["service_payment_method"] != tt.wantMethod {
				t.Fatalf("got %s", res.Raw)
			}
			if !strings.HasPrefix(d["credit_card_no"].(string), tt.card[:6]) || !strings.HasSuffix(d["credit_card_no"].(string), tt.card[12:]) {
				t.Errorf("credit_card_no %v", d["credit_card_no"])
			}
		})
	}
}

func TestWalletPayErrors(t *testing.T) {
	otherSecret := func(b map[string]string) {
		hk, _ := hashkey.Generate("another secret", "150.00|1|TRY|"+MerchantKey+"|INV-E")
		b["hash_key"] = hk
	}
	rehash := func(plain string) func(map[string]string) {
		return func(b map[string]string) {
			hk, _ := hashkey.Generate(AppSecret, plain)
			b["hash_key"] = hk
		}
	}
	tests := []struct {
		name     string
		mod      func(map[string]string)
		wantCode int
		wantDesc string
	}{
		{"missing merchant_key", func(b map[string]string) { delete(b, "merchant_key") }, 1, "The merchant key field is required."},
		{"missing hash_key", func(b map[string]string) { b["hash_key"] = " " }, 1, "The hash key field is required."},
		{"missing invoice_id", func(b map[string]string) { delete(b, "invoice_id") }, 1, "The invoice id field is required."},
		{"missing token", func(b map[string]string) { delete(b, "wallet_transient_token") }, 1, "The wallet transient token field is required."},
		{"missing name", func(b map[string]string) { delete(b, "name") }, 1, "The name field is required."},
		{"missing surname", func(b map[string]string) { delete(b, "surname") }, 1, "The surname field is required."},
		{"missing bill_email", func(b map[string]string) { delete(b, "bill_email") }, 1, "The bill email field is required."},
		{"bad bill_email", func(b map[string]string) { b["bill_email"] = "ayse at example" }, 1, "The bill email must be a valid email address."},
		{"invoice with pipe", func(b map[string]string) { b["invoice_id"] = "A|B" }, 1, "The invoice id may not be longer than 100 characters or contain '|'."},
		{"invoice too long", func(b map[string]string) { b["invoice_id"] = strings.Repeat("I", 101) }, 1, "The invoice id may not be longer than 100 characters or contain '|'."},
		{"wrong merchant_key", func(b map[string]string) { b["merchant_key"] = "nope" }, 14, "Invalid merchant key: merchant not found"},
		{"hash_key not a hash_key", func(b map[string]string) { b["hash_key"] = "garbage" }, 90, "Invalid hash key"},
		{"hash_key of another secret", otherSecret, 90, "Invalid hash key"},
		{"hash total differs", rehash("151.00|1|TRY|" + MerchantKey + "|INV-E"), 68, "Hash key mismatch: total differs from the payment"},
		{"hash installment differs", rehash("150.00|3|TRY|" + MerchantKey + "|INV-E"), 68, "Hash key mismatch: installment differs from the payment"},
		{"hash currency differs", rehash("150.00|1|USD|" + MerchantKey + "|INV-E"), 68, "Hash key mismatch: currency_code differs from the payment"},
		{"hash invoice differs", rehash("150.00|1|TRY|" + MerchantKey + "|INV-X"), 68, "Hash key mismatch: invoice_id differs from the payment"},
		{"hash of another layout", rehash("INV-E|" + MerchantKey), 68, "Hash key mismatch: the hash_key is not made with the walletpay layout total|installment|currency_code|merchant_key|invoice_id"},
		{"token not a JWT", func(b map[string]string) { b["wallet_transient_token"] = "abc" }, 1, "The wallet transient token is not a valid wallet token."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fx := newFixture(t)
			body := payBody(t, "INV-E", fx.walletToken("150.00", "TRY"), "150.00", "TRY")
			tt.mod(body)
			res := fx.authed("/api/walletPay", body)
			if res.Code != 200 || res.status() != tt.wantCode || res.desc() != tt.wantDesc {
				t.Fatalf("got HTTP %d %s", res.Code, res.Raw)
			}
			if sales, _ := fx.store.Sales(); len(sales) != 0 {
				t.Errorf("a rejected request stored %v", sales)
			}
		})
	}
}

func TestWalletPayAmountsAsDecimals(t *testing.T) {
	fx := newFixture(t)
	// The token says 150.00; a hash_key made with "150" is the same amount.
	body := payBody(t, "INV-D", fx.walletToken("150.00", "TRY"), "150", "TRY")
	if res := fx.authed("/api/walletPay", body); res.status() != 100 {
		t.Fatalf("got %s", res.Raw)
	}
}

func TestWalletPayCurrencyNotAccepted(t *testing.T) {
	fx := newFixture(t)
	if res := fx.pay("INV-G", "10.00", "GBP"); res.status() != 12 {
		t.Fatalf("got %s", res.Raw)
	}
}

func TestWalletPayWalletToken(t *testing.T) {
	fx := newFixture(t)
	otherKey, _ := jwt.NewWithClaims(jwt.SigningMethodHS256, WalletClaims{Amount: "150.00", Currency: "TRY",
		Card: WalletCard{BIN: "435508", Last4: "4358"}, Wallet: "001",
		RegisteredClaims: jwt.RegisteredClaims{ExpiresAt: jwt.NewNumericDate(testStart.Add(time.Hour))}}).SignedString([]byte("not the wallet key"))
	res := fx.authed("/api/walletPay", payBody(t, "INV-W", otherKey, "150.00", "TRY"))
	if res.status() != 1 || res.desc() != "The wallet transient token is invalid." {
		t.Fatalf("forged token: %s", res.Raw)
	}
	expired := fx.walletTokenWith(WalletRequest{Amount: decimal.RequireFromString("150.00"), Currency: "TRY",
		CardNumber: DefaultWalletCard, Wallet: "001", TTL: time.Minute})
	fx.clock.Advance(2 * time.Minute)
	res = fx.authed("/api/walletPay", payBody(t, "INV-W", expired, "150.00", "TRY"))
	if res.status() != 1 || res.desc() != "The wallet transient token has expired." {
		t.Fatalf("expired token: %s", res.Raw)
	}
	// Neither attempt charged anything, so the invoice is still free.
	if res := fx.pay("INV-W", "150.00", "TRY"); res.status() != 100 {
		t.Fatalf("fresh token after failures: %s", res.Raw)
	}
}

func TestWalletPayMagicAmounts(t *testing.T) {
	fx := newFixture(t)
	res := fx.pay("INV-41", "100.41", "TRY")
	d := res.data()
	if res.status() != 41 || res.desc() != "Payment failed" || d["payment_status"] != 0.0 || d["service_status"] != 0.0 ||
		d["payment_reason_code"] != "51" || d["payment_reason_code_detail"] != "Insufficient funds" || d["error_code"] != 41.0 {
		t.Fatalf(".41: %s", res.Raw)
	}
	res = fx.pay("INV-69", "100.69", "TRY")
	if res.status() != 69 || res.desc() != "Order not yet processed" || res.data()["payment_status"] != 0.0 {
		t.Fatalf(".69: %s", res.Raw)
	}
	for _, amount := range []string{"0.42", "41.00", "69.00", "100.4"} {
		if res := fx.pay("INV-"+amount, amount, "TRY"); res.status() != 100 {
			t.Errorf("%s: %s", amount, res.Raw)
		}
	}
}

// TestWalletPayDuplicate: a processed or in-flight invoice is rejected with
// 3 before the wallet token is even checked.
func TestWalletPayDuplicate(t *testing.T) {
	for _, amount := range []string{"10.00", "10.41", "10.69"} {
		t.Run(amount, func(t *testing.T) {
			fx := newFixture(t)
			first := fx.pay("INV-DUP", amount, "TRY")
			if first.status() == 3 {
				t.Fatalf("first attempt: %s", first.Raw)
			}
			again := fx.pay("INV-DUP", "20.00", "TRY")
			if again.status() != 3 || again.desc() != "Invoice id is already processed or in progress; nothing was charged" {
				t.Fatalf("second attempt: %s", again.Raw)
			}
			// An expired token on a duplicate still gets 3: the duplicate
			// check comes first.
			expired := fx.walletTokenWith(WalletRequest{Amount: decimal.RequireFromString("20.00"), Currency: "TRY",
				CardNumber: DefaultWalletCard, Wallet: "001", TTL: time.Second})
			fx.clock.Advance(time.Minute)
			if res := fx.authed("/api/walletPay", payBody(t, "INV-DUP", expired, "20.00", "TRY")); res.status() != 3 {
				t.Fatalf("duplicate with expired token: %s", res.Raw)
			}
			sale, _, _ := fx.store.Get("INV-DUP")
			if sale.Amount != decimal.RequireFromString(amount).StringFixed(2) {
				t.Errorf("the stored sale changed: %+v", sale)
			}
		})
	}
}

// TestWalletPayInFlight: while a walletPay for an invoice is between its
// duplicate check and its commit, a second one is refused with 3 before the
// provider step and stores nothing; once the first is done the invoice is
// free again (it charged nothing here, so a later payment may use it).
func TestWalletPayInFlight(t *testing.T) {
	fx := newFixture(t)
	fx.gw.inFlight.Store("INV-BUSY", struct{}{}) // a first request, mid-way
	if res := fx.pay("INV-BUSY", "10.00", "TRY"); res.status() != 3 {
		t.Fatalf("payment for an invoice in flight: %s", res.Raw)
	}
	if _, ok, _ := fx.store.Get("INV-BUSY"); ok {
		t.Fatal("a refused payment stored a sale")
	}
	fx.gw.inFlight.Delete("INV-BUSY")
	if res := fx.pay("INV-BUSY", "10.00", "TRY"); res.status() != 100 {
		t.Fatalf("payment after the invoice left flight: %s", res.Raw)
	}
	if _, busy := fx.gw.inFlight.Load("INV-BUSY"); busy {
		t.Error("a finished payment left its invoice in flight")
	}
}

// TestWalletTokenClaims: a token's amount may be a JSON number; a token
// without amount, currency or card is not a wallet token.
func TestWalletTokenClaims(t *testing.T) {
	sign := func(claims jwt.MapClaims) string {
		claims["exp"] = testStart.Add(time.Hour).Unix()
		tok, err := jwt.NewWithClaims(jwt.SigningMethodHS256, claims).SignedString([]byte(WalletSigningKey))
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	card := map[string]string{"bin": "435508", "last4": "4358"}
	tests := []struct {
		name     string
		claims   jwt.MapClaims
		wantCode int
	}{
		{"number amount", jwt.MapClaims{"amount": 150, "currency": "TRY", "card": card, "wallet": "012"}, 100},
		{"no amount", jwt.MapClaims{"currency": "TRY", "card": card, "wallet": "001"}, 1},
		{"text amount", jwt.MapClaims{"amount": "lots", "currency": "TRY", "card": card, "wallet": "001"}, 1},
		{"zero amount", jwt.MapClaims{"amount": "0.00", "currency": "TRY", "card": card, "wallet": "001"}, 1},
		{"no currency", jwt.MapClaims{"amount": "150.00", "card": card, "wallet": "001"}, 1},
		{"no card", jwt.MapClaims{"amount": "150.00", "currency": "TRY", "wallet": "001"}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fx := newFixture(t)
			res := fx.authed("/api/walletPay", payBody(t, "INV-T", sign(tt.claims), "150.00", "TRY"))
			if res.status() != tt.wantCode {
				t.Fatalf("got %s", res.Raw)
			}
			if tt.wantCode == 100 && res.data()["service_payment_method"] != "WALLET_012" {
				t.Errorf("wallet type: %s", res.Raw)
			}
		})
	}
}

func TestWalletTokenIsSingleUseAcrossRestart(t *testing.T) {
	fx := newFixture(t)
	tok := fx.walletToken("150.00", "TRY")
	if res := fx.authed("/api/walletPay", payBody(t, "INV-T1", tok, "150.00", "TRY")); res.status() != 100 {
		t.Fatal(string(res.Raw))
	}
	if res := fx.authed("/api/walletPay", payBody(t, "INV-T2", tok, "150.00", "TRY")); res.status() != 1 {
		t.Errorf("a spent token paid again: %s", res.Raw)
	}
	fx.store.Close()
	fx.open()
	if res := fx.authed("/api/walletPay", payBody(t, "INV-T3", tok, "150.00", "TRY")); res.status() != 1 {
		t.Errorf("a spent token paid again after a restart: %s", res.Raw)
	}
	for _, inv := range []string{"INV-T2", "INV-T3"} {
		if _, ok, _ := fx.store.Get(inv); ok {
			t.Errorf("%s stored", inv)
		}
	}
}

// TestWalletTokenSpentByAnOlderSandbox: a token an older sandbox recorded
// as spent (keyed by its id alone, before keys were ordered by time) still
// cannot pay.
func TestWalletTokenSpentByAnOlderSandbox(t *testing.T) {
	fx := newFixture(t)
	tok := fx.walletToken("150.00", "TRY")
	claims, _, err := readWalletToken(tok, fx.clock.Now())
	if err != nil {
		t.Fatal(err)
	}
	err = fx.store.db.Update(func(tx *bolt.Tx) error {
		return tx.Bucket([]byte(walletTokensBucket)).Put([]byte(walletTokenKey(tok, claims.ID)), []byte("INV-OLD"))
	})
	if err != nil {
		t.Fatal(err)
	}
	if res := fx.authed("/api/walletPay", payBody(t, "INV-NEW", tok, "150.00", "TRY")); res.status() != 1 {
		t.Errorf("a token spent before the upgrade paid again: %s", res.Raw)
	}
	// A fresh token is keyed by its issued-at time, then its id.
	fx.authed("/api/walletPay", payBody(t, "INV-FRESH", fx.walletToken("10.00", "TRY"), "10.00", "TRY"))
	_ = fx.store.db.View(func(tx *bolt.Tx) error {
		k, v := tx.Bucket([]byte(walletTokensBucket)).Cursor().First()
		if want := spentTokenKey(testStart.Unix(), "jti:wt-2"); !bytes.Equal(k, want) || string(v) != "INV-FRESH" {
			t.Errorf("first spent token %q %q, want %q", k, v, want)
		}
		return nil
	})
}

func TestWalletPayRefusesOddAmountsAndWallets(t *testing.T) {
	fx := newFixture(t)
	for _, amount := range []string{"0.001", "150.123"} {
		// Sign the odd amount directly: IssueWalletToken rounds to cents.
		claims, _ := json.Marshal(map[string]any{"amount": amount, "currency": "TRY", "wallet": "001", "jti": "odd-" + amount,
			"card": map[string]string{"bin": "435508", "last4": "4358"}, "exp": testStart.Add(time.Hour).Unix()})
		tok := signWalletClaims(claims, true)
		if res := fx.authed("/api/walletPay", payBody(t, "INV-"+amount, tok, amount, "TRY")); res.status() != 1 {
			t.Errorf("%s TRY: %s", amount, res.Raw)
		}
	}
	claims, _ := json.Marshal(map[string]any{"amount": "0", "currency": "TRY", "wallet": "001", "jti": "zero",
		"card": map[string]string{"bin": "435508", "last4": "4358"}, "exp": testStart.Add(time.Hour).Unix()})
	if res := fx.authed("/api/walletPay", payBody(t, "INV-Z", signWalletClaims(claims, true), "0", "TRY")); res.status() != 1 {
		t.Errorf("zero: %s", res.Raw)
	}
	claims, _ = json.Marshal(map[string]any{"amount": "10.00", "currency": "TRY", "wallet": "999", "jti": "w999",
		"card": map[string]string{"bin": "435508", "last4": "4358"}, "exp": testStart.Add(time.Hour).Unix()})
	if res := fx.authed("/api/walletPay", payBody(t, "INV-W", signWalletClaims(claims, true), "10.00", "TRY")); res.status() != 1 {
		t.Errorf("wallet 999: %s", res.Raw)
	}
	// An amount past the cap every other sandbox amount has.
	for _, amount := range []string{"10000000000", "99999999999999999999"} {
		tok, err := IssueWalletToken(WalletRequest{CardNumber: DefaultWalletCard, Currency: "TRY", Wallet: WalletOther,
			Amount: decimal.RequireFromString(amount), TTL: time.Hour}, testStart, "big-"+amount)
		if err != nil {
			t.Fatal(err)
		}
		if res := fx.authed("/api/walletPay", payBody(t, "INV-BIG-"+amount, tok, amount, "TRY")); res.status() != 1 {
			t.Errorf("%s TRY: %s", amount, res.Raw)
		}
	}
	sales, _ := fx.store.Sales()
	if len(sales) != 0 {
		t.Errorf("stored %+v", sales)
	}
}

func TestInvoiceLimitCountsCharacters(t *testing.T) {
	fx := newFixture(t)
	long := strings.Repeat("İ", 100) // 200 bytes, 100 characters
	if res := fx.pay(long, "10.00", "TRY"); res.status() != 100 {
		t.Errorf("100 characters: %s", res.Raw)
	}
	if res := fx.pay(long+"İ", "10.00", "TRY"); res.status() != 1 {
		t.Errorf("101 characters: %s", res.Raw)
	}
}
