package sandbox

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/shopspring/decimal"

	"github.com/paycli/paycli/internal/cardno"
	"github.com/paycli/paycli/internal/money"
)

// The sandbox's fixed credentials. They are published on purpose (docs/sandbox.md,
// `paycli sandbox credentials`): the sandbox moves no money, and fixed values
// let tokens, hash_keys and scripts work against any sandbox instance.
const (
	AppID       = "5f8e2c1a9b7d4e3f6a0c8b2d4e6f1a3c"
	AppSecret   = "9c4b2e7f1a6d3c8e5b0f2a4d6c8e1b3f"
	MerchantKey = "$2y$10$pAyCl1sAnDb0xMeRcHaNtkEy.sBx7Qm2Lw9Zt4Rv8Kp3Nd6Hj1Fe"

	// BearerSigningKey signs the bearer tokens of POST /api/token (HS256).
	// Tokens are checked by signature and expiry alone, so they stay valid
	// across restarts and between every sandbox on the machine.
	BearerSigningKey = "paycli-sandbox-bearer-signing-key-v1"
	// WalletSigningKey signs wallet transient tokens (HS256); it stands in
	// for the wallet provider's key.
	WalletSigningKey = "paycli-sandbox-wallet-signing-key-v1"
)

// DefaultTokenTTL is the lifetime of a bearer token, as on the gateway.
const DefaultTokenTTL = 2 * time.Hour

// ExpiresAtLayout is the gateway's form of expires_at, without a zone.
const ExpiresAtLayout = "2006-01-02 15:04:05"

// gatewayTime writes a moment as every answer of the sandbox writes one
// (expires_at, created_at, updated_at, refund dates): the gateway's local
// time without a zone, "2026-11-22 19:35:03" (docs/sandbox.md, Times).
func gatewayTime(t time.Time) string { return t.In(money.GatewayZone()).Format(ExpiresAtLayout) }

// bearerClaims are the claims of a sandbox bearer token.
type bearerClaims struct {
	jwt.RegisteredClaims
}

// Credentials are an app's credentials at the sandbox.
type Credentials struct {
	AppID       string
	AppSecret   string
	MerchantKey string
}

// DefaultCredentials are the sandbox's fixed, published credentials.
func DefaultCredentials() Credentials {
	return Credentials{AppID: AppID, AppSecret: AppSecret, MerchantKey: MerchantKey}
}

// issueBearer signs a bearer token for app appID, valid from now for ttl.
func issueBearer(appID string, now time.Time, ttl time.Duration, jti string) (token string, expires time.Time, err error) {
	expires = now.Add(ttl).Truncate(time.Second)
	claims := bearerClaims{jwt.RegisteredClaims{
		Issuer:    "paycli-sandbox",
		Subject:   appID,
		IssuedAt:  jwt.NewNumericDate(now),
		ExpiresAt: jwt.NewNumericDate(expires),
		ID:        jti,
	}}
	token, err = jwt.NewWithClaims(jwt.SigningMethodHS256, claims).SignedString([]byte(BearerSigningKey))
	return token, expires, err
}

// verifyBearer checks a bearer token's signature, subject (appID) and
// expiry at now.
func verifyBearer(token, appID string, now time.Time) error {
	_, err := bearerExpiry(token, appID, now)
	return err
}

// bearerExpiry checks a bearer token like verifyBearer and returns its
// expiry: the token is valid at any t with t.Before(expiry).
func bearerExpiry(token, appID string, now time.Time) (time.Time, error) {
	var claims bearerClaims
	_, err := jwt.ParseWithClaims(token, &claims, func(*jwt.Token) (any, error) {
		return []byte(BearerSigningKey), nil
	}, jwt.WithValidMethods([]string{"HS256"}), jwt.WithTimeFunc(func() time.Time { return now }),
		jwt.WithExpirationRequired(), jwt.WithSubject(appID))
	if err != nil {
		return time.Time{}, err
	}
	return claims.ExpiresAt.Time, nil
}

// WalletCard is the tokenized card a wallet token carries.
type WalletCard struct {
	BIN   string `json:"bin"`
	Last4 string `json:"last4"`
}

// WalletClaims are the claims of a wallet transient token
// (docs/protocol.md, Wallet transient tokens).
type WalletClaims struct {
	// Amount is a decimal string; a JSON number is accepted when reading.
	Amount   WalletAmount `json:"amount"`
	Currency string       `json:"currency"`
	Card     WalletCard   `json:"card"`
	// Wallet is the wallet type: "001" (a device-vendor wallet) or "012".
	Wallet string `json:"wallet"`
	jwt.RegisteredClaims
}

// WalletAmount is a decimal amount written as a string, read from a string
// or a number.
type WalletAmount string

// UnmarshalJSON accepts "150.00" and 150.00.
func (a *WalletAmount) UnmarshalJSON(b []byte) error {
	s := string(b)
	if unq, err := strconv.Unquote(s); err == nil {
		s = unq
	}
	if _, err := decimal.NewFromString(s); err != nil {
		return fmt.Errorf("amount %s is not a decimal", b)
	}
	*a = WalletAmount(s)
	return nil
}

// Wallet types a wallet token may carry: 001 is a device-vendor wallet,
// 012 another wallet.
const (
	WalletDeviceVendor = "001"
	WalletOther        = "012"
)

// WalletRequest describes a wallet token to issue.
type WalletRequest struct {
	Amount     decimal.Decimal
	Currency   string
	CardNumber string
	Wallet     string
	TTL        time.Duration
}

// DefaultWalletCard is the card number used when none is given (an AXESS
// card in the sandbox's BIN table).
const DefaultWalletCard = "4355084355084358"

// IssueWalletToken signs a wallet transient token, as the wallet button of
// a real checkout would produce it. jti should be unique.
func IssueWalletToken(req WalletRequest, now time.Time, jti string) (string, error) {
	if err := ValidateCardNumber(req.CardNumber); err != nil {
		return "", err
	}
	if !isUpperAlpha(req.Currency, 3) {
		return "", fmt.Errorf("currency %q is not a three-letter code", req.Currency)
	}
	if req.Wallet != WalletDeviceVendor && req.Wallet != WalletOther {
		return "", fmt.Errorf("wallet %q is not one of %s, %s", req.Wallet, WalletDeviceVendor, WalletOther)
	}
	if !req.Amount.IsPositive() {
		return "", errors.New("amount must be positive")
	}
	if req.TTL <= 0 {
		return "", errors.New("ttl must be positive")
	}
	claims := WalletClaims{
		Amount:   WalletAmount(req.Amount.StringFixed(2)),
		Currency: req.Currency,
		Card:     WalletCard{BIN: req.CardNumber[:6], Last4: req.CardNumber[len(req.CardNumber)-4:]},
		Wallet:   req.Wallet,
		RegisteredClaims: jwt.RegisteredClaims{
			Issuer:    "paycli-sandbox-wallet",
			IssuedAt:  jwt.NewNumericDate(now),
			ExpiresAt: jwt.NewNumericDate(now.Add(req.TTL)),
			ID:        jti,
		},
	}
	return jwt.NewWithClaims(jwt.SigningMethodHS256, claims).SignedString([]byte(WalletSigningKey))
}

// NewTokenID returns a random token id (jti).
func NewTokenID() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// ValidateCardNumber accepts 12 to 19 digits passing the Luhn check.
func ValidateCardNumber(n string) error {
	if len(n) < 12 || len(n) > 19 {
		return fmt.Errorf("card number must have 12 to 19 digits, not %d", len(n))
	}
	if strings.Trim(n, "0123456789") != "" {
		return errors.New("card number may hold only digits")
	}
	if !cardno.Luhn(n) {
		return errors.New("card number fails the Luhn check")
	}
	return nil
}

// readWalletToken reads a wallet token's claims and checks its signature
// and expiry at now, in one parse. err is set when the claims cannot be
// read at all; a bad signature or an expired token is reported apart, in
// invalid, because walletPay checks the hash_key and the invoice (which need
// the claims) before it reports an invalid token.
func readWalletToken(token string, now time.Time) (claims *WalletClaims, invalid, err error) {
	var c WalletClaims
	_, perr := jwt.ParseWithClaims(token, &c, func(*jwt.Token) (any, error) {
		return []byte(WalletSigningKey), nil
	}, jwt.WithValidMethods([]string{"HS256"}), jwt.WithTimeFunc(func() time.Time { return now }),
		jwt.WithExpirationRequired())
	// The parser decodes the claims before it checks anything; these two
	// errors come from decoding (bad segments, base64 or JSON; an unknown
	// alg), and then the claims are not there.
	if errors.Is(perr, jwt.ErrTokenMalformed) || errors.Is(perr, jwt.ErrTokenUnverifiable) {
		return nil, nil, perr
	}
	if err := c.check(); err != nil {
		return nil, nil, err
	}
	return &c, perr, nil
}

func (c *WalletClaims) check() error {
	switch {
	case c.Amount == "":
		return errors.New("no amount")
	case c.Currency == "":
		return errors.New("no currency")
	case len(c.Card.BIN) != 6 || len(c.Card.Last4) != 4:
		return errors.New("no card")
	}
	return nil
}

func isUpperAlpha(s string, n int) bool {
	if len(s) != n {
		return false
	}
	for _, r := range s {
		if r < 'A' || r > 'Z' {
			return false
		}
	}
	return true
}
