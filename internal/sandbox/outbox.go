package sandbox

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"net"
	"net/url"
	"strings"
	"time"

	"github.com/paycli/paycli/internal/webhook"
	bolt "go.etcd.io/bbolt"
)

// outboxBucket holds the webhook deliveries, one JSON Delivery per id (an
// 8-byte big-endian sequence, so the bucket reads oldest first). A
// delivery is written in the transaction that commits the sale or refund
// it reports, so a committed result always has its delivery queued.
const outboxBucket = "webhook_outbox"

// ChargebackKind is the kind of a chargeback event's delivery: its body
// and hash_key are a refund webhook's (with type chargeback), signed as one.
const ChargebackKind webhook.Kind = "chargeback"

// signingKind is the webhook kind whose layout signs a delivery of kind k.
func signingKind(k webhook.Kind) webhook.Kind {
	if k == ChargebackKind {
		return webhook.Refund
	}
	return k
}

// Delivery states.
const (
	DeliveryPending   = "pending"   // waiting for its next attempt
	DeliveryDelivered = "delivered" // the receiver answered 2xx
	DeliveryFailed    = "failed"    // every attempt of its round failed; resend starts a new round
)

// WebhookEndpoint is where the merchant receives the webhooks of one web
// hook key, as registered in the gateway's merchant panel (`paycli sandbox
// serve --webhook KEY=URL`).
type WebhookEndpoint struct {
	URL string
	// Encoding of the bodies sent (webhook.Form when empty).
	Encoding webhook.Encoding
}

// CheckWebhookURL checks a webhook URL: absolute http or https with a
// host; a host other than localhost or a loopback address only when
// public is set.
func CheckWebhookURL(raw string, public bool) error {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("%q is not an absolute http or https URL", raw)
	}
	if u.User != nil {
		return fmt.Errorf("%q holds credentials: pass them some other way", u.Redacted())
	}
	host := u.Hostname()
	ip := net.ParseIP(host)
	if !public && !strings.EqualFold(host, "localhost") && (ip == nil || !ip.IsLoopback()) {
		return fmt.Errorf("%s is not a loopback address", host)
	}
	return nil
}

// Delivery is one webhook the sandbox owes the merchant: what it reports,
// where it goes and every attempt so far. Its JSON is the output of
// `paycli sandbox webhooks -o json`: fields may be added, never renamed.
// It never holds the hash_key, which is made afresh for each attempt.
type Delivery struct {
	ID uint64 `json:"id"`
	// Kind is webhook.Sale, webhook.Refund or ChargebackKind.
	Kind       webhook.Kind     `json:"kind"`
	WebHookKey string           `json:"web_hook_key"`
	URL        string           `json:"url"`
	Encoding   webhook.Encoding `json:"encoding"`
	InvoiceID  string           `json:"invoice_id"`
	OrderID    string           `json:"order_id"`
	// Currency is the sale's currency, for the amount of a refund, whose
	// body (as the gateway's) has none. Empty for deliveries queued
	// before it was kept.
	Currency string `json:"currency,omitempty"`
	// Fields are the body's fields but the hash_key.
	Fields    map[string]string `json:"fields"`
	State     string            `json:"state"`
	CreatedAt time.Time         `json:"created_at"`
	// NextAttemptAt is when a pending delivery is next tried.
	NextAttemptAt time.Time `json:"next_attempt_at,omitzero"`
	DeliveredAt   time.Time `json:"delivered_at,omitzero"`
	Attempts      []Attempt `json:"attempts"`
	// RoundStart is the index in Attempts of the first attempt since the
	// delivery was queued or last resent: the retry schedule and the
	// attempt limit count from it.
	RoundStart int `json:"round_start"`
}

// Attempt is one try at delivering a webhook.
type Attempt struct {
	Time time.Time `json:"time"`
	// Status is the receiver's HTTP status; 0 when it did not answer.
	Status     int    `json:"status"`
	Error      string `json:"error,omitempty"`
	DurationMS int64  `json:"duration_ms"`
}

// ErrNoDelivery is returned for a delivery id the outbox does not hold.
var ErrNoDelivery = errors.New("no webhook delivery with this id")

func deliveryKey(id uint64) []byte { return binary.BigEndian.AppendUint64(nil, id) }

func putDelivery(b *bolt.Bucket, d Delivery) error {
	data, err := json.Marshal(d)
	if err != nil {
		return err
	}
	return b.Put(deliveryKey(d.ID), data)
}

// outbox decides, inside the transaction that writes a sale, which
// webhooks its change owes: endpoints maps the registered web hook keys.
type outbox struct {
	endpoints map[string]WebhookEndpoint
	// kick is called after a transaction that queued a delivery commits.
	kick func()
}

// SetWebhooks makes the store queue webhook deliveries for the sales and
// refunds that name one of endpoints' keys, in the transactions that
// commit them; kick (if set) is called after such a commit. It must be
// called before the store is shared.
func (s *Store) SetWebhooks(endpoints map[string]WebhookEndpoint, kick func()) {
	if len(endpoints) == 0 {
		s.outbox = nil
		return
	}
	s.outbox = &outbox{endpoints: endpoints, kick: kick}
}

// put writes sale (whose stored version was old, nil for a new sale) and
// queues the webhooks the change owes, in the same transaction.
func (s *Store) put(tx *bolt.Tx, old *Sale, sale Sale) error {
	data, err := json.Marshal(sale)
	if err != nil {
		return err
	}
	return s.putEncoded(tx, old, sale, data)
}

// putEncoded is put with the sale already encoded as data.
func (s *Store) putEncoded(tx *bolt.Tx, old *Sale, sale Sale, data []byte) error {
	if err := tx.Bucket([]byte(salesBucket)).Put([]byte(sale.InvoiceID), data); err != nil {
		return err
	}
	if err := indexLedger(tx, old, &sale); err != nil {
		return err
	}
	if s.outbox == nil {
		return nil
	}
	queued := false
	for _, d := range owedWebhooks(old, sale) {
		ep, ok := s.outbox.endpoints[d.WebHookKey]
		if !ok {
			continue
		}
		b := tx.Bucket([]byte(outboxBucket))
		id, err := b.NextSequence()
		if err != nil {
			return err
		}
		d.ID, d.URL, d.Encoding = id, ep.URL, ep.Encoding
		if d.Encoding == "" {
			d.Encoding = webhook.Form
		}
		d.State, d.CreatedAt, d.NextAttemptAt, d.Attempts = DeliveryPending, sale.UpdatedAt, sale.UpdatedAt, []Attempt{}
		if err := putDelivery(b, d); err != nil {
			return err
		}
		queued = true
	}
	if queued && s.outbox.kick != nil {
		tx.OnCommit(s.outbox.kick)
	}
	return nil
}

// saleOutcome is the result a sale webhook reports: "" while the sale is
// undecided (processing, pending, waiting for its 3D step or for the
// merchant's completion), else its final state. A pre-authorization that
// was held (completed) and then cancelled ends cancelled: the merchant's
// handler learns that the hold is gone. A capture changes nothing: the
// held sale was already reported charged.
func saleOutcome(s *Sale) string {
	if s.State == StateCompleted && s.PreAuth != nil && s.PreAuth.State == PreAuthCancelled {
		return StateCancelled
	}
	switch s.State {
	case StateCompleted, StateFailed, StateCancelled:
		return s.State
	}
	return ""
}

// owedWebhooks lists the webhooks a change of a sale owes (without id,
// URL or state): a sale webhook when a sale naming a sale web hook key
// reaches its outcome (charged or held: status 1; declined or cancelled:
// 0, also for a held pre-authorization cancelled later or a 3D sale
// completed by the merchant and cancelled through /payment/complete), and a refund webhook for each refund naming a refund web hook key
// that becomes Completed (at once, or when approved).
func owedWebhooks(old *Sale, sale Sale) []Delivery {
	var out []Delivery
	if sale.SaleWebHookKey != "" {
		now := saleOutcome(&sale)
		before := ""
		if old != nil {
			before = saleOutcome(old)
		}
		if now != "" && now != before {
			status := "0"
			if now == StateCompleted {
				status = "1"
			}
			out = append(out, Delivery{Kind: webhook.Sale, WebHookKey: sale.SaleWebHookKey, InvoiceID: sale.InvoiceID,
				OrderID: sale.OrderID, Currency: sale.Currency, Fields: map[string]string{
					"status": status, "total": sale.Amount, "invoice_id": sale.InvoiceID, "order_id": sale.OrderID,
					"order_no": sale.OrderID, "currency_code": sale.Currency, "payment_status": status,
					"transaction_type": sale.TransactionType, "credit_card_no": maskCard(sale.CardBIN, sale.CardLast4),
				}})
		}
	}
	for i, r := range sale.Refunds {
		if r.WebHookKey == "" || r.Status != RefundCompleted {
			continue
		}
		if old != nil && i < len(old.Refunds) && old.Refunds[i].Status == RefundCompleted {
			continue
		}
		out = append(out, Delivery{Kind: webhook.Refund, WebHookKey: r.WebHookKey, InvoiceID: sale.InvoiceID,
			OrderID: sale.OrderID, Currency: sale.Currency, Fields: map[string]string{
				"status": RefundCompleted, "amount": r.Amount, "invoice_id": sale.InvoiceID, "order_id": sale.OrderID,
				"refund_transaction_id": r.TransactionID, "ref_no": r.RefNo,
			}})
	}
	return out
}

// Deliveries returns every webhook delivery, oldest first.
func (s *Store) Deliveries() ([]Delivery, error) {
	out := []Delivery{}
	err := s.db.View(func(tx *bolt.Tx) error {
		return tx.Bucket([]byte(outboxBucket)).ForEach(func(k, v []byte) error {
			var d Delivery
			if err := json.Unmarshal(v, &d); err != nil {
				return fmt.Errorf("sandbox state: webhook delivery %x: %w", k, err)
			}
			out = append(out, d)
			return nil
		})
	})
	return out, err
}

// delivery reads one delivery as it is stored now. ErrNoDelivery for an
// unknown id.
func (s *Store) delivery(id uint64) (Delivery, error) {
	var d Delivery
	err := s.db.View(func(tx *bolt.Tx) error {
		v := tx.Bucket([]byte(outboxBucket)).Get(deliveryKey(id))
		if v == nil {
			return ErrNoDelivery
		}
		return json.Unmarshal(v, &d)
	})
	return d, err
}

// UpdateDelivery changes one delivery in one durable transaction; change
// refusing (an error) writes nothing. ErrNoDelivery for an unknown id.
func (s *Store) UpdateDelivery(id uint64, change func(d *Delivery) error) (Delivery, error) {
	var out Delivery
	err := s.writes.do(func(tx *bolt.Tx) error {
		b := tx.Bucket([]byte(outboxBucket))
		v := b.Get(deliveryKey(id))
		if v == nil {
			return ErrNoDelivery
		}
		var d Delivery
		if err := json.Unmarshal(v, &d); err != nil {
			return err
		}
		if err := change(&d); err != nil {
			return err
		}
		out = d
		return putDelivery(b, d)
	})
	return out, err
}

// ResendDelivery makes a delivery pending again, due at now, with a fresh
// round of attempts (its past attempts are kept). A delivery already
// pending is made due at once.
func (s *Store) ResendDelivery(id uint64, now time.Time) (Delivery, error) {
	return s.UpdateDelivery(id, func(d *Delivery) error {
		if d.State != DeliveryPending {
			d.RoundStart = len(d.Attempts)
		}
		d.State, d.NextAttemptAt, d.DeliveredAt = DeliveryPending, now, time.Time{}
		return nil
	})
}

// Seed writes sales straight to the store, all in one transaction, as if
// the day had happened (the ledger's index kept, webhooks owed queued, as
// every write does): how a scale harness makes a day of 100,000 sales
// without 100,000 payments. Each sale's invoice must be new to the store.
func (s *Store) Seed(sales iter.Seq[Sale]) error {
	return s.writes.do(func(tx *bolt.Tx) error {
		for sale := range sales {
			if err := s.put(tx, nil, sale); err != nil {
				return err
			}
		}
		return nil
	})
}
