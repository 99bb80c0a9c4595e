// Package browsertest drives a real headless Chromium for the web
// console's tests (chromedp over the DevTools protocol): it starts the
// browser, keeps screenshots as test artifacts, and runs a basic
// accessibility check on a page. It is for tests only: no product
// package imports it.
package browsertest

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// candidates are the names Chromium goes by: Debian's package
// (chromium), other distributions', and Chrome's.
var candidates = []string{"/usr/bin/chromium", "chromium", "chromium-browser", "google-chrome", "google-chrome-stable"}

// Find returns the Chromium to run, and skips the test, naming the
// package to install, where there is none.
func Find(tb testing.TB) string {
	tb.Helper()
	for _, c := range candidates {
		if p, err := exec.LookPath(c); err == nil {
			return p
		}
	}
	tb.Skip("chromium is not installed: apt-get install chromium (the console's browser tests need a real browser)")
	return ""
}

// Start runs a headless Chromium for the test and returns a browser tab's
// context, closed when the test ends. --no-sandbox only when running as
// root, where Chromium's sandbox refuses to start.
func Start(tb testing.TB) context.Context {
	tb.Helper()
	path := Find(tb)
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.Flag("headless", true),
		chromedp.DisableGPU,
		chromedp.WindowSize(1280, 900),
		chromedp.Flag("disable-dev-shm-usage", true),
	)
	if os.Geteuid() == 0 {
		opts = append(opts, chromedp.NoSandbox)
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx, chromedp.WithLogf(tb.Logf))
	tb.Cleanup(func() { cancel(); cancelAlloc() })
	// Starting the browser on the first Run: fail here, not in the
	// middle of the test's first step.
	sctx, scancel := context.WithTimeout(ctx, 60*time.Second)
	defer scancel()
	if err := chromedp.Do(sctx, chromedp.Navigate("about:blank")); err != nil {
		tb.Fatalf("cannot start %s: %v", path, err)
	}
	return ctx
}

// Artifacts returns the folder screenshots go to: $REDIRECTD_ARTIFACTS
// (made when missing), else a folder of the test's own, and logs it.
func Artifacts(tb testing.TB) string {
	tb.Helper()
	dir := os.Getenv("REDIRECTD_ARTIFACTS")
	if dir == "" {
		dir = tb.TempDir()
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		tb.Fatal(err)
	}
	tb.Logf("screenshots in %s", dir)
	return dir
}

var unsafeName = regexp.MustCompile(`[^a-zA-Z0-9_-]+`)

// Shot saves a full-page screenshot of the tab as dir/name.png.
func Shot(tb testing.TB, ctx context.Context, dir, name string) {
	tb.Helper()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100)) // 100: PNG, not JPEG
	if err != nil {
		tb.Fatalf("screenshot %s: %v", name, err)
	}
	file := filepath.Join(dir, unsafeName.ReplaceAllString(name, "-")+".png")
	if err := os.WriteFile(file, png, 0o644); err != nil {
		tb.Fatal(err)
	}
}
