package hashcmd

import (
	"io"
	"strings"
	"testing"

	"github.com/paycli/paycli/internal/iostreams"
)

// zeros is an endless stdin without line breaks, like /dev/zero, counting
// what was read from it.
type zeros struct{ n int }

func (z *zeros) Read(p []byte) (int, error) {
	clear(p)
	z.n += len(p)
	return len(p), nil
}

// TestValidateStdinWithoutLineBreaks: `hash validate - </dev/zero` read
// gigabytes before the line cap; now it stops after one over-long line,
// exit 2, having read about MaxLineBytes.
func TestValidateStdinWithoutLineBreaks(t *testing.T) {
	for _, format := range []string{"table", "json"} {
		ios, _, out, _ := iostreams.Test()
		z := &zeros{}
		ios.In = io.MultiReader(strings.NewReader(kaHashKey+"\n"), z)
		cfg := testConfig()
		cfg.Output = format
		cmd := NewCmdValidate(testFactory(ios, cfg), nil)
		cmd.Flags().StringP("output", "o", "table", "")
		err := execute(t, cmd, "-", "-o", format)
		wantUsage(t, err, "line 2 of stdin is longer than 64 KiB")
		if z.n > 2*iostreams.MaxLineBytes {
			t.Errorf("-o %s: read %d bytes of an endless line, want about %d", format, z.n, iostreams.MaxLineBytes)
		}
		if format == "json" && !strings.HasPrefix(out.String(), `{"line":1,`) {
			t.Errorf("-o json: the line before the long one was not written: %q", out)
		}
	}
}
