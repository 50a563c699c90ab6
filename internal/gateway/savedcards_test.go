package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/paycli/paycli/internal/hashkey"
)

// TestCardTokensReadsTheSDKsList: getCardTokens goes out as the SDK sends
// it (a GET whose JSON body names merchant_key and customer_number), and
// its answer (testdata/recorded/card_tokens.json) is read field by field,
// in either JSON type.
func TestCardTokensReadsTheSDKsList(t *testing.T) {
	g := newGateway(t)
	answerFile(g, "getCardTokens", 200, "testdata/recorded/card_tokens.json")
	c := newTestClient(t, g.URL+"/ccpayment")
	cards, err := c.CardTokens(context.Background(), "C-7007")
	if err != nil {
		t.Fatal(err)
	}
	r := g.Last(api("getCardTokens"))
	if r.Method != http.MethodGet || r.Fields["merchant_key"] != testMerchantKey || r.Fields["customer_number"] != "C-7007" || r.Query != "" {
		t.Errorf("request: %s %q query %q", r.Method, r.Raw, r.Query)
	}
	if len(cards) != 2 {
		t.Fatalf("%d cards", len(cards))
	}
	first, second := cards[0], cards[1]
	if first.ID != 1418 || first.CardToken != "0f1e2d3c4b5a69788796a5b4c3d2e1f0" || first.CardNumber != "450803****4509" ||
		first.MerchantID != 10001 || first.CustomerNumber != "C-7007" || first.CardIssuerBank != "T. IS BANKASI A.S." ||
		first.BankID != 64 || first.CreatedAt != "2026-01-10T15:44:02.000000Z" || len(first.CardUserKey) != 86 {
		t.Errorf("first card: %+v", first)
	}
	if second.ID != 1419 || second.MerchantID != 10001 || second.CustomerNumber != "7007" || second.BankID != 0 || second.CardNumber != "540061****0008" {
		t.Errorf("second card: %+v", second)
	}
}

// TestCardTokensMasksAWholeNumber: a gateway that wrote a card number
// whole never hands it on.
func TestCardTokensMasksAWholeNumber(t *testing.T) {
	g := newGateway(t)
	answerText(g, "getCardTokens", 200, `{"status_code":100,"data":[{"id":1,"card_token":"t1","card_number":"`+testCard+`"}]}`)
	c := newTestClient(t, g.URL+"/ccpayment")
	cards, err := c.CardTokens(context.Background(), "C-1")
	if err != nil {
		t.Fatal(err)
	}
	if len(cards) != 1 || cards[0].CardNumber != "435508******4358" {
		t.Errorf("%+v", cards)
	}
}

// TestCardTokensEmpty: a customer without cards is an empty list.
func TestCardTokensEmpty(t *testing.T) {
	g := newGateway(t)
	answerText(g, "getCardTokens", 200, `{"status_code":100,"status_description":"Success","data":[]}`)
	c := newTestClient(t, g.URL+"/ccpayment")
	cards, err := c.CardTokens(context.Background(), "C-1")
	if err != nil || cards == nil || len(cards) != 0 {
		t.Errorf("%v, %v", cards, err)
	}
}

// TestCardCallsAreSigned: saveCard, editCard and deleteCard carry the
// SDK's fields, in its order, and a hash_key of the SDK's layout.
func TestCardCallsAreSigned(t *testing.T) {
	g := newGateway(t)
	for _, name := range []string{"saveCard", "editCard", "deleteCard"} {
		answerFile(g, name, 200, "testdata/recorded/card_deleted.json")
	}
	c := newTestClient(t, g.URL+"/ccpayment")
	ctx := context.Background()
	cases := []struct {
		name   string
		call   func() (*SavedCardResult, error)
		order  []string
		plain  string
		absent string
	}{
		{"saveCard", func() (*SavedCardResult, error) {
			return c.SaveCard(ctx, SaveCardRequest{CustomerNumber: "C-7007", CardHolderName: "Ada Lovelace", CardNumber: testCard, ExpiryMonth: "12", ExpiryYear: "2030"})
		}, []string{"merchant_key", "card_holder_name", "card_number", "expiry_month", "expiry_year", "customer_number", "hash_key"},
			testMerchantKey + "|C-7007|Ada Lovelace|" + testCard + "|12|2030", "customer_name"},
		{"editCard", func() (*SavedCardResult, error) {
			return c.EditCard(ctx, EditCardRequest{CustomerNumber: "C-7007", CardToken: "tok1", ExpiryMonth: "01", ExpiryYear: "2031"})
		}, []string{"card_token", "customer_number", "expiry_month", "expiry_year", "hash_key", "merchant_key"},
			testMerchantKey + "|C-7007|tok1", "card_holder_name"},
		{"deleteCard", func() (*SavedCardResult, error) {
			return c.DeleteCard(ctx, DeleteCardRequest{CustomerNumber: "C-7007", CardToken: "tok1"})
		}, []string{"card_token", "customer_number", "hash_key", "merchant_key"},
			testMerchantKey + "|C-7007|tok1", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res, err := tc.call()
			if err != nil {
				t.Fatal(err)
			}
			if res.Card.CardToken != "0f1e2d3c4b5a69788796a5b4c3d2e1f0" || res.StatusDescription != "Card deleted successfully" || res.Card.CardNumber != "450803******4509" {
				t.Errorf("%+v", res)
			}
			r := g.Last(api(tc.name))
			if r.Method != http.MethodPost {
				t.Errorf("method %s", r.Method)
			}
			pos := -1
			for _, key := range tc.order {
				i := strings.Index(r.Raw, `"`+key+`"`)
				if i < pos {
					t.Errorf("%s out of the SDK's order in %s", key, r.Raw)
				}
				pos = i
			}
			if tc.absent != "" && strings.Contains(r.Raw, tc.absent) {
				t.Errorf("empty %s sent: %s", tc.absent, r.Raw)
			}
			plain, err := hashkey.Decrypt(testAppSecret, r.Fields["hash_key"].(string))
			if err != nil || plain != tc.plain {
				t.Errorf("hash_key plaintext %q, %v; want %q", plain, err, tc.plain)
			}
		})
	}
}

// TestDeleteCardRefused: a token the gateway does not hold for the
// customer is its refusal, with its status_code and text; it is not
// repeated.
func TestDeleteCardRefused(t *testing.T) {
	g := newGateway(t)
	answerFile(g, "deleteCard", 200, "testdata/recorded/card_not_found.json")
	c := newTestClient(t, g.URL+"/ccpayment")
	_, err := c.DeleteCard(context.Background(), DeleteCardRequest{CustomerNumber: "C-1", CardToken: "gone"})
	var apiErr *APIError
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 1 || apiErr.Description != "The card token is not a saved card of this customer." || apiErr.Sentinel() != nil {
		t.Fatalf("%v", err)
	}
	if g.Count(api("deleteCard")) != 1 {
		t.Errorf("deleteCard sent %d times", g.Count(api("deleteCard")))
	}
}

// TestDeleteCardNotRepeated: a deletion cut off after it was sent is not
// sent again, however the retry policy reads it.
func TestDeleteCardNotRepeated(t *testing.T) {
	g := newGateway(t)
	answerText(g, "deleteCard", 503, `{}`)
	c := newTestClient(t, g.URL+"/ccpayment")
	if _, err := c.DeleteCard(context.Background(), DeleteCardRequest{CustomerNumber: "C-1", CardToken: "t"}); err == nil {
		t.Fatal("no error")
	}
	if g.Count(api("deleteCard")) != 1 {
		t.Errorf("deleteCard sent %d times", g.Count(api("deleteCard")))
	}
}

// TestCardCallsRefuseABadCustomerNumber: nothing is sent for a customer
// number the gateway cannot take.
func TestCardCallsRefuseABadCustomerNumber(t *testing.T) {
	g := newGateway(t)
	c := newTestClient(t, g.URL+"/ccpayment")
	for _, bad := range []string{"", "a|b", "a\nb", strings.Repeat("9", MaxCustomerNumberLen+1)} {
		if _, err := c.CardTokens(context.Background(), bad); !errors.Is(err, ErrInvalidRequest) {
			t.Errorf("CardTokens(%q): %v", bad, err)
		}
		if _, err := c.DeleteCard(context.Background(), DeleteCardRequest{CustomerNumber: bad, CardToken: "t"}); !errors.Is(err, ErrInvalidRequest) {
			t.Errorf("DeleteCard(%q): %v", bad, err)
		}
	}
	if g.Count(api("getCardTokens"))+g.Count(api("deleteCard")) != 0 {
		t.Error("sent")
	}
}

// FuzzSavedCard: any answer decodes without panicking, and a card number
// never comes out with more than its first 6 and last 4 digits.
func FuzzSavedCard(f *testing.F) {
	f.Add([]byte(`{"id":1,"card_number":"4355084355084358","bank_id":null}`))
	f.Add([]byte(`{"id":"x"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var c SavedCard
		if c.UnmarshalJSON(data) != nil {
			return
		}
		digits := 0
		for _, r := range c.CardNumber {
			if r >= '0' && r <= '9' {
				digits++
			} else {
				digits = 0
			}
			if digits > 6 {
				t.Fatalf("card number %q shows a run of more than 6 digits", c.CardNumber)
			}
		}
	})
}

// TestCardAnswerMasksItsText: a card call's answer whose text quotes a
// card number is handed on masked (the journal keeps that text).
func TestCardAnswerMasksItsText(t *testing.T) {
	g := newGateway(t)
	answerText(g, "deleteCard", 200, `{"status_code":100,"status_description":"Card `+testCard+` deleted","card_number":"`+testCard+`"}`)
	c := newTestClient(t, g.URL+"/ccpayment")
	res, err := c.DeleteCard(context.Background(), DeleteCardRequest{CustomerNumber: "C-1", CardToken: "t"})
	if err != nil {
		t.Fatal(err)
	}
	if res.StatusDescription != "Card 435508******4358 deleted" || res.Card.CardNumber != "435508******4358" {
		t.Errorf("%+v", res)
	}
}

// TestEditCardSendsWhatItHas: an editCard of the holder's name alone
// carries no expiry fields (issue 43, part 2, item 9); a month without its
// year, or nothing to change, is refused before anything is sent.
func TestEditCardSendsWhatItHas(t *testing.T) {
	c := newTestClient(t, "http://127.0.0.1:1/ccpayment")
	_, body, err := EditCardRequest{CustomerNumber: "5070", CardToken: "tok1", CardHolderName: "Ada King"}.encode(c)
	if err != nil {
		t.Fatal(err)
	}
	var sent map[string]any
	if err := json.Unmarshal(body, &sent); err != nil {
		t.Fatal(err)
	}
	if _, ok := sent["expiry_month"]; ok || sent["card_holder_name"] != "Ada King" {
		t.Errorf("holder alone sent %s", body)
	}
	if _, ok := sent["expiry_year"]; ok {
		t.Errorf("holder alone sent %s", body)
	}
	for _, bad := range []EditCardRequest{
		{CustomerNumber: "5070", CardToken: "tok1"},
		{CustomerNumber: "5070", CardToken: "tok1", ExpiryMonth: "01"},
		{CustomerNumber: "5070", CardToken: "tok1", ExpiryYear: "2031", CardHolderName: "Ada"},
	} {
		if _, _, err := bad.encode(c); !errors.Is(err, ErrInvalidRequest) {
			t.Errorf("%+v: %v", bad, err)
		}
	}
}
