// Package browsertest drives a real headless Chromium for the web
// console's tests (chromedp over the DevTools protocol): it starts the
// browser, keeps screenshots as test artifacts, and runs a basic
// accessibility check on a page. It is for tests only: no product
// package imports it.
package browsertest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"github.com/redirectd/redirectd/internal/testutil"
)

// maxBrowsers bounds the browsers a test process runs at once (Start).
const maxBrowsers = 2

var browsers = make(chan struct{}, maxBrowsers)

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
	testutil.Missing(tb, "chromium is not installed: apt-get install chromium (the console's browser tests need a real browser)")
	return ""
}

// Start runs a headless Chromium for the test and returns a browser tab's
// context, closed when the test ends. --no-sandbox only when running as
// root, where Chromium's sandbox refuses to start. Chromium's TMPDIR is
// a folder of the test's own, removed after the browser ends: Chromium
// makes its singleton folder (org.chromium.Chromium.*) there and never
// removes it, so each run left one in /tmp. It is a short name in the
// temporary folder, not tb.TempDir(), whose path holds the test's name:
// the singleton socket's path must fit a Unix socket address (108 bytes).
//
// At most maxBrowsers run at once in a test process; a test waits for a
// slot. Chromium starts a handful of processes each, and a crowd of them
// starting at once beside another `make test` is where one Chromium was
// seen to crash (a segmentation fault in its own code, once in ten
// side-by-side runs). What the browser writes is kept and logged when
// the test fails, so that a crash says why.
func Start(tb testing.TB) context.Context {
	tb.Helper()
	path := Find(tb)
	browsers <- struct{}{}
	tb.Cleanup(func() { <-browsers }) // last: after the browser's cleanup below
	tmp, err := os.MkdirTemp("", "rdchrome")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { os.RemoveAll(tmp) }) // after the browser's cleanup below
	out := new(testutil.LockedBuffer)
	tb.Cleanup(func() {
		if tb.Failed() {
			s := out.String()
			tb.Logf("the browser wrote:\n%s", s[max(0, len(s)-4<<10):])
		}
	})
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.Env("TMPDIR="+tmp),
		chromedp.CombinedOutput(out),
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
	// The browser starts on the first action: fail here, not in the
	// middle of the test's first step. It runs on ctx itself, not on a
	// context with a timeout, because the browser lives as long as the
	// context of its first action.
	if err := chromedp.Do(ctx, chromedp.Navigate("about:blank"), emulateFocus); err != nil {
		tb.Fatalf("cannot start %s: %v", path, err)
	}
	return ctx
}

// emulateFocus has the page count as focused whatever the browser's
// window focus does (Playwright does the same for every page), so that
// :focus follows the document's focused element alone: a Tab past the
// last element hands the focus to the browser, and the keyboard check
// (focusStep) must not wait on the browser to give it back.
var emulateFocus = chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
	_, err := cdp.Call(ctx, t, emulation.SetFocusEmulationEnabled, emulation.SetFocusEmulationEnabledParams{Enabled: true})
	return err
})

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

// Submit clicks the element sel (a form's button or a link) and waits
// until the next page has loaded: the old page is marked first, and the
// wait ends when a document without the mark is complete, so a check
// that follows never reads the page the click left.
func Submit(ctx context.Context, sel string) error {
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`window.__leaving = true`)); err != nil {
		return err
	}
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(sel))); err != nil {
		return err
	}
	for {
		done, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`window.__leaving !== true && document.readyState === 'complete'`))
		if err == nil && done {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for the page after clicking %s: %w", sel, ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
}
