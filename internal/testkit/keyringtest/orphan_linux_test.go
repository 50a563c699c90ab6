package keyringtest

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// orphanChildEnv makes TestDaemonsDieWithTheTestProcess the child: it
// starts a keyring, prints the daemons' pids, and waits to be killed.
const orphanChildEnv = "PAYCLI_KEYRINGTEST_ORPHAN_CHILD"

// TestDaemonsDieWithTheTestProcess: a test binary killed with SIGKILL
// leaves no dbus-daemon or gnome-keyring-daemon behind.
func TestDaemonsDieWithTheTestProcess(t *testing.T) {
	if os.Getenv(orphanChildEnv) == "1" {
		k := Start(t)
		fmt.Printf("started %d %d\n", k.bus.Process.Pid, k.gkd.Process.Pid)
		select {} // until killed
	}
	child := exec.Command(os.Args[0], "-test.run=^TestDaemonsDieWithTheTestProcess$", "-test.v")
	child.Env = append(os.Environ(), orphanChildEnv+"=1")
	out, err := child.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	child.Stderr = os.Stderr
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if strings.HasPrefix(sc.Text(), "started ") {
				lines <- sc.Text()
			}
		}
		close(lines)
	}()
	var pids []string
	select {
	case line, ok := <-lines:
		if !ok {
			_ = child.Wait()
			if os.Getenv(RequireEnv) == "1" {
				t.Fatal("the child test started no keyring")
			}
			t.Skip("the child test started no keyring (skipped there)")
		}
		pids = strings.Fields(line)[1:]
	case <-time.After(time.Minute):
		_ = child.Process.Kill()
		t.Fatal("the child test started no keyring within a minute")
	}
	if err := child.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = child.Wait()
	deadline := time.After(30 * time.Second)
	for {
		var alive []string
		for _, pid := range pids {
			stat, err := os.ReadFile("/proc/" + pid + "/stat")
			if _, rest, ok := strings.Cut(string(stat), ") "); err == nil && ok && !strings.HasPrefix(rest, "Z") {
				alive = append(alive, pid)
			}
		}
		if len(alive) == 0 {
			return
		}
		select {
		case <-deadline:
			t.Fatalf("30s after the test binary was killed, %v still run (of dbus-daemon, gnome-keyring-daemon %v)", alive, pids)
		case <-time.After(50 * time.Millisecond):
		}
	}
}
