// Package wallettoken decodes wallet transient tokens: the JWTs a wallet
// button produces, which carry the amount, the currency and the tokenized
// card of a walletPay (docs/protocol.md, Wallet transient tokens).
//
// paycli only decodes these tokens, never verifies them: the signature
// belongs to the wallet provider and only the gateway can check it. Decoding
// lets paycli refuse a token that cannot succeed (malformed, expired, no
// amount) before anything is sent, show the buyer's amount and card before
// asking for confirmation, and make the hash_key, whose fields include the
// token's amount and currency.
//
// The sandbox issues such tokens with its own code on purpose (it shares
// no types with the client side); this package must stay independent of
// internal/sandbox.
package wallettoken

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/shopspring/decimal"

	"github.com/paycli/paycli/internal/money"
	"github.com/paycli/paycli/internal/strictjson"
)

// MaxLen bounds a token's length: real wallet tokens are a few hundred
// bytes, and a bound keeps hostile input cheap.
const MaxLen = 16 << 10

// Sentinels for errors.Is; every error Parse returns is an *Error matching
// exactly one of them.
var (
	// ErrMalformed: the text is not a JWT (three base64url parts whose
	// first two are JSON objects).
	ErrMalformed = errors.New("not a JWT")
	// ErrClaims: the JWT decodes but a claim is missing or unusable.
	ErrClaims = errors.New("unusable claims")
	// ErrExpired: the token's exp is not after the time it is checked at
	// (Claims.CheckExpiry).
	ErrExpired = errors.New("expired")
)

// Error says precisely what is wrong with a token, without quoting it.
type Error struct {
	// Sentinel is ErrMalformed, ErrClaims or ErrExpired.
	Sentinel error
	// Reason is a short explanation, e.g. `the amount claim "abc" is not a
	// decimal`.
	Reason string
}

func (e *Error) Error() string { return "the wallet token " + e.Reason }

// Unwrap exposes Sentinel to errors.Is.
func (e *Error) Unwrap() error { return e.Sentinel }

func malformed(format string, args ...any) error {
	return &Error{Sentinel: ErrMalformed, Reason: "is not a JWT: " + fmt.Sprintf(format, args...)}
}

func badClaim(format string, args ...any) error {
	return &Error{Sentinel: ErrClaims, Reason: fmt.Sprintf(format, args...)}
}

// Card is the tokenized card a token stands for: its first six and last
// four digits.
type Card struct {
	BIN   string
	Last4 string
}

// Masked is the card as the gateway writes a masked one, and as the
// journal records it: "435508******4358".
func (c Card) Masked() string { return c.BIN + "******" + c.Last4 }

// Claims are what a wallet token carries.
type Claims struct {
	// Amount is the amount exactly as the token writes it ("150.00"); a
	// JSON number is kept as its text. It is a positive decimal.
	Amount string
	// Currency is an ISO 4217 code of three upper-case letters.
	Currency string
	Card     Card
	// Wallet is the wallet type ("001", "012"), empty when absent. paycli
	// shows it and never sends it.
	Wallet string
	// IssuedAt and ExpiresAt are zero when the token has no iat / exp.
	IssuedAt  time.Time
	ExpiresAt time.Time
	// ID is the jti claim, empty when absent.
	ID string
}

// AmountDecimal returns the amount as a decimal.
func (c *Claims) AmountDecimal() decimal.Decimal {
	d, _ := decimal.NewFromString(c.Amount) // checked by Parse
	return d
}

// CheckExpiry returns an error matching ErrExpired when the token's exp is
// not after now. A token without exp passes: only the gateway can judge it.
func (c *Claims) CheckExpiry(now time.Time) error {
	if c.ExpiresAt.IsZero() || now.Before(c.ExpiresAt) {
		return nil
	}
	return &Error{Sentinel: ErrExpired, Reason: fmt.Sprintf("expired at %s (%s ago); get a new one from the wallet",
		c.ExpiresAt.UTC().Format(time.RFC3339), age(now.Sub(c.ExpiresAt)))}
}

// age says how long ago something was, as precisely as a person needs.
func age(d time.Duration) string {
	switch {
	case d >= 48*time.Hour:
		return fmt.Sprintf("%d days", int(d/(24*time.Hour)))
	case d >= time.Hour:
		return d.Round(time.Minute).String()
	}
	return d.Round(time.Second).String()
}

// wireClaims is the JSON form of the claims; fields are decoded one by one
// so that each problem can be named.
type wireClaims struct {
	Amount   json.RawMessage `json:"amount"`
	Currency json.RawMessage `json:"currency"`
	Card     json.RawMessage `json:"card"`
	Wallet   json.RawMessage `json:"wallet"`
	IAT      json.RawMessage `json:"iat"`
	EXP      json.RawMessage `json:"exp"`
	JTI      json.RawMessage `json:"jti"`
}

// Parse decodes a token's claims without verifying its signature. Leading
// and trailing white space is ignored. Errors are *Error values matching
// ErrMalformed or ErrClaims; expiry is checked separately (CheckExpiry).
func Parse(token string) (*Claims, error) {
	token = strings.TrimSpace(token)
	switch {
	case token == "":
		return nil, malformed("it is empty")
	case len(token) > MaxLen:
		return nil, malformed("it is longer than %d bytes", MaxLen)
	}
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return nil, malformed("want three base64url parts separated by dots, found %d", len(parts))
	}
	header, err := decodePart(parts[0])
	if err != nil {
		return nil, malformed("the header is not base64url")
	}
	if !isJSONObject(header) {
		return nil, malformed("the header is not a JSON object")
	}
	var h struct {
		Alg json.RawMessage `json:"alg"`
	}
	if err := strictjson.UnmarshalKnown(header, &h); err != nil {
		return nil, malformed("the header is not exact JSON: %v", err)
	}
	if len(h.Alg) == 0 {
		return nil, malformed("the header has no alg")
	}
	payload, err := decodePart(parts[1])
	if err != nil {
		return nil, malformed("the claims are not base64url")
	}
	if !isJSONObject(payload) {
		return nil, malformed("the claims are not a JSON object")
	}
	if _, err := decodePart(parts[2]); err != nil {
		return nil, malformed("the signature is not base64url")
	}
	// Claims are read exactly: encoding/json alone would take "AMOUNT" for
	// amount, keep the last of two amounts, and turn invalid UTF-8 into
	// U+FFFD. Claims paycli does not read (sub, iss, ...) may be present.
	var w wireClaims
	if err := strictjson.UnmarshalKnown(payload, &w); err != nil {
		return nil, badClaim("has claims that are not exact JSON: %v", err)
	}
	return w.claims()
}

func (w wireClaims) claims() (*Claims, error) {
	var c Claims
	var err error
	if c.Amount, err = amountOf(w.Amount); err != nil {
		return nil, err
	}
	if c.Currency, err = currencyOf(w.Currency); err != nil {
		return nil, err
	}
	if c.Card, err = cardOf(w.Card); err != nil {
		return nil, err
	}
	if c.Wallet, err = optionalString("wallet", w.Wallet, 16); err != nil {
		return nil, err
	}
	if c.ID, err = optionalString("jti", w.JTI, 128); err != nil {
		return nil, err
	}
	if c.IssuedAt, err = numericDate("iat", w.IAT); err != nil {
		return nil, err
	}
	if c.ExpiresAt, err = numericDate("exp", w.EXP); err != nil {
		return nil, err
	}
	return &c, nil
}

// decodePart reads one base64url part; padding is tolerated although JWTs
// should not have it.
func decodePart(s string) ([]byte, error) {
	return base64.RawURLEncoding.DecodeString(strings.TrimRight(s, "="))
}

func isJSONObject(b []byte) bool {
	b = bytes.TrimSpace(b)
	if len(b) == 0 || b[0] != '{' || !json.Valid(b) {
		return false
	}
	return true
}

func isNull(raw json.RawMessage) bool {
	return len(raw) == 0 || string(bytes.TrimSpace(raw)) == "null"
}

// amountOf reads the amount: a decimal string or a JSON number, positive.
func amountOf(raw json.RawMessage) (string, error) {
	if isNull(raw) {
		return "", badClaim("has no amount claim")
	}
	var text string
	if raw[0] == '"' {
		if err := json.Unmarshal(raw, &text); err != nil {
			return "", badClaim("has an amount claim that is not a string or a number")
		}
		text = strings.TrimSpace(text)
		if text == "" {
			return "", badClaim("has an empty amount claim")
		}
	} else {
		var n json.Number
		if err := json.Unmarshal(raw, &n); err != nil {
			return "", badClaim("has an amount claim that is not a string or a number")
		}
		text = n.String()
	}
	shown := quoteShort(text)
	var ae *money.AmountError
	if _, err := money.ParseAmount(text); errors.As(err, &ae) {
		switch _, decErr := decimal.NewFromString(text); {
		case ae.Problem == money.Negative, ae.Problem == money.Zero:
			return "", badClaim("has an amount claim %s that is not positive", shown)
		case ae.Problem == money.NotPlain && decErr != nil:
			return "", badClaim("has an amount claim %s that is not a decimal", shown)
		}
		return "", badClaim("has an amount claim %s that is not a plain decimal", shown)
	}
	return text, nil
}

func currencyOf(raw json.RawMessage) (string, error) {
	if isNull(raw) {
		return "", badClaim("has no currency claim")
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", badClaim("has a currency claim that is not a string")
	}
	if len(s) != 3 || strings.Trim(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") != "" {
		return "", badClaim("has a currency claim %s that is not a three-letter ISO 4217 code", quoteShort(s))
	}
	return s, nil
}

func cardOf(raw json.RawMessage) (Card, error) {
	if isNull(raw) {
		return Card{}, badClaim("has no card claim")
	}
	var w struct {
		BIN   json.RawMessage `json:"bin"`
		Last4 json.RawMessage `json:"last4"`
	}
	if raw[0] != '{' {
		return Card{}, badClaim("has a card claim that is not an object")
	}
	if err := strictjson.UnmarshalKnown(raw, &w); err != nil {
		return Card{}, badClaim("has a card claim that is not exact JSON: %v", err)
	}
	bin, err := digitsOf("card.bin", w.BIN, 6)
	if err != nil {
		return Card{}, err
	}
	last4, err := digitsOf("card.last4", w.Last4, 4)
	if err != nil {
		return Card{}, err
	}
	return Card{BIN: bin, Last4: last4}, nil
}

func digitsOf(name string, raw json.RawMessage, n int) (string, error) {
	if isNull(raw) {
		return "", badClaim("has no %s claim", name)
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", badClaim("has a %s claim that is not a string", name)
	}
	if len(s) != n || strings.Trim(s, "0123456789") != "" {
		return "", badClaim("has a %s claim that is not %d digits", name, n)
	}
	return s, nil
}

func optionalString(name string, raw json.RawMessage, max int) (string, error) {
	if isNull(raw) {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", badClaim("has a %s claim that is not a string", name)
	}
	if utf8.RuneCountInString(s) > max || strings.IndexFunc(s, func(r rune) bool { return r < ' ' || r == 0x7f }) >= 0 {
		return "", badClaim("has a %s claim that is too long or holds control characters", name)
	}
	return s, nil
}

// numericDate reads a JWT NumericDate: seconds since the epoch, possibly
// fractional.
func numericDate(name string, raw json.RawMessage) (time.Time, error) {
	if isNull(raw) {
		return time.Time{}, nil
	}
	var f float64
	if raw[0] == '"' || json.Unmarshal(raw, &f) != nil || math.IsNaN(f) || f < 0 || f > 1e11 {
		return time.Time{}, badClaim("has a %s claim that is not a time in seconds since 1970", name)
	}
	sec, frac := math.Modf(f)
	return time.Unix(int64(sec), int64(frac*1e9)).UTC(), nil
}

// quoteShort quotes claim text for an error, shortened: a token comes
// from outside and its claims may be anything.
func quoteShort(s string) string {
	if r := []rune(s); len(r) > 24 {
		s = string(r[:24]) + "…"
	}
	return fmt.Sprintf("%q", s)
}
