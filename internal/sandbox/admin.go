package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"strings"

	bolt "go.etcd.io/bbolt"

	"github.com/paycli/paycli/internal/webhook"
)

// The sandbox's admin surface, all under the base URL (docs/sandbox.md,
// "Admin"): like the webhook admin, it is not part of the gateway's API and
// needs no token (serve listens on loopback unless --public). Health is
// also answered at the root (HealthPath), where paycli has always probed.
const (
	// ReadyPath answers GET with {"status":"ready","merchants":N} once
	// every merchant's store answers, 503 otherwise.
	ReadyPath = "/__sandbox/ready"
	// ResetPath takes POST {} (every merchant) or {"merchant": APP_ID}.
	ResetPath = "/__sandbox/reset"
	// MerchantsPath takes POST {} (optionally {"webhooks": {KEY: URL}}) and
	// creates an isolated merchant; GET lists the merchants.
	MerchantsPath = "/__sandbox/merchants"
	// EventsPath takes POST {"type": "sale"|"refund"|"chargeback",
	// "invoice_id": ..., "url": ...} and sends that notification.
	EventsPath = "/__sandbox/events"
)

// adminFieldError is an admin request's refusal naming the field at fault.
type adminFieldError struct {
	Error string `json:"error"`
	Field string `json:"field,omitempty"`
}

// fieldError is a refusal of an admin request: its HTTP status and the
// field at fault.
type fieldError struct {
	status int
	field  string
	msg    string
}

func (e *fieldError) Error() string { return e.msg }

func badField(status int, field, format string, args ...any) *fieldError {
	return &fieldError{status: status, field: field, msg: field + ": " + fmt.Sprintf(format, args...)}
}

// writeAdminFieldError answers an admin request refused, naming the field
// when it is one, and says why in the request log.
func writeAdminFieldError(w http.ResponseWriter, err error) {
	var fe *fieldError
	if errors.As(err, &fe) {
		explain(w, explanation{why: fe.msg})
		writeJSON(w, fe.status, adminFieldError{Error: fe.msg, Field: fe.field})
		return
	}
	explain(w, explanation{why: err.Error()})
	writeJSON(w, http.StatusInternalServerError, adminFieldError{Error: err.Error()})
}

func (m *merchants) routeAdmin() {
	health := func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]any{"status": "ok"})
	}
	m.admin.HandleFunc("GET "+Base+HealthPath, health)
	m.admin.HandleFunc("GET "+Base+ReadyPath, m.ready)
	m.admin.HandleFunc("GET "+ReadyPath, m.ready)
	m.admin.HandleFunc("POST "+Base+ResetPath, m.reset)
	m.admin.HandleFunc("POST "+Base+MerchantsPath, m.createMerchant)
	m.admin.HandleFunc("GET "+Base+MerchantsPath, m.listMerchants)
	m.admin.HandleFunc("POST "+Base+EventsPath, m.trigger)
	m.admin.HandleFunc("POST "+Base+LoadPath, m.loadScenario)
	m.admin.HandleFunc("POST "+Base+PlantRatePath, m.plantRate)
}

// readAdminJSON decodes an admin request's JSON object body into v,
// strictly (an unknown field is refused by name); an empty body leaves v
// as it is.
func readAdminJSON(w http.ResponseWriter, r *http.Request, limit int64, v any) error {
	data, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return &fieldError{status: http.StatusRequestEntityTooLarge, msg: fmt.Sprintf("the body is larger than %d bytes", limit)}
		}
		return &fieldError{status: http.StatusBadRequest, msg: "the body could not be read"}
	}
	if strings.TrimSpace(string(data)) == "" {
		return nil
	}
	return decodeStrict(data, v)
}

// decodeStrict decodes one JSON object into v, naming an unknown field or
// a value of the wrong type.
func decodeStrict(data []byte, v any) error {
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.DisallowUnknownFields()
	err := dec.Decode(v)
	if err == nil && dec.More() {
		err = errors.New("more than one JSON value")
	}
	if err == nil {
		return nil
	}
	var typeErr *json.UnmarshalTypeError
	var syntaxErr *json.SyntaxError
	switch {
	case errors.As(err, &typeErr) && typeErr.Type == reflect.TypeFor[EventAmount]():
		return badField(http.StatusBadRequest, typeErr.Field, "want an amount, a JSON number or string such as 10.50, not %s", typeErr.Value)
	case errors.As(err, &typeErr):
		return badField(http.StatusBadRequest, typeErr.Field, "want a JSON %s, not %s", typeErr.Type.Kind(), typeErr.Value)
	case errors.As(err, &syntaxErr):
		return &fieldError{status: http.StatusBadRequest, msg: fmt.Sprintf("the body is not valid JSON at byte %d: %v", syntaxErr.Offset, err)}
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		name := strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`)
		return badField(http.StatusBadRequest, name, "unknown field")
	}
	return &fieldError{status: http.StatusBadRequest, msg: "the body is not one JSON object: " + err.Error()}
}

func (m *merchants) ready(w http.ResponseWriter, r *http.Request) {
	all := m.all()
	for _, t := range all {
		if err := t.store.db.View(func(*bolt.Tx) error { return nil }); err != nil {
			writeJSON(w, http.StatusServiceUnavailable, map[string]any{"status": "not ready", "error": err.Error()})
			return
		}
	}
	writeJSON(w, http.StatusOK, map[string]any{"status": "ready", "merchants": len(all)})
}

// ResetRequest is the body of ResetPath.
type ResetRequest struct {
	// Merchant is the app_id of the merchant to reset; empty resets all.
	Merchant string `json:"merchant,omitempty"`
}

// ResetAnswer is the answer of ResetPath.
type ResetAnswer struct {
	// Merchants are the app_ids of the merchants reset.
	Merchants []string `json:"merchants"`
	// Sales is how many sales were deleted.
	Sales int `json:"sales"`
}

func (m *merchants) reset(w http.ResponseWriter, r *http.Request) {
	var req ResetRequest
	if err := readAdminJSON(w, r, maxAdminBody, &req); err != nil {
		writeAdminFieldError(w, err)
		return
	}
	targets := m.all()
	if req.Merchant != "" {
		t, ok := m.lookup(req.Merchant)
		if !ok {
			writeAdminFieldError(w, &fieldError{status: http.StatusNotFound, field: "merchant", msg: unknownMerchant(req.Merchant).Error()})
			return
		}
		targets = []*tenant{t}
	}
	ans := ResetAnswer{Merchants: []string{}}
	for _, t := range targets {
		sales, err := t.store.Sales()
		if err == nil {
			err = t.store.Reset()
		}
		if err != nil {
			writeAdminFieldError(w, err)
			return
		}
		ans.Merchants = append(ans.Merchants, t.AppID)
		ans.Sales += len(sales)
	}
	writeJSON(w, http.StatusOK, ans)
}

// CreateMerchantRequest is the body of POST MerchantsPath.
type CreateMerchantRequest struct {
	// Webhooks registers web hook keys for this merchant alone (KEY: URL),
	// on top of the server's --webhook keys.
	Webhooks map[string]string `json:"webhooks,omitempty"`
}

// MerchantAnswer is a merchant as the admin surface shows it: what a
// client needs to use it.
type MerchantAnswer struct {
	BaseURL string `json:"base_url"`
	Merchant
}

func (m *merchants) createMerchant(w http.ResponseWriter, r *http.Request) {
	var req CreateMerchantRequest
	if err := readAdminJSON(w, r, maxAdminBody, &req); err != nil {
		writeAdminFieldError(w, err)
		return
	}
	for key, u := range req.Webhooks {
		if strings.TrimSpace(key) == "" {
			writeAdminFieldError(w, badField(http.StatusBadRequest, "webhooks", "a web hook key is empty"))
			return
		}
		if err := CheckWebhookURL(u, m.public); err != nil {
			writeAdminFieldError(w, badField(http.StatusBadRequest, "webhooks."+key, "%v", err))
			return
		}
	}
	t, err := m.create(Merchant{Webhooks: req.Webhooks})
	if err != nil {
		writeAdminFieldError(w, err)
		return
	}
	writeJSON(w, http.StatusCreated, MerchantAnswer{BaseURL: baseURLOf(r), Merchant: t.Merchant})
}

func (m *merchants) listMerchants(w http.ResponseWriter, r *http.Request) {
	out := []MerchantAnswer{}
	for _, t := range m.all() {
		out = append(out, MerchantAnswer{BaseURL: baseURLOf(r), Merchant: t.Merchant})
	}
	writeJSON(w, http.StatusOK, map[string]any{"merchants": out})
}

// baseURLOf is the base URL a client reached this server by.
func baseURLOf(r *http.Request) string { return "http://" + r.Host + Base }

// Event types of EventsPath.
const (
	EventSale       = "sale"
	EventRefund     = "refund"
	EventChargeback = "chargeback"
)

// EventRequest is the body of EventsPath: a webhook about a stored sale,
// sent to URL (signed with the merchant's app_secret, queued and retried
// as every delivery is), without changing the sale.
type EventRequest struct {
	Type      string `json:"type"`
	InvoiceID string `json:"invoice_id"`
	URL       string `json:"url"`
	// Merchant is the app_id of the sale's merchant (default: the default).
	Merchant string `json:"merchant,omitempty"`
	// Encoding is form (the default) or json.
	Encoding string `json:"encoding,omitempty"`
	// Amount is a refund's or chargeback's amount (default: the last
	// refund's, else the sale's whole amount).
	Amount EventAmount `json:"amount,omitempty"`
}

// EventAmount is an event's amount: a JSON string ("10.50") or, as the
// gateway's API takes amounts, a JSON number (10.50), kept as written.
type EventAmount string

// UnmarshalJSON reads a string or a number.
func (a *EventAmount) UnmarshalJSON(data []byte) error {
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		return err
	}
	switch v := v.(type) {
	case string:
		*a = EventAmount(v)
	case float64:
		*a = EventAmount(strings.TrimSpace(string(data)))
	default:
		return &json.UnmarshalTypeError{Value: jsonKind(v), Type: reflect.TypeFor[EventAmount]()}
	}
	return nil
}

// jsonKind names a decoded JSON value's kind as JSON does.
func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return "value"
}

func (m *merchants) trigger(w http.ResponseWriter, r *http.Request) {
	var req EventRequest
	if err := readAdminJSON(w, r, maxAdminBody, &req); err != nil {
		writeAdminFieldError(w, err)
		return
	}
	t, d, err := m.event(req)
	if err != nil {
		writeAdminFieldError(w, err)
		return
	}
	if req.Type == EventChargeback {
		// The ledger lists the sale as Chargebacked from now on.
		d, err = t.store.recordChargeback(d, string(req.Amount), t.gateway.opts.Now())
	} else {
		d, err = t.store.queueDelivery(d)
	}
	if err != nil {
		writeAdminFieldError(w, err)
		return
	}
	t.gateway.deliveries.kick()
	writeJSON(w, http.StatusOK, ResendAnswer{Delivery: d})
}

// event checks an event request and builds its delivery.
func (m *merchants) event(req EventRequest) (*tenant, Delivery, error) {
	t := m.def
	if req.Merchant != "" {
		var ok bool
		if t, ok = m.lookup(req.Merchant); !ok {
			return nil, Delivery{}, &fieldError{status: http.StatusNotFound, field: "merchant", msg: unknownMerchant(req.Merchant).Error()}
		}
	}
	switch req.Type {
	case EventSale, EventRefund, EventChargeback:
	case "":
		return nil, Delivery{}, badField(http.StatusBadRequest, "type", "missing: want sale, refund or chargeback")
	default:
		return nil, Delivery{}, badField(http.StatusBadRequest, "type", "%q is not an event: want sale, refund or chargeback", clipAdminText(req.Type))
	}
	if strings.TrimSpace(req.URL) == "" {
		return nil, Delivery{}, badField(http.StatusBadRequest, "url", "missing: the URL to send the event to")
	}
	if err := CheckWebhookURL(req.URL, m.public); err != nil {
		return nil, Delivery{}, badField(http.StatusBadRequest, "url", "%v", err)
	}
	enc := webhook.Form
	switch req.Encoding {
	case "", "form":
	case "json":
		enc = webhook.JSON
	default:
		return nil, Delivery{}, badField(http.StatusBadRequest, "encoding", "%q: want form or json", clipAdminText(req.Encoding))
	}
	if strings.TrimSpace(req.InvoiceID) == "" {
		return nil, Delivery{}, badField(http.StatusBadRequest, "invoice_id", "missing: the invoice of the sale the event is about")
	}
	sale, found, err := t.store.Get(req.InvoiceID)
	if err != nil {
		return nil, Delivery{}, err
	}
	if !found {
		return nil, Delivery{}, badField(http.StatusNotFound, "invoice_id", "no sale with invoice_id %q at merchant %s", clipAdminText(req.InvoiceID), t.AppID)
	}
	if req.Amount != "" && req.Type == EventSale {
		return nil, Delivery{}, badField(http.StatusBadRequest, "amount", "a sale event reports the sale's own total: leave amount out")
	}
	d := Delivery{InvoiceID: sale.InvoiceID, OrderID: sale.OrderID, URL: req.URL, Encoding: enc,
		State: DeliveryPending, CreatedAt: sale.UpdatedAt, Attempts: []Attempt{}}
	switch req.Type {
	case EventSale:
		outcome := saleOutcome(&sale)
		if outcome == "" {
			return nil, Delivery{}, badField(http.StatusConflict, "invoice_id", "the sale of %q is %s, not decided: a sale event reports a completed, failed or cancelled sale", clipAdminText(req.InvoiceID), sale.State)
		}
		status := "0"
		if outcome == StateCompleted {
			status = "1"
		}
		d.Kind = webhook.Sale
		d.Fields = map[string]string{"status": status, "total": sale.Amount, "invoice_id": sale.InvoiceID, "order_id": sale.OrderID,
			"order_no": sale.OrderID, "currency_code": sale.Currency, "payment_status": status,
			"transaction_type": sale.TransactionType, "credit_card_no": maskCard(sale.CardBIN, sale.CardLast4)}
	default:
		amount, refID := sale.Amount, "SBX-EVENT"
		if n := len(sale.Refunds); n > 0 && req.Type == EventRefund {
			amount, refID = sale.Refunds[n-1].Amount, sale.Refunds[n-1].TransactionID
		}
		if req.Amount != "" {
			if _, err := parseEventAmount(string(req.Amount)); err != nil {
				return nil, Delivery{}, badField(http.StatusBadRequest, "amount", "%v", err)
			}
			amount = string(req.Amount)
		}
		// A chargeback is sent as the gateway sends one, refund-shaped,
		// but listed as what it is.
		d.Kind = webhook.Refund
		if req.Type == EventChargeback {
			d.Kind = ChargebackKind
		}
		d.Fields = map[string]string{"status": RefundCompleted, "amount": amount, "invoice_id": sale.InvoiceID,
			"order_id": sale.OrderID, "refund_transaction_id": refID, "currency_code": sale.Currency, "type": req.Type}
	}
	return t, d, nil
}

// parseEventAmount checks an event's amount: a positive decimal.
func parseEventAmount(s string) (string, error) {
	ok := s != "" && strings.Count(s, ".") <= 1 && strings.Trim(s, "0123456789.") == "" && strings.Trim(s, "0.") != ""
	if !ok {
		return "", fmt.Errorf("%q is not a positive amount, e.g. 10.50", clipAdminText(s))
	}
	return s, nil
}

// queueDelivery adds d to the outbox as a new delivery, due at once.
func (s *Store) queueDelivery(d Delivery) (Delivery, error) {
	err := s.writes.do(func(tx *bolt.Tx) error { return addDelivery(tx, &d) })
	return d, err
}

// addDelivery adds d to the outbox in tx, numbering it.
func addDelivery(tx *bolt.Tx, d *Delivery) error {
	b := tx.Bucket([]byte(outboxBucket))
	id, err := b.NextSequence()
	if err != nil {
		return err
	}
	d.ID = id
	return putDelivery(b, *d)
}
