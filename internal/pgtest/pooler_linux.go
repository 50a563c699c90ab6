package pgtest

import "syscall"

// dieWithParent has the kernel kill the child when the test process dies,
// so that no pgbouncer outlives a test binary killed by a timeout.
func dieWithParent(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGKILL }
