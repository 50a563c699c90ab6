package sandbox

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"unicode/utf8"
)

// maxCustomerFieldLen bounds customer_number and the customer's name,
// email and phone a saved card carries.
const maxCustomerFieldLen = 100

// cardView is a saved card as the card endpoints answer it: the fields of
// the gateway's PHP SDK's Card model (CardMapper), in its order and with
// its types (id, merchant_id and bank_id integers, customer_number and the
// masked card_number strings), then the sandbox's card_holder_name,
// expiry_month, expiry_year, card_scheme and card_program (getpos's
// card_program of the BIN; empty for a BIN the schedule does not know).
// Times are gatewayTime's.
type cardView struct {
	ID             int64  `json:"id"`
	CardToken      string `json:"card_token"`
	CardUserKey    string `json:"card_user_key"`
	CardNumber     string `json:"card_number"`
	MerchantID     int    `json:"merchant_id"`
	CustomerNumber string `json:"customer_number"`
	CardIssuerBank string `json:"card_issuer_bank"`
	CustomerName   string `json:"customer_name"`
	CustomerEmail  string `json:"customer_email"`
	CustomerPhone  string `json:"customer_phone"`
	// BankID is the issuing bank's EFT code; null for a card the
	// sandbox's BIN table does not know.
	BankID         *int   `json:"bank_id"`
	CreatedAt      string `json:"created_at"`
	UpdatedAt      string `json:"updated_at"`
	CardHolderName string `json:"card_holder_name"`
	ExpiryMonth    string `json:"expiry_month"`
	ExpiryYear     string `json:"expiry_year"`
	CardScheme     string `json:"card_scheme"`
	CardProgram    string `json:"card_program"`
}

// MerchantID is the sandbox merchant's numeric id, as saved cards carry it.
const MerchantID = 10001

func (g *Gateway) viewOf(c SavedCard) cardView {
	v := cardView{ID: c.ID, CardToken: c.Token, CardUserKey: cardUserKey(c.CustomerNumber), CardNumber: maskCard(c.BIN, c.Last4),
		MerchantID: MerchantID, CustomerNumber: c.CustomerNumber, CustomerName: c.CustomerName, CustomerEmail: c.CustomerEmail,
		CustomerPhone: c.CustomerPhone, CreatedAt: gatewayTime(c.CreatedAt), UpdatedAt: gatewayTime(c.UpdatedAt),
		CardHolderName: c.Holder, ExpiryMonth: c.ExpiryMonth, ExpiryYear: c.ExpiryYear, CardScheme: cardScheme(c.BIN),
		CardProgram: g.opts.Schedule.BINs[c.BIN]}
	if bank, ok := g.opts.Schedule.Banks[g.opts.Schedule.BINs[c.BIN]]; ok {
		v.CardIssuerBank = bank.Name
		if id, err := strconv.Atoi(bank.ID); err == nil {
			v.BankID = &id
		}
	}
	return v
}

// cardUserKey is the opaque key the gateway gives a customer's cards (the
// same for every card of a customer): here a digest of the customer
// number, so it needs no storage and never changes.
func cardUserKey(customerNumber string) string {
	sum := sha256.Sum256([]byte("paycli-sandbox card user\x00" + customerNumber))
	return hex.EncodeToString(sum[:])
}

// cardAnswer is the answer of saveCard, editCard and deleteCard: the card
// at the top level, beside status_code (the SDK maps the whole body).
type cardAnswer struct {
	StatusCode        int    `json:"status_code"`
	StatusDescription string `json:"status_description"`
	cardView
}

// checkCustomerFields answers 1 when customer_number or the customer's
// details are too long or customer_number holds the hash separator.
func checkCustomerFields(w http.ResponseWriter, f fields) bool {
	for _, name := range []string{"customer_number", "customer_name", "customer_email", "customer_phone", "card_holder_name"} {
		if v := f.get(name); utf8.RuneCountInString(v) > maxCustomerFieldLen || strings.ContainsAny(v, "|\x00") {
			writeStatus(w, 1, fmt.Sprintf("The %s may not be longer than %d characters or contain '|'.", strings.ReplaceAll(name, "_", " "), maxCustomerFieldLen))
			return false
		}
	}
	return true
}

// saveCard serves POST /api/saveCard: a customer's card is stored under a
// new opaque card_token. Checks: fields, lengths (1), card number (1),
// expiry (1), merchant_key (14), hash_key with the savecard layout
// merchant_key|customer_number|card_holder_name|card_number|expiry_month|expiry_year
// (90, 68). Only the first six and last four digits are stored, with the
// test card's outcome (docs/sandbox.md); committed before the answer.
func (g *Gateway) saveCard(w http.ResponseWriter, r *http.Request) {
	f, ok := g.readFields(w, r)
	if !ok || !f.requireFields(w, opSaveCard.required...) ||
		!checkCustomerFields(w, f) {
		return
	}
	number := strings.ReplaceAll(f.get("card_number"), " ", "")
	if ValidateCardNumber(number) != nil {
		writeStatus(w, 1, "The card number is not a valid card number.")
		return
	}
	now := g.opts.Now()
	if _, _, msg := readExpiry(f.get("expiry_month"), f.get("expiry_year"), now); msg != "" {
		writeStatus(w, 1, msg)
		return
	}
	if !g.verifyMerchant(w, f) || !g.verifyHash(w, f, "savecard", "request", map[string]string{
		"merchant_key": g.opts.Credentials.MerchantKey, "customer_number": f.get("customer_number"),
		"card_holder_name": f.get("card_holder_name"), "card_number": f.get("card_number"),
		"expiry_month": f.get("expiry_month"), "expiry_year": f.get("expiry_year")}) {
		return
	}
	token, err := newCardToken()
	if err != nil {
		writeInternal(w, err)
		return
	}
	tc := testCard(number)
	card, err := g.opts.Store.SaveCard(SavedCard{Token: token, CustomerNumber: f.get("customer_number"),
		BIN: number[:6], Last4: number[len(number)-4:], Holder: f.get("card_holder_name"),
		ExpiryMonth: f.get("expiry_month"), ExpiryYear: f.get("expiry_year"), CustomerName: f.get("customer_name"),
		CustomerEmail: f.get("customer_email"), CustomerPhone: f.get("customer_phone"),
		Outcome: tc.Outcome, ReasonCode: tc.ReasonCode, Reason: tc.Reason, CreatedAt: now, UpdatedAt: now})
	if err != nil {
		writeInternal(w, err)
		return
	}
	writeJSON(w, http.StatusOK, cardAnswer{StatusCode: 100, StatusDescription: "Card saved successfully", cardView: g.viewOf(card)})
}

// editCard serves POST /api/editCard: a saved card's expiry, holder name
// or both change; what is not sent stays. Checks: fields, lengths (1),
// merchant_key (14), hash_key with the editcard layout
// merchant_key|customer_number|card_token (90, 68), something to change
// and the expiry (1), then a token that is not this customer's (1).
func (g *Gateway) editCard(w http.ResponseWriter, r *http.Request) {
	f, ok := g.readFields(w, r)
	if !ok || !f.requireFields(w, opEditCard.required...) ||
		!checkCustomerFields(w, f) || !g.verifyCardRequest(w, f, "editcard") {
		return
	}
	now := g.opts.Now()
	month, year := f.get("expiry_month"), f.get("expiry_year")
	newExpiry := month != "" || year != ""
	if !newExpiry && f.get("card_holder_name") == "" {
		writeStatus(w, 1, "Give the expiry month and year, the card holder name, or both.")
		return
	}
	if _, _, msg := readExpiry(month, year, now); newExpiry && msg != "" {
		writeStatus(w, 1, msg)
		return
	}
	card, err := g.opts.Store.UpdateCard(f.get("card_token"), f.get("customer_number"), func(c *SavedCard) error {
		if newExpiry {
			c.ExpiryMonth, c.ExpiryYear = month, year
		}
		if h := f.get("card_holder_name"); h != "" {
			c.Holder = h
		}
		c.UpdatedAt = now
		return nil
	})
	if !writeCardError(w, err) {
		return
	}
	writeJSON(w, http.StatusOK, cardAnswer{StatusCode: 100, StatusDescription: "Card updated successfully", cardView: g.viewOf(card)})
}

// deleteCard serves POST /api/deleteCard: the saved card is removed; its
// token pays no more. Checks as editCard's, with the deletecard layout.
func (g *Gateway) deleteCard(w http.ResponseWriter, r *http.Request) {
	f, ok := g.readFields(w, r)
	if !ok || !f.requireFields(w, opDeleteCard.required...) ||
		!checkCustomerFields(w, f) || !g.verifyCardRequest(w, f, "deletecard") {
		return
	}
	card, err := g.opts.Store.DeleteCard(f.get("card_token"), f.get("customer_number"))
	if !writeCardError(w, err) {
		return
	}
	writeJSON(w, http.StatusOK, cardAnswer{StatusCode: 100, StatusDescription: "Card deleted successfully", cardView: g.viewOf(card)})
}

// getCardTokens serves GET /api/getCardTokens (the SDK sends its fields as
// a JSON body with the GET; a query works too): the customer's saved cards
// under data, oldest first; an empty list for a customer with none.
func (g *Gateway) getCardTokens(w http.ResponseWriter, r *http.Request) {
	f, ok := g.readFields(w, r)
	if !ok || !f.requireFields(w, opGetCardTokens.required...) || !g.verifyMerchant(w, f) {
		return
	}
	cards, err := g.opts.Store.Cards(f.get("customer_number"))
	if err != nil {
		writeInternal(w, err)
		return
	}
	views := make([]cardView, 0, len(cards))
	for _, c := range cards {
		views = append(views, g.viewOf(c))
	}
	writeJSON(w, http.StatusOK, statusBody{StatusCode: 100, StatusDescription: "Success", Data: views})
}

// verifyCardRequest checks merchant_key (14) and a hash_key with the
// editcard or deletecard layout merchant_key|customer_number|card_token.
func (g *Gateway) verifyCardRequest(w http.ResponseWriter, f fields, layout string) bool {
	return g.verifyMerchant(w, f) && g.verifyHash(w, f, layout, "request", map[string]string{
		"merchant_key": g.opts.Credentials.MerchantKey, "customer_number": f.get("customer_number"), "card_token": f.get("card_token")})
}

// writeCardError answers a card store failure; it reports whether err was
// nil.
func writeCardError(w http.ResponseWriter, err error) bool {
	switch {
	case err == nil:
		return true
	case errors.Is(err, ErrCardNotFound):
		writeStatus(w, 1, "The card token is not a saved card of this customer.")
	default:
		writeInternal(w, err)
	}
	return false
}

// newCardToken makes an opaque card token: 32 random hex digits, as the
// gateway's tokens look.
func newCardToken() (string, error) {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return hex.EncodeToString(b), nil
}
