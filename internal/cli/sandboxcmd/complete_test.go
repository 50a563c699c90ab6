package sandboxcmd

import (
	"strings"
	"testing"

	"github.com/paycli/paycli/internal/sandbox"
)

// TestCompleteCard checks every offered card passes the sandbox's own check
// and lands in the program its description names.
func TestCompleteCard(t *testing.T) {
	s, err := sandbox.DefaultSchedule()
	if err != nil {
		t.Fatal(err)
	}
	cards, _ := completeCard(nil, nil, "")
	if len(cards) != len(s.BINs) {
		t.Fatalf("%d cards offered for %d BINs", len(cards), len(s.BINs))
	}
	for _, c := range cards {
		number, program, _ := strings.Cut(c, "\t")
		if err := sandbox.ValidateCardNumber(number); err != nil {
			t.Errorf("%s: %v", number, err)
		}
		if got := s.BINs[number[:6]]; got != program {
			t.Errorf("%s is described as %s, its BIN is %s's", number, program, got)
		}
	}
}

func TestTestCardNumber(t *testing.T) {
	// Worked by hand; the last is the sandbox's default card, whose first
	// 15 digits must give back its own check digit.
	for _, tt := range []struct{ bin, want string }{
		{"435508", "4355080000000005"},
		{"552879", "5528790000000008"},
		{"435508435508435", "4355084355084358"},
	} {
		if got := testCardNumber(tt.bin); got != tt.want {
			t.Errorf("testCardNumber(%s) = %s, want %s", tt.bin, got, tt.want)
		}
	}
}
