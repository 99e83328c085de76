package viewer

import (
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/bonebake/bonebake/species/creatures"

	"github.com/chromedp/chromedp"
)

// statusRecorder keeps the status a handler answered.
type statusRecorder struct {
	http.ResponseWriter
	code int
}

func (w *statusRecorder) WriteHeader(code int) {
	w.code = code
	w.ResponseWriter.WriteHeader(code)
}

// TestBrowserCrossSite: a page on another site, in a real browser, tries what
// issue 42 found it could do (a text/plain POST of a 20,000-unit crowd, a JSON
// one, a form, an <img> that starts a BAT bake, reading the viewer's page for its
// token): the requests that reach the viewer are refused and nothing is built
// or baked.
func TestBrowserCrossSite(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test skipped in -short mode")
	}
	parent := sharedBrowser(t)
	a, err := FromSpecies(creatures.All()[0])
	if err != nil {
		t.Fatal(err)
	}
	s := New([]*Asset{a})
	var mu sync.Mutex
	var seen []string // "METHOD PATH STATUS" of every request the viewer answered
	vln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	viewer := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := &statusRecorder{ResponseWriter: w, code: 200}
		s.ServeHTTP(rec, r)
		mu.Lock()
		seen = append(seen, fmt.Sprintf("%s %s %d", r.Method, r.URL.Path, rec.code))
		mu.Unlock()
	})}
	go viewer.Serve(vln)
	t.Cleanup(func() { viewer.Close() })

	// The other site: "localhost", another host than the viewer's 127.0.0.1, on
	// a port of its own.
	eln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	evil := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, `<!doctype html><title>elsewhere</title><iframe name="sink"></iframe>`)
	})}
	go evil.Serve(eln)
	t.Cleanup(func() { evil.Close() })
	_, port, _ := net.SplitHostPort(eln.Addr().String())

	ctx, release := pageTab(parent)
	t.Cleanup(release)
	if err := chromedp.Do(ctx, chromedp.Navigate("http://localhost:"+port+"/")); err != nil {
		t.Fatalf("navigate: %v", err)
	}
	script := `(async () => {
		const V = 'http://` + vln.Addr().String() + `';
		const body = JSON.stringify({ layout: 'parade', count: 20000, seed: 1 });
		const out = {};
		const attempt = async (name, f) => { try { out[name] = await f(); } catch (e) { out[name] = 'blocked: ' + e; } };
		await attempt('simple', () => fetch(V + '/api/crowd', { method: 'POST', mode: 'no-cors', headers: { 'Content-Type': 'text/plain' }, body }).then(() => 'sent'));
		await attempt('json', () => fetch(V + '/api/crowd', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body }).then((r) => 'answered ' + r.status));
		await attempt('page', () => fetch(V + '/').then((r) => r.text()));
		await new Promise((res) => { const i = new Image(); i.onload = i.onerror = res; i.src = V + '/api/bat/0?preset=raw&format=exr'; });
		await new Promise((res) => {
			const f = document.createElement('form');
			f.method = 'POST'; f.action = V + '/api/crowd'; f.enctype = 'text/plain'; f.target = 'sink';
			const i = document.createElement('input'); i.name = body; i.value = ''; f.appendChild(i);
			document.body.appendChild(f);
			document.querySelector('iframe').onload = res;
			f.submit();
		});
		return out;
	})()`
	res, ok := (&page{t: t, ctx: ctx}).eval(script).(map[string]any)
	if !ok {
		t.Fatal("the other site's script returned nothing")
	}
	out := map[string]string{}
	for k, v := range res {
		out[k] = fmt.Sprint(v)
	}
	mu.Lock()
	got := append([]string(nil), seen...)
	mu.Unlock()
	t.Logf("the other site's page: %v; the viewer answered: %q", out, got)

	if !strings.HasPrefix(out["json"], "blocked") || !strings.HasPrefix(out["page"], "blocked") {
		t.Errorf("the other site read an answer: %v", out)
	}
	posts, bats := 0, 0
	for _, r := range got {
		f := strings.Fields(r)
		switch {
		case f[1] == "/api/crowd":
			posts++
			if f[2] != "403" {
				t.Errorf("%s: want 403", r)
			}
		case strings.HasPrefix(f[1], "/api/bat/"):
			bats++
			if f[2] != "403" {
				t.Errorf("%s: want 403", r)
			}
		}
	}
	// The no-cors POST and the form reach the viewer (the browser sends them
	// without asking), as does the <img>: each was refused.
	if posts < 2 || bats != 1 {
		t.Errorf("the viewer saw %d crowd requests and %d BAT requests; want ≥ 2 and 1: %q", posts, bats, got)
	}
	if n := s.Crowds(); n != 0 {
		t.Errorf("%d crowds built for the other site", n)
	}
	s.bats.mu.Lock()
	baked := len(s.bats.m)
	s.bats.mu.Unlock()
	if baked != 0 {
		t.Errorf("%d BAT bakes started for the other site", baked)
	}
}

// TestBrowserSliderDrag: sizes asked for faster than the server builds them (a
// slider dragged) are sent one at a time, the superseded ones not at all, so the
// server's bound on builds at once (MaxBuilding) never refuses the page: the
// last size asked for is the crowd, and the page shows no error.
func TestBrowserSliderDrag(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test skipped in -short mode")
	}
	p := openViewer(t, builtins(t), "?frame=1&n=10&aa=0&skeleton=0&sockets=0", 320, 97)
	p.eval("bonebake.setCrowdVisible(false)") // the big crowds cost no drawing
	sizes := "[20000, 19000, 18000, 17000, 16000, 15000, 14000, 120]"
	got := p.eval(`Promise.all(` + sizes + `.map((n) => bonebake.setInstances(n)))
		.then(() => bonebake.nextFrames(3)).then(() => 'ok', (e) => String(e))`)
	if got != "ok" {
		t.Fatalf("dragging the slider: %v", got)
	}
	if m := p.eval("[bonebake.state.count, bonebake.state.crowd.unit_count, bonebake.error || null]"); fmt.Sprint(m) != "[120 120 <nil>]" {
		t.Errorf("count, crowd size and error after the drag: %v", m)
	}
	p.checkClean()
}
