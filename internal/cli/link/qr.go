package link

import (
	"fmt"
	"io"
	"strings"

	qrcode "github.com/skip2/go-qrcode"
)

// WriteQR writes a QR code of text in half-block characters, two rows of
// modules to a line, with its quiet zone: light modules are drawn (a block
// is lit on a terminal's dark background) and dark ones left blank, as
// `qrencode -t UTF8` draws them. A code wider than width columns is not
// drawn; a line says so instead.
func WriteQR(w io.Writer, text string, width int) error {
	code, err := qrcode.New(text, qrcode.Medium)
	if err != nil {
		return fmt.Errorf("QR code: %w", err)
	}
	bits := code.Bitmap() // true is a dark module; the quiet zone included
	if len(bits) > width {
		_, err := fmt.Fprintf(w, "(the QR code needs %d columns; the terminal has %d)\n", len(bits), width)
		return err
	}
	var b strings.Builder
	for y := 0; y < len(bits); y += 2 {
		for x := range bits[y] {
			top := !bits[y][x]
			bottom := y+1 < len(bits) && !bits[y+1][x]
			switch {
			case top && bottom:
				b.WriteRune('█')
			case top:
				b.WriteRune('▀')
			case bottom:
				b.WriteRune('▄')
			default:
				b.WriteByte(' ')
			}
		}
		b.WriteByte('\n')
	}
	_, err = io.WriteString(w, b.String())
	return err
}
