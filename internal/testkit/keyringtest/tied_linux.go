package keyringtest

import (
	"os/exec"
	"runtime"
	"sync"
	"syscall"
)

// tied is one goroutine locked to its OS thread for the life of the
// process, which starts the daemons. Linux sends the parent-death signal
// (Pdeathsig) when the *thread* that forked the child ends, not the
// process, and Go ends a thread when a goroutine locked to it returns: a
// daemon started from an ordinary goroutine could die early. This thread
// ends only with the process. (pgtest has the same for PgBouncer; test
// packages share a floor and do not import each other.)
var tied struct {
	once  sync.Once
	start chan func()
}

// startTied starts cmd so that the kernel kills it (SIGKILL) when the
// test process dies, however it dies.
func startTied(cmd *exec.Cmd) error {
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
