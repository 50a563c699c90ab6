package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/paycli/paycli/internal/testkit/ports"
)

// imageTag is the tag the test builds; podman's layer cache makes a
// rebuild of an unchanged binary take a few seconds.
const imageTag = "localhost/paycli:image-test"

// TestContainerImage builds the container image the documented way
// (image/build.sh, podman build), mounts it (podman image mount: this
// machine cannot run containers), and runs its entrypoint and default
// command chrooted as the image's user, with a temporary folder bound over
// the /state volume and a free loopback port: the sandbox must become
// ready, answer a token call, and keep its state in the volume. It needs
// podman and root (chroot, mount); it skips without them, and fails
// instead under PAYCLI_REQUIRE_PODMAN=1 (CI).
func TestContainerImage(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a container image")
	}
	need := func(why string) {
		if os.Getenv("PAYCLI_REQUIRE_PODMAN") == "1" {
			t.Fatalf("PAYCLI_REQUIRE_PODMAN=1 but %s (bash .ci/tools.sh installs podman)", why)
		}
		t.Skip(why)
	}
	if _, err := exec.LookPath("podman"); err != nil {
		need("podman is not installed")
	}
	if os.Geteuid() != 0 {
		need("the image test chroots and mounts: it runs as root")
	}
	for _, tool := range []string{"unshare", "chroot"} {
		if _, err := exec.LookPath(tool); err != nil {
			need(tool + " is not installed")
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()

	start := time.Now()
	build := exec.CommandContext(ctx, "bash", "../../image/build.sh", imageTag)
	build.Env = append(os.Environ(), "PAYCLI_IMAGE_CONTEXT="+t.TempDir())
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("image/build.sh: %v\n%s", err, out)
	}
	t.Logf("image built in %s", time.Since(start).Round(time.Millisecond))

	var inspect []struct {
		Config struct {
			User       string
			Entrypoint []string
			Cmd        []string
			Env        []string
			Volumes    map[string]struct{}
		}
	}
	out := podman(t, ctx, "image", "inspect", imageTag)
	if err := json.Unmarshal(out, &inspect); err != nil || len(inspect) != 1 {
		t.Fatalf("podman image inspect: %v\n%s", err, out)
	}
	cfg := inspect[0].Config
	if cfg.User == "" || strings.HasPrefix(cfg.User, "0") || cfg.User == "root" {
		t.Fatalf("the image runs as %q: want a non-root user", cfg.User)
	}
	// Inside a container the sandbox must listen on every interface, which
	// serve refuses without --public, and keep its state in the volume.
	if cmd := strings.Join(cfg.Cmd, " "); !strings.Contains(cmd, "--addr 0.0.0.0:") || !strings.Contains(cmd, "--public") || !strings.Contains(cmd, "--state /state") {
		t.Errorf("the default command %q: want sandbox serve on 0.0.0.0 with --public and --state /state", cmd)
	}
	if _, ok := cfg.Volumes["/state"]; !ok {
		t.Errorf("the image declares volumes %v: want /state", cfg.Volumes)
	}
	mount := strings.TrimSpace(string(podman(t, ctx, "image", "mount", imageTag)))
	t.Cleanup(func() { _, _ = exec.Command("podman", "image", "unmount", imageTag).CombinedOutput() })

	// What the binary needs as files.
	for _, f := range []string{"etc/ssl/certs/ca-certificates.crt", "etc/passwd", "etc/group"} {
		if fi, err := os.Stat(filepath.Join(mount, f)); err != nil || fi.Size() == 0 {
			t.Errorf("the image lacks /%s: %v", f, err)
		}
	}
	passwd, _ := os.ReadFile(filepath.Join(mount, "etc/passwd"))
	uid, gid, _ := strings.Cut(cfg.User, ":")
	if !bytes.Contains(passwd, []byte(":x:"+uid+":"+gid+":")) {
		t.Errorf("/etc/passwd names no user %s:\n%s", cfg.User, passwd)
	}
	st, err := os.Stat(filepath.Join(mount, "state"))
	if err != nil {
		t.Fatal(err)
	}
	owner := st.Sys().(*syscall.Stat_t)
	if fmt.Sprintf("%d:%d", owner.Uid, owner.Gid) != cfg.User {
		t.Errorf("/state belongs to %d:%d, not the image's user %s", owner.Uid, owner.Gid, cfg.User)
	}

	// The volume: a new named volume starts with the image's /state and
	// its owner.
	volume := t.TempDir()
	if err := os.Chown(volume, int(owner.Uid), int(owner.Gid)); err != nil {
		t.Fatal(err)
	}
	port := strconv.Itoa(ports.Reserve(t)) // free for the server, and no one else's meanwhile
	args := append([]string{"--mount", "--propagation", "private", "--", "sh", "-c",
		`state=$1 root=$2 user=$3; shift 3; mount --bind "$state" "$root/state" && exec chroot --userspec="$user" "$root" "$@"`,
		"sh", volume, mount, cfg.User}, cfg.Entrypoint...)
	args = append(args, cfg.Cmd...)
	// The default command listens on every interface at 8787; a later
	// --addr picks a free loopback port for the test.
	args = append(args, "--addr", "127.0.0.1:"+port)
	serve := exec.Command("unshare", args...)
	serve.Env = cfg.Env
	stderr := &lockedBuffer{}
	serve.Stderr = stderr
	if err := serve.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- serve.Wait() }()
	t.Cleanup(func() {
		_ = serve.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(15 * time.Second):
			_ = serve.Process.Kill()
			<-exited
		}
	})
	base := "http://127.0.0.1:" + port
	ready := false
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		select {
		case err := <-exited:
			t.Fatalf("the image's command ended: %v\n%s", err, stderr.String())
		default:
		}
		if resp, err := http.Get(base + "/ccpayment/__sandbox/ready"); err == nil {
			resp.Body.Close()
			if ready = resp.StatusCode == 200; ready {
				break
			}
		}
	}
	if !ready {
		t.Fatalf("the sandbox in the image never became ready\n%s", stderr.String())
	}
	t.Logf("image built, mounted and serving in %s", time.Since(start).Round(time.Millisecond))
	// The healthcheck the docs give, run from the image as its user.
	check := exec.CommandContext(ctx, "chroot", "--userspec="+cfg.User, mount, "/paycli", "sandbox", "ready", "--sandbox-url", base)
	check.Env = cfg.Env
	if out, err := check.CombinedOutput(); err != nil {
		t.Errorf("paycli sandbox ready in the image: %v\n%s", err, out)
	}
	resp, err := http.Post(base+"/ccpayment/api/token", "application/json",
		strings.NewReader(`{"app_id":"5f8e2c1a9b7d4e3f6a0c8b2d4e6f1a3c","app_secret":"9c4b2e7f1a6d3c8e5b0f2a4d6c8e1b3f"}`))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !bytes.Contains(body, []byte(`"status_code":100`)) {
		t.Fatalf("token call: %s", body)
	}
	// The process runs as the image's user, and its state is in the volume.
	status, _ := os.ReadFile(fmt.Sprintf("/proc/%d/status", serve.Process.Pid))
	if !bytes.Contains(status, []byte("\nUid:\t"+uid+"\t")) {
		t.Errorf("the sandbox does not run as uid %s:\n%s", uid, status)
	}
	db, err := os.Stat(filepath.Join(volume, "sandbox.db"))
	if err != nil {
		t.Fatalf("no sandbox.db in the volume: %v", err)
	}
	if o := db.Sys().(*syscall.Stat_t); fmt.Sprint(o.Uid) != uid {
		t.Errorf("sandbox.db belongs to uid %d, want %s", o.Uid, uid)
	}
	if !strings.Contains(stderr.String(), "paycli sandbox serving http://127.0.0.1:"+port+"/ccpayment") {
		t.Errorf("stderr:\n%s", stderr.String())
	}
}

func podman(t *testing.T, ctx context.Context, args ...string) []byte {
	t.Helper()
	out, err := exec.CommandContext(ctx, "podman", args...).Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		t.Fatalf("podman %s: %v\n%s", strings.Join(args, " "), err, stderr)
	}
	return out
}

// lockedBuffer is a bytes.Buffer safe to read while a process writes it.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
