package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// lockedBuffer is a bytes.Buffer safe for the command and the test to share.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// startView runs `bonebake view args...` in-process until the test ends and
// returns the URL it printed, its stderr, and a func that stops it (as Ctrl-C
// does) and returns its error.
func startView(t *testing.T, args ...string) (string, *lockedBuffer, func() error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var out, errOut lockedBuffer
	argv := append([]string{"view"}, args...)
	root := newRoot(argv)
	root.SetArgs(argv)
	root.SetOut(&out)
	root.SetErr(&errOut)
	done := make(chan error, 1)
	go func() { done <- root.ExecuteContext(ctx) }()
	stop := func() error {
		cancel()
		select {
		case err := <-done:
			return err
		case <-time.After(10 * time.Second):
			t.Fatal("view did not stop within 10 s of its context ending")
			return nil
		}
	}
	t.Cleanup(func() { cancel() })
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if line, _, ok := strings.Cut(out.String(), "\n"); ok {
			return line, &errOut, stop
		}
		select {
		case err := <-done:
			t.Fatalf("view exited: %v; stderr: %s", err, errOut.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
	t.Fatalf("view printed no URL; stderr: %s", errOut.String())
	return "", nil, nil
}

func fetch(t *testing.T, u string) (int, []byte) {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

// pageToken reads the token from the page at base, as a script driving the
// viewer does.
func pageToken(t *testing.T, base string) string {
	t.Helper()
	code, page := fetch(t, base)
	m := regexp.MustCompile(`<meta name="bonebake-token" content="([0-9a-f]+)">`).FindSubmatch(page)
	if code != 200 || m == nil {
		t.Fatalf("the page (%d) carries no token", code)
	}
	return string(m[1])
}

// send makes a request with headers; a "Host" entry sets the Host header.
func send(t *testing.T, method, u, body string, headers map[string]string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(method, u, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range headers {
		if k == "Host" {
			req.Host = v
		} else {
			req.Header.Set(k, v)
		}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// `view --addr` on every interface says that the Host check is off and what
// that allows, and the page served to another machine, which names this one by
// its own address, still works: its requests carry that Origin and the token.
func TestViewNonLoopback(t *testing.T) {
	base, stderr, stop := startView(t, "--addr", "0.0.0.0:0", "--dir", t.TempDir())
	defer stop()
	for _, want := range []string{"not loopback", "Host check is off", "build crowds and start BAT bakes", "DNS rebinding"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("the warning does not say %q: %s", want, stderr.String())
		}
	}
	u, _ := url.Parse(base)
	remote := "192.0.2.7:" + u.Port() // what the other machine calls this one
	token := pageToken(t, base)
	for origin, want := range map[string]int{"http://" + remote: 200, "http://evil.example": 403} {
		resp := send(t, "POST", base+"api/crowd", `{"layout":"parade","count":5}`, map[string]string{
			"Host": remote, "Origin": origin, "Content-Type": "application/json", "X-Bonebake-Token": token})
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("POST api/crowd from a page at %s: %d, want %d", origin, resp.StatusCode, want)
		}
	}
}

func TestViewServesModelsOnLoopback(t *testing.T) {
	base, _, stop := startView(t, filepath.Join("..", "..", "testdata", "gltf", "Fox.glb"))
	u, err := url.Parse(base)
	if err != nil || u.Scheme != "http" || u.Path != "/" {
		t.Fatalf("printed %q", base)
	}
	if ip := net.ParseIP(u.Hostname()); ip == nil || !ip.IsLoopback() {
		t.Fatalf("listens on %s, not loopback", u.Host)
	}
	code, body := fetch(t, base+"api/assets")
	var list struct {
		Assets []struct {
			Name, Kind, Mesh string
			Clips            []struct{ Name string }
		}
	}
	if code != 200 || json.Unmarshal(body, &list) != nil || len(list.Assets) != 1 ||
		list.Assets[0].Name != "Fox" || list.Assets[0].Kind != "gltf" || list.Assets[0].Mesh != "gltf" || len(list.Assets[0].Clips) != 3 {
		t.Fatalf("/api/assets: %d %s", code, body)
	}
	if code, _ := fetch(t, base); code != 200 {
		t.Errorf("the page: %d", code)
	}
	for _, p := range []string{"go.mod", "api/assets/1/palette", "etc/passwd"} {
		if code, _ := fetch(t, base+p); code != 404 {
			t.Errorf("/%s: %d, want 404", p, code)
		}
	}
	if err := stop(); err != nil {
		t.Fatalf("stopping: %v", err)
	}
	if _, err := http.Get(base + "api/assets"); err == nil {
		t.Error("the server still answers after stopping")
	}
}

func TestViewBuiltins(t *testing.T) {
	base, stderr, stop := startView(t, "--dir", t.TempDir())
	defer stop()
	_, body := fetch(t, base+"api/assets")
	var list struct{ Assets []struct{ Name, Kind string } }
	if err := json.Unmarshal(body, &list); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, a := range list.Assets {
		if a.Kind != "builtin" {
			t.Errorf("%s: kind %s", a.Name, a.Kind)
		}
		names = append(names, a.Name)
	}
	if got := strings.Join(names, " "); got != "humanoid horse elephant humanoid_sword humanoid_spear humanoid_skeleton" {
		t.Errorf("assets %q", got)
	}
	// The crowd the page draws: a battle the server runs with the runtime,
	// asked for with the token the page carries.
	token := pageToken(t, base)
	resp := send(t, "POST", base+"api/crowd", `{"layout":"battle","count":40}`, map[string]string{"Content-Type": "application/json", "X-Bonebake-Token": token})
	var crowd struct {
		ID     int    `json:"id"`
		Layout string `json:"layout"`
		Units  int    `json:"unit_count"`
	}
	err := json.NewDecoder(resp.Body).Decode(&crowd)
	resp.Body.Close()
	if err != nil || resp.StatusCode != 200 || crowd.Layout != "battle" || crowd.Units == 0 {
		t.Fatalf("POST api/crowd: %d %+v %v", resp.StatusCode, crowd, err)
	}
	step := send(t, "GET", fmt.Sprintf("%sapi/crowd/%d/step?dt=0.02", base, crowd.ID), "", map[string]string{"X-Bonebake-Token": token})
	body, _ = io.ReadAll(step.Body)
	step.Body.Close()
	if step.StatusCode != 200 || !strings.HasPrefix(string(body), "BBCS") {
		t.Errorf("a step: %d, %d bytes", step.StatusCode, len(body))
	}
	// Without it (a page on another site cannot read it), nothing is built.
	if code, _ := fetch(t, fmt.Sprintf("%sapi/crowd/%d/step?dt=0.02", base, crowd.ID)); code != 403 {
		t.Errorf("a step without the token: %d, want 403", code)
	}
	if !strings.Contains(stderr.String(), "6 built-in creatures baked in memory") {
		t.Errorf("stderr %q", stderr.String())
	}
}

func TestViewOpenWithoutABrowser(t *testing.T) {
	t.Setenv("PATH", t.TempDir()) // neither xdg-open nor open
	base, stderr, stop := startView(t, "--open", filepath.Join("..", "..", "testdata", "gltf", "Fox.glb"))
	defer stop()
	// The page's address comes out first, then the word that no browser opened.
	for deadline := time.Now().Add(10 * time.Second); !strings.Contains(stderr.String(), "--open:") && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	if !strings.Contains(stderr.String(), "--open:") || !strings.Contains(stderr.String(), base) {
		t.Errorf("stderr %q", stderr.String())
	}
	if code, _ := fetch(t, base+"api/assets"); code != 200 {
		t.Errorf("the server stopped: %d", code)
	}
}

func TestPageURL(t *testing.T) {
	for addr, want := range map[string]string{
		"127.0.0.1:8080": "http://127.0.0.1:8080/",
		"0.0.0.0:8080":   "http://127.0.0.1:8080/",
		"[::]:8080":      "http://127.0.0.1:8080/",
		"[::1]:8080":     "http://[::1]:8080/",
		"10.1.2.3:80":    "http://10.1.2.3:80/",
	} {
		ta, err := net.ResolveTCPAddr("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		if got := pageURL(ta); got != want {
			t.Errorf("%s: %s, want %s", addr, got, want)
		}
	}
}

func TestViewErrors(t *testing.T) {
	if code, out, _ := bonebake(t, "view", "--help"); code != 0 || !strings.Contains(out, "Usage:") || !strings.Contains(out, "--open") {
		t.Errorf("view --help: exit %d, %q", code, out)
	}
	if code, _, _ := bonebake(t, "view", "--addr", "not-an-address"); code != 2 {
		t.Errorf("bad --addr: exit %d, want 2", code)
	}
	if code, _, errOut := bonebake(t, "view", filepath.Join(t.TempDir(), "missing.bpat")); code != 1 || !strings.Contains(errOut, "missing.bpat") {
		t.Errorf("missing file: exit %d, %q", code, errOut)
	}
	// A port in use says which and what to do.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	if code, _, errOut := bonebake(t, "view", "--addr", ln.Addr().String()); code != 1 || !strings.Contains(errOut, "already in use") || !strings.Contains(errOut, "--addr 127.0.0.1:0") {
		t.Errorf("port in use: exit %d, %q", code, errOut)
	}
}

// view tells files apart by their bytes: what it cannot show is named, with the
// command that reads it, instead of "the JSON is not a valid glTF document".
func TestViewSaysWhatAFileIs(t *testing.T) {
	dir := t.TempDir()
	creatures := filepath.Join(dir, "creatures")
	if code, _, errOut := bonebake(t, "bake", "--out", creatures, "--species", "horse"); code != 0 {
		t.Fatal(errOut)
	}
	pkg := filepath.Join(dir, "c.bpx")
	if code, _, errOut := bonebake(t, "bpx", "pack", creatures, "-o", pkg, "--compress", "none"); code != 0 { // any package will do
		t.Fatal(errOut)
	}
	batDir := filepath.Join(dir, "bat")
	if code, _, errOut := bonebake(t, "bat", "horse", "-o", batDir); code != 0 {
		t.Fatal(errOut)
	}
	for path, want := range map[string]string{
		filepath.Join(creatures, "horse_minimal.bpsm"): "is a BPSM snapshot mesh",
		pkg:    "is a BPX container: unpack it",
		batDir: "holds bone animation textures",
	} {
		if code, _, errOut := bonebake(t, "view", path); code != 1 || !strings.Contains(errOut, want) || strings.Contains(errOut, "JSON") {
			t.Errorf("view %s: exit %d %q; want %q", path, code, errOut, want)
		}
	}
}

// TestViewMissingPath: a path that is not there is said as every command says
// it, "PATH: no such file", not Go's "stat PATH: no such file or directory"
// (issue 45 round 4, item 3).
func TestViewMissingPath(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "nothere.glb")
	for _, args := range [][]string{{"view", missing}, {"view", missing, "--clips", missing}} {
		code, _, stderr := bonebake(t, args...)
		if want := "bonebake: " + missing + ": no such file\n"; code != 1 || stderr != want {
			t.Errorf("%v: exit %d, stderr %q; want 1 and %q", args[2:], code, stderr, want)
		}
	}
}
