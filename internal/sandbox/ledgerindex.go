package sandbox

import (
	"bytes"
	"encoding/binary"
	"errors"
	"time"

	"github.com/shopspring/decimal"
	bolt "go.etcd.io/bbolt"
)

// The ledger's indexes (getTransactions, alltransaction): one entry per
// listed sale under its creation time and one under its last change, each
// key the time (big-endian Unix nanoseconds) then the invoice id, so a day
// or an hour is one cursor range in time order. An entry's value is what
// the filters read (ledgerEntry), so a page of a 100,000-sale day decodes
// only its own sales. Both are written in the transaction that writes the
// sale (Store.putEncoded), so they never disagree with it.
const (
	ledgerCreatedBucket = "ledger_by_created"
	ledgerUpdatedBucket = "ledger_by_updated"
)

// Payment methods as the ledger numbers them (§11.15 payment_method).
const (
	methodCard   = 1
	methodMobile = 2
	methodWallet = 3
)

// ledgerEntry is what the ledger's filters read of a sale, kept in its
// index entries.
type ledgerEntry struct {
	// id is the row's number ("id"), given when the sale is first indexed.
	id       uint64
	state    int // transaction_state_id (ledgerStates)
	method   int // methodCard, methodWallet
	currency string
	amount   decimal.Decimal // product_price
	invoice  string
	order    string
	email    string
	phone    string
}

// listed reports whether the ledger lists a sale: a sale still being
// answered (processing) has no row yet.
func listed(sale *Sale) bool { return sale.State != StateProcessing }

// ledgerEntryOf builds a sale's index entry with row number id.
func ledgerEntryOf(sale *Sale, id uint64) ledgerEntry {
	method := methodCard
	if sale.Kind == KindWalletPay {
		method = methodWallet
	}
	state, _ := ledgerStateOf(sale)
	price, _ := decimal.NewFromString(productPrice(sale))
	return ledgerEntry{id: id, state: state, method: method, currency: sale.Currency, amount: price,
		invoice: sale.InvoiceID, order: sale.OrderID, email: sale.BillEmail, phone: sale.BillPhone}
}

// encode writes e as its index value: the id, state and method, then the
// texts, each with its length.
func (e ledgerEntry) encode() []byte {
	b := binary.BigEndian.AppendUint64(nil, e.id)
	b = append(b, byte(e.state), byte(e.method))
	for _, s := range []string{e.currency, e.amount.String(), e.invoice, e.order, e.email, e.phone} {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	return b
}

var errBadEntry = errors.New("sandbox state: a ledger index entry is damaged")

// decodeEntry reads an index value (ledgerEntry.encode).
func decodeEntry(v []byte) (ledgerEntry, error) {
	if len(v) < 10 {
		return ledgerEntry{}, errBadEntry
	}
	e := ledgerEntry{id: binary.BigEndian.Uint64(v), state: int(v[8]), method: int(v[9])}
	v = v[10:]
	var texts [6]string
	for i := range texts {
		n, k := binary.Uvarint(v)
		if k <= 0 || uint64(len(v)-k) < n {
			return ledgerEntry{}, errBadEntry
		}
		texts[i], v = string(v[k:k+int(n)]), v[k+int(n):]
	}
	amount, err := decimal.NewFromString(texts[1])
	if err != nil {
		return ledgerEntry{}, errBadEntry
	}
	e.currency, e.amount, e.invoice, e.order, e.email, e.phone = texts[0], amount, texts[2], texts[3], texts[4], texts[5]
	return e, nil
}

// ledgerKey is an index key: t then the invoice id.
func ledgerKey(t time.Time, invoiceID string) []byte {
	k := binary.BigEndian.AppendUint64(make([]byte, 0, 8+len(invoiceID)), uint64(t.UnixNano()))
	return append(k, invoiceID...)
}

// indexLedger updates the ledger's indexes for sale, whose stored version
// was old (nil for a new sale), in the transaction that writes it.
func indexLedger(tx *bolt.Tx, old *Sale, sale *Sale) error {
	created, updated := tx.Bucket([]byte(ledgerCreatedBucket)), tx.Bucket([]byte(ledgerUpdatedBucket))
	if created == nil {
		return nil // a store opened by an older sandbox mid-upgrade: recover creates them
	}
	var id uint64
	if old != nil {
		if v := created.Get(ledgerKey(old.CreatedAt, old.InvoiceID)); v != nil {
			id = binary.BigEndian.Uint64(v)
		}
		if err := created.Delete(ledgerKey(old.CreatedAt, old.InvoiceID)); err != nil {
			return err
		}
		if err := updated.Delete(ledgerKey(old.UpdatedAt, old.InvoiceID)); err != nil {
			return err
		}
	}
	if !listed(sale) {
		return nil
	}
	if id == 0 {
		var err error
		if id, err = created.NextSequence(); err != nil {
			return err
		}
	}
	v := ledgerEntryOf(sale, id).encode()
	if err := created.Put(ledgerKey(sale.CreatedAt, sale.InvoiceID), v); err != nil {
		return err
	}
	return updated.Put(ledgerKey(sale.UpdatedAt, sale.InvoiceID), v)
}

// backfillLedgerIndex indexes every sale of a state file written before
// the ledger's indexes existed (their bucket is empty, the sales' is not).
func backfillLedgerIndex(tx *bolt.Tx) error {
	if k, _ := tx.Bucket([]byte(ledgerCreatedBucket)).Cursor().First(); k != nil {
		return nil
	}
	var sales []Sale
	err := tx.Bucket([]byte(salesBucket)).ForEach(func(_, v []byte) error {
		sale, err := decodeSale(v)
		sales = append(sales, sale)
		return err
	})
	if err != nil {
		return err
	}
	for i := range sales {
		if err := indexLedger(tx, nil, &sales[i]); err != nil {
			return err
		}
	}
	return nil
}

// ledgerScan is one walk of an index: the keys in [from, to), oldest or
// newest first, the entries match keeps counted, and the sales of those
// in [skip, skip+limit) (limit 0: all from skip) handed to visit.
type ledgerScan struct {
	from, to  time.Time
	byUpdated bool
	desc      bool
	match     func(*ledgerEntry) bool
	skip      int
	limit     int
}

// scanLedger walks an index in one read transaction and returns how many
// entries matched in all. Only the visited sales are decoded.
func (s *Store) scanLedger(q ledgerScan, visit func(e *ledgerEntry, sale *Sale) error) (total int, err error) {
	name := ledgerCreatedBucket
	if q.byUpdated {
		name = ledgerUpdatedBucket
	}
	lo, hi := ledgerKey(q.from, ""), ledgerKey(q.to, "")
	err = s.db.View(func(tx *bolt.Tx) error {
		c, sales := tx.Bucket([]byte(name)).Cursor(), tx.Bucket([]byte(salesBucket))
		k, v := c.Seek(lo)
		next, inRange := c.Next, func(k []byte) bool { return k != nil && bytes.Compare(k, hi) < 0 }
		if q.desc {
			if k, v = c.Seek(hi); k == nil {
				k, v = c.Last()
			} else {
				k, v = c.Prev()
			}
			next, inRange = c.Prev, func(k []byte) bool { return k != nil && bytes.Compare(k, lo) >= 0 }
		}
		for ; inRange(k); k, v = next() {
			e, err := decodeEntry(v)
			if err != nil {
				return err
			}
			if q.match != nil && !q.match(&e) {
				continue
			}
			total++
			if total <= q.skip || q.limit > 0 && total > q.skip+q.limit {
				continue
			}
			sale, err := decodeSale(sales.Get([]byte(e.invoice)))
			if err != nil {
				return err
			}
			if err := visit(&e, &sale); err != nil {
				return err
			}
		}
		return nil
	})
	return total, err
}
