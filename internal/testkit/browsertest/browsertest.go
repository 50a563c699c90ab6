// Package browsertest starts a real headless Chromium for a test, driven
// with chromedp: the one harness the sandbox's page tests and the app's
// end-to-end link test share. Without Chromium a test is skipped; with
// PAYCLI_REQUIRE_CHROMIUM=1 (set by .ci/run) it fails instead.
package browsertest

import (
	"context"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// RequireEnv makes a missing Chromium a test failure rather than a skip.
const RequireEnv = "PAYCLI_REQUIRE_CHROMIUM"

// Path finds the browser: $PAYCLI_CHROMIUM, else Debian's chromium (or
// another Chromium or Chrome on PATH); "" when there is none.
func Path() string {
	if p := os.Getenv("PAYCLI_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// Start starts Chromium on a phone-sized viewport (width × height) and
// returns the context to drive it with; everything stops when the test
// ends. It skips the test (fails it under RequireEnv) without Chromium.
func Start(t testing.TB, width, height int) context.Context {
	t.Helper()
	chromium := Path()
	if chromium == "" {
		msg := "no Chromium found: install Debian's chromium (apt-get install chromium) or set PAYCLI_CHROMIUM to a Chrome or Chromium binary"
		if os.Getenv(RequireEnv) == "1" {
			t.Fatalf("%s (%s=1)", msg, RequireEnv)
		}
		t.Skip(msg)
	}
	// Generous: two shared cores under -race start Chromium slowly.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	// Without the background-networking flags Chromium dials out on start,
	// which a closed network refuses.
	actx, acancel := chromedp.NewExecAllocator(ctx, chromedp.ExecPath(chromium), chromedp.Headless, chromedp.NoSandbox,
		chromedp.DisableGPU, chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck, chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true), chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(width, height))
	t.Cleanup(acancel)
	bctx, bcancel := chromedp.NewContext(actx)
	t.Cleanup(bcancel)
	if err := chromedp.Do(bctx, chromedp.EmulateViewport(int64(width), int64(height), chromedp.EmulateMobile, chromedp.EmulateTouch)); err != nil {
		t.Fatalf("starting %s: %v", chromium, err)
	}
	return bctx
}
