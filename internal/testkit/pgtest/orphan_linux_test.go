package pgtest

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// orphanChildEnv makes TestServersDieWithTheTestProcess the child: it
// starts a server and a pooler, prints what it started, and waits to be
// killed.
const orphanChildEnv = "PAYCLI_PGTEST_ORPHAN_CHILD"

// TestServersDieWithTheTestProcess: a test binary killed with SIGKILL (as
// go test's -timeout or a CI runner kills it) leaves no PostgreSQL
// server, backend, pooler or data folder behind.
func TestServersDieWithTheTestProcess(t *testing.T) {
	if os.Getenv(orphanChildEnv) == "1" {
		s := Start(t)
		p := s.Pooler(t, PoolSession)
		data, err := os.ReadFile(filepath.Join(s.data, "postmaster.pid"))
		if err != nil {
			t.Fatal(err)
		}
		postmaster, _, _ := strings.Cut(string(data), "\n")
		pids := append([]string{postmaster, strconv.Itoa(p.cmd.Process.Pid)}, itoas(children(atoi(postmaster)))...)
		fmt.Printf("started %s %s\n", filepath.Dir(s.data), strings.Join(pids, " "))
		select {} // until killed
	}
	t.Parallel()
	if _, err := binDir(); err != nil {
		unavailable(t, err)
	}
	child := exec.Command(os.Args[0], "-test.run=^TestServersDieWithTheTestProcess$", "-test.v")
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
	var started []string
	select {
	case line, ok := <-lines:
		if !ok {
			_ = child.Wait()
			if os.Getenv(RequireEnv) == "1" || os.Getenv(PoolerRequireEnv) == "1" {
				t.Fatal("the child test started no server and no pooler")
			}
			t.Skip("the child test started no server (skipped there: no PostgreSQL or no pgbouncer)")
		}
		started = strings.Fields(line)[1:]
	case <-time.After(2 * time.Minute):
		_ = child.Process.Kill()
		t.Fatal("the child test started no server within 2 minutes")
	}
	if err := child.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = child.Wait()
	root, pids := started[0], started[1:]
	if len(pids) < 3 {
		t.Fatalf("the child reported %q: want the postmaster, the pooler and the server's own processes", pids)
	}
	deadline := time.After(30 * time.Second)
	for {
		alive := aliveOf(pids)
		_, err := os.Stat(root)
		if len(alive) == 0 && os.IsNotExist(err) {
			return
		}
		select {
		case <-deadline:
			t.Fatalf("30s after the test binary was killed: processes %v still run (of %v: postmaster, pgbouncer, the server's children); %s exists: %v",
				alive, pids, root, err == nil)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// aliveOf are the pids that are neither gone nor zombies.
func aliveOf(pids []string) []string {
	var alive []string
	for _, pid := range pids {
		stat, err := os.ReadFile("/proc/" + pid + "/stat")
		if err != nil {
			continue
		}
		if _, rest, ok := strings.Cut(string(stat), ") "); ok && !strings.HasPrefix(rest, "Z") && !strings.HasPrefix(rest, "X") {
			alive = append(alive, pid)
		}
	}
	return alive
}

func atoi(s string) int { n, _ := strconv.Atoi(strings.TrimSpace(s)); return n }

func itoas(ns []int) []string {
	var out []string
	for _, n := range ns {
		out = append(out, strconv.Itoa(n))
	}
	return out
}
