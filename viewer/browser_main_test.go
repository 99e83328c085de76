package viewer

import (
	"context"
	"os"
	"sync"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/bonebake/bonebake/internal/chromiumtest"
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
	exe := chromiumtest.Chromium()
	if exe == "" {
		t.Skip("no chromium to run the browser tests with (apt-get install chromium, or set BONEBAKE_CHROMIUM)")
	}
	browser.once.Do(func() {
		browser.dir, browser.err = os.MkdirTemp("", "bonebake-chromium-")
		if browser.err != nil {
			return
		}
		actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), chromiumtest.Options(exe, browser.dir, 1000, 640)...)
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
