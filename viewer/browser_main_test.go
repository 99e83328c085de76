package viewer

import (
	"context"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestMain closes the package's one browser (see sharedBrowser) after the tests.
func TestMain(m *testing.M) {
	code := m.Run()
	closeBrowser()
	os.Exit(code)
}

// browser is the one headless Chromium the browser tests share: starting one
// costs seconds on two cores, a new tab in it a fraction of that. Each test
// opens its own tab (and its own server, so its own origin) and closes it when
// it ends.
var browser struct {
	once   sync.Once
	ctx    context.Context // the browser's first tab; new tabs are its children
	cancel func()
	dir    string
	err    error
}

// sharedBrowser returns the context new tabs are opened from, starting the
// browser on first use. It skips the test when no Chromium is installed.
func sharedBrowser(t *testing.T) context.Context {
	t.Helper()
	exe := findChromium()
	if exe == "" {
		t.Skip("no chromium to run the browser tests with (apt-get install chromium, or set BONEBAKE_CHROMIUM)")
	}
	browser.once.Do(func() {
		browser.dir, browser.err = os.MkdirTemp("", "bonebake-chromium-")
		if browser.err != nil {
			return
		}
		actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), allocatorOptions(exe, browser.dir, nil)...)
		ctx, cancelTab := chromedp.NewContext(actx)
		browser.ctx = ctx
		browser.cancel = func() { cancelTab(); cancelAlloc() }
		browser.err = chromedp.Do(ctx) // starts the browser
	})
	if browser.err != nil {
		t.Fatalf("starting chromium: %v", browser.err)
	}
	return browser.ctx
}

func closeBrowser() {
	if browser.cancel != nil {
		browser.cancel()
	}
	if browser.dir != "" {
		os.RemoveAll(browser.dir)
	}
}

// allocatorOptions are the options a browser is started with: chromiumFlags and
// the extra flags given, its own profile in dir.
func allocatorOptions(exe, dir string, extraFlags []string) []chromedp.ExecAllocatorOption {
	opts := []chromedp.ExecAllocatorOption{chromedp.ExecPath(exe), chromedp.UserDataDir(dir), chromedp.WindowSize(1000, 640)}
	for _, f := range append(append([]string(nil), chromiumFlags...), extraFlags...) {
		name, value, ok := strings.Cut(f, "=")
		if ok {
			opts = append(opts, chromedp.Flag(name, value))
		} else {
			opts = append(opts, chromedp.Flag(name, true))
		}
	}
	return opts
}
