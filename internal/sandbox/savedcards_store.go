package sandbox

import (
	"cmp"
	"encoding/json"
	"errors"
	"slices"
	"time"

	bolt "go.etcd.io/bbolt"
)

// SavedCard is a card saved for a customer with /api/saveCard. The number
// itself is never stored: its first six and last four digits name it, and
// the published test card's outcome is decided when it is saved, so that
// a payment with the card's token needs nothing more.
type SavedCard struct {
	ID             int64  `json:"id"`
	Token          string `json:"card_token"`
	CustomerNumber string `json:"customer_number"`
	BIN            string `json:"card_bin"`
	Last4          string `json:"card_last4"`
	Holder         string `json:"card_holder_name"`
	ExpiryMonth    string `json:"expiry_month"`
	ExpiryYear     string `json:"expiry_year"`
	CustomerName   string `json:"customer_name,omitempty"`
	CustomerEmail  string `json:"customer_email,omitempty"`
	CustomerPhone  string `json:"customer_phone,omitempty"`
	// Outcome, ReasonCode and Reason are the TestCard's (docs/sandbox.md).
	Outcome    string    `json:"outcome"`
	ReasonCode string    `json:"reason_code,omitempty"`
	Reason     string    `json:"reason,omitempty"`
	CreatedAt  time.Time `json:"created_at"`
	UpdatedAt  time.Time `json:"updated_at"`
}

// testCard is the simulated provider's view of the saved card.
func (c SavedCard) testCard() TestCard {
	return TestCard{Outcome: c.Outcome, ReasonCode: c.ReasonCode, Reason: c.Reason}
}

// ErrCardNotFound is returned for a card token that is unknown, deleted,
// or saved for another customer: a token is only ever found with the
// customer_number it was saved for.
var ErrCardNotFound = errors.New("no saved card with this token for this customer")

// SaveCard stores a new card durably, numbering it; the stored card is
// returned.
func (s *Store) SaveCard(card SavedCard) (SavedCard, error) {
	err := s.writes.do(func(tx *bolt.Tx) error {
		b := tx.Bucket([]byte(cardsBucket))
		if b.Get([]byte(card.Token)) != nil {
			return errors.New("card token collision")
		}
		id, err := b.NextSequence()
		if err != nil {
			return err
		}
		card.ID = int64(id)
		return putCard(b, card)
	})
	return card, err
}

// Card returns the saved card of a token for a customer.
func (s *Store) Card(token, customerNumber string) (SavedCard, error) {
	var card SavedCard
	err := s.db.View(func(tx *bolt.Tx) error {
		var err error
		card, err = getCard(tx.Bucket([]byte(cardsBucket)), token, customerNumber)
		return err
	})
	return card, err
}

// UpdateCard changes a customer's saved card durably (change may refuse
// with an error, and nothing is written); DeleteCard is UpdateCard that
// removes it. Both return the card as it was last stored.
func (s *Store) UpdateCard(token, customerNumber string, change func(*SavedCard) error) (SavedCard, error) {
	return s.writeCard(token, customerNumber, func(b *bolt.Bucket, card *SavedCard) error {
		if err := change(card); err != nil {
			return err
		}
		return putCard(b, *card)
	})
}

// DeleteCard removes a customer's saved card durably.
func (s *Store) DeleteCard(token, customerNumber string) (SavedCard, error) {
	return s.writeCard(token, customerNumber, func(b *bolt.Bucket, _ *SavedCard) error {
		return b.Delete([]byte(token))
	})
}

// writeCard runs write on a customer's saved card, found in the cards
// bucket, in one durable write, and returns the card as write left it.
func (s *Store) writeCard(token, customerNumber string, write func(*bolt.Bucket, *SavedCard) error) (SavedCard, error) {
	var out SavedCard
	err := s.writes.do(func(tx *bolt.Tx) error {
		b := tx.Bucket([]byte(cardsBucket))
		card, err := getCard(b, token, customerNumber)
		if err != nil {
			return err
		}
		if err := write(b, &card); err != nil {
			return err
		}
		out = card
		return nil
	})
	return out, err
}

// Cards returns a customer's saved cards, oldest first.
func (s *Store) Cards(customerNumber string) ([]SavedCard, error) {
	cards := []SavedCard{}
	err := s.db.View(func(tx *bolt.Tx) error {
		return tx.Bucket([]byte(cardsBucket)).ForEach(func(_, v []byte) error {
			var c SavedCard
			if err := json.Unmarshal(v, &c); err != nil {
				return err
			}
			if c.CustomerNumber == customerNumber {
				cards = append(cards, c)
			}
			return nil
		})
	})
	if err != nil {
		return nil, err
	}
	// Ordered by id: tokens are random, so the bucket's key order is not
	// the order of saving.
	slices.SortFunc(cards, func(a, b SavedCard) int { return cmp.Compare(a.ID, b.ID) })
	return cards, nil
}

func getCard(b *bolt.Bucket, token, customerNumber string) (SavedCard, error) {
	v := b.Get([]byte(token))
	if v == nil {
		return SavedCard{}, ErrCardNotFound
	}
	var card SavedCard
	if err := json.Unmarshal(v, &card); err != nil {
		return SavedCard{}, err
	}
	if card.CustomerNumber != customerNumber {
		return SavedCard{}, ErrCardNotFound
	}
	return card, nil
}

func putCard(b *bolt.Bucket, card SavedCard) error {
	data, err := json.Marshal(card)
	if err != nil {
		return err
	}
	return b.Put([]byte(card.Token), data)
}
