package gateway

import (
	"context"
	"errors"
	"testing"
)

func TestCommissionsRaw(t *testing.T) {
	g := newFakeGateway(t)
	// A value no decoder accepts: the raw call must still hand the body
	// back unchanged, since it does not read the data.
	body := `{"status_code":100,"status_description":"Success","data":{"1":[{"card_program":"A","merchant_commission_percentage":"?"}]}}` + "\n"
	g.handle("commissions", respond(200, body))
	c := newTestClient(t, g.URL+"/ccpayment")
	got, err := c.CommissionsRaw(context.Background(), CommissionsRequest{CurrencyCode: "TRY"})
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != body {
		t.Errorf("CommissionsRaw = %q, want the body unchanged %q", got, body)
	}

	g.handle("commissions", respond(200, `{"status_code":0,"status_description":" No Data Found"}`))
	if _, err := c.CommissionsRaw(context.Background(), CommissionsRequest{CurrencyCode: "GBP"}); !errors.Is(err, ErrNoData) {
		t.Errorf("no data: err = %v, want ErrNoData", err)
	}
	g.handle("commissions", respond(200, `{"status_code":12,"status_description":"bad currency"}`))
	var apiErr *APIError
	if _, err := c.CommissionsRaw(context.Background(), CommissionsRequest{CurrencyCode: "TRY"}); !errors.As(err, &apiErr) || apiErr.StatusCode != 12 {
		t.Errorf("rejection: err = %v, want an *APIError with status_code 12", err)
	}
}
