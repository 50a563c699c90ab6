package sandbox

import (
	"encoding/base64"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// TestReadWalletToken: one parse tells apart a token that cannot be read
// (err), one that reads but is forged or expired (invalid, with its claims
// for the hash_key check) and a good one.
func TestReadWalletToken(t *testing.T) {
	now := testStart
	good, err := IssueWalletToken(WalletRequest{Amount: decimalOf("150.00"), Currency: "TRY", CardNumber: DefaultWalletCard,
		Wallet: WalletDeviceVendor, TTL: time.Minute}, now, "jti")
	if err != nil {
		t.Fatal(err)
	}
	claims := WalletClaims{Amount: "150.00", Currency: "TRY", Card: WalletCard{BIN: "435508", Last4: "4358"}, Wallet: "001",
		RegisteredClaims: jwt.RegisteredClaims{ExpiresAt: jwt.NewNumericDate(now.Add(time.Minute))}}
	forged, _ := jwt.NewWithClaims(jwt.SigningMethodHS256, claims).SignedString([]byte("not the wallet key"))
	hs512, _ := jwt.NewWithClaims(jwt.SigningMethodHS512, claims).SignedString([]byte(WalletSigningKey))
	noCard := claims
	noCard.Card = WalletCard{}
	withoutCard, _ := jwt.NewWithClaims(jwt.SigningMethodHS256, noCard).SignedString([]byte(WalletSigningKey))
	unknownAlg := base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"XX99","typ":"JWT"}`)) + good[strings.Index(good, "."):]

	tests := []struct {
		name        string
		token       string
		at          time.Time
		wantErr     bool
		wantInvalid error
	}{
		{"good", good, now, false, nil},
		{"expired", good, now.Add(time.Minute), false, jwt.ErrTokenExpired},
		{"forged", forged, now, false, jwt.ErrTokenSignatureInvalid},
		{"another algorithm", hs512, now, false, jwt.ErrTokenSignatureInvalid},
		{"not a JWT", "not-a-token", now, true, nil},
		{"bad base64", "a.b.c", now, true, nil},
		{"unknown alg", unknownAlg, now, true, nil},
		{"no card", withoutCard, now, true, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, invalid, err := readWalletToken(tt.token, tt.at)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, want error %v", err, tt.wantErr)
			}
			if tt.wantErr {
				if c != nil || invalid != nil {
					t.Errorf("unreadable token gave claims %+v, invalid %v", c, invalid)
				}
				return
			}
			if c == nil || c.Amount != "150.00" || c.Currency != "TRY" || c.Card.BIN != "435508" {
				t.Errorf("claims %+v", c)
			}
			if (tt.wantInvalid == nil) != (invalid == nil) || (tt.wantInvalid != nil && !errors.Is(invalid, tt.wantInvalid)) {
				t.Errorf("invalid = %v, want %v", invalid, tt.wantInvalid)
			}
		})
	}
}
