package gateway

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/paycli/paycli/internal/redact"
)

// Endpoint names of the saved-card calls, as APIError.Endpoint and
// RequestError.Endpoint show them. Their fields and hash_key layouts are
// the official PHP SDK's (RetrieveCardListRequest, CreateCardRequest,
// UpdateCardRequest, DeleteCardRequest; docs/protocol.md).
const (
	EndpointGetCardTokens = "getCardTokens"
	EndpointSaveCard      = "saveCard"
	EndpointEditCard      = "editCard"
	EndpointDeleteCard    = "deleteCard"
)

var (
	// getCardTokens is a read, sent as the SDK sends it: a GET with a JSON
	// body, so that merchant_key stays out of URLs and access logs.
	endpointGetCardTokens = endpoint{name: EndpointGetCardTokens, path: "/api/getCardTokens", auth: true, retry: true, method: http.MethodGet}
	// saveCard, editCard and deleteCard change what the gateway keeps:
	// never repeated (a repeated saveCard saves the card twice).
	endpointSaveCard   = endpoint{name: EndpointSaveCard, path: "/api/saveCard", auth: true, topLevel: true}
	endpointEditCard   = endpoint{name: EndpointEditCard, path: "/api/editCard", auth: true, topLevel: true}
	endpointDeleteCard = endpoint{name: EndpointDeleteCard, path: "/api/deleteCard", auth: true, topLevel: true}
)

// MaxCustomerNumberLen bounds a customer number; the client refuses a
// longer one before sending (the sandbox answers status_code 1).
const MaxCustomerNumberLen = 100

// SavedCard is one saved card as the gateway answers it: the SDK's Card
// model (CardMapper), and the expiry, holder and scheme where the gateway
// gives them. CardNumber is masked (first 6 and last 4 digits): the client
// masks it again, so that a gateway that wrote it whole never hands it on.
type SavedCard struct {
	ID             int64
	CardToken      string
	CardUserKey    string
	CardNumber     string
	MerchantID     int64
	CustomerNumber string
	CardIssuerBank string
	CustomerName   string
	CustomerEmail  string
	CustomerPhone  string
	// BankID is the issuer's EFT code; 0 when the gateway gives none.
	BankID         int64
	CreatedAt      string
	UpdatedAt      string
	CardHolderName string
	ExpiryMonth    string
	ExpiryYear     string
	CardScheme     string
	// CardProgram is the card's program (BONUS, WORLD…), when the answer
	// names one.
	CardProgram string
}

type savedCardWire struct {
	ID             flexInt    `json:"id"`
	CardToken      flexString `json:"card_token"`
	CardUserKey    flexString `json:"card_user_key"`
	CardNumber     flexString `json:"card_number"`
	MerchantID     flexInt    `json:"merchant_id"`
	CustomerNumber flexString `json:"customer_number"`
	CardIssuerBank flexString `json:"card_issuer_bank"`
	CustomerName   flexString `json:"customer_name"`
	CustomerEmail  flexString `json:"customer_email"`
	CustomerPhone  flexString `json:"customer_phone"`
	BankID         flexInt    `json:"bank_id"`
	CreatedAt      flexString `json:"created_at"`
	UpdatedAt      flexString `json:"updated_at"`
	CardHolderName flexString `json:"card_holder_name"`
	ExpiryMonth    flexString `json:"expiry_month"`
	ExpiryYear     flexString `json:"expiry_year"`
	CardScheme     flexString `json:"card_scheme"`
	CardProgram    flexString `json:"card_program"`
}

// UnmarshalJSON reads a card leniently (numbers or strings, as the
// family's gateways write them), masking its number.
func (s *SavedCard) UnmarshalJSON(data []byte) error {
	var w savedCardWire
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	clean := func(v flexString) string { return cleanDescription(string(v)) }
	*s = SavedCard{
		ID: int64(w.ID), CardToken: cleanIdentifier(string(w.CardToken)), CardUserKey: cleanOpaque(string(w.CardUserKey)),
		CardNumber: redact.CardField(clean(w.CardNumber)), MerchantID: int64(w.MerchantID), CustomerNumber: cleanCustomerNumber(string(w.CustomerNumber)),
		CardIssuerBank: clean(w.CardIssuerBank), CustomerName: clean(w.CustomerName), CustomerEmail: clean(w.CustomerEmail),
		CustomerPhone: clean(w.CustomerPhone), BankID: int64(w.BankID), CreatedAt: clean(w.CreatedAt), UpdatedAt: clean(w.UpdatedAt),
		CardHolderName: clean(w.CardHolderName), ExpiryMonth: clean(w.ExpiryMonth), ExpiryYear: clean(w.ExpiryYear),
		CardScheme: clean(w.CardScheme), CardProgram: clean(w.CardProgram),
	}
	return nil
}

// savedCardAnswer is the answer of saveCard, editCard and deleteCard: the
// card beside status_code, at the top level.
type savedCardAnswer struct {
	StatusDescription flexString `json:"status_description"`
	card              SavedCard
}

func (a *savedCardAnswer) UnmarshalJSON(data []byte) error {
	var top struct {
		StatusDescription flexString `json:"status_description"`
	}
	if err := json.Unmarshal(data, &top); err != nil {
		return err
	}
	a.StatusDescription = top.StatusDescription
	return json.Unmarshal(data, &a.card)
}

// SavedCardResult is the card a saveCard, editCard or deleteCard answered
// with, and the gateway's words.
type SavedCardResult struct {
	StatusDescription string
	Card              SavedCard
}

// CardTokens lists a customer's saved cards (GET /api/getCardTokens with
// merchant_key and customer_number). A read, retried like a commission
// lookup. A customer with no cards is an empty list, not an error.
func (c *Client) CardTokens(ctx context.Context, customerNumber string) ([]SavedCard, error) {
	if err := CheckCustomerNumber(customerNumber); err != nil {
		return nil, err
	}
	if err := c.RequireMerchantKey(); err != nil {
		return nil, err
	}
	body := struct {
		MerchantKey    string `json:"merchant_key"`
		CustomerNumber string `json:"customer_number"`
	}{c.creds.MerchantKey, customerNumber}
	var cards []SavedCard
	if _, err := c.call(ctx, endpointGetCardTokens, body, &cards); err != nil {
		return nil, err
	}
	if cards == nil {
		cards = []SavedCard{}
	}
	return cards, nil
}

// SaveCardRequest saves a card for a customer (POST /api/saveCard), signed
// with the savecard layout
// merchant_key|customer_number|card_holder_name|card_number|expiry_month|expiry_year.
// CardNumber is the whole number: it is only ever in the request body,
// which dry runs and logs show masked (redact.CardField).
type SaveCardRequest struct {
	CustomerNumber string
	CardHolderName string
	CardNumber     string
	ExpiryMonth    string
	ExpiryYear     string
	CustomerName   string
	CustomerEmail  string
	CustomerPhone  string
}

// The SDK's field order (CreateCardRequest::getJsonObject).
type saveCardWire struct {
	MerchantKey    string `json:"merchant_key"`
	CardHolderName string `json:"card_holder_name"`
	CardNumber     string `json:"card_number"`
	ExpiryMonth    string `json:"expiry_month"`
	ExpiryYear     string `json:"expiry_year"`
	CustomerNumber string `json:"customer_number"`
	CustomerName   string `json:"customer_name,omitempty"`
	CustomerEmail  string `json:"customer_email,omitempty"`
	CustomerPhone  string `json:"customer_phone,omitempty"`
	HashKey        string `json:"hash_key"`
}

func (r SaveCardRequest) encode(c *Client) (endpoint, []byte, error) {
	err := required("customer_number", r.CustomerNumber, "card_holder_name", r.CardHolderName, "card_number", r.CardNumber,
		"expiry_month", r.ExpiryMonth, "expiry_year", r.ExpiryYear)
	if err == nil {
		err = CheckCustomerNumber(r.CustomerNumber)
	}
	if err != nil {
		return encodeCall(endpointSaveCard, nil, err)
	}
	w := saveCardWire{MerchantKey: c.creds.MerchantKey, CardHolderName: r.CardHolderName, CardNumber: r.CardNumber,
		ExpiryMonth: r.ExpiryMonth, ExpiryYear: r.ExpiryYear, CustomerNumber: r.CustomerNumber,
		CustomerName: r.CustomerName, CustomerEmail: r.CustomerEmail, CustomerPhone: r.CustomerPhone}
	w.HashKey, err = c.hashKey("savecard", map[string]string{"customer_number": r.CustomerNumber, "card_holder_name": r.CardHolderName,
		"card_number": r.CardNumber, "expiry_month": r.ExpiryMonth, "expiry_year": r.ExpiryYear})
	return encodeCall(endpointSaveCard, w, err)
}

// EditCardRequest changes a saved card's expiry, its holder name, or both
// (POST /api/editCard), signed with the editcard layout
// merchant_key|customer_number|card_token; what is empty is not sent. The
// gateway takes nothing else: the number of a saved card cannot change.
type EditCardRequest struct {
	CustomerNumber string
	CardToken      string
	ExpiryMonth    string
	ExpiryYear     string
	CardHolderName string
}

// The SDK's field order (UpdateCardRequest::getJsonObject).
type editCardWire struct {
	CardToken      string `json:"card_token"`
	CustomerNumber string `json:"customer_number"`
	ExpiryMonth    string `json:"expiry_month,omitempty"`
	ExpiryYear     string `json:"expiry_year,omitempty"`
	CardHolderName string `json:"card_holder_name,omitempty"`
	HashKey        string `json:"hash_key"`
	MerchantKey    string `json:"merchant_key"`
}

func (r EditCardRequest) encode(c *Client) (endpoint, []byte, error) {
	err := required("customer_number", r.CustomerNumber, "card_token", r.CardToken)
	switch {
	case err != nil:
	case (r.ExpiryMonth == "") != (r.ExpiryYear == ""):
		err = invalidRequest("expiry_month and expiry_year go together: give both or neither")
	case r.ExpiryMonth == "" && r.CardHolderName == "":
		err = invalidRequest("nothing to change: give expiry_month and expiry_year, card_holder_name, or both")
	default:
		err = CheckCustomerNumber(r.CustomerNumber)
	}
	if err != nil {
		return encodeCall(endpointEditCard, nil, err)
	}
	w := editCardWire{CardToken: r.CardToken, CustomerNumber: r.CustomerNumber, ExpiryMonth: r.ExpiryMonth, ExpiryYear: r.ExpiryYear,
		CardHolderName: r.CardHolderName, MerchantKey: c.creds.MerchantKey}
	w.HashKey, err = c.hashKey("editcard", map[string]string{"customer_number": r.CustomerNumber, "card_token": r.CardToken})
	return encodeCall(endpointEditCard, w, err)
}

// DeleteCardRequest removes a saved card (POST /api/deleteCard), signed
// with the deletecard layout merchant_key|customer_number|card_token.
type DeleteCardRequest struct {
	CustomerNumber string
	CardToken      string
}

// The SDK's field order (DeleteCardRequest::getJsonObject).
type deleteCardWire struct {
	CardToken      string `json:"card_token"`
	CustomerNumber string `json:"customer_number"`
	HashKey        string `json:"hash_key"`
	MerchantKey    string `json:"merchant_key"`
}

func (r DeleteCardRequest) encode(c *Client) (endpoint, []byte, error) {
	err := required("customer_number", r.CustomerNumber, "card_token", r.CardToken)
	if err == nil {
		err = CheckCustomerNumber(r.CustomerNumber)
	}
	if err != nil {
		return encodeCall(endpointDeleteCard, nil, err)
	}
	w := deleteCardWire{CardToken: r.CardToken, CustomerNumber: r.CustomerNumber, MerchantKey: c.creds.MerchantKey}
	w.HashKey, err = c.hashKey("deletecard", map[string]string{"customer_number": r.CustomerNumber, "card_token": r.CardToken})
	return encodeCall(endpointDeleteCard, w, err)
}

// SaveCard saves a card; it is never repeated. The answer's card carries
// its new card_token.
func (c *Client) SaveCard(ctx context.Context, req SaveCardRequest) (*SavedCardResult, error) {
	return c.cardCall(ctx, req)
}

// EditCard changes a saved card; it is never repeated.
func (c *Client) EditCard(ctx context.Context, req EditCardRequest) (*SavedCardResult, error) {
	return c.cardCall(ctx, req)
}

// DeleteCard removes a saved card; it is never repeated. A token that is
// not a saved card of the customer (unknown, already deleted) is the
// gateway's refusal, an *APIError with its status_code and text.
func (c *Client) DeleteCard(ctx context.Context, req DeleteCardRequest) (*SavedCardResult, error) {
	return c.cardCall(ctx, req)
}

func (c *Client) cardCall(ctx context.Context, call Call) (*SavedCardResult, error) {
	var out savedCardAnswer
	if _, err := c.sendCall(ctx, call, &out); err != nil {
		return nil, err
	}
	return &SavedCardResult{StatusDescription: cleanDescription(string(out.StatusDescription)), Card: out.card}, nil
}

// CheckCustomerNumber refuses a customer number the gateway cannot take:
// empty, longer than MaxCustomerNumberLen, or holding '|' (the hash_key
// separator) or a control character.
func CheckCustomerNumber(s string) error {
	switch {
	case s == "":
		return invalidRequest("customer_number is empty")
	case utf8.RuneCountInString(s) > MaxCustomerNumberLen:
		return invalidRequest("customer_number is longer than %d characters", MaxCustomerNumberLen)
	case !utf8.ValidString(s) || strings.ContainsFunc(s, func(r rune) bool { return r == '|' || r < 0x20 || r == 0x7f }):
		return invalidRequest("customer_number holds '|' or a control character")
	}
	return nil
}

// cleanCustomerNumber is a customer number as an answer wrote it, trimmed;
// "" when it is not one the client would send (CheckCustomerNumber).
func cleanCustomerNumber(s string) string {
	s = strings.TrimSpace(s)
	if CheckCustomerNumber(s) != nil {
		return ""
	}
	return s
}

// cleanOpaque is an opaque key as an answer wrote it (the SDK's test shows
// a card_user_key of 86 characters with punctuation); "" when it holds a
// blank or a control character, or is longer than any key should be.
func cleanOpaque(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > 256 || strings.IndexFunc(s, func(r rune) bool { return unicode.IsControl(r) || unicode.IsSpace(r) }) >= 0 {
		return ""
	}
	return s
}
