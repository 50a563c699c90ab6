package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	bolt "go.etcd.io/bbolt"
	bolterrors "go.etcd.io/bbolt/errors"
)

// DBFile is the name of the sandbox's database inside its state folder.
const DBFile = "sandbox.db"

// salesBucket holds one JSON Sale per invoice_id.
const salesBucket = "sales"

// Sale states. A sale is processing while its walletPay request is being
// answered; the other states are final except pending, which a later check
// status resolves.
const (
	StateProcessing = "processing"
	StateCompleted  = "completed"
	StatePending    = "pending"
	StateFailed     = "failed"
)

// batchDelay is how long a write waits to share a commit with others.
const batchDelay = time.Millisecond

// ErrDuplicate is returned by Reserve for an invoice that is already
// processed or in flight.
var ErrDuplicate = errors.New("invoice already processed or in flight")

// ErrLocked is returned by Open when another process holds the state folder.
var ErrLocked = errors.New("the sandbox state is in use by another paycli process")

// Sale is one walletPay attempt as the sandbox remembers it, keyed by
// invoice_id. Amounts are decimal strings.
type Sale struct {
	InvoiceID                    string    `json:"invoice_id"`
	OrderID                      string    `json:"order_id"`
	State                        string    `json:"state"`
	Amount                       string    `json:"amount"`
	Currency                     string    `json:"currency"`
	Installment                  int       `json:"installment"`
	Wallet                       string    `json:"wallet"`
	CardBIN                      string    `json:"card_bin"`
	CardLast4                    string    `json:"card_last4"`
	CardProgram                  string    `json:"card_program"`
	MerchantCommission           string    `json:"merchant_commission"`
	UserCommission               string    `json:"user_commission"`
	MerchantCommissionPercentage string    `json:"merchant_commission_percentage"`
	MerchantCommissionFixed      string    `json:"merchant_commission_fixed"`
	AuthCode                     string    `json:"auth_code"`
	HostReferenceID              string    `json:"host_reference_id"`
	PaymentReasonCode            string    `json:"payment_reason_code"`
	PaymentReasonCodeDetail      string    `json:"payment_reason_code_detail"`
	CreatedAt                    time.Time `json:"created_at"`
	UpdatedAt                    time.Time `json:"updated_at"`
}

// Store keeps the sandbox's sales in a bbolt file. Every write is committed
// with fsync before the call returns; concurrent writes share commits
// through bbolt's Batch, so a burst of payments costs a few fsyncs rather
// than one each.
type Store struct {
	db *bolt.DB
}

// OpenStore opens (creating if needed) the store in dir. The file is locked
// for the life of the Store; lockTimeout bounds the wait for another process
// to let go of it (zero means do not wait), after which Open returns
// ErrLocked. Sales left processing by a process that died mid-request are
// marked failed: their walletPay was never answered, so nothing was charged
// as far as the caller could know, and the invoice stays protected.
func OpenStore(dir string, lockTimeout time.Duration, now time.Time) (*Store, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("create sandbox state folder: %w", err)
	}
	if lockTimeout <= 0 {
		lockTimeout = time.Millisecond
	}
	db, err := bolt.Open(filepath.Join(dir, DBFile), 0o600, &bolt.Options{Timeout: lockTimeout})
	if errors.Is(err, bolterrors.ErrTimeout) {
		return nil, ErrLocked
	}
	if err != nil {
		return nil, fmt.Errorf("open sandbox state: %w", err)
	}
	// A batch waits this long for company before it commits. bbolt's 10ms
	// default would add 20ms to every payment made alone (two commits);
	// under load, requests arriving during a commit's fsync still share
	// the next one.
	db.MaxBatchDelay = batchDelay
	s := &Store{db: db}
	if err := s.recover(now); err != nil {
		db.Close()
		return nil, err
	}
	return s, nil
}

func (s *Store) recover(now time.Time) error {
	return s.db.Update(func(tx *bolt.Tx) error {
		b, err := tx.CreateBucketIfNotExists([]byte(salesBucket))
		if err != nil {
			return err
		}
		var orphans []Sale
		err = b.ForEach(func(k, v []byte) error {
			var sale Sale
			if err := json.Unmarshal(v, &sale); err != nil {
				return fmt.Errorf("sandbox state: sale %q: %w", k, err)
			}
			if sale.State == StateProcessing {
				orphans = append(orphans, sale)
			}
			return nil
		})
		if err != nil {
			return err
		}
		for _, sale := range orphans {
			sale.State = StateFailed
			sale.PaymentReasonCode = "SBX-RESTART"
			sale.PaymentReasonCodeDetail = "the sandbox stopped before the provider answered; nothing was charged"
			sale.UpdatedAt = now
			if err := putSale(b, sale); err != nil {
				return err
			}
		}
		return nil
	})
}

// Close releases the file and its lock.
func (s *Store) Close() error { return s.db.Close() }

func putSale(b *bolt.Bucket, sale Sale) error {
	data, err := json.Marshal(sale)
	if err != nil {
		return err
	}
	return b.Put([]byte(sale.InvoiceID), data)
}

// Reserve records sale under its invoice_id, durably, unless the invoice
// is already known, in which case it returns ErrDuplicate. The check and
// the write happen in one transaction, so of any number of concurrent
// reservations for an invoice exactly one succeeds. walletPay records its
// finished sale this way, in one commit; a sale recorded in state
// processing (for an answer that takes time) is finished with Save or
// given back with Release.
func (s *Store) Reserve(sale Sale) error {
	return s.db.Batch(func(tx *bolt.Tx) error {
		b := tx.Bucket([]byte(salesBucket))
		if b.Get([]byte(sale.InvoiceID)) != nil {
			return ErrDuplicate
		}
		return putSale(b, sale)
	})
}

// Save overwrites the sale of the same invoice_id, durably.
func (s *Store) Save(sale Sale) error {
	return s.db.Batch(func(tx *bolt.Tx) error {
		return putSale(tx.Bucket([]byte(salesBucket)), sale)
	})
}

// Release forgets a reservation that charged nothing (the request failed a
// check after the invoice was reserved), so the invoice may be used again.
// It only removes a sale that is still processing with the given order id.
func (s *Store) Release(invoiceID, orderID string) error {
	return s.db.Batch(func(tx *bolt.Tx) error {
		b := tx.Bucket([]byte(salesBucket))
		v := b.Get([]byte(invoiceID))
		if v == nil {
			return nil
		}
		var sale Sale
		if err := json.Unmarshal(v, &sale); err != nil {
			return err
		}
		if sale.State != StateProcessing || sale.OrderID != orderID {
			return nil
		}
		return b.Delete([]byte(invoiceID))
	})
}

// Get returns the sale of an invoice; ok is false when there is none.
func (s *Store) Get(invoiceID string) (sale Sale, ok bool, err error) {
	err = s.db.View(func(tx *bolt.Tx) error {
		v := tx.Bucket([]byte(salesBucket)).Get([]byte(invoiceID))
		if v == nil {
			return nil
		}
		ok = true
		return json.Unmarshal(v, &sale)
	})
	return sale, ok, err
}

// Sales returns every stored sale, ordered by invoice_id.
func (s *Store) Sales() ([]Sale, error) {
	var sales []Sale
	err := s.db.View(func(tx *bolt.Tx) error {
		return tx.Bucket([]byte(salesBucket)).ForEach(func(k, v []byte) error {
			var sale Sale
			if err := json.Unmarshal(v, &sale); err != nil {
				return err
			}
			sales = append(sales, sale)
			return nil
		})
	})
	return sales, err
}

// Reset deletes every sale.
func (s *Store) Reset() error {
	return s.db.Update(func(tx *bolt.Tx) error {
		if err := tx.DeleteBucket([]byte(salesBucket)); err != nil && !errors.Is(err, bolterrors.ErrBucketNotFound) {
			return err
		}
		_, err := tx.CreateBucket([]byte(salesBucket))
		return err
	})
}
