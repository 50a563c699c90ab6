package render

import "testing"

// One way to show each thing: an amount, a card.
func TestShownOneWay(t *testing.T) {
	for _, tt := range []struct{ got, want string }{
		{Amount("6000.00", "TRY"), "6,000.00 TRY"},
		{Amount("150.00", "TRY"), "150.00 TRY"},
		{Amount("1234567.5", "JPY"), "1,234,567.5 JPY"},
		{Amount("4500.00", ""), "4,500.00"},
		{Amount("", "TRY"), "TRY"},
		{Amount("", ""), ""},
		{Card("435508", "4358"), "435508******4358"},
		{CardOf("435508******4358"), "435508******4358"},
		{CardOf(" 4355084355084358 "), "435508******4358"},
		{CardOf("VISA"), "VISA"},
		{CardOf("card 4355084355084358\x1b[2J"), `card 435508******4358\x1b[2J`},
		{CardOf(""), ""},
		{Count(1, "invoice", "invoices"), "1 invoice"},
		{Count(0, "invoice", "invoices"), "0 invoices"},
		{Count(2, "invoice", "invoices"), "2 invoices"},
	} {
		if tt.got != tt.want {
			t.Errorf("got %q, want %q", tt.got, tt.want)
		}
	}
}
