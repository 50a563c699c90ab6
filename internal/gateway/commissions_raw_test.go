package gateway

import (
	"context"
	"errors"
	"strings"
	"testing"
)

func TestCommissionsRaw(t *testing.T) {
	g := newGateway(t)
	// A value no decoder accepts: the raw call must still hand the body
	// back unchanged, since it does not read the data.
	body := `{"status_code":100,"status_description":"Success","data":{"1":[{"card_program":"A","merchant_commission_percentage":"?"}]}}` + "\n"
	answerText(g, "commissions", 200, body)
	c := newTestClient(t, g.URL+"/ccpayment")
	got, err := c.CommissionsRaw(context.Background(), CommissionsRequest{CurrencyCode: "TRY"})
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != body {
		t.Errorf("CommissionsRaw = %q, want the body unchanged %q", got, body)
	}

	answerText(g, "commissions", 200, `{"status_code":0,"status_description":" No Data Found"}`)
	if _, err := c.CommissionsRaw(context.Background(), CommissionsRequest{CurrencyCode: "GBP"}); !errors.Is(err, ErrNoData) {
		t.Errorf("no data: err = %v, want ErrNoData", err)
	}
	answerText(g, "commissions", 200, `{"status_code":12,"status_description":"bad currency"}`)
	var apiErr *APIError
	if _, err := c.CommissionsRaw(context.Background(), CommissionsRequest{CurrencyCode: "TRY"}); !errors.As(err, &apiErr) || apiErr.StatusCode != 12 {
		t.Errorf("rejection: err = %v, want an *APIError with status_code 12", err)
	}
}

// A success answer is decoded with its data; one whose data the schedule
// refuses is a bad response that keeps the schedule's own error, so the
// command can say which entry and field.
func TestCommissionsDataErrorNamesTheEntry(t *testing.T) {
	g := newGateway(t)
	c := newTestClient(t, g.URL+"/ccpayment")

	answerText(g, "commissions", 200, `{"status_code":100,"status_description":"Success","data":{"2":[{"card_program":"A","merchant_commission_percentage":"1.5"}]}}`)
	com, err := c.Commissions(context.Background(), CommissionsRequest{CurrencyCode: "TRY"})
	if err != nil {
		t.Fatal(err)
	}
	if len(com.Schedule[2]) != 1 || com.Schedule[2][0].CardProgram != "A" || com.Description != "Success" {
		t.Errorf("Commissions = %+v", com)
	}

	answerText(g, "commissions", 200, `{"status_code":100,"data":{"4":[{"card_program":"Bonus","merchant_commission_percentage":"1,75"}]}}`)
	_, err = c.Commissions(context.Background(), CommissionsRequest{CurrencyCode: "TRY"})
	var apiErr *APIError
	if !errors.As(err, &apiErr) || apiErr.DataErr == nil || !strings.Contains(apiErr.DataErr.Error(), `installment 4, program "Bonus", field merchant_commission_percentage`) {
		t.Fatalf("err = %v, want an *APIError whose DataErr names the entry", err)
	}
	if !errors.Is(err, ErrUnreadable) || errors.Is(err, ErrUnavailable) {
		t.Errorf("err = %v, want it to stay an unreadable answer (ErrUnreadable), not an unreachable gateway", err)
	}
}
