// Package tiedproc starts a test's child processes (a D-Bus daemon, a
// keyring, PgBouncer) so that they die with the test process, however it
// ends: a SIGKILL of the test binary leaves no orphan.
package tiedproc

import (
	"os/exec"
	"runtime"
	"sync"
	"syscall"
)

// tied is one goroutine locked to its OS thread for the life of the
// process, which starts every child that must die with the test process.
// Linux sends the parent-death signal (Pdeathsig) when the *thread* that
// forked the child ends, not the process; Go ends a thread when a
// goroutine locked to it returns, and any goroutine may run on any thread,
// so a child started from an ordinary goroutine can be killed early, or
// tied to a thread that outlives nothing in particular. This thread ends
// only with the process.
var tied struct {
	once  sync.Once
	start chan func()
}

// Start starts cmd so that the kernel kills it (SIGKILL) when the test
// process dies, however it dies.
func Start(cmd *exec.Cmd) error {
	tied.once.Do(func() {
		tied.start = make(chan func())
		go func() {
			runtime.LockOSThread() // never unlocked: the thread lives as long as the process
			for f := range tied.start {
				f()
			}
		}()
	})
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
	errc := make(chan error, 1)
	tied.start <- func() { errc <- cmd.Start() }
	return <-errc
}
