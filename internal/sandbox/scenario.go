package sandbox

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/paycli/paycli/internal/config"
	"github.com/shopspring/decimal"
	bolt "go.etcd.io/bbolt"
)

// LoadPath takes POST with a scenario (JSON, or YAML) and applies it:
// `paycli sandbox load FILE` against a running server.
const LoadPath = "/__sandbox/load"

// maxScenarioBytes bounds a scenario file.
const maxScenarioBytes = 4 << 20

// A Scenario seeds a sandbox in one call, as Stripe's fixtures do:
// merchants with fixed credentials, sales in any state (with refunds),
// saved cards and payment links. Applying it is idempotent: each item is
// keyed (a merchant by app_id, a sale or link by invoice_id, a card by its
// token) and replaces what the key held; applying the same file twice
// leaves the sandbox as once. Every item is checked before anything is
// written, so a scenario with a mistake changes nothing.
type Scenario struct {
	Merchants []ScenarioMerchant `json:"merchants,omitempty" yaml:"merchants"`
	Sales     []ScenarioSale     `json:"sales,omitempty" yaml:"sales"`
	Cards     []ScenarioCard     `json:"cards,omitempty" yaml:"cards"`
	Links     []ScenarioLink     `json:"links,omitempty" yaml:"links"`
}

// ScenarioMerchant is a merchant with fixed credentials, created unless it
// exists (with the same credentials).
type ScenarioMerchant struct {
	AppID       string            `json:"app_id" yaml:"app_id"`
	AppSecret   string            `json:"app_secret" yaml:"app_secret"`
	MerchantKey string            `json:"merchant_key" yaml:"merchant_key"`
	Webhooks    map[string]string `json:"webhooks,omitempty" yaml:"webhooks"`
}

// ScenarioSale is a sale in a given state. Merchant is an app_id (empty:
// the default merchant).
type ScenarioSale struct {
	Merchant  string `json:"merchant,omitempty" yaml:"merchant"`
	InvoiceID string `json:"invoice_id" yaml:"invoice_id"`
	Amount    string `json:"amount" yaml:"amount"`
	Currency  string `json:"currency,omitempty" yaml:"currency"`
	// State is completed (the default), failed, pending, cancelled,
	// awaiting_3d or awaiting_completion.
	State string `json:"state,omitempty" yaml:"state"`
	// Card is the card number paid with (a published test card, by
	// default the approving Visa).
	Card         string `json:"card,omitempty" yaml:"card"`
	Installments int    `json:"installments,omitempty" yaml:"installments"`
	// PreAuth makes the sale a pre-authorization: open (held), captured or
	// cancelled; its state is then completed.
	PreAuth string           `json:"pre_auth,omitempty" yaml:"pre_auth"`
	Refunds []ScenarioRefund `json:"refunds,omitempty" yaml:"refunds"`
}

// ScenarioRefund is a refund of a scenario's sale.
type ScenarioRefund struct {
	Amount string `json:"amount" yaml:"amount"`
	// Status is completed (the default) or pending (awaiting approval).
	Status string `json:"status,omitempty" yaml:"status"`
	// ID is the refund_transaction_id (default: SBX-R and its number).
	ID string `json:"refund_transaction_id,omitempty" yaml:"refund_transaction_id"`
}

// ScenarioCard is a saved card of a customer.
type ScenarioCard struct {
	Merchant       string `json:"merchant,omitempty" yaml:"merchant"`
	CustomerNumber string `json:"customer_number" yaml:"customer_number"`
	CardNumber     string `json:"card_number" yaml:"card_number"`
	Holder         string `json:"card_holder_name,omitempty" yaml:"card_holder_name"`
	ExpiryMonth    string `json:"expiry_month,omitempty" yaml:"expiry_month"`
	ExpiryYear     string `json:"expiry_year,omitempty" yaml:"expiry_year"`
	// Token is the card token (default: one derived from the merchant,
	// customer and number, so that a reload finds the same card).
	Token string `json:"card_token,omitempty" yaml:"card_token"`
}

// ScenarioLink is an unpaid payment link.
type ScenarioLink struct {
	Merchant       string `json:"merchant,omitempty" yaml:"merchant"`
	InvoiceID      string `json:"invoice_id" yaml:"invoice_id"`
	Amount         string `json:"amount" yaml:"amount"`
	Currency       string `json:"currency,omitempty" yaml:"currency"`
	Description    string `json:"description,omitempty" yaml:"description"`
	MaxInstallment int    `json:"max_installment,omitempty" yaml:"max_installment"`
	// ID is the link's id, the last element of its URL (default: derived
	// from the merchant and invoice).
	ID string `json:"id,omitempty" yaml:"id"`
}

// ScenarioResult counts what a scenario applied.
type ScenarioResult struct {
	Merchants int `json:"merchants"`
	Sales     int `json:"sales"`
	Cards     int `json:"cards"`
	Links     int `json:"links"`
}

// ParseScenario reads a scenario, YAML or JSON (which YAML reads too).
// Unknown fields and values of the wrong type are refused, naming them and
// their line.
func ParseScenario(data []byte) (Scenario, error) {
	var sc Scenario
	if len(bytes.TrimSpace(data)) == 0 {
		return sc, &fieldError{status: http.StatusBadRequest, msg: "the scenario is empty: want merchants, sales, cards or links"}
	}
	err := config.DecodeYAMLStrict(data, &sc)
	if err == nil {
		return sc, nil
	}
	var ye *config.StrictYAMLError
	switch {
	case errors.As(err, &ye) && ye.Field != "":
		return sc, &fieldError{status: http.StatusBadRequest, field: ye.Field,
			msg: fmt.Sprintf("line %d: unknown field %q in %s", ye.Line, ye.Field, scenarioItemName(ye.Type))}
	case errors.As(err, &ye) && ye.Line > 0:
		return sc, &fieldError{status: http.StatusBadRequest, msg: wrongTypeMessage(ye.Msg)}
	}
	return sc, &fieldError{status: http.StatusBadRequest, msg: "the scenario is not valid YAML or JSON: " + err.Error()}
}

// yamlWrongType is the YAML decoder's "line N: cannot unmarshal !!TAG
// `VALUE` into GOTYPE", compiled on first use (nothing runs at start-up).
var yamlWrongType = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile("^line ([0-9]+): cannot unmarshal !!([a-z]+)(?: `.*`)? into (.+)$")
})

// wrongTypeMessage says, in the words of YAML and JSON, what a scenario's
// value of the wrong type is and what was wanted there: the decoder's
// message names Go types, which mean nothing to the file's author.
func wrongTypeMessage(msg string) string {
	m := yamlWrongType().FindStringSubmatch(msg)
	if m == nil {
		return "the scenario has a value of the wrong type at " + strings.SplitN(msg, ":", 2)[0]
	}
	line, tag, target := m[1], m[2], m[3]
	got := map[string]string{"seq": "a list", "map": "an object", "str": "a string", "int": "a number",
		"float": "a number", "bool": "true or false", "null": "null"}[tag]
	if got == "" {
		got = "a " + tag
	}
	if target == "sandbox.Scenario" {
		return fmt.Sprintf("the scenario is %s: want one object with merchants, sales, cards or links, each a list (e.g. {\"sales\": [...]})", got)
	}
	var want string
	switch {
	case strings.HasPrefix(target, "[]"):
		want = "a list"
	case strings.HasPrefix(target, "map["):
		want = "an object"
	case strings.HasPrefix(target, "sandbox."):
		want = scenarioItemName(strings.TrimPrefix(target, "sandbox.")) + " (an object)"
	case strings.HasPrefix(target, "int"), strings.HasPrefix(target, "uint"), strings.HasPrefix(target, "float"):
		want = "a number"
	case target == "bool":
		want = "true or false"
	default:
		want = "a string"
	}
	return fmt.Sprintf("line %s: want %s, not %s", line, want, got)
}

// scenarioItemName names an item of a scenario by its Go type's name.
func scenarioItemName(typeName string) string {
	switch typeName {
	case "ScenarioMerchant":
		return "a merchant"
	case "ScenarioSale":
		return "a sale"
	case "ScenarioRefund":
		return "a refund"
	case "ScenarioCard":
		return "a card"
	case "ScenarioLink":
		return "a link"
	}
	return "the scenario (merchants, sales, cards, links)"
}

// scenarioError names the item and field a scenario gets wrong.
func scenarioError(item, field, format string, args ...any) *fieldError {
	name := item + "." + field
	return &fieldError{status: http.StatusBadRequest, field: name, msg: name + ": " + fmt.Sprintf(format, args...)}
}

// scenarioPlan is a checked scenario: for each merchant's store (nil:
// a merchant the scenario creates) what to write there.
type scenarioPlan struct {
	create []Merchant
	writes map[string]*storeWrites // by app_id
}

type storeWrites struct {
	sales []Sale
	cards []SavedCard
}

// planner checks a scenario's items one by one against what it has
// seen so far: the merchants that exist or are created, and the
// invoices already taken.
type planner struct {
	m        *merchants
	now      time.Time
	p        *scenarioPlan
	known    map[string]bool   // app_id
	invoices map[string]string // merchant|invoice → item
}

// plan checks sc against the merchants that exist and builds what to
// write, at now. Nothing is written.
func (m *merchants) plan(sc Scenario, now time.Time) (*scenarioPlan, error) {
	pl := &planner{m: m, now: now, p: &scenarioPlan{writes: map[string]*storeWrites{}},
		known: map[string]bool{m.def.AppID: true}, invoices: map[string]string{}}
	for _, t := range m.all()[1:] {
		pl.known[t.AppID] = true
	}
	for i, mc := range sc.Merchants {
		if err := pl.addMerchant(fmt.Sprintf("merchants[%d]", i), mc); err != nil {
			return nil, err
		}
	}
	for i, s := range sc.Sales {
		if err := pl.addSale(fmt.Sprintf("sales[%d]", i), s); err != nil {
			return nil, err
		}
	}
	for i, l := range sc.Links {
		if err := pl.addLink(fmt.Sprintf("links[%d]", i), l); err != nil {
			return nil, err
		}
	}
	for i, c := range sc.Cards {
		if err := pl.addCard(fmt.Sprintf("cards[%d]", i), c); err != nil {
			return nil, err
		}
	}
	return pl.p, nil
}

// addMerchant plans a merchant's creation, unless it exists with the
// same credentials.
func (pl *planner) addMerchant(item string, mc ScenarioMerchant) error {
	if err := pl.m.checkScenarioMerchant(item, mc); err != nil {
		return err
	}
	if t, ok := pl.m.lookup(mc.AppID); ok {
		if t.AppSecret != mc.AppSecret || t.MerchantKey != mc.MerchantKey {
			return scenarioError(item, "app_id", "merchant %s exists with other credentials: reset is not enough, use another app_id", mc.AppID)
		}
		return nil
	}
	if pl.known[mc.AppID] {
		return scenarioError(item, "app_id", "merchant %s is listed twice", mc.AppID)
	}
	pl.known[mc.AppID] = true
	pl.p.create = append(pl.p.create, Merchant(mc))
	return nil
}

// checkScenarioMerchant checks a merchant's credentials and webhooks.
func (m *merchants) checkScenarioMerchant(item string, mc ScenarioMerchant) error {
	switch {
	case !isHex32(mc.AppID):
		return scenarioError(item, "app_id", "%q is not 32 hex digits", clipAdminText(mc.AppID))
	case mc.AppID == m.def.AppID:
		return scenarioError(item, "app_id", "is the default merchant's: it needs no entry")
	case !isHex32(mc.AppSecret):
		return scenarioError(item, "app_secret", "want 32 hex digits")
	case len(mc.MerchantKey) < 16 || strings.ContainsAny(mc.MerchantKey, "| \t\n"):
		return scenarioError(item, "merchant_key", "want at least 16 characters, without '|' or spaces")
	}
	for key, u := range mc.Webhooks {
		if err := CheckWebhookURL(u, m.public); err != nil {
			return scenarioError(item, "webhooks."+key, "%v", err)
		}
	}
	return nil
}

// merchantOf is the app_id an item belongs to: the default merchant's
// when it names none.
func (pl *planner) merchantOf(item, appID string) (string, error) {
	if appID == "" || appID == DefaultMerchant {
		return pl.m.def.AppID, nil
	}
	if !pl.known[appID] {
		return "", scenarioError(item, "merchant", "no merchant with app_id %q: create it under merchants, or leave merchant out for the default", clipAdminText(appID))
	}
	return appID, nil
}

// writes is what the plan writes to a merchant's store.
func (pl *planner) writes(appID string) *storeWrites {
	w := pl.p.writes[appID]
	if w == nil {
		w = &storeWrites{}
		pl.p.writes[appID] = w
	}
	return w
}

// useInvoice takes an invoice id for item: a sale and a link of one
// merchant never share one.
func (pl *planner) useInvoice(item, merchant, invoice string) error {
	if invoice == "" {
		return scenarioError(item, "invoice_id", "missing")
	}
	if n := utf8.RuneCountInString(invoice); n > maxInvoiceIDLen || strings.ContainsAny(invoice, "|\x00") {
		return scenarioError(item, "invoice_id", "at most %d characters, without '|'", maxInvoiceIDLen)
	}
	if prev, dup := pl.invoices[merchant+"|"+invoice]; dup {
		return scenarioError(item, "invoice_id", "%q is also %s's", invoice, prev)
	}
	pl.invoices[merchant+"|"+invoice] = item
	return nil
}

// ownerOf is the merchant of an item with an invoice, its invoice taken.
func (pl *planner) ownerOf(item, merchant, invoice string) (string, error) {
	appID, err := pl.merchantOf(item, merchant)
	if err != nil {
		return "", err
	}
	return appID, pl.useInvoice(item, appID, invoice)
}

// addSale plans a sale.
func (pl *planner) addSale(item string, s ScenarioSale) error {
	appID, err := pl.ownerOf(item, s.Merchant, s.InvoiceID)
	if err != nil {
		return err
	}
	sale, err := scenarioSale(item, appID, s, pl.now)
	if err != nil {
		return err
	}
	pl.writes(appID).sales = append(pl.writes(appID).sales, sale)
	return nil
}

// addLink plans an unpaid payment link.
func (pl *planner) addLink(item string, l ScenarioLink) error {
	appID, err := pl.ownerOf(item, l.Merchant, l.InvoiceID)
	if err != nil {
		return err
	}
	currency, amount, err := scenarioAmount(item, l.Currency, l.Amount)
	if err != nil {
		return err
	}
	if l.MaxInstallment < 0 || l.MaxInstallment > 12 {
		return scenarioError(item, "max_installment", "want 1 to 12")
	}
	id := l.ID
	if id == "" {
		id = derivedID(appID, "link", l.InvoiceID)
	}
	now := pl.now
	sale := Sale{InvoiceID: l.InvoiceID, OrderID: derivedOrderID(appID, l.InvoiceID), Kind: KindLink, TransactionType: TypeAuth,
		State: StateAwaitingPayment, Amount: amount, Currency: currency, Installment: 1,
		Link: &Link{ID: id, Description: l.Description, MaxInstallment: max(l.MaxInstallment, 1)}, CreatedAt: now, UpdatedAt: now}
	pl.writes(appID).sales = append(pl.writes(appID).sales, sale)
	return nil
}

// addCard plans a customer's saved card.
func (pl *planner) addCard(item string, c ScenarioCard) error {
	appID, err := pl.merchantOf(item, c.Merchant)
	if err != nil {
		return err
	}
	number := strings.ReplaceAll(c.CardNumber, " ", "")
	switch {
	case strings.TrimSpace(c.CustomerNumber) == "":
		return scenarioError(item, "customer_number", "missing")
	case number == "":
		return scenarioError(item, "card_number", "missing")
	case ValidateCardNumber(number) != nil:
		return scenarioError(item, "card_number", "not a valid card number (a published test card, docs/sandbox.md)")
	}
	now := pl.now
	month, year := cmpOr(c.ExpiryMonth, "12"), cmpOr(c.ExpiryYear, "2099")
	if _, _, msg := readExpiry(month, year, now); msg != "" {
		return scenarioError(item, "expiry_month", "%s", msg)
	}
	token := c.Token
	if token == "" {
		token = derivedID(appID, "card", c.CustomerNumber+"|"+number)
	}
	tc := testCard(number)
	pl.writes(appID).cards = append(pl.writes(appID).cards, SavedCard{Token: token, CustomerNumber: c.CustomerNumber,
		BIN: number[:6], Last4: number[len(number)-4:], Holder: cmpOr(c.Holder, "Test Customer"), ExpiryMonth: month,
		ExpiryYear: year, Outcome: tc.Outcome, ReasonCode: tc.ReasonCode, Reason: tc.Reason, CreatedAt: now, UpdatedAt: now})
	return nil
}

func cmpOr(s, def string) string {
	if strings.TrimSpace(s) == "" {
		return def
	}
	return strings.TrimSpace(s)
}

// scenarioAmount checks an item's currency (TRY by default) and amount.
func scenarioAmount(item, currency, amount string) (string, string, error) {
	currency = strings.ToUpper(cmpOr(currency, "TRY"))
	if !isUpperAlpha(currency, 3) {
		return "", "", scenarioError(item, "currency", "%q is not a 3-letter currency code", clipAdminText(currency))
	}
	if amount == "" {
		return "", "", scenarioError(item, "amount", "missing")
	}
	d, err := decimal.NewFromString(amount)
	minor := minorUnit(currency)
	if err != nil || !d.IsPositive() || d.GreaterThanOrEqual(maxAmount()) || !d.Equal(d.Round(minor)) {
		return "", "", scenarioError(item, "amount", "%q is not a positive amount in %s, e.g. 150.00", clipAdminText(amount), currency)
	}
	return currency, d.StringFixed(minor), nil
}

var scenarioStates = []string{StateCompleted, StateFailed, StatePending, StateCancelled, StateAwaiting3D, StateAwaitingCompletion}

// scenarioSale builds the stored sale of a scenario's sale.
func scenarioSale(item, appID string, s ScenarioSale, now time.Time) (Sale, error) {
	currency, amount, err := scenarioAmount(item, s.Currency, s.Amount)
	if err != nil {
		return Sale{}, err
	}
	state := cmpOr(s.State, StateCompleted)
	if !slices.Contains(scenarioStates, state) {
		return Sale{}, scenarioError(item, "state", "%q: want one of %s", clipAdminText(state), strings.Join(scenarioStates, ", "))
	}
	number := strings.ReplaceAll(cmpOr(s.Card, TestCards[0].Number), " ", "")
	if ValidateCardNumber(number) != nil {
		return Sale{}, scenarioError(item, "card", "not a valid card number (a published test card, docs/sandbox.md)")
	}
	installments := max(s.Installments, 1)
	if installments > 12 {
		return Sale{}, scenarioError(item, "installments", "want 1 to 12")
	}
	sale := Sale{InvoiceID: s.InvoiceID, OrderID: derivedOrderID(appID, s.InvoiceID), Kind: KindCard2D, TransactionType: TypeAuth,
		State: state, Amount: amount, Currency: currency, Installment: installments, CardBIN: number[:6],
		CardLast4: number[len(number)-4:], CardHolder: "Test Customer", CardProgram: "",
		MerchantCommission: "0.00", UserCommission: "0.00", MerchantCommissionPercentage: "0", MerchantCommissionFixed: "0",
		CreatedAt: now, UpdatedAt: now}
	setScenarioState(&sale)
	if s.PreAuth != "" {
		if sale.PreAuth, err = scenarioPreAuth(item, s.PreAuth, state, amount, now); err != nil {
			return Sale{}, err
		}
		sale.TransactionType = TypePreAuth
	}
	if sale.Refunds, err = scenarioRefunds(item, sale, s.Refunds, now); err != nil {
		return Sale{}, err
	}
	return sale, nil
}

// setScenarioState gives a sale what its state implies: a failed sale's
// reason, an awaiting sale's 3D step and who completes it.
func setScenarioState(sale *Sale) {
	switch sale.State {
	case StateFailed:
		sale.PaymentReasonCode, sale.PaymentReasonCodeDetail = "SBX-SCENARIO", "declined by the scenario"
	case StateAwaiting3D, StateAwaitingCompletion:
		sale.Kind = KindCard3D
		by := "app"
		if sale.State == StateAwaitingCompletion {
			by = "merchant"
		}
		sale.ThreeD = &ThreeD{CompletedBy: by}
	}
}

// scenarioPreAuth is the pre-authorization of a completed sale of
// amount: open (held), captured or cancelled.
func scenarioPreAuth(item, preAuth, state, amount string, now time.Time) (*PreAuth, error) {
	switch preAuth {
	case PreAuthOpen, PreAuthCaptured, PreAuthCancelled:
	default:
		return nil, scenarioError(item, "pre_auth", "%q: want open, captured or cancelled", clipAdminText(preAuth))
	}
	if state != StateCompleted {
		return nil, scenarioError(item, "pre_auth", "a pre-authorization's state is completed (the amount was held), not %s", state)
	}
	pa := &PreAuth{State: preAuth, Held: amount}
	if preAuth == PreAuthCaptured {
		pa.Captured = amount
	}
	if preAuth != PreAuthOpen {
		pa.ResolvedAt = now
	}
	return pa, nil
}

// scenarioRefunds are the refunds of a sale: only a completed sale (a
// captured pre-authorization) has them, and they add up to no more than
// its amount.
func scenarioRefunds(item string, sale Sale, refunds []ScenarioRefund, now time.Time) ([]Refund, error) {
	var out []Refund
	total := decimal.Zero
	for j, r := range refunds {
		ritem := fmt.Sprintf("%s.refunds[%d]", item, j)
		if sale.State != StateCompleted || (sale.PreAuth != nil && sale.PreAuth.State != PreAuthCaptured) {
			return nil, scenarioError(item, "refunds", "only a completed sale (a captured pre-authorization) has refunds")
		}
		_, ramount, err := scenarioAmount(ritem, sale.Currency, r.Amount)
		if err != nil {
			return nil, err
		}
		total = total.Add(decimal.RequireFromString(ramount))
		if total.GreaterThan(decimal.RequireFromString(sale.Amount)) {
			return nil, scenarioError(ritem, "amount", "the refunds add up to more than the sale's %s", sale.Amount)
		}
		status := RefundCompleted
		switch r.Status {
		case "", "completed":
		case "pending":
			status = RefundPendingApproval
		default:
			return nil, scenarioError(ritem, "status", "%q: want completed or pending", clipAdminText(r.Status))
		}
		id := cmpOr(r.ID, fmt.Sprintf("SBX-R%d", j+1))
		rf := Refund{TransactionID: id, Amount: ramount, Status: status, RefNo: fmt.Sprintf("SBXREF%s%d", sale.OrderID[2:], j+1), CreatedAt: now}
		if status == RefundCompleted {
			rf.ApprovedAt = now
		}
		out = append(out, rf)
	}
	return out, nil
}

// derivedID is a stable 32-hex-digit id for a scenario's item.
func derivedID(appID, kind, key string) string {
	sum := sha256.Sum256([]byte(appID + "|" + kind + "|" + key))
	return hex.EncodeToString(sum[:16])
}

// derivedOrderID is a stable order id ("VP" and 17 digits) for a
// scenario's sale.
func derivedOrderID(appID, invoiceID string) string {
	sum := sha256.Sum256([]byte(appID + "|order|" + invoiceID))
	return fmt.Sprintf("VP%017d", binary.BigEndian.Uint64(sum[:8])%100_000_000_000_000_000)
}

// applyScenario checks sc, then creates its merchants and writes each
// merchant's items in one transaction of its store.
func (m *merchants) applyScenario(sc Scenario, now time.Time) (ScenarioResult, error) {
	p, err := m.plan(sc, now)
	if err != nil {
		return ScenarioResult{}, err
	}
	res := ScenarioResult{Merchants: len(p.create)}
	for _, mc := range p.create {
		if _, err := m.create(mc); err != nil {
			return ScenarioResult{}, err
		}
	}
	for appID, w := range p.writes {
		t, ok := m.lookup(appID)
		if !ok {
			return res, fmt.Errorf("merchant %s vanished", appID)
		}
		if err := t.store.applyScenario(w); err != nil {
			return res, err
		}
		for _, s := range w.sales {
			if s.Link != nil {
				res.Links++
			} else {
				res.Sales++
			}
		}
		res.Cards += len(w.cards)
	}
	return res, nil
}

// applyScenario writes a scenario's sales and cards in one transaction.
// A sale or card already stored as the scenario has it (times aside) is
// left as it is, so that applying a scenario again changes nothing.
func (s *Store) applyScenario(w *storeWrites) error {
	return s.writes.do(func(tx *bolt.Tx) error {
		sales := tx.Bucket([]byte(salesBucket))
		for _, sale := range w.sales {
			var old *Sale
			if v := sales.Get([]byte(sale.InvoiceID)); v != nil {
				prev, err := decodeSale(v)
				if err != nil {
					return err
				}
				if sameExceptTimes(prev, sale) {
					continue
				}
				old = &prev
				if prev.OrderID != sale.OrderID {
					if err := tx.Bucket([]byte(ordersBucket)).Delete([]byte(prev.OrderID)); err != nil {
						return err
					}
				}
			}
			if err := indexSale(tx, sale); err != nil {
				return err
			}
			for _, r := range sale.Refunds {
				if err := tx.Bucket([]byte(refundIDsBucket)).Put([]byte(r.TransactionID), []byte(sale.InvoiceID)); err != nil {
					return err
				}
			}
			if err := s.put(tx, old, sale); err != nil {
				return err
			}
		}
		cards := tx.Bucket([]byte(cardsBucket))
		for _, card := range w.cards {
			if v := cards.Get([]byte(card.Token)); v != nil {
				var prev SavedCard
				if err := json.Unmarshal(v, &prev); err != nil {
					return err
				}
				card.ID, card.CreatedAt = prev.ID, prev.CreatedAt
				if prev.UpdatedAt = card.UpdatedAt; prev == card {
					continue
				}
			} else {
				id, err := cards.NextSequence()
				if err != nil {
					return err
				}
				card.ID = int64(id)
			}
			if err := putCard(cards, card); err != nil {
				return err
			}
		}
		return nil
	})
}

// sameExceptTimes reports whether two sales differ in their times alone.
func sameExceptTimes(a, b Sale) bool {
	strip := func(s Sale) []byte {
		s.CreatedAt, s.UpdatedAt = time.Time{}, time.Time{}
		if s.PreAuth != nil {
			p := *s.PreAuth
			p.ResolvedAt = time.Time{}
			s.PreAuth = &p
		}
		rs := slices.Clone(s.Refunds)
		for i := range rs {
			rs[i].CreatedAt, rs[i].ApprovedAt = time.Time{}, time.Time{}
		}
		s.Refunds = rs
		data, _ := json.Marshal(s)
		return data
	}
	return bytes.Equal(strip(a), strip(b))
}

// loadScenario serves POST LoadPath.
func (m *merchants) loadScenario(w http.ResponseWriter, r *http.Request) {
	data, err := readBodyLimited(w, r, maxScenarioBytes)
	if err != nil {
		writeAdminFieldError(w, err)
		return
	}
	sc, err := ParseScenario(data)
	if err != nil {
		var fe *fieldError
		if !errors.As(err, &fe) {
			err = &fieldError{status: http.StatusBadRequest, msg: err.Error()}
		}
		writeAdminFieldError(w, err)
		return
	}
	res, err := m.applyScenario(sc, m.template.Now())
	if err != nil {
		writeAdminFieldError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, res)
}

// readBodyLimited reads an admin request's body, refusing one over limit.
func readBodyLimited(w http.ResponseWriter, r *http.Request, limit int64) ([]byte, error) {
	var buf bytes.Buffer
	_, err := buf.ReadFrom(http.MaxBytesReader(w, r.Body, limit))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return nil, &fieldError{status: http.StatusRequestEntityTooLarge, msg: fmt.Sprintf("the body is larger than %d bytes", limit)}
		}
		return nil, &fieldError{status: http.StatusBadRequest, msg: "the body could not be read"}
	}
	return buf.Bytes(), nil
}
