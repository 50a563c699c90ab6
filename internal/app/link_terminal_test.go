//go:build unix

package app_test

import (
	"regexp"
	"strings"
	"testing"
)

// TestLinkQRCodeOnAnEightyColumnTerminal: `paycli link create` on a
// terminal of 80 columns prints the link, then its QR code in half blocks
// within the width, and how to follow the link up; piped,
// stdout is the link alone.
func TestLinkQRCodeOnAnEightyColumnTerminal(t *testing.T) {
	d := newDesk(t)
	args := []string{"link", "create", "--sandbox", "--amount", "150", "--currency", "TRY", "--name", "Ayşe", "--surname", "Yılmaz",
		"--return-url", "https://shop.example/thanks", "--yes"}
	out := d.onTerminal(0, append(args, "QR-1")...)
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	link := regexp.MustCompile(`^http://127\.0\.0\.1:[0-9]+/ccpayment/__sandbox/link/[0-9a-f]+$`)
	if !link.MatchString(lines[0]) || len(lines) < 15 {
		t.Fatalf("terminal:\n%s", out)
	}
	for _, l := range lines[1 : len(lines)-1] {
		if strings.Trim(l, " ▀▄█") != "" {
			t.Fatalf("QR line %q:\n%s", l, out)
		}
	}
	if last := lines[len(lines)-1]; last != "Follow it up: paycli status --invoice QR-1 --sandbox" {
		t.Errorf("last line %q", last)
	}
	if w, line := widest(out); w > terminalColumns {
		t.Errorf("a line of %d columns: %q", w, line)
	}
	if piped := d.piped(append(args, "QR-2")...); !link.MatchString(strings.TrimSuffix(piped, "\n")) {
		t.Errorf("piped stdout %q: want the link alone", piped)
	}
}
