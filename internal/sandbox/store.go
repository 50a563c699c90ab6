package sandbox

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/paycli/paycli/internal/redact"
	bolt "go.etcd.io/bbolt"
	bolterrors "go.etcd.io/bbolt/errors"
)

// DBFile is the name of the sandbox's database inside its state folder.
const DBFile = "sandbox.db"

// Buckets of the store. salesBucket holds one JSON Sale per invoice_id, for
// every kind of payment (so an invoice id is used once across all kinds);
// refundIDsBucket maps each refund_transaction_id ever answered to its
// invoice; walletTokensBucket holds the ids of wallet tokens already spent.
const (
	salesBucket        = "sales"
	refundIDsBucket    = "refund_ids"
	walletTokensBucket = "wallet_tokens"
	// ordersBucket maps order ids to invoice ids, for the requests that
	// name a sale by its order id (the 3D challenge).
	ordersBucket = "orders"
	// cardsBucket holds one JSON SavedCard per card token; linksBucket maps
	// payment link ids to invoice ids.
	cardsBucket = "saved_cards"
	linksBucket = "links"
)

var buckets = []string{salesBucket, refundIDsBucket, walletTokensBucket, ordersBucket, cardsBucket, linksBucket, outboxBucket,
	ledgerCreatedBucket, ledgerUpdatedBucket, ledgerRatesBucket}

// Sale states. A sale is processing while its walletPay request is being
// answered; the other states are final except pending, which a later check
// status resolves.
const (
	StateProcessing = "processing"
	StateCompleted  = "completed"
	StatePending    = "pending"
	StateFailed     = "failed"
)

// ErrDuplicate is returned by Reserve for an invoice that is already
// processed or in flight.
var ErrDuplicate = errors.New("invoice already processed or in flight")

// ErrTokenSpent is returned by Reserve for a sale paid with a wallet token
// that already paid another: a transient token is single-use.
var ErrTokenSpent = errors.New("the wallet token was already used")

// ErrLocked is returned by Open when another process holds the state folder.
var ErrLocked = errors.New("the sandbox state is in use by another paycli process")

// Store keeps the sandbox's sales in a bbolt file. Every write is
// committed before the call returns; concurrent writes share commits
// (groupCommit), so a burst of payments costs a few commits rather than one
// each. The free-page list is not written at each commit (bbolt's
// NoFreelistSync; it is rebuilt when the file is opened): a commit writes
// only the pages its writes changed.
//
// When a commit reaches the disk is the store's durability. By default a
// commit's pages go to the file with write(2), into the kernel's page
// cache, without fsync (bbolt's NoSync): they outlive the process, so
// every answered write survives kill -9 and a restart, but not a power
// loss or a crash of the machine, which may lose the last commits or leave
// the file unreadable. flush (on the server's timer, and on Close) puts
// them on the disk. A durable store fsyncs every commit before it returns
// (serve --durable) and survives a power loss too.
type Store struct {
	db *bolt.DB
	// writes shares commits between concurrent writes (groupcommit.go).
	writes *groupCommit
	// outbox, when set, queues webhook deliveries with the sales (outbox.go).
	outbox *outbox
	// sync puts the file's written pages on the disk (db.Sync; a test
	// counts its calls); flushMu serializes flushes, and flushed is the
	// last transaction a flush put there.
	sync    func() error
	flushMu sync.Mutex
	flushed int
}

// OpenStore opens (creating if needed) the store in dir, not durable (see
// Store). The file is locked for the life of the Store; lockTimeout bounds
// the wait for another process to let go of it (zero means do not wait),
// after which Open returns ErrLocked. Sales left processing by a process
// that died mid-request are marked failed: their walletPay was never
// answered, so nothing was charged as far as the caller could know, and
// the invoice stays protected.
func OpenStore(dir string, lockTimeout time.Duration, now time.Time) (*Store, error) {
	return openStore(dir, lockTimeout, now, false)
}

// openStore is OpenStore, durable (every commit fsynced) or not.
func openStore(dir string, lockTimeout time.Duration, now time.Time, durable bool) (*Store, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("create sandbox state folder: %w", err)
	}
	if lockTimeout <= 0 {
		lockTimeout = time.Millisecond
	}
	// NoGrowSync too: bbolt otherwise fsyncs the whole file inside the
	// commit that grows it (every 16 MiB), holding every payment of the
	// group, and the ones queued behind it, for as long as the disk takes
	// to write what the last second dirtied. The flush's fdatasync
	// records the file's size with its pages.
	db, err := bolt.Open(filepath.Join(dir, DBFile), 0o600, &bolt.Options{Timeout: lockTimeout, NoFreelistSync: true,
		FreelistType: bolt.FreelistMapType, NoSync: !durable, NoGrowSync: !durable})
	if errors.Is(err, bolterrors.ErrTimeout) {
		return nil, ErrLocked
	}
	if err != nil {
		return nil, fmt.Errorf("open sandbox state: %w", err)
	}
	s := &Store{db: db, writes: &groupCommit{db: db}, sync: db.Sync}
	if err := s.recover(now); err != nil {
		db.Close()
		return nil, err
	}
	return s, nil
}

// durable reports whether every commit is fsynced before it returns.
func (s *Store) durable() bool { return !s.db.NoSync }

// flush puts every commit made so far on the disk, if one was made since
// the last flush. A durable store's commits are there already. A failed
// flush is tried again by the next.
func (s *Store) flush() error {
	if s.durable() {
		return nil
	}
	s.flushMu.Lock()
	defer s.flushMu.Unlock()
	var last int
	// The last committed transaction, read before the sync: one committed
	// after it is synced now or by the next flush.
	if err := s.db.View(func(tx *bolt.Tx) error { last = tx.ID(); return nil }); err != nil {
		return err
	}
	if last == s.flushed {
		return nil
	}
	if err := s.sync(); err != nil {
		return fmt.Errorf("flush sandbox state to disk: %w", err)
	}
	s.flushed = last
	return nil
}

func (s *Store) recover(now time.Time) error {
	return s.db.Update(func(tx *bolt.Tx) error {
		for _, name := range buckets {
			if _, err := tx.CreateBucketIfNotExists([]byte(name)); err != nil {
				return err
			}
		}
		if err := backfillLedgerIndex(tx); err != nil {
			return err
		}
		b := tx.Bucket([]byte(salesBucket))
		var orphans []Sale
		err := b.ForEach(func(k, v []byte) error {
			sale, err := decodeSale(v)
			if err != nil {
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
			if err := indexLedger(tx, nil, &sale); err != nil {
				return err
			}
		}
		return nil
	})
}

// Close flushes the store to the disk (see Store), then releases the file
// and its lock.
func (s *Store) Close() error {
	err := s.flush()
	if cerr := s.db.Close(); err == nil {
		err = cerr
	}
	return err
}

// Check reports every inconsistency bbolt finds in the file (a page
// unreachable, freed twice or out of bounds), nil for none: a state file
// torn by a crash fails it.
func (s *Store) Check() error {
	return s.db.View(func(tx *bolt.Tx) error {
		var errs []error
		for err := range tx.Check() {
			errs = append(errs, err)
		}
		return errors.Join(errs...)
	})
}

func putSale(b *bolt.Bucket, sale Sale) error {
	data, err := json.Marshal(sale)
	if err != nil {
		return err
	}
	return b.Put([]byte(sale.InvoiceID), data)
}

// decodeSale reads a stored sale. Sales stored before the sale model knew
// other kinds of payment are walletPay sales with nothing held, refunded or
// awaited: normalize fills in what they imply, so old state files need no
// migration step.
func decodeSale(v []byte) (Sale, error) {
	var sale Sale
	if err := json.Unmarshal(v, &sale); err != nil {
		return Sale{}, err
	}
	sale.normalize()
	return sale, nil
}

// Reserve records sale under its invoice_id, committed before it returns,
// unless the invoice is already known, in which case it returns
// ErrDuplicate. A sale paid with a wallet token (WalletTokenID set) also
// spends the token: a token already spent gives ErrTokenSpent and stores
// nothing. The check and the write happen in one transaction, so of any number of concurrent
// reservations for an invoice exactly one succeeds. walletPay records its
// finished sale this way, in one commit; a sale recorded in state
// processing (for an answer that takes time) is finished with Save or
// given back with Release.
func (s *Store) Reserve(sale Sale) error {
	// Encoded before the transaction: a commit's time is the time every
	// write of its group waits (groupCommit).
	data, err := json.Marshal(sale)
	if err != nil {
		return err
	}
	return s.writes.do(func(tx *bolt.Tx) error {
		b := tx.Bucket([]byte(salesBucket))
		if b.Get([]byte(sale.InvoiceID)) != nil {
			return ErrDuplicate
		}
		if sale.WalletTokenID != "" {
			tokens := tx.Bucket([]byte(walletTokensBucket))
			key := spentTokenKey(sale.WalletTokenIssuedAt, sale.WalletTokenID)
			paid := tokens.Get(key)
			if paid == nil {
				// Spent before keys were ordered by time (state files of
				// older versions).
				paid = tokens.Get([]byte(sale.WalletTokenID))
			}
			if paid != nil {
				return fmt.Errorf("%w: it paid invoice %s", ErrTokenSpent, redact.Invoice(string(paid)))
			}
			if err := tokens.Put(key, []byte(sale.InvoiceID)); err != nil {
				return err
			}
		}
		if err := indexSale(tx, sale); err != nil {
			return err
		}
		return s.putEncoded(tx, nil, sale, data)
	})
}

// indexSale makes sale findable by its order_id (InvoiceOfOrder) and, for
// a payment link's sale, by the link's id (InvoiceOfLink).
func indexSale(tx *bolt.Tx, sale Sale) error {
	if err := tx.Bucket([]byte(ordersBucket)).Put([]byte(sale.OrderID), []byte(sale.InvoiceID)); err != nil {
		return err
	}
	if sale.Link != nil {
		return tx.Bucket([]byte(linksBucket)).Put([]byte(sale.Link.ID), []byte(sale.InvoiceID))
	}
	return nil
}

// spentTokenKey is a spent wallet token's key in walletTokensBucket: its
// issued-at time (big-endian seconds) before its id, so that the tokens
// of one moment, which are spent about together, sit together: a commit
// of many payments then writes a page or two of the bucket, not one per
// payment (docs/performance.md, walletPay).
func spentTokenKey(issuedAt int64, id string) []byte {
	key := make([]byte, 8, 8+len(id))
	binary.BigEndian.PutUint64(key, uint64(issuedAt))
	return append(key, id...)
}

// Update changes the sale of invoiceID in one transaction: change
// gets the stored sale and the transaction's view of the store, and either
// edits the sale (nil error: the sale is written back and committed
// before Update returns) or refuses (its error is returned and
// nothing is written). ErrNotFound is returned for an unknown invoice.
// Every check change makes against the sale happens in the transaction
// that writes it, so concurrent updates of one sale are serialized: two
// refunds racing for the last of a sale's amount cannot both pass.
// change may run more than once (bbolt retries a batch without a member
// that failed) and must depend on nothing but its arguments.
func (s *Store) Update(invoiceID string, change func(sale *Sale, tx *Tx) error) (Sale, error) {
	var out Sale
	err := s.writes.do(func(btx *bolt.Tx) error {
		b := btx.Bucket([]byte(salesBucket))
		v := b.Get([]byte(invoiceID))
		if v == nil {
			return ErrNotFound
		}
		sale, err := decodeSale(v)
		if err != nil {
			return err
		}
		old, _ := decodeSale(v)
		if err := change(&sale, &Tx{tx: btx}); err != nil {
			return err
		}
		out = sale
		return s.put(btx, &old, sale)
	})
	return out, err
}

// ErrNotFound is returned by Update for an invoice the store does not know.
var ErrNotFound = errors.New("no sale for this invoice")

// Tx is the part of a store transaction a sale update may use.
type Tx struct{ tx *bolt.Tx }

// RefundInvoice returns the invoice a refund_transaction_id was used for
// ("" when it was never used).
func (t *Tx) RefundInvoice(refundTransactionID string) string {
	return string(t.tx.Bucket([]byte(refundIDsBucket)).Get([]byte(refundTransactionID)))
}

// UseRefundID records a refund_transaction_id as used by invoiceID.
func (t *Tx) UseRefundID(refundTransactionID, invoiceID string) error {
	return t.tx.Bucket([]byte(refundIDsBucket)).Put([]byte(refundTransactionID), []byte(invoiceID))
}

// Save overwrites the sale of the same invoice_id, committed before it returns.
func (s *Store) Save(sale Sale) error {
	return s.writes.do(func(tx *bolt.Tx) error {
		var old *Sale
		if v := tx.Bucket([]byte(salesBucket)).Get([]byte(sale.InvoiceID)); v != nil {
			prev, err := decodeSale(v)
			if err != nil {
				return err
			}
			old = &prev
		}
		return s.put(tx, old, sale)
	})
}

// Release forgets a reservation that charged nothing (the request failed a
// check after the invoice was reserved), so the invoice may be used again.
// It only removes a sale that is still processing with the given order id.
func (s *Store) Release(invoiceID, orderID string) error {
	return s.writes.do(func(tx *bolt.Tx) error {
		b := tx.Bucket([]byte(salesBucket))
		v := b.Get([]byte(invoiceID))
		if v == nil {
			return nil
		}
		sale, err := decodeSale(v)
		if err != nil {
			return err
		}
		if sale.State != StateProcessing || sale.OrderID != orderID {
			return nil
		}
		if err := tx.Bucket([]byte(ordersBucket)).Delete([]byte(orderID)); err != nil {
			return err
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
		var err error
		sale, err = decodeSale(v)
		return err
	})
	return sale, ok, err
}

// InvoiceOfOrder finds the invoice of a sale by its order id. Sales stored
// before the order index existed are not found this way; every request
// that names an old sale names its invoice id.
func (s *Store) InvoiceOfOrder(orderID string) (invoiceID string, ok bool, err error) {
	err = s.db.View(func(tx *bolt.Tx) error {
		v := tx.Bucket([]byte(ordersBucket)).Get([]byte(orderID))
		invoiceID, ok = string(v), v != nil
		return nil
	})
	return invoiceID, ok, err
}

// InvoiceOfLink finds the invoice of a payment link by the link's id.
func (s *Store) InvoiceOfLink(linkID string) (invoiceID string, ok bool, err error) {
	err = s.db.View(func(tx *bolt.Tx) error {
		v := tx.Bucket([]byte(linksBucket)).Get([]byte(linkID))
		invoiceID, ok = string(v), v != nil
		return nil
	})
	return invoiceID, ok, err
}

// Sales returns every stored sale, ordered by invoice_id.
func (s *Store) Sales() ([]Sale, error) {
	var sales []Sale
	err := s.db.View(func(tx *bolt.Tx) error {
		return tx.Bucket([]byte(salesBucket)).ForEach(func(k, v []byte) error {
			sale, err := decodeSale(v)
			if err != nil {
				return err
			}
			sales = append(sales, sale)
			return nil
		})
	})
	return sales, err
}

// Reset deletes every sale, with its refunds and spent wallet tokens, every
// saved card, every payment link and every webhook delivery.
func (s *Store) Reset() error {
	return s.db.Update(func(tx *bolt.Tx) error {
		for _, name := range buckets {
			if err := tx.DeleteBucket([]byte(name)); err != nil && !errors.Is(err, bolterrors.ErrBucketNotFound) {
				return err
			}
			if _, err := tx.CreateBucket([]byte(name)); err != nil {
				return err
			}
		}
		return nil
	})
}
