package wallettoken

import (
	"encoding/base64"
	"errors"
	"strings"
	"testing"
	"time"
)

// jwtOf builds a token from raw header and claims JSON, unsigned.
func jwtOf(header, claims string) string {
	enc := base64.RawURLEncoding.EncodeToString
	return enc([]byte(header)) + "." + enc([]byte(claims)) + "." + enc([]byte("signature"))
}

const hdr = `{"alg":"HS256","typ":"JWT"}`

func TestParse(t *testing.T) {
	good := jwtOf(hdr, `{"amount":"150.00","currency":"TRY","card":{"bin":"435508","last4":"4358"},"wallet":"001","iat":1795860000,"exp":1795860600,"jti":"abc"}`)
	c, err := Parse("  " + good + "\n")
	if err != nil {
		t.Fatal(err)
	}
	want := Claims{Amount: "150.00", Currency: "TRY", Card: Card{BIN: "435508", Last4: "4358"}, Wallet: "001",
		IssuedAt: time.Unix(1795860000, 0).UTC(), ExpiresAt: time.Unix(1795860600, 0).UTC(), ID: "abc"}
	if *c != want {
		t.Errorf("claims %+v, want %+v", *c, want)
	}
	if c.Card.Masked() != "435508******4358" {
		t.Errorf("card shown as %q", c.Card.Masked())
	}

	// Claims paycli does not read are allowed.
	if _, err := Parse(jwtOf(hdr, `{"amount":"1.00","currency":"TRY","card":{"bin":"435508","last4":"4358","brand":"VISA"},"sub":"x","nbf":1}`)); err != nil {
		t.Errorf("extra claims: %v", err)
	}

	// A number amount keeps its text; wallet, iat, exp and jti are optional.
	c, err = Parse(jwtOf(hdr, `{"amount":99.5,"currency":"USD","card":{"bin":"552879","last4":"0001"}}`))
	if err != nil || c.Amount != "99.5" || c.Wallet != "" || !c.ExpiresAt.IsZero() {
		t.Errorf("number amount: %+v, %v", c, err)
	}
}

func TestParseErrors(t *testing.T) {
	card := `"card":{"bin":"435508","last4":"4358"}`
	tests := []struct {
		name  string
		token string
		kind  error
		msg   string
	}{
		{"empty", "  ", ErrMalformed, "the wallet token is not a JWT: it is empty"},
		{"two parts", "abc.def", ErrMalformed, "want three base64url parts separated by dots, found 2"},
		{"four parts", "a.b.c.d", ErrMalformed, "found 4"},
		{"header not base64", "!!!.e30.c2ln", ErrMalformed, "the header is not base64url"},
		{"header not JSON", base64.RawURLEncoding.EncodeToString([]byte("hello")) + ".e30.c2ln", ErrMalformed, "the header is not a JSON object"},
		{"no alg", jwtOf(`{"typ":"JWT"}`, `{}`), ErrMalformed, "the header has no alg"},
		{"claims not base64", base64.RawURLEncoding.EncodeToString([]byte(hdr)) + ".%%%.c2ln", ErrMalformed, "the claims are not base64url"},
		{"claims array", jwtOf(hdr, `[1]`), ErrMalformed, "the claims are not a JSON object"},
		{"signature not base64", jwtOf(hdr, `{}`)[:len(jwtOf(hdr, `{}`))-3] + "*", ErrMalformed, "the signature is not base64url"},
		{"too long", strings.Repeat("a", MaxLen+1), ErrMalformed, "longer than"},
		{"no amount", jwtOf(hdr, `{"currency":"TRY",`+card+`}`), ErrClaims, "the wallet token has no amount claim"},
		{"empty amount", jwtOf(hdr, `{"amount":"","currency":"TRY",`+card+`}`), ErrClaims, "has an empty amount claim"},
		{"amount text", jwtOf(hdr, `{"amount":"abc","currency":"TRY",`+card+`}`), ErrClaims, `amount claim "abc" that is not a decimal`},
		{"amount exponent", jwtOf(hdr, `{"amount":"1e3","currency":"TRY",`+card+`}`), ErrClaims, "not a plain decimal"},
		{"amount zero", jwtOf(hdr, `{"amount":"0.00","currency":"TRY",`+card+`}`), ErrClaims, `"0.00" that is not positive`},
		{"amount negative", jwtOf(hdr, `{"amount":-5,"currency":"TRY",`+card+`}`), ErrClaims, "not positive"},
		{"amount bool", jwtOf(hdr, `{"amount":true,"currency":"TRY",`+card+`}`), ErrClaims, "not a string or a number"},
		{"no currency", jwtOf(hdr, `{"amount":"1.00",`+card+`}`), ErrClaims, "has no currency claim"},
		{"bad currency", jwtOf(hdr, `{"amount":"1.00","currency":"try",`+card+`}`), ErrClaims, `currency claim "try" that is not a three-letter ISO 4217 code`},
		{"no card", jwtOf(hdr, `{"amount":"1.00","currency":"TRY"}`), ErrClaims, "has no card claim"},
		{"card string", jwtOf(hdr, `{"amount":"1.00","currency":"TRY","card":"4355084355084358"}`), ErrClaims, "card claim that is not an object"},
		{"short bin", jwtOf(hdr, `{"amount":"1.00","currency":"TRY","card":{"bin":"4355","last4":"4358"}}`), ErrClaims, "card.bin claim that is not 6 digits"},
		{"no last4", jwtOf(hdr, `{"amount":"1.00","currency":"TRY","card":{"bin":"435508"}}`), ErrClaims, "has no card.last4 claim"},
		{"wallet number", jwtOf(hdr, `{"amount":"1.00","currency":"TRY",`+card+`,"wallet":1}`), ErrClaims, "wallet claim that is not a string"},
		{"exp text", jwtOf(hdr, `{"amount":"1.00","currency":"TRY",`+card+`,"exp":"tomorrow"}`), ErrClaims, "exp claim that is not a time"},
		{"amount in capitals", jwtOf(hdr, `{"AMOUNT":"1.00","currency":"TRY",`+card+`}`), ErrClaims, `key "AMOUNT" is not "amount": key names are case-sensitive`},
		{"amount twice", jwtOf(hdr, `{"amount":"1.00","currency":"TRY",`+card+`,"amount":"999.00"}`), ErrClaims, `duplicate key "amount"`},
		{"amount twice by escape", jwtOf(hdr, `{"amount":"1.00","\u0061mount":"999.00","currency":"TRY",`+card+`}`), ErrClaims, `duplicate key "amount"`},
		{"card key twice", jwtOf(hdr, `{"amount":"1.00","currency":"TRY","card":{"bin":"435508","last4":"4358","last4":"0000"}}`), ErrClaims, `duplicate key "card.last4"`},
		{"card key in capitals", jwtOf(hdr, `{"amount":"1.00","currency":"TRY","card":{"BIN":"435508","last4":"4358"}}`), ErrClaims, `key "BIN" is not "bin"`},
		{"invalid UTF-8", jwtOf(hdr, "{\"amount\":\"1.00\",\"currency\":\"TRY\","+card+",\"jti\":\"a\xffb\"}"), ErrClaims, "invalid UTF-8"},
		{"lone surrogate", jwtOf(hdr, `{"amount":"1.00","currency":"TRY",`+card+`,"jti":"a\ud800"}`), ErrClaims, "surrogate"},
		{"header alg twice", jwtOf(`{"alg":"none","alg":"HS256"}`, `{}`), ErrMalformed, `duplicate key "alg"`},
		{"exp negative", jwtOf(hdr, `{"amount":"1.00","currency":"TRY",`+card+`,"exp":-1}`), ErrClaims, "exp claim that is not a time"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse(tt.token)
			if err == nil {
				t.Fatal("no error")
			}
			if !errors.Is(err, tt.kind) {
				t.Errorf("%v does not match %v", err, tt.kind)
			}
			var e *Error
			if !errors.As(err, &e) {
				t.Errorf("%T is not *Error", err)
			}
			if !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("message %q, want it to contain %q", err, tt.msg)
			}
		})
	}
}

func TestCheckExpiry(t *testing.T) {
	exp := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	c := &Claims{ExpiresAt: exp}
	if err := c.CheckExpiry(exp.Add(-time.Second)); err != nil {
		t.Errorf("a second before exp: %v", err)
	}
	err := c.CheckExpiry(exp.Add(5 * time.Minute))
	if !errors.Is(err, ErrExpired) || err.Error() != "the wallet token expired at 2026-11-22T10:00:00Z (5m0s ago); get a new one from the wallet" {
		t.Errorf("after exp: %v", err)
	}
	if err := c.CheckExpiry(exp); !errors.Is(err, ErrExpired) {
		t.Errorf("at exp: %v", err)
	}
	if err := (&Claims{}).CheckExpiry(exp); err != nil {
		t.Errorf("no exp: %v", err)
	}
}

// FuzzParse: Parse never panics, and what it accepts satisfies the
// contract the rest of paycli relies on.
func FuzzParse(f *testing.F) {
	f.Add(jwtOf(hdr, `{"amount":"150.00","currency":"TRY","card":{"bin":"435508","last4":"4358"},"wallet":"001","iat":1795860000,"exp":1795860600,"jti":"abc"}`))
	f.Add(jwtOf(hdr, `{"amount":1e400,"currency":"TRY","card":{"bin":"435508","last4":"4358"}}`))
	f.Add("a.b.c")
	f.Fuzz(func(t *testing.T, token string) {
		c, err := Parse(token)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || (e.Sentinel != ErrMalformed && e.Sentinel != ErrClaims) {
				t.Fatalf("error %v is not a malformed/claims *Error", err)
			}
			return
		}
		if !c.AmountDecimal().IsPositive() || len(c.Currency) != 3 || len(c.Card.BIN) != 6 || len(c.Card.Last4) != 4 {
			t.Fatalf("accepted unusable claims %+v", c)
		}
		_ = c.Card.Masked()
	})
}
