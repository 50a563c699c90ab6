// Command paycli is the command-line tool for the merchants of a ccpayment
// card gateway. Everything lives in internal/app.
package main

import (
	"os"

	"github.com/paycli/paycli/internal/app"
)

func main() { os.Exit(app.Main()) }
