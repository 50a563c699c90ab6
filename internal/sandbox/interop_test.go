package sandbox

import (
	"context"
	"net"
	"os"
	"os/exec"
	"testing"
	"time"
)

// TestPHPInterop drives a served sandbox with the PHP client of
// testdata/interop, written the way the gateway's PHP SDK works, through
// every emulated endpoint. It needs php (Debian's php-cli); without it the
// test skips.
func TestPHPInterop(t *testing.T) {
	php, err := exec.LookPath("php")
	if err != nil {
		t.Skip("php is not installed (apt-get install php-cli); the interop client cannot run")
	}
	// go test caches a result by the files the test itself opens, not by
	// what php reads: opening the scripts here makes an edit to either one
	// run the test again instead of reporting an old pass.
	for _, script := range []string{"testdata/interop/sdk_check.php", "../hashkey/testdata/crosscheck.php"} {
		if _, err := os.ReadFile(script); err != nil {
			t.Fatal(err)
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv, err := StartServer(ln, ServerOptions{Gateway: Options{Now: time.Now}, StateDir: t.TempDir(), LockTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Shutdown(context.Background())
	tok, err := IssueWalletToken(WalletRequest{Amount: decimalOf("150.00"), Currency: "TRY", CardNumber: DefaultWalletCard,
		Wallet: WalletDeviceVendor, TTL: time.Hour}, time.Now(), NewTokenID())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, php, "testdata/interop/sdk_check.php", srv.BaseURL, tok).CombinedOutput()
	t.Logf("%s", out)
	if err != nil {
		t.Fatalf("the PHP client failed: %v", err)
	}
}
