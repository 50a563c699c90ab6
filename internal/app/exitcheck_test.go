package app

import (
	"fmt"
)

// Every command run by this package's tests — in process through Run, or
// as the paycli binary the scripts exec, which is this test binary —
// fails loudly when it ends with an exit code its help does not list
// (issue 34, item 6): the lists are the Exits each command declares, and
// this check, at the one place exit codes are decided, keeps them true for
// every error path the tests walk.
func init() {
	unlistedExit = func(command string, code int) {
		panic(fmt.Sprintf("%s exited %d, which its help does not list: add the kind to its cmdutil.SetExits", command, code))
	}
}
