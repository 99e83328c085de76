package viewer

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bonebake/bonebake/species/creatures"
)

// request sends method path to s as a browser at host would, with the headers
// given (nil: none), and returns the recorder.
func request(s *Server, method, host, path, body string, headers map[string]string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, "http://"+host+path, strings.NewReader(body))
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, req)
	return rec
}

const smallCrowd = `{"layout":"parade","count":3,"seed":1}`

// What a page on another site can send (fetch with mode no-cors, a <form>):
// a "simple" POST with Content-Type text/plain and its own Origin, and no token
// since it cannot read the viewer's page. Each rule refuses it on its own.
func TestCrossSitePostRefused(t *testing.T) {
	s := New(builtins(t))
	for _, c := range []struct {
		name    string
		headers map[string]string
		code    int
		want    string
	}{
		{"cross-site text/plain", map[string]string{"Origin": "http://evil.example", "Content-Type": "text/plain"}, 403, "evil.example"},
		{"cross-site, JSON, token", map[string]string{"Origin": "http://evil.example", "Content-Type": "application/json", TokenHeader: s.Token()}, 403, "not this viewer's"},
		{"another port of loopback", map[string]string{"Origin": "http://127.0.0.1:9999", "Content-Type": "application/json", TokenHeader: s.Token()}, 403, "not this viewer's"},
		{"sandboxed frame", map[string]string{"Origin": "null", "Content-Type": "application/json", TokenHeader: s.Token()}, 403, `"null"`},
		{"text/plain, no Origin", map[string]string{"Content-Type": "text/plain"}, 403, "no " + TokenHeader},
		{"text/plain with the token", map[string]string{"Content-Type": "text/plain", TokenHeader: s.Token()}, 415, "want application/json"},
		{"a form with the token", map[string]string{"Content-Type": "application/x-www-form-urlencoded", TokenHeader: s.Token()}, 415, "want application/json"},
		{"JSON, no token", map[string]string{"Content-Type": "application/json"}, 403, "no " + TokenHeader},
		{"JSON, a wrong token", map[string]string{"Content-Type": "application/json", TokenHeader: strings.Repeat("0", 64)}, 403, "not this run's token"},
	} {
		rec := request(s, "POST", "127.0.0.1:1234", "/api/crowd", smallCrowd, c.headers)
		if rec.Code != c.code || !strings.Contains(rec.Body.String(), c.want) {
			t.Errorf("%s: %d %q; want %d naming %q", c.name, rec.Code, rec.Body.String(), c.code, c.want)
		}
	}
	if n := s.Crowds(); n != 0 {
		t.Fatalf("%d crowds built by refused requests", n)
	}
	// The page's own request: same origin, JSON, the token.
	own := map[string]string{"Origin": "http://127.0.0.1:1234", "Content-Type": "application/json; charset=utf-8", TokenHeader: s.Token()}
	if rec := request(s, "POST", "127.0.0.1:1234", "/api/crowd", smallCrowd, own); rec.Code != 200 {
		t.Fatalf("the page's POST: %d %s", rec.Code, rec.Body)
	}
	// A step advances a crowd: it takes the token too.
	if rec := request(s, "GET", "127.0.0.1:1234", "/api/crowd/1/step?dt=0.1", "", nil); rec.Code != 403 {
		t.Errorf("a step without the token: %d %s, want 403", rec.Code, rec.Body)
	}
	if rec := request(s, "GET", "127.0.0.1:1234", "/api/crowd/1/step?dt=0.1", "", map[string]string{TokenHeader: s.Token()}); rec.Code != 200 {
		t.Errorf("the page's step: %d %s", rec.Code, rec.Body)
	}
}

// An <img src="http://127.0.0.1:PORT/api/bat/0?..."> on another site sends a
// plain GET with no Origin and no token: it starts no bake.
func TestImageGETStartsNoWork(t *testing.T) {
	a, err := FromSpecies(creatures.All()[0])
	if err != nil {
		t.Fatal(err)
	}
	s := New([]*Asset{a})
	img := map[string]string{"Sec-Fetch-Dest": "image", "Sec-Fetch-Site": "cross-site", "Accept": "image/*"}
	for _, p := range []string{"/api/bat/0?preset=raw&format=exr", "/api/bat/0/texels?preset=raw&format=exr", "/api/bat/0/humanoid.position.exr?preset=raw&format=exr"} {
		for _, m := range []string{"GET", "HEAD"} {
			if rec := request(s, m, "127.0.0.1:1234", p, "", img); rec.Code != 403 {
				t.Errorf("%s %s as an <img>: %d, want 403", m, p, rec.Code)
			}
		}
	}
	s.bats.mu.Lock()
	started := len(s.bats.m)
	s.bats.mu.Unlock()
	if started != 0 {
		t.Fatalf("%d bakes started by requests without the token", started)
	}
	// Reading what starts no work needs no token: the asset list, the page.
	for _, p := range []string{"/", "/api/assets", "/api/assets/0/palette"} {
		if rec := request(s, "GET", "127.0.0.1:1234", p, "", nil); rec.Code != 200 {
			t.Errorf("GET %s: %d, want 200", p, rec.Code)
		}
	}
}

// The page the server serves carries its token, new for each server, and the
// token is the one its checks take.
func TestPageCarriesToken(t *testing.T) {
	s, s2 := New(nil), New(nil)
	meta := regexp.MustCompile(`<meta name="bonebake-token" content="([0-9a-f]*)">`)
	m := meta.FindStringSubmatch(get(t, s, "/").Body.String())
	if m == nil || len(m[1]) < 32 {
		t.Fatalf("the page carries no token: %v", m)
	}
	if m[1] != s.Token() || s.Token() == s2.Token() {
		t.Errorf("token %q; server's %q, another server's %q", m[1], s.Token(), s2.Token())
	}
	if strings.Contains(get(t, s, "/").Body.String(), `content=""`) {
		t.Error("the page still holds the empty placeholder")
	}
}

// `bonebake view --addr 0.0.0.0:PORT` used from another machine: the page is
// served from that machine's address and its requests, with that Origin and
// the token, are taken; a page on another site still is not.
func TestNonLoopbackPageWorks(t *testing.T) {
	s := New(builtins(t))
	s.AllowAnyHost = true
	host := "192.168.1.5:8080"
	own := map[string]string{"Origin": "http://" + host, "Content-Type": "application/json", TokenHeader: s.Token()}
	if rec := request(s, "POST", host, "/api/crowd", smallCrowd, own); rec.Code != 200 {
		t.Fatalf("the page at %s: %d %s", host, rec.Code, rec.Body)
	}
	for _, origin := range []string{"http://192.168.1.5:9090", "http://evil.example", "https://192.168.1.6:8080"} {
		h := map[string]string{"Origin": origin, "Content-Type": "application/json", TokenHeader: s.Token()}
		if rec := request(s, "POST", host, "/api/crowd", smallCrowd, h); rec.Code != 403 {
			t.Errorf("Origin %s: %d, want 403", origin, rec.Code)
		}
	}
	// A default port, written or not, is the same origin.
	if rec := request(s, "POST", "viewer.lan", "/api/crowd", smallCrowd, map[string]string{"Origin": "http://viewer.lan:80", "Content-Type": "application/json", TokenHeader: s.Token()}); rec.Code != 200 {
		t.Errorf("Origin with the default port: %d %s", rec.Code, rec.Body)
	}
}

// Crowds being built are bounded: of N requests that arrive while MaxBuilding
// builds are under way, the rest are refused with 503 at once, not admitted.
func TestConcurrentBuildsBounded(t *testing.T) {
	s := New(builtins(t))
	const n = MaxBuilding + 6
	entered := make(chan struct{}, n)
	release := make(chan struct{})
	s.buildHook = func() { entered <- struct{}{}; <-release }
	headers := map[string]string{"Content-Type": "application/json", TokenHeader: s.Token()}
	codes := make(chan *httptest.ResponseRecorder, n)
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			codes <- request(s, "POST", "127.0.0.1:1234", "/api/crowd", `{"layout":"parade","count":20000,"seed":1}`, headers)
		})
	}
	// The ones beyond the bound answer while the first MaxBuilding are held.
	var releaseOnce sync.Once
	free := func() { releaseOnce.Do(func() { close(release) }) }
	defer free()
	for range n - MaxBuilding {
		var rec *httptest.ResponseRecorder
		select {
		case rec = <-codes:
		case <-time.After(20 * time.Second):
			t.Fatalf("no answer in 20 s with %d builds under way: every request was admitted", len(entered))
		}
		if rec.Code != http.StatusServiceUnavailable || rec.Header().Get("Retry-After") == "" ||
			!strings.Contains(rec.Body.String(), fmt.Sprintf("already building %d crowds", MaxBuilding)) {
			t.Errorf("beyond the bound: %d %q (Retry-After %q)", rec.Code, rec.Body.String(), rec.Header().Get("Retry-After"))
		}
	}
	for range MaxBuilding {
		<-entered
	}
	if len(entered) != 0 {
		t.Errorf("%d builds under way, want %d", MaxBuilding+len(entered), MaxBuilding)
	}
	free()
	wg.Wait()
	close(codes)
	for rec := range codes {
		if rec.Code != 200 {
			t.Errorf("a build within the bound: %d %s", rec.Code, rec.Body)
		}
	}
	// The slots come back: the next request is built.
	s.buildHook = nil
	if rec := request(s, "POST", "127.0.0.1:1234", "/api/crowd", smallCrowd, headers); rec.Code != 200 {
		t.Errorf("after the builds: %d %s", rec.Code, rec.Body)
	}
}

// What a crowd of MaxUnits units costs while it is built (everything allocated
// from the request to the answer: an upper bound on what the build holds) and
// once built and stepped (what stays reachable): the figures MaxBuilding's bound states.
func TestCrowdBuildMemory(t *testing.T) {
	s := New(builtins(t))
	for _, layout := range []string{"parade", "battle", "clock"} {
		body := fmt.Sprintf(`{"layout":%q,"count":%d,"seed":1}`, layout, MaxUnits)
		if layout == "clock" {
			body = fmt.Sprintf(`{"layout":"parade","clock":true,"count":%d,"seed":1}`, MaxUnits)
		}
		var before, built, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		rec, j := post(t, s, body)
		if rec.Code != 200 {
			t.Fatal(rec.Body)
		}
		runtime.ReadMemStats(&built)
		// A built crowd keeps its last step's answer too.
		if rec := get(t, s, fmt.Sprintf("/api/crowd/%d/step?dt=0.1", j.ID)); rec.Code != 200 {
			t.Fatal(rec.Body)
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		alloc := float64(built.TotalAlloc-before.TotalAlloc) / (1 << 20)
		kept := (float64(after.HeapAlloc) - float64(before.HeapAlloc)) / (1 << 20)
		t.Logf("%s of %d units: %.1f MB allocated while built, %.1f MB kept", layout, MaxUnits, alloc, kept)
		if alloc > buildMB || kept > builtMB {
			t.Errorf("%s: %.1f MB allocated, %.1f kept; the bound stated is %d and %d MB", layout, alloc, kept, buildMB, builtMB)
		}
	}
}
