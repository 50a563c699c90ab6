package app_test

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/paycli/paycli/internal/testkit/replay"
)

// These tests run the paycli binary that testscript installs on PATH (see
// TestMain) as a fresh process: a process reads HTTPS_PROXY once, and the
// umask is per process, so neither can be varied inside this one.

// processResult is what a paycli process did.
type processResult struct {
	code           int
	stdout, stderr string
}

// runPaycli runs `paycli args...` with umask 000 and only env (and PATH) in
// its environment, so that nothing of the caller's (a real HTTPS_PROXY,
// NO_PROXY, a config) leaks in. It also checks that the umask really is
// permissive, by having the shell create a control file first.
func runPaycli(t *testing.T, env map[string]string, args ...string) processResult {
	t.Helper()
	bin, err := exec.LookPath("paycli")
	if err != nil {
		t.Fatalf("paycli is not on PATH (TestMain installs it): %v", err)
	}
	control := filepath.Join(t.TempDir(), "umask-control")
	cmd := exec.Command("/bin/sh", append([]string{"-c", `umask 000 && : >"$PAYCLI_TEST_CONTROL" && exec "$0" "$@"`, bin}, args...)...)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "PAYCLI_TEST_CONTROL=" + control, raceEnv()}
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	var exitErr *exec.ExitError
	res := processResult{stdout: stdout.String(), stderr: stderr.String()}
	switch {
	case err == nil:
	case errors.As(err, &exitErr):
		res.code = exitErr.ExitCode()
	default:
		t.Fatal(err)
	}
	if fi, err := os.Stat(control); err != nil || fi.Mode().Perm() != 0o666 {
		t.Fatalf("umask 000 did not take effect: %v %v", fi, err)
	}
	return res
}

// processHome is a fresh home for a paycli process.
func processHome(t *testing.T) (env map[string]string, home string) {
	home = t.TempDir()
	return map[string]string{
		"HOME":            home,
		"XDG_CONFIG_HOME": filepath.Join(home, ".config"),
		"XDG_CACHE_HOME":  filepath.Join(home, ".cache"),
		"XDG_STATE_HOME":  filepath.Join(home, ".local", "state"),
	}, home
}

// unsignedJWT is a token the client can read the expiry of; it never
// verifies signatures.
func unsignedJWT(exp time.Time) string {
	enc := base64.RawURLEncoding.EncodeToString
	claims, _ := json.Marshal(map[string]any{"sub": "transport-test", "exp": exp.Unix()})
	return enc([]byte(`{"alg":"HS256","typ":"JWT"}`)) + "." + enc(claims) + "." + enc([]byte("sig"))
}

// tokenHandler answers the token call and counts requests of any kind.
func tokenHandler(hits *atomic.Int32) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		if r.URL.Path != "/ccpayment/api/token" {
			http.NotFound(w, r)
			return
		}
		exp := time.Now().Add(2 * time.Hour)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"status_code":100,"status_description":"Successfully Generated Token","data":{"token":%q,"is_3d":1,"expires_at":%q}}`,
			unsignedJWT(exp), exp.In(time.FixedZone("TRT", 3*3600)).Format("2006-01-02 15:04:05"))
	}
}

// startTLSGateway is an HTTPS gateway answering the token call with the
// httptest certificate, and the PEM file of that certificate.
func startTLSGateway(t *testing.T, hits *atomic.Int32) (*httptest.Server, string) {
	t.Helper()
	srv := httptest.NewUnstartedServer(tokenHandler(hits))
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // refused handshakes are expected
	srv.StartTLS()
	t.Cleanup(srv.Close)
	caFile := filepath.Join(t.TempDir(), "gateway-ca.pem")
	if err := os.WriteFile(caFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	return srv, caFile
}

func credentials(env map[string]string, baseURL string) map[string]string {
	env["PAYCLI_BASE_URL"] = baseURL
	env["PAYCLI_APP_ID"] = "transport-app"
	env["PAYCLI_APP_SECRET"] = "transport-secret-0123456789"
	return env
}

// TestFilesArePrivateUnderPermissiveUmask writes a config (two keys and a
// second profile) and fills the token cache with umask 000, then checks
// every file paycli made is 0600 and every folder 0700; a sandbox wallet
// payment adds the journal and the sandbox's state. The walk covers the
// whole home, so a step that writes another file is checked as soon as it
// is added to the list.
func TestFilesArePrivateUnderPermissiveUmask(t *testing.T) {
	gw := replay.New(t)
	gw.Answer(http.MethodPost, "/ccpayment/api/token", 200, "testdata/replay/token_far.json")
	env, home := processHome(t)
	for _, args := range [][]string{
		{"config", "set", "base_url", gw.URL + "/ccpayment"},
		{"config", "set", "app_id", "umask-app"},
		{"config", "set", "app_secret", "umask-secret-0123456789", "--insecure-storage"},
		{"--profile", "ops", "config", "set", "lang", "en"},
		{"token"},
	} {
		if res := runPaycli(t, env, args...); res.code != 0 {
			t.Fatalf("paycli %s: exit %d\n%s", strings.Join(args, " "), res.code, res.stderr)
		}
	}
	if n := len(gw.Requests()); n != 1 {
		t.Fatalf("%d requests, want 1 token request", n)
	}
	// A wallet payment against the in-process sandbox writes the journal
	// and the sandbox's state under the state folder.
	tok := runPaycli(t, env, "sandbox", "wallet-token", "--amount", "10.00", "--currency", "TRY")
	if tok.code != 0 {
		t.Fatalf("sandbox wallet-token: exit %d\n%s", tok.code, tok.stderr)
	}
	if res := runPaycli(t, env, "walletpay", "--sandbox", "--yes", "--invoice", "UMASK-1", "--token", strings.TrimSpace(tok.stdout),
		"--name", "Ada", "--surname", "Lovelace", "--email", "ada@example.com"); res.code != 0 {
		t.Fatalf("walletpay: exit %d\n%s", res.code, res.stderr)
	}
	var files []string
	err := filepath.WalkDir(home, func(path string, d fs.DirEntry, err error) error {
		if err != nil || path == home {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(home, path)
		want := fs.FileMode(0o600)
		if d.IsDir() {
			want = 0o700
		} else {
			files = append(files, rel)
		}
		if fi.Mode().Perm() != want {
			t.Errorf("%s is %v, want %v", rel, fi.Mode().Perm(), want)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var config, cache, journal bool
	for _, f := range files {
		config = config || strings.HasPrefix(f, filepath.Join(".config", "paycli")+string(filepath.Separator))
		cache = cache || strings.HasPrefix(f, filepath.Join(".cache", "paycli")+string(filepath.Separator))
		journal = journal || f == filepath.Join(".local", "state", "paycli", "journal.jsonl")
	}
	if !config || !cache || !journal {
		t.Fatalf("want a config file, a token cache file and the journal, found %v", files)
	}
}

// TestUntrustedCertificateIsRefused: an HTTPS gateway whose certificate is
// not trusted gets no request, the command exits 8 and the message names
// ca_cert; with ca_cert set to the gateway's CA the same call succeeds.
func TestUntrustedCertificateIsRefused(t *testing.T) {
	var hits atomic.Int32
	srv, caFile := startTLSGateway(t, &hits)
	env, _ := processHome(t)
	credentials(env, srv.URL+"/ccpayment")

	res := runPaycli(t, env, "token")
	if res.code != 8 || res.stdout != "" {
		t.Fatalf("exit %d, stdout %q, want exit 8 and no output\n%s", res.code, res.stdout, res.stderr)
	}
	first, _, _ := strings.Cut(res.stderr, "\n")
	for _, want := range []string{"error: token: the gateway's TLS certificate is not signed by a trusted authority", "set ca_cert"} {
		if !strings.Contains(first, want) {
			t.Errorf("first line %q does not say %q", first, want)
		}
	}
	if hits.Load() != 0 {
		t.Fatalf("%d requests reached an untrusted gateway", hits.Load())
	}

	env["PAYCLI_CA_CERT"] = caFile
	res = runPaycli(t, env, "token")
	if res.code != 0 || !strings.HasPrefix(res.stdout, "eyJ") {
		t.Fatalf("with ca_cert: exit %d, stdout %q\n%s", res.code, res.stdout, res.stderr)
	}
	if hits.Load() != 1 {
		t.Fatalf("%d requests with ca_cert, want 1", hits.Load())
	}
}

// connectProxy is an HTTP proxy that tunnels every CONNECT to one address,
// whatever host was asked for, and records what it was asked.
type connectProxy struct {
	ln     net.Listener
	target string

	mu       sync.Mutex
	accepted int
	requests []string // "CONNECT host:port", "GET http://..."
	open     []net.Conn
}

func startConnectProxy(t *testing.T, target string) *connectProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &connectProxy{ln: ln, target: target}
	go p.acceptLoop()
	t.Cleanup(p.close)
	return p
}

func (p *connectProxy) URL() string { return "http://" + p.ln.Addr().String() }

func (p *connectProxy) acceptLoop() {
	for {
		conn, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		p.accepted++
		p.open = append(p.open, conn)
		p.mu.Unlock()
		go p.serve(conn)
	}
}

func (p *connectProxy) serve(conn net.Conn) {
	defer conn.Close()
	br := bufio.NewReader(conn)
	req, err := http.ReadRequest(br)
	if err != nil {
		return
	}
	p.mu.Lock()
	p.requests = append(p.requests, req.Method+" "+req.RequestURI)
	p.mu.Unlock()
	if req.Method != http.MethodConnect || p.target == "" {
		io.WriteString(conn, "HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
		return
	}
	up, err := net.Dial("tcp", p.target)
	if err != nil {
		io.WriteString(conn, "HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
		return
	}
	p.mu.Lock()
	p.open = append(p.open, up)
	p.mu.Unlock()
	defer up.Close()
	io.WriteString(conn, "HTTP/1.1 200 Connection established\r\n\r\n")
	go func() { _, _ = io.Copy(up, br); up.Close() }()
	_, _ = io.Copy(conn, up)
}

func (p *connectProxy) close() {
	p.ln.Close()
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.open {
		c.Close()
	}
}

func (p *connectProxy) seen() (accepted int, requests []string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.accepted, append([]string(nil), p.requests...)
}

// TestHTTPSProxyIsHonoured points base_url at a name only the proxy can
// reach (Go never proxies loopback addresses, so the gateway must look
// remote): the call goes through one CONNECT tunnel to that name, and TLS
// is still verified end to end against ca_cert.
func TestHTTPSProxyIsHonoured(t *testing.T) {
	var hits atomic.Int32
	srv, caFile := startTLSGateway(t, &hits)
	names := srv.Certificate().DNSNames
	if len(names) == 0 {
		t.Fatal("the httptest certificate names no host")
	}
	host := names[0] // never resolved: only the proxy is dialled
	proxy := startConnectProxy(t, srv.Listener.Addr().String())
	env, _ := processHome(t)
	credentials(env, "https://"+host+"/ccpayment")
	env["PAYCLI_CA_CERT"] = caFile
	env["HTTPS_PROXY"] = proxy.URL()

	res := runPaycli(t, env, "token")
	if res.code != 0 || !strings.HasPrefix(res.stdout, "eyJ") {
		t.Fatalf("exit %d, stdout %q\n%s", res.code, res.stdout, res.stderr)
	}
	accepted, requests := proxy.seen()
	if accepted != 1 || len(requests) != 1 || requests[0] != "CONNECT "+host+":443" {
		t.Fatalf("proxy accepted %d connections, saw %q; want one CONNECT %s:443", accepted, requests, host)
	}
	if hits.Load() != 1 {
		t.Fatalf("the gateway got %d requests, want 1", hits.Load())
	}

	// Without ca_cert (and without the token now cached) the tunnel is
	// made but TLS is still refused.
	delete(env, "PAYCLI_CA_CERT")
	fresh, _ := processHome(t)
	for k, v := range fresh {
		env[k] = v
	}
	if res := runPaycli(t, env, "token"); res.code != 8 || !strings.Contains(res.stderr, "set ca_cert") {
		t.Fatalf("through the proxy without ca_cert: exit %d\n%s", res.code, res.stderr)
	}
	if accepted, _ := proxy.seen(); hits.Load() != 1 || accepted != 2 {
		t.Fatalf("second run: proxy accepted %d connections in all (want 2), gateway got %d requests in all (want 1)", accepted, hits.Load())
	}
}

// TestPlainHTTPToRemoteHostIsRefused: http:// to a host that is not
// loopback is a usage error (exit 2) and nothing leaves the machine — with
// proxies configured, even the proxy sees no connection.
func TestPlainHTTPToRemoteHostIsRefused(t *testing.T) {
	proxy := startConnectProxy(t, "")
	for _, base := range []string{"http://gateway.test/ccpayment", "http://10.0.0.1:8080/ccpayment", "http://localhost.gateway.test/ccpayment"} {
		t.Run(base, func(t *testing.T) {
			env, _ := processHome(t)
			credentials(env, base)
			env["HTTP_PROXY"], env["HTTPS_PROXY"] = proxy.URL(), proxy.URL()
			res := runPaycli(t, env, "token")
			if res.code != 2 || res.stdout != "" {
				t.Fatalf("exit %d, stdout %q, want exit 2 and no output\n%s", res.code, res.stdout, res.stderr)
			}
			if !strings.Contains(res.stderr, "uses plain http to a host that is not loopback; use https") {
				t.Errorf("stderr does not say what to do:\n%s", res.stderr)
			}
		})
	}
	if accepted, requests := proxy.seen(); accepted != 0 {
		t.Fatalf("the proxy accepted %d connections: %q", accepted, requests)
	}
}
