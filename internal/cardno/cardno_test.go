package cardno

import "testing"

func TestDigits(t *testing.T) {
	for in, want := range map[string]string{
		"4355084355084358":      "4355084355084358",
		"4355 0843 5508 4358":   "4355084355084358",
		"4355-0843-5508-4358":   "4355084355084358",
		" 4355 0843 5508 4358 ": "4355084355084358",
	} {
		if got, ok := Digits(in); !ok || got != want {
			t.Errorf("Digits(%q) = %q, %v", in, got, ok)
		}
	}
	for _, in := range []string{"", "4355  0843", "4355 -0843", "-4355", "4355-", "4355x0843", "4355\t0843", "٤٣٥٥"} {
		if got, ok := Digits(in); ok {
			t.Errorf("Digits(%q) = %q, want refused", in, got)
		}
	}
}

func TestLuhn(t *testing.T) {
	for in, want := range map[string]bool{"4355084355084358": true, "4355084355084359": false, "79927398713": true, "0": true} {
		if Luhn(in) != want {
			t.Errorf("Luhn(%q) != %v", in, want)
		}
	}
}

func TestCheckDigit(t *testing.T) {
	// Worked by hand (the sandbox's default card, and Luhn's own example);
	// an even and an odd length, since which digit is doubled first
	// depends on it.
	for payload, want := range map[string]byte{"435508435508435": '8', "7992739871": '3', "552879000000000": '8', "": '0'} {
		if got := CheckDigit(payload); got != want {
			t.Errorf("CheckDigit(%q) = %c, want %c", payload, got, want)
		}
	}
	// Exactly one digit completes a payload.
	for _, payload := range []string{"4", "43", "435508", "4355080000000"} {
		for d := byte('0'); d <= '9'; d++ {
			if Luhn(payload+string(d)) != (d == CheckDigit(payload)) {
				t.Errorf("Luhn(%s%c) disagrees with CheckDigit(%s) = %c", payload, d, payload, CheckDigit(payload))
			}
		}
	}
}

func FuzzDigits(f *testing.F) {
	f.Add("4355 0843 5508 4358")
	f.Add("4355--0843")
	f.Fuzz(func(t *testing.T, s string) {
		d, ok := Digits(s)
		if !ok {
			return
		}
		for i := range len(d) {
			if d[i] < '0' || d[i] > '9' {
				t.Fatalf("Digits(%q) = %q holds a non-digit", s, d)
			}
		}
		// Exactly one check digit completes any digits.
		n := 0
		for c := '0'; c <= '9'; c++ {
			if Luhn(d + string(c)) {
				n++
			}
		}
		if n != 1 {
			t.Fatalf("%d check digits complete %q", n, d)
		}
	})
}
