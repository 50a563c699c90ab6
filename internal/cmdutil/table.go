package cmdutil

import (
	"github.com/paycli/paycli/internal/iostreams"
	"github.com/paycli/paycli/internal/render"
)

// TableOptions are what every table paycli prints starts from: bold
// headers when colour is on, and the width of the terminal stdout writes
// to, which the table is fitted to (none for a pipe or a file, which get
// the whole table). Commands add their alignment and which columns may
// wrap or go (render.TableOptions).
func TableOptions(io *iostreams.IOStreams) render.TableOptions {
	return render.TableOptions{
		Palette:  render.Palette{Enabled: io.ColorEnabled()},
		MaxWidth: io.TerminalWidth(),
	}
}
