package main

import (
	"fmt"
	"os"
	"time"

	"github.com/paycli/paycli/internal/journal"
)

func main() {
	t := time.Now()
	a, d, err := journal.Lookup(os.Args[1], os.Args[2])
	fmt.Println(len(a), d, err, time.Since(t))
	if len(os.Args) > 3 {
		t = time.Now()
		r, err := journal.Recent(os.Args[1], os.Args[3], 100)
		fmt.Println(len(r), err, time.Since(t))
	}
}
