// Package keyringtest starts a real Secret Service for tests: a private
// D-Bus session bus (dbus-daemon) and gnome-keyring-daemon on it, with a
// login collection unlocked by a test password, in a temporary HOME. The
// test's environment points at them (DBUS_SESSION_BUS_ADDRESS), so that
// go-keyring, which reads it, talks to this keyring and no other; both
// daemons are stopped when the test ends.
//
// Without dbus-daemon or gnome-keyring-daemon a test that asks for a
// keyring is skipped, naming the packages to install; with
// PAYCLI_REQUIRE_KEYRING=1 (set by .ci/run) it fails instead.
package keyringtest

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/paycli/paycli/internal/testkit/tiedproc"
)

// RequireEnv makes a missing keyring a test failure rather than a skip.
const RequireEnv = "PAYCLI_REQUIRE_KEYRING"

// Password unlocks the test's login collection.
const Password = "paycli-test"

// Keyring is a running Secret Service.
type Keyring struct {
	// Address is the session bus's address (DBUS_SESSION_BUS_ADDRESS).
	Address string
	// Home is the HOME the keyring keeps its files in.
	Home string
	bus  *exec.Cmd
	gkd  *exec.Cmd
	env  []string
}

// Env is the environment of a process that should use this keyring.
func (k *Keyring) Env() []string { return k.env }

func unavailable(t testing.TB, err error) {
	t.Helper()
	if os.Getenv(RequireEnv) == "1" {
		t.Fatalf("a Secret Service is required here (%s=1): %v", RequireEnv, err)
	}
	t.Skipf("skipped: %v", err)
}

// Start starts a session bus with an unlocked keyring on it and points
// the test's environment at it (t.Setenv: the test must not be parallel).
func Start(t testing.TB) *Keyring {
	t.Helper()
	k := StartBus(t)
	k.StartKeyring(t, true)
	return k
}

// StartBus starts a session bus alone, with no Secret Service on it (a
// desktop whose keyring is not running), and points the test at it.
func StartBus(t testing.TB) *Keyring {
	t.Helper()
	for _, prog := range []string{"dbus-daemon", "dbus-send", "gnome-keyring-daemon", "secret-tool"} {
		if _, err := exec.LookPath(prog); err != nil {
			unavailable(t, fmt.Errorf("no %s on PATH: install Debian's dbus, gnome-keyring and libsecret-tools packages (apt-get install dbus gnome-keyring libsecret-tools)", prog))
		}
	}
	home := t.TempDir()
	runtime := filepath.Join(home, "run")
	if err := os.Mkdir(runtime, 0o700); err != nil {
		t.Fatal(err)
	}
	k := &Keyring{Home: home}
	config := filepath.Join(home, "session.conf")
	// The session bus's own configuration, but listening in this test's
	// folder and activating no service: gnome-keyring is started below,
	// so that a test without it sees a bus with no Secret Service.
	conf := `<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:dir=` + runtime + `</listen>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
`
	if err := os.WriteFile(config, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	bus := exec.Command("dbus-daemon", "--config-file="+config, "--nofork", "--print-address=1")
	out, err := bus.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := tiedproc.Start(bus); err != nil {
		unavailable(t, fmt.Errorf("dbus-daemon: %v", err))
	}
	k.bus = bus
	t.Cleanup(func() { stop(bus) })
	addr := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(out).ReadString('\n')
		addr <- strings.TrimSpace(line)
	}()
	wait, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	select {
	case k.Address = <-addr:
	case <-wait.Done():
		t.Fatal("dbus-daemon printed no address within 10s")
	}
	if k.Address == "" {
		t.Fatal("dbus-daemon printed no address")
	}
	k.env = []string{
		"DBUS_SESSION_BUS_ADDRESS=" + k.Address,
		"HOME=" + home,
		"XDG_RUNTIME_DIR=" + runtime,
		"XDG_DATA_HOME=" + filepath.Join(home, "data"),
		"XDG_CONFIG_HOME=" + filepath.Join(home, "config"),
	}
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", k.Address)
	return k
}

// StartKeyring starts gnome-keyring-daemon on the bus; unlocked gives its
// login collection the test password, else no collection is unlocked (a
// desktop's keyring before anyone logged in).
func (k *Keyring) StartKeyring(t testing.TB, unlocked bool) {
	t.Helper()
	args := []string{"--foreground", "--components=secrets"}
	if unlocked {
		args = append(args, "--unlock")
	}
	gkd := exec.Command("gnome-keyring-daemon", args...)
	gkd.Env = append(os.Environ(), k.env...)
	if unlocked {
		gkd.Stdin = strings.NewReader(Password)
	}
	if err := tiedproc.Start(gkd); err != nil {
		unavailable(t, fmt.Errorf("gnome-keyring-daemon: %v", err))
	}
	k.gkd = gkd
	t.Cleanup(func() { stop(gkd) })
	// Ready once it owns org.freedesktop.secrets on the bus.
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	for {
		check := exec.CommandContext(ctx, "dbus-send", "--session", "--print-reply", "--dest=org.freedesktop.DBus",
			"/org/freedesktop/DBus", "org.freedesktop.DBus.NameHasOwner", "string:org.freedesktop.secrets")
		check.Env = append(os.Environ(), k.env...)
		if out, err := check.Output(); err == nil && strings.Contains(string(out), "boolean true") {
			return
		}
		pause := time.NewTimer(50 * time.Millisecond)
		select {
		case <-ctx.Done():
			pause.Stop()
			t.Fatal("gnome-keyring-daemon did not take org.freedesktop.secrets on the bus within 15s")
		case <-pause.C:
		}
	}
}

// Lock locks every collection of the keyring, as a screen lock does.
func (k *Keyring) Lock(t testing.TB) {
	t.Helper()
	lock := exec.Command("dbus-send", "--session", "--print-reply", "--dest=org.freedesktop.secrets",
		"/org/freedesktop/secrets", "org.freedesktop.Secret.Service.Lock", "array:objpath:/org/freedesktop/secrets/collection/login")
	lock.Env = append(os.Environ(), k.env...)
	if out, err := lock.CombinedOutput(); err != nil {
		t.Fatalf("locking the keyring: %v\n%s", err, out)
	}
}

// Lookup reads an entry with secret-tool, the way a person would check
// what paycli stored: "" when there is none.
func (k *Keyring) Lookup(t testing.TB, service, account string) string {
	t.Helper()
	cmd := exec.Command("secret-tool", "lookup", "service", service, "username", account)
	cmd.Env = append(os.Environ(), k.env...)
	out, err := cmd.Output()
	if err != nil {
		return ""
	}
	return string(out)
}

func stop(cmd *exec.Cmd) {
	if cmd.Process == nil {
		return
	}
	_ = cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	limit := time.NewTimer(5 * time.Second)
	defer limit.Stop()
	select {
	case <-done:
	case <-limit.C:
		_ = cmd.Process.Kill()
		<-done
	}
}
