package bonebakethree

import (
	"bytes"
	"context"
	"fmt"
	"image/png"
	"math"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/bonebake/bonebake/formats"
	"github.com/bonebake/bonebake/formats/bpat"
	"github.com/bonebake/bonebake/formats/bpsm"
	"github.com/bonebake/bonebake/formats/gait"
	"github.com/bonebake/bonebake/internal/chromiumtest"
	"github.com/bonebake/bonebake/internal/testfiles"
	"github.com/bonebake/bonebake/rig"
	"github.com/bonebake/bonebake/source/gltf/gltfbake"
)

// npmPackage installs the package's pinned dev dependencies (three.js, from
// package-lock.json) with npm ci into a cache folder of its own, once per lock
// file, and returns that folder. It skips the test when npm cannot run here.
func npmPackage(t testing.TB) string {
	t.Helper()
	return testfiles.NpmCache(t, ".", "bonebake-three-npm", "package.json", "package-lock.json")
}

// soldier is Soldier.glb baked by gltfbake, once for the package's tests.
var soldier struct {
	once      sync.Once
	dir, glb  string
	model     *gltfbake.Model
	file      *bpat.File
	err       error
	snapshot  *bpsm.File
	skipWhy   string
	bpatBytes []byte
}

func bakedSoldier(t testing.TB) {
	t.Helper()
	glb, ok := testfiles.Find("gltf", "threejs/Soldier.glb")
	if !ok {
		t.Skip("threejs/Soldier.glb is neither in testdata nor in ../shared/testdata")
	}
	soldier.once.Do(func() {
		soldier.glb = glb
		soldier.dir, soldier.err = os.MkdirTemp("", "bonebake-three-model-")
		if soldier.err != nil {
			return
		}
		m, err := gltfbake.Load(glb, gltfbake.Settings{Sockets: soldierSockets})
		if err != nil {
			soldier.err = err
			return
		}
		b, err := m.Bytes()
		if err != nil {
			soldier.err = err
			return
		}
		path := filepath.Join(soldier.dir, "soldier.bpat")
		if soldier.err = os.WriteFile(path, b, 0o644); soldier.err != nil {
			return
		}
		if soldier.err = gait.WriteFile(gait.SidecarPath(path), m.Gaits(path)); soldier.err != nil {
			return
		}
		if soldier.snapshot, soldier.err = writeSnapshot(m, filepath.Join(soldier.dir, "soldier_minimal.bpsm")); soldier.err != nil {
			return
		}
		soldier.model, soldier.bpatBytes = m, b
		soldier.file, soldier.err = bpat.Parse(b, formats.KnownSpecies(m.Job.SpeciesID))
	})
	if soldier.err != nil {
		t.Fatalf("baking Soldier.glb: %v", soldier.err)
	}
}

// openPage serves the package, its installed three.js and the baked Soldier,
// opens test/browser/index.html in headless Chromium and waits for it to load
// the model. Full suite only; it skips without node, npm or Chromium.
func openPage(t *testing.T) context.Context {
	t.Helper()
	return openURL(t, testPage, "bonebakeReady", "bonebakeError")
}

// testPage is the page openPage opens, on the baked Soldier.
const testPage = "test/browser/index.html?model=/model/Soldier.glb&bpat=/model/soldier.bpat"

// openURL opens path on the test server (the package's files, with the baked
// Soldier also under /model/ and beside the example) and waits until the
// page sets window[ready] (or window[failed], its error).
func openURL(t testing.TB, path, ready, failed string) context.Context {
	t.Helper()
	return openWith(t, page{path: path, ready: ready, failed: failed})
}

// page is a page for openWith to open.
type page struct {
	path, ready, failed string                  // as openURL's
	three               func(testing.TB) string // the folder whose node_modules/ the page's three.js comes from (npmPackage unless set)
	timeout             time.Duration           // how long the browser may run (4 minutes unless set)
	root                string                  // the folder served at / (the package's unless set)
}

func openWith(t testing.TB, p page) context.Context {
	t.Helper()
	if testing.Short() {
		t.Skip("the browser tests run in the full suite")
	}
	exe := chromiumtest.Chromium()
	if exe == "" {
		t.Skip("no chromium to run the browser tests with (apt-get install chromium, or set BONEBAKE_CHROMIUM)")
	}
	if p.three == nil {
		p.three = npmPackage
	}
	if p.timeout == 0 {
		p.timeout = 4 * time.Minute
	}
	modules := p.three(t)
	bakedSoldier(t)
	mux := http.NewServeMux()
	mux.Handle("/node_modules/", http.StripPrefix("/node_modules/", http.FileServer(http.Dir(filepath.Join(modules, "node_modules")))))
	mux.HandleFunc("/model/Soldier.glb", func(w http.ResponseWriter, r *http.Request) { http.ServeFile(w, r, soldier.glb) })
	mux.Handle("/model/", http.StripPrefix("/model/", http.FileServer(http.Dir(soldier.dir))))
	mux.HandleFunc("/examples/Soldier.glb", func(w http.ResponseWriter, r *http.Request) { http.ServeFile(w, r, soldier.glb) })
	mux.Handle("/baked/", http.StripPrefix("/baked/", http.FileServer(http.Dir(bakedRoot(t)))))
	for _, f := range []string{"soldier.bpat", "soldier.gait.json", "soldier_minimal.bpsm"} {
		mux.HandleFunc("/examples/"+f, func(w http.ResponseWriter, r *http.Request) { http.ServeFile(w, r, filepath.Join(soldier.dir, f)) })
	}
	if p.root == "" {
		p.root = "."
	}
	mux.Handle("/", http.FileServer(http.Dir(p.root)))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := &http.Server{Handler: mux}
	go hs.Serve(ln)
	t.Cleanup(func() { hs.Close() })

	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), chromiumtest.Options(exe, t.TempDir(), 400, 400)...)
	ctx, cancelTab := chromedp.NewContext(actx)
	ctx, cancelTime := context.WithTimeout(ctx, p.timeout)
	t.Cleanup(func() { cancelTime(); cancelTab(); cancelAlloc() })
	if err := chromedp.Do(ctx); err != nil { // starts the browser before anything listens to it
		t.Fatalf("starting chromium: %v", err)
	}
	var console []string
	var mu sync.Mutex
	lctx, stopListening := context.WithCancel(ctx)
	t.Cleanup(stopListening)
	go func() {
		for m, err := range chromedp.Console(lctx) {
			if err != nil {
				return
			}
			mu.Lock()
			console = append(console, fmt.Sprintf("%+v", m))
			mu.Unlock()
		}
	}()
	url := fmt.Sprintf("http://%s/%s", ln.Addr(), p.path)
	err = chromedp.Do(ctx, chromedp.Navigate(url))
	var state string
	if err == nil {
		state, err = chromedp.Run(ctx, chromedp.Evaluate[string](fmt.Sprintf(`new Promise((res) => { const t0 = Date.now(); (function wait() {
			if (window[%[1]q]) return res('ready');
			if (window[%[2]q] || Date.now() - t0 > 120000) return res(String(window[%[2]q] || 'timed out'));
			setTimeout(wait, 50); })(); })`, p.ready, p.failed), chromedp.EvalAwaitPromise))
	}
	if err != nil || state != "ready" {
		mu.Lock()
		defer mu.Unlock()
		t.Fatalf("%s did not load (%v, %s); console:\n%s", p.path, err, state, strings.Join(tail(console, 20), "\n"))
	}
	return ctx
}

// eval runs js in the page and decodes its value (a promise's, awaited).
func eval[T any](t testing.TB, ctx context.Context, js string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](js, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("%s: %v", js, err)
	}
	return v
}

func tail(s []string, n int) []string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

// TestBrowserPoses: the matrices the crowd writes for the GPU are the Go
// reference's: bpat's sample of each unit's clip and phase (a fading unit's
// two poses blended by smoothstep) times the joint's inverse bind.
func TestBrowserPoses(t *testing.T) {
	ctx := openPage(t)
	for _, gpu := range []bool{false, true} {
		t.Run(map[bool]string{false: "cpu", true: "gpu"}[gpu], func(t *testing.T) { testPoses(t, ctx, gpu) })
	}
}

// testPoses compares the posed matrices of the CPU pass, or of the GPU pass
// read back from its render target, with the Go reference.
func testPoses(t *testing.T, ctx context.Context, gpu bool) {
	f := soldier.file
	units := [][2]any{{"Idle", 0.3}, {"Run", 0.55}, {"Walk", 0.9}, {"Walk", 0.25}}
	// Unit 3 fades from Walk at 0.25 to Run at 0.75 over 2 s from t = 1; at
	// t = 2 the fade is half done: smoothstep(0.5) = 0.5.
	fade := map[string]any{"unit": 3, "clip": "Run", "phase": 0.75, "time": 2, "at": 2}
	res := eval[struct{ Posed, InverseBinds [][]float64 }](t, ctx, fmt.Sprintf("window.bonebakeTest.poses(%s, %s, %v)", jsonOf(units), jsonOf(fade), gpu))
	got := res.Posed
	n := f.BoneCount()
	if len(got) != len(units) {
		t.Fatalf("%d units' poses; want %d", len(got), len(units))
	}
	sample := func(clip string, phase float64) []float32 {
		c := f.ClipIndex(clip)
		if c < 0 {
			t.Fatalf("no clip %s", clip)
		}
		p := make([]float32, n*16)
		f.Sample(c, phase, p, nil)
		return p
	}
	// three.js's inverse binds (GLTFLoader's, column-major) are the file's;
	// the Go reader's take the mesh's vertices as it placed them at rest
	// (gltf.Model.MeshPlacement), so the file's are InverseBind · MeshPlacement.
	g := soldier.model.GLTF
	ib := make([]rig.Mat4, len(g.InverseBind))
	for b := range ib {
		ib[b] = g.InverseBind[b].Mul(g.MeshPlacement)
	}
	if len(res.InverseBinds) != len(ib) {
		t.Fatalf("%d inverse binds in three.js; the Go reader has %d", len(res.InverseBinds), len(ib))
	}
	for b, m := range res.InverseBinds {
		for r := range 4 {
			for c := range 4 {
				if d := math.Abs(m[c*4+r] - ib[b][r*4+c]); d > 1e-5*max(1, math.Abs(ib[b][r*4+c])) {
					t.Fatalf("joint %d: three.js's inverse bind (%d,%d) is %v; the Go reader's %v", b, r, c, m[c*4+r], ib[b][r*4+c])
				}
			}
		}
	}
	for u, spec := range units {
		pal := sample(spec[0].(string), spec[1].(float64))
		if u == 3 {
			other := sample("Run", 0.75)
			for i := range pal {
				pal[i] = 0.5*pal[i] + 0.5*other[i]
			}
		}
		worst := 0.0
		for b := range n {
			var p rig.Mat4
			for i := range 16 {
				p[i] = float64(pal[b*16+i])
			}
			want := p.Mul(ib[b])
			for k := range 12 {
				worst = max(worst, math.Abs(got[u][b*12+k]-want[k]))
			}
		}
		if worst > 2e-4 {
			t.Errorf("unit %d (%v): the posed matrices differ from palette · inverse bind by up to %g", u, spec, worst)
		}
	}
}

// TestBrowserSilhouette: one unit drawn with each material kind (the model's
// own, textured, and MeshBasic, Lambert, Standard, Physical; posed by the CPU
// pass, and by the GPU pass for two of them) covers the pixels the Go
// reference's skinned vertices project to, within 2 pixels.
func TestBrowserSilhouette(t *testing.T) {
	testSilhouette(t, openPage(t), []string{"own", "basic", "lambert", "standard", "physical", "own/gpu", "standard/gpu"})
}

// testSilhouette draws the unit with each of kinds (a material kind, "/gpu"
// for the GPU pass) at two poses and compares the pixel boxes.
func testSilhouette(t *testing.T, ctx context.Context, kinds []string) {
	for _, pose := range []struct {
		clip  string
		phase float64
	}{{"Run", 0.3}, {"Walk", 0.8}} {
		want := referenceBox(t, pose.clip, pose.phase)
		for _, k := range kinds {
			kind, pass, _ := strings.Cut(k, "/")
			got := eval[struct{ X0, Y0, X1, Y1, N float64 }](t, ctx, fmt.Sprintf("window.bonebakeTest.silhouette(%q, %q, %v, %v)", kind, pose.clip, pose.phase, pass == "gpu"))
			if got.N < 500 {
				t.Errorf("%s at %s %v: %v pixels drawn", k, pose.clip, pose.phase, got.N)
				continue
			}
			g := [4]float64{got.X0, got.Y0, got.X1, got.Y1}
			t.Logf("%s at %s %v: pixel box %v, %v pixels; reference %.1f", k, pose.clip, pose.phase, g, got.N, want)
			for i := range g {
				if math.Abs(g[i]-want[i]) > 2 {
					t.Errorf("%s at %s %v: pixel box %v; the Go reference's vertices span %.1f", k, pose.clip, pose.phase, g, want)
					break
				}
			}
		}
	}
}

// referenceBox projects the character's vertices, skinned on the CPU by the
// Go reference (Σ w · palette · inverse bind · position, docs/formats/gltf.md
// §1) at clip and phase, as the page's camera does, and returns their pixel
// box (x0, y0, x1, y1; y down).
func referenceBox(t *testing.T, clip string, phase float64) [4]float64 {
	return pixelBox(t, skinnedVertices(t, soldier.file, soldier.model.GLTF, clip, phase, 4))
}

// TestBrowserShadow: the unit casts a shadow through its skinned depth
// material: the plane it stands on has many more dark pixels when it does.
func TestBrowserShadow(t *testing.T) {
	testShadow(t, openPage(t))
}

func testShadow(t *testing.T, ctx context.Context) {
	got := eval[struct{ WithShadow, WithoutShadow float64 }](t, ctx, `window.bonebakeTest.shadow("Walk", 0.3)`)
	t.Logf("dark pixels: %v with the shadow, %v without", got.WithShadow, got.WithoutShadow)
	if got.WithShadow < got.WithoutShadow+300 || got.WithShadow > got.WithoutShadow+3000 {
		t.Errorf("dark pixels on the plane: %v with the unit's shadow, %v without; want 300 to 3000 more with it (a 1.8 m figure lit from 37° above the ground casts about 1 m² of shadow, 900 pixels)", got.WithShadow, got.WithoutShadow)
	}
}

// TestBrowserExample: examples/index.html, the README's crowd, runs as
// shipped on the baked Soldier and draws it: the soldiers' dark uniforms and
// their shadows cover part of a picture that is otherwise sky and lit grass.
func TestBrowserExample(t *testing.T) {
	ctx := openURL(t, "examples/index.html?units=100", "exampleReady", "exampleError")
	dark := screenPixels(t, ctx, "example.png", func(r, g, b uint32) bool { return r+g+b < 150 })
	t.Logf("%v dark pixels", dark)
	if dark < 200 {
		t.Errorf("%v dark pixels: the example drew no crowd", dark)
	}
}

// screenPixels lets the page draw a few frames, then counts the pixels of
// the browser's own picture of it (kept as name in $BONEBAKE_SHOTS) that
// count (given 8-bit red, green and blue) picks.
func screenPixels(t testing.TB, ctx context.Context, name string, count func(r, g, b uint32) bool) int {
	eval[bool](t, ctx, `new Promise((res) => { let n = 0; (function f() { if (++n > 5) res(true); else requestAnimationFrame(f); })(); })`)
	shot, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(shot))
	if err != nil {
		t.Fatal(err)
	}
	if d := os.Getenv("BONEBAKE_SHOTS"); d != "" {
		os.WriteFile(filepath.Join(d, name), shot, 0o644)
	}
	n := 0
	for y := img.Bounds().Min.Y; y < img.Bounds().Max.Y; y++ {
		for x := img.Bounds().Min.X; x < img.Bounds().Max.X; x++ {
			r, g, b, _ := img.At(x, y).RGBA()
			if count(r>>8, g>>8, b>>8) {
				n++
			}
		}
	}
	return n
}

// TestBrowserGoldenGPU: the GPU pass's copy of the playback rule and fades
// (POSE_PASS_FRAGMENT) shows the golden cases' rows and weights
// (testdata/playback/golden.json, which the Go runtime and the node tests run
// too), read back from its render target as a sum the case determines.
func TestBrowserGoldenGPU(t *testing.T) {
	testGoldenGPU(t, openPage(t))
}

func testGoldenGPU(t *testing.T, ctx context.Context) {
	path, ok := testfiles.Find("playback", "golden.json")
	if !ok {
		t.Fatal("testdata/playback/golden.json is missing")
	}
	golden, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	got := eval[[]struct {
		Name      string
		T         float64
		Got, Want float64
	}](t, ctx, "window.bonebakeTest.goldenGPU("+string(golden)+")")
	if len(got) < 8 {
		t.Fatalf("%d golden probes ran on the GPU", len(got))
	}
	for _, p := range got {
		if math.Abs(p.Got-p.Want) > 1e-4*max(1, math.Abs(p.Want)) {
			t.Errorf("%s at t=%v: the GPU pass shows Σ w·row %v; the golden case %v", p.Name, p.T, p.Got, p.Want)
		}
	}
}
