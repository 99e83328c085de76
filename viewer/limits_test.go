package viewer

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bonebake/bonebake/bat"
)

// The server that `bonebake view` runs bounds how long a client may take to send
// a request, to read a response and to sit idle.
func TestHTTPServerTimeouts(t *testing.T) {
	hs := HTTPServer(http.NotFoundHandler())
	if hs.ReadHeaderTimeout <= 0 || hs.ReadTimeout <= 0 || hs.WriteTimeout <= 0 || hs.IdleTimeout <= 0 {
		t.Errorf("timeouts: header %v, read %v, write %v, idle %v; want all set", hs.ReadHeaderTimeout, hs.ReadTimeout, hs.WriteTimeout, hs.IdleTimeout)
	}
}

// A crowd's parameters past 1 MiB are refused, not read.
func TestCrowdBodyBounded(t *testing.T) {
	s := New(nil)
	body := `{"count": 1, "pad": "` + strings.Repeat("x", 2<<20) + `"}`
	rec := httptest.NewRecorder()
	req := httptest.NewRequest(http.MethodPost, "/api/crowd", strings.NewReader(body))
	req.Host = "127.0.0.1"
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(TokenHeader, s.Token())
	s.ServeHTTP(rec, req)
	if rec.Code != http.StatusBadRequest || !strings.Contains(rec.Body.String(), "too large") {
		t.Errorf("a 2 MiB body: %d %q", rec.Code, rec.Body.String())
	}
}

// The BAT cache keeps what was asked for most recently within its limit.
func TestBATCacheEvicts(t *testing.T) {
	bake := func(n int) *batBake { return &batBake{texels: make([]byte, n), out: &bat.Output{}} }
	c := &batCache{limit: 250, m: map[batKey]*batEntry{}}
	for i := range 4 {
		k := batKey{id: i}
		c.m[k] = &batEntry{bake: bake(100), size: 100, used: uint64(i + 1)}
	}
	c.m[batKey{id: 0}].used = 10 // asked for again: now the newest
	c.evict(batKey{id: 3})
	var kept []int
	for k := range c.m {
		kept = append(kept, k.id)
	}
	if len(c.m) != 2 || c.m[batKey{id: 0}] == nil || c.m[batKey{id: 3}] == nil {
		t.Errorf("kept %v; want 0 (asked for last) and 3 (just made)", kept)
	}
}

// BAT bakes are bounded as crowd builds are: of 8 bakes asked for at once (the
// page asks for every asset's), MaxBaking run at a time and the rest wait.
func TestBATBakesBounded(t *testing.T) {
	s := New(nil)
	var mu sync.Mutex
	running, most := 0, 0
	s.bats.bake = func(*Asset, bat.Options) (*batBake, error) {
		mu.Lock()
		running++
		most = max(most, running)
		mu.Unlock()
		time.Sleep(30 * time.Millisecond)
		mu.Lock()
		running--
		mu.Unlock()
		return &batBake{out: &bat.Output{}}, nil
	}
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			if _, err := s.bats.get(nil, batKey{id: i}); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if most > MaxBaking || most == 0 {
		t.Errorf("%d bakes ran at once; want at most %d", most, MaxBaking)
	}
}
