//go:build !linux

package pgtest

import "syscall"

// dieWithParent: only Linux kills a child with its parent; elsewhere the
// test's cleanup does.
func dieWithParent(*syscall.SysProcAttr) {}
