package viewer

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/png"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/input"
	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/bonebake/bonebake/internal/chromiumtest"
)

// page is one headless browser tab on a viewer server.
type page struct {
	t       *testing.T
	ctx     context.Context
	url     string
	mu      sync.Mutex
	console []chromedp.ConsoleMessage
}

// openViewer serves assets on 127.0.0.1:0, opens the page in headless Chromium
// and waits until it has drawn its first frame. It skips the test when no
// Chromium is installed.
func openViewer(t *testing.T, assets []*Asset, query string, width, height int) *page {
	t.Helper()
	p, ready := openPage(t, assets, query, width, height)
	if ready != "ready" {
		t.Fatalf("the page did not start: %v; console: %v", ready, p.messages())
	}
	return p
}

// openPage opens the viewer like openViewer, and returns the page with what it
// said when it started ("ready", or its error). The page is a new tab of the
// package's shared browser with a viewport of width × height; with extra
// chromium flags it is the first tab of a browser of its own.
func openPage(t *testing.T, assets []*Asset, query string, width, height int, extraFlags ...string) (*page, any) {
	t.Helper()
	return openPageWith(t, assets, query, width, height, "", extraFlags...)
}

// openCrowdHidden opens the viewer like openViewer with the crowd hidden from
// the page's first frame on (as bonebake.setCrowdVisible(false) hides it), for
// crowds that take SwiftShader seconds a frame to draw.
func openCrowdHidden(t *testing.T, assets []*Asset, query string, width, height int) *page {
	t.Helper()
	// The page's state.js sets window.bonebake to its hook, whose state it
	// shares; the first assignment sets showCrowd and then stores the hook.
	const hide = `Object.defineProperty(window, 'bonebake', { configurable: true, get() { return undefined; },
		set(h) { h.state.showCrowd = false; Object.defineProperty(window, 'bonebake', { value: h, writable: true, configurable: true }); } });`
	p, ready := openPageWith(t, assets, query, width, height, hide)
	if ready != "ready" {
		t.Fatalf("the page did not start: %v; console: %v", ready, p.messages())
	}
	return p
}

// openPageWith is openPage with a script run in the page before its own.
func openPageWith(t *testing.T, assets []*Asset, query string, width, height int, initJS string, extraFlags ...string) (*page, any) {
	t.Helper()
	parent := sharedBrowser(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := &http.Server{Handler: New(assets)}
	go hs.Serve(ln)
	t.Cleanup(func() { hs.Close() })

	var ctx context.Context
	if len(extraFlags) > 0 {
		actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), chromiumtest.Options(chromiumtest.Chromium(), t.TempDir(), 1000, 640, extraFlags...)...)
		c, cancelTab := chromedp.NewContext(actx)
		ctx = c
		t.Cleanup(func() { cancelTab(); cancelAlloc() })
	} else {
		c, release := pageTab(parent)
		ctx = c
		t.Cleanup(release)
	}
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(int64(width), int64(height))); err != nil {
		t.Fatalf("viewport: %v", err)
	}
	if initJS != "" {
		var id cdppage.ScriptIdentifier
		err := chromedp.Do(ctx, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
			res, err := cdp.Call(ctx, tg, cdppage.AddScriptToEvaluateOnNewDocument, cdppage.AddScriptToEvaluateOnNewDocumentParams{Source: initJS})
			id = res.Identifier
			return err
		}))
		if err != nil {
			t.Fatalf("init script: %v", err)
		}
		// Registered before the tab's release (cleanups run last first), so
		// the script is gone before the tab serves another test.
		t.Cleanup(func() {
			c, cancel := context.WithTimeout(ctx, 10*time.Second)
			defer cancel()
			chromedp.Do(c, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
				_, err := cdp.Call(ctx, tg, cdppage.RemoveScriptToEvaluateOnNewDocument, cdppage.RemoveScriptToEvaluateOnNewDocumentParams{Identifier: id})
				return err
			}))
		})
	}

	p := &page{t: t, ctx: ctx, url: "http://" + ln.Addr().String() + "/" + query}
	// This page's console messages only: the listener ends with the test.
	lctx, stopListening := context.WithCancel(ctx)
	t.Cleanup(stopListening)
	messages := chromedp.Console(lctx)
	go func() {
		for m, err := range messages {
			if err != nil {
				return
			}
			p.mu.Lock()
			p.console = append(p.console, m)
			p.mu.Unlock()
		}
	}()
	if err := chromedp.Do(ctx, chromedp.Navigate(p.url)); err != nil {
		t.Fatalf("navigate: %v", err)
	}
	ready := p.eval(`new Promise((res) => { const t0 = Date.now(); (function wait() {
		const b = window.bonebake;
		if (b && (b.ready || b.error)) return res(b.error || 'ready');
		if (Date.now() - t0 > 45000) return res('timed out');
		setTimeout(wait, 50); })(); })`)
	return p, ready
}

// pageTab returns a tab of the shared browser for a page, and what gives it
// back when the test ends. Pages take turns in one tab, each test's page
// navigated there (a new tab costs the browser's processes about 2.5 s of CPU
// more than a navigation: its own renderer, compositing, the browser's tab
// bookkeeping); a page opened while that tab is in use gets a new tab, closed
// when its test ends. Given back, the tab leaves the page for about:blank, so
// its scripts stop and its WebGL context goes as when a tab closes.
func pageTab(parent context.Context) (context.Context, func()) {
	pageTabs.mu.Lock()
	defer pageTabs.mu.Unlock()
	if pageTabs.busy {
		return chromedp.NewContext(parent)
	}
	if pageTabs.ctx == nil {
		pageTabs.ctx, pageTabs.cancel = chromedp.NewContext(parent)
	}
	pageTabs.busy = true
	ctx := pageTabs.ctx
	return ctx, func() {
		c, cancel := context.WithTimeout(ctx, 20*time.Second)
		err := chromedp.Do(c, chromedp.Navigate("about:blank"))
		cancel()
		pageTabs.mu.Lock()
		defer pageTabs.mu.Unlock()
		if err != nil { // a tab that cannot leave its page is closed; the next page gets a new one
			pageTabs.cancel()
			pageTabs.ctx = nil
		}
		pageTabs.busy = false
	}
}

// pageTabs is the shared browser's tab that pages take turns in (pageTab).
var pageTabs struct {
	mu     sync.Mutex
	ctx    context.Context
	cancel func()
	busy   bool
}

// eval runs JavaScript in the page (awaiting a promise) and returns its value.
func (p *page) eval(js string) any {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, 60*time.Second)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[any](js, chromedp.EvalAwaitPromise))
	if err != nil {
		p.t.Fatalf("%s: %v", js, err)
	}
	return v
}

func (p *page) number(js string) float64 {
	p.t.Helper()
	v, ok := p.eval(js).(float64)
	if !ok {
		p.t.Fatalf("%s: not a number", js)
	}
	return v
}

// frames waits for n more frames to be drawn.
func (p *page) frames(n int) {
	p.t.Helper()
	p.eval(fmt.Sprintf("bonebake.nextFrames(%d)", n))
}

func (p *page) screenshot() image.Image {
	p.t.Helper()
	b, err := chromedp.Run(p.ctx, chromedp.CaptureScreenshot())
	if err != nil {
		p.t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		p.t.Fatal(err)
	}
	return img
}

// messages returns the console messages that report problems: errors,
// exceptions, and warnings from WebGL.
func (p *page) messages() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []string
	for _, m := range p.console {
		bad := m.Type == chromedp.ConsoleError || m.IsException() ||
			(m.Type == chromedp.ConsoleWarning && (strings.Contains(m.Text, "WebGL") || strings.Contains(m.Text, "GL_")) && !driverPerformanceNote(m.Text))
		if bad {
			out = append(out, m.String())
		}
	}
	return out
}

// driverPerformanceNote says whether a console warning is the GPU driver's
// note on performance, such as "GPU stall due to ReadPixels", which a real GPU
// gives for the tests' own one-pixel reads (sync): not the page's error.
func driverPerformanceNote(text string) bool {
	return strings.Contains(text, "GL Driver Message (OpenGL, Performance")
}

// checkClean fails the test on console problems or a WebGL error.
func (p *page) checkClean() {
	p.t.Helper()
	if msgs := p.messages(); len(msgs) > 0 {
		p.t.Errorf("console: %q", msgs)
	}
	if e := p.number("bonebake.glError()"); e != 0 {
		p.t.Errorf("gl.getError() = 0x%x", int(e))
	}
	if e := p.number("bonebake.stats.glErrors"); e != 0 {
		p.t.Errorf("%v WebGL errors during frames", e)
	}
}

type rect struct{ X, Y, W, H float64 }

func (p *page) crowdRect() rect {
	p.t.Helper()
	m, ok := p.eval("bonebake.crowdRect()").(map[string]any)
	if !ok {
		p.t.Fatal("crowdRect: no object")
	}
	return rect{m["x"].(float64), m["y"].(float64), m["w"].(float64), m["h"].(float64)}
}

// differing counts the pixels inside r whose colours differ between a and b by
// more than a small tolerance, and the pixels in r.
func differing(a, b image.Image, r rect) (n, total int) {
	bounds := a.Bounds().Intersect(b.Bounds()).Intersect(image.Rect(int(r.X), int(r.Y), int(r.X+r.W+1), int(r.Y+r.H+1)))
	for y := bounds.Min.Y; y < bounds.Max.Y; y++ {
		for x := bounds.Min.X; x < bounds.Max.X; x++ {
			r1, g1, b1, _ := a.At(x, y).RGBA()
			r2, g2, b2, _ := b.At(x, y).RGBA()
			d := absDiff(r1, r2) + absDiff(g1, g2) + absDiff(b1, b2)
			if d > 3*4*257 {
				n++
			}
			total++
		}
	}
	return n, total
}

func absDiff(a, b uint32) uint32 {
	if a > b {
		return a - b
	}
	return b - a
}

// settles runs JavaScript that may return a promise and reports whether it
// settled within the given seconds; a page that stops (an error, a step that
// never comes) leaves it pending, and the caller says what the page shows.
func (p *page) settles(js string, seconds int) bool {
	p.t.Helper()
	return p.eval(fmt.Sprintf(`Promise.race([Promise.resolve(%s).then(() => 'settled'),
		new Promise((res) => setTimeout(() => res('timed out'), %d))])`, js, seconds*1000)) == "settled"
}

// waitFor polls a JavaScript condition until it holds, for up to 30 s.
func (p *page) waitFor(cond string) {
	p.t.Helper()
	got := p.eval(`new Promise((res) => { const t0 = Date.now(); (function w() {
		if (` + cond + `) return res(true);
		if (Date.now() - t0 > 30000) return res(false);
		setTimeout(w, 20); })(); })`)
	if got != true {
		p.t.Fatalf("waited 30 s for %s", cond)
	}
}

// withButtons sets the buttons held during a mouse move.
func withButtons(b input.MouseButton, buttons int64) chromedp.MouseOption {
	return func(m *input.DispatchMouseEventParams) {
		m.Button = b
		m.Buttons = buttons
	}
}

func absf(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}
