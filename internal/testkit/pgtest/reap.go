package pgtest

import (
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
)

// watchScript is run by sh beside the test process with the read end of
// a pipe as stdin: the kernel closes the write end when the test process
// ends, however it ends (SIGKILL included), and read returns. It then
// stops the server named by $1/postmaster.pid, if it is still the one
// running on that data folder, and removes the folder $2. "stopped" on
// the pipe is a normal end: the server was stopped already. It ignores
// the terminal's signals (its own process group, too) so that a ^C
// reaching the test does not end it before its work.
//
// pg_ctl starts the postmaster as a daemon (reparented to init), so the
// kernel's parent-death signal cannot reach it: this watcher does. A
// start in flight at the kill writes its pid file a moment later, hence
// three looks.
const watchScript = `trap '' INT TERM HUP QUIT
read -r how
[ "$how" = stopped ] && exit 0
for look in 1 2 3; do
  pid=$(head -n 1 "$1/postmaster.pid" 2>/dev/null)
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
    if [ ! -r "/proc/$pid/cmdline" ] || tr '\0' ' ' <"/proc/$pid/cmdline" | grep -qF -- "$1"; then
      kill -QUIT "$pid" 2>/dev/null
      n=0
      while kill -0 "$pid" 2>/dev/null && [ $n -lt 50 ]; do sleep 0.1; n=$((n+1)); done
      kill -KILL "$pid" 2>/dev/null
    fi
  fi
  sleep 0.5
done
rm -rf "$2"
`

// watcher stops a server and removes its folder when the test process
// ends without doing it.
type watcher struct {
	w    *os.File
	cmd  *exec.Cmd
	data string
}

// watch starts the watcher of the server whose data folder is data,
// inside root (removed after).
func watch(data, root string) (*watcher, error) {
	r, w, err := os.Pipe() // close-on-exec: no other child holds the write end
	if err != nil {
		return nil, err
	}
	defer r.Close()
	cmd := exec.Command("/bin/sh", "-c", watchScript, "pgtest-watch", data, root)
	cmd.Stdin = r
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		w.Close()
		return nil, err
	}
	return &watcher{w: w, cmd: cmd, data: data}, nil
}

// done ends the watcher after the test's cleanup stopped its server; if
// the server may still run (its pid file is there: a failed stop), the
// watcher stops it as it would after a kill.
func (wt *watcher) done() {
	if _, err := os.Stat(filepath.Join(wt.data, "postmaster.pid")); err != nil {
		_, _ = wt.w.WriteString("stopped\n")
	}
	_ = wt.w.Close()
	_ = wt.cmd.Wait()
}
