package sandbox

import (
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/shopspring/decimal"
	bolt "go.etcd.io/bbolt"

	"github.com/paycli/paycli/internal/money"
)

// The sandbox's settlement policy (docs/sandbox.md, "Ledger"): a charged
// sale settles to the merchant, and from the bank, on the next business
// day (Monday to Friday) at 14:00 gateway time, as the document's example
// does (§11.12: a Wednesday sale settles Thursday 14:00). A rolling
// reserve of the gross is held and released six months after the sale's
// day at 11:00 (the example's 2021-02-10 → 2021-08-10 11:00).
const (
	settlementHour = 14
	rollingHour    = 11
	rollingMonths  = 6
	// DefaultRollingPercentage is the reserve held of a sale's gross
	// unless a planted rate says otherwise (the example's 10).
	DefaultRollingPercentage = "10"
	// ChargebackFee is what the gateway charges the merchant for a
	// chargeback (refunded_chargeback_fee; the example's 50).
	ChargebackFee = "50"
)

// ledgerStates numbers the ledger's transaction_state_id by label. §11.15
// gives 1 Completed and 3 Pending, §11.12's example 11 Chargebacked; the
// others are the sandbox's (docs/protocol.md).
var ledgerStates = sync.OnceValue(func() map[string]int {
	return map[string]int{
		"Completed": 1, "Failed": 2, "Pending": 3, "Refunded": 4, "Partially Refunded": 5,
		"Cancelled": 6, "Pre-Authorized": 7, "Awaiting Payment": 8, "Chargebacked": 11,
	}
})

// ledgerStateOf is a sale's transaction_state_id and label: check
// status's words, Chargebacked once charged back.
func ledgerStateOf(sale *Sale) (int, string) {
	label, _, _ := transactionStatusOf(*sale)
	if sale.Chargeback != nil {
		label = "Chargebacked"
	}
	return ledgerStates()[label], label
}

// currencyIDs numbers currencies as the ledger does (§11.12's example:
// currency_id 1 is TRY; §11.15 allows TRY, USD, EUR).
var currencyIDs = sync.OnceValue(func() map[string]int {
	return map[string]int{"TRY": 1, "USD": 2, "EUR": 3}
})

// productPrice is what a sale is for: a captured pre-authorization's
// capture, else its amount.
func productPrice(sale *Sale) string {
	if sale.PreAuth != nil && sale.PreAuth.State == PreAuthCaptured && sale.PreAuth.Captured != "" {
		return sale.PreAuth.Captured
	}
	return sale.Amount
}

// plantedRate is a commission the sandbox was told to charge instead of
// the table's (PlantRatePath), for one sale or (invoice "") a merchant.
type plantedRate struct {
	Percentage        string `json:"merchant_commission_percentage,omitempty"`
	Fixed             string `json:"merchant_commission_fixed,omitempty"`
	RollingPercentage string `json:"rolling_percentage,omitempty"`
}

// ledgerRatesBucket holds the planted rates, JSON plantedRate by invoice
// id; the merchant's own under merchantRateKey.
const ledgerRatesBucket = "ledger_rates"

const merchantRateKey = "\x00merchant"

// plantRate stores a planted rate for invoiceID ("" for the merchant).
func (s *Store) plantRate(invoiceID string, r plantedRate) error {
	data, err := json.Marshal(r)
	if err != nil {
		return err
	}
	key := invoiceID
	if key == "" {
		key = merchantRateKey
	}
	return s.writes.do(func(tx *bolt.Tx) error { return tx.Bucket([]byte(ledgerRatesBucket)).Put([]byte(key), data) })
}

// plantedRates reads every planted rate (a handful: tests and desks plant
// them one by one).
func (s *Store) plantedRates() (map[string]plantedRate, error) {
	out := map[string]plantedRate{}
	err := s.db.View(func(tx *bolt.Tx) error {
		return tx.Bucket([]byte(ledgerRatesBucket)).ForEach(func(k, v []byte) error {
			var r plantedRate
			if err := json.Unmarshal(v, &r); err != nil {
				return err
			}
			out[string(k)] = r
			return nil
		})
	})
	return out, err
}

// ledgerMoney is what the ledger says of a sale's money, exact decimals in
// the currency's minor unit.
type ledgerMoney struct {
	price, gross, commission, net, rolling, refunded decimal.Decimal
	percentage, fixed, userPercentage, userFixed     decimal.Decimal
	rollingPercentage                                decimal.Decimal
	chargebackFee                                    decimal.Decimal
	// charged is false for a sale that took nothing: no commission, net,
	// reserve or settlement.
	charged bool
}

// moneyOf works out a sale's money at its stored rates, or at a planted
// rate (the sale's, else the merchant's) when one is set. Gross is what
// the buyer paid (the price and the user commission); the commission is
// charged on it, unrounded, and net is gross less it, as §11.12's example
// has them (5% × 11.3 + 0.1 = 0.665, 11.3 − 0.665 = 10.635).
func moneyOf(sale *Sale, planted map[string]plantedRate) ledgerMoney {
	minor := minorUnit(sale.Currency)
	m := ledgerMoney{rollingPercentage: decimal.RequireFromString(DefaultRollingPercentage)}
	m.price = decimalOr(productPrice(sale))
	m.gross = m.price.Add(decimalOr(sale.UserCommission))
	m.percentage, m.fixed = decimalOr(sale.MerchantCommissionPercentage), decimalOr(sale.MerchantCommissionFixed)
	m.userPercentage, m.userFixed = decimalOr(sale.UserCommissionPercentage), decimalOr(sale.UserCommissionFixed)
	for _, key := range []string{merchantRateKey, sale.InvoiceID} {
		r, ok := planted[key]
		if !ok {
			continue
		}
		if r.Percentage != "" {
			m.percentage, m.fixed = decimalOr(r.Percentage), decimalOr(r.Fixed)
		}
		if r.RollingPercentage != "" {
			m.rollingPercentage = decimalOr(r.RollingPercentage)
		}
	}
	m.refunded = sale.Refunded()
	if sale.Chargeback != nil {
		m.refunded = m.refunded.Add(decimalOr(sale.Chargeback.Amount))
		m.chargebackFee = decimalOr(sale.Chargeback.Fee)
	}
	m.charged = sale.Charged().IsPositive()
	if !m.charged {
		return m
	}
	m.commission = m.gross.Mul(m.percentage).Div(decimal.NewFromInt(100)).Add(m.fixed)
	m.net = m.gross.Sub(m.commission)
	m.rolling = money.Round(m.gross.Mul(m.rollingPercentage).Div(decimal.NewFromInt(100)), minor)
	return m
}

// decimalOr reads a stored decimal, zero for an empty or damaged one.
func decimalOr(s string) decimal.Decimal {
	d, err := decimal.NewFromString(s)
	if err != nil {
		return decimal.Zero
	}
	return d
}

// settlementDate is when a charged sale created at t settles: the next
// business day at settlementHour, gateway time.
func settlementDate(t time.Time) time.Time {
	y, mo, d := t.In(money.GatewayZone()).Date()
	day := time.Date(y, mo, d+1, settlementHour, 0, 0, 0, money.GatewayZone())
	for day.Weekday() == time.Saturday || day.Weekday() == time.Sunday {
		day = day.AddDate(0, 0, 1)
	}
	return day
}

// rollingRelease is when the reserve of a sale created at t is released.
func rollingRelease(t time.Time) time.Time {
	y, mo, d := t.In(money.GatewayZone()).Date()
	return time.Date(y, mo+rollingMonths, d, rollingHour, 0, 0, 0, money.GatewayZone())
}

// jsonNum writes a decimal as a JSON number, exactly.
func jsonNum(d decimal.Decimal) json.Number { return json.Number(d.String()) }

// PlantRatePath takes POST {"merchant", "invoice_id",
// "merchant_commission_percentage", "merchant_commission_fixed",
// "rolling_percentage"}: the ledger then charges that rate for the sale
// (or, without invoice_id, every sale of the merchant) instead of the
// commission table's, so an audit can be shown a fee that differs.
const PlantRatePath = "/__sandbox/rates"

// PlantRateRequest is the body of PlantRatePath.
type PlantRateRequest struct {
	Merchant          string `json:"merchant,omitempty"`
	InvoiceID         string `json:"invoice_id,omitempty"`
	Percentage        string `json:"merchant_commission_percentage,omitempty"`
	Fixed             string `json:"merchant_commission_fixed,omitempty"`
	RollingPercentage string `json:"rolling_percentage,omitempty"`
}

func (m *merchants) plantRate(w http.ResponseWriter, r *http.Request) {
	var req PlantRateRequest
	if err := readAdminJSON(w, r, maxAdminBody, &req); err != nil {
		writeAdminFieldError(w, err)
		return
	}
	t := m.def
	if req.Merchant != "" {
		var ok bool
		if t, ok = m.lookup(req.Merchant); !ok {
			writeAdminFieldError(w, &fieldError{status: http.StatusNotFound, field: "merchant", msg: unknownMerchant(req.Merchant).Error()})
			return
		}
	}
	if err := checkPlantedRate(req); err != nil {
		writeAdminFieldError(w, err)
		return
	}
	rate := plantedRate{Percentage: req.Percentage, Fixed: req.Fixed, RollingPercentage: req.RollingPercentage}
	if rate.Percentage != "" && rate.Fixed == "" {
		rate.Fixed = "0"
	}
	if err := t.store.plantRate(strings.TrimSpace(req.InvoiceID), rate); err != nil {
		writeAdminFieldError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, req)
}

// checkPlantedRate refuses a planted rate that is not decimals, or that
// plants nothing.
func checkPlantedRate(req PlantRateRequest) error {
	if req.Percentage == "" && req.RollingPercentage == "" {
		return badField(http.StatusBadRequest, "merchant_commission_percentage", "missing: plant a commission percentage, a rolling_percentage, or both")
	}
	for field, v := range map[string]string{"merchant_commission_percentage": req.Percentage, "merchant_commission_fixed": req.Fixed,
		"rolling_percentage": req.RollingPercentage} {
		if d, err := decimal.NewFromString(v); v != "" && (err != nil || d.IsNegative()) {
			return badField(http.StatusBadRequest, field, "%q is not a decimal of zero or more, e.g. 2.99", clipAdminText(v))
		}
	}
	return nil
}

// recordChargeback marks a charged sale as taken back (the chargeback
// event, admin.go): amount (the sale's charge when empty) and the
// ChargebackFee, at now, and queues d, its webhook, in the same
// transaction: both are written or neither. A sale that charged nothing
// is refused (409): there is nothing to take back, and no webhook.
func (s *Store) recordChargeback(d Delivery, amount string, now time.Time) (Delivery, error) {
	_, err := s.Update(d.InvoiceID, func(sale *Sale, tx *Tx) error {
		if !sale.Charged().IsPositive() {
			return badField(http.StatusConflict, "invoice_id", "the sale charged nothing: there is nothing to charge back")
		}
		if amount == "" {
			amount = sale.Charged().StringFixed(minorUnit(sale.Currency))
		}
		sale.Chargeback = &Chargeback{Amount: amount, Fee: ChargebackFee, At: now}
		sale.UpdatedAt = now
		return addDelivery(tx.tx, &d)
	})
	return d, err
}
