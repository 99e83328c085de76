package viewer

import (
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/bonebake/bonebake/species/creatures"
)

// gpuFlagSets are the Chromium flag sets TestBrowserGPUFrameRate tries, in
// turn, until one gives the page WebGL2 on a GPU: ANGLE on Vulkan, then on
// the system's EGL (both gave WebGL2 on an NVIDIA H100 with no display;
// Chromium's own Vulkan, enable-features=Vulkan, did not start there). The
// frame rate stays paced at 60 Hz: lifted (disable-frame-rate-limit), frames
// starve the page's timers and network answers, and the page stalls.
var gpuFlagSets = []string{
	"use-angle=vulkan ignore-gpu-blocklist",
	"use-gl=angle use-angle=gl-egl ignore-gpu-blocklist",
}

// gpuRendererJS names the renderer WebGL2 runs on, as the driver reports it.
const gpuRendererJS = `(() => { const g = document.createElement('canvas').getContext('webgl2');
	if (!g) return 'no WebGL2';
	const e = g.getExtension('WEBGL_debug_renderer_info');
	return e ? g.getParameter(e.UNMASKED_RENDERER_WEBGL) : g.getParameter(g.RENDERER); })()`

// softwareRenderer says whether a renderer name is one that draws on the CPU.
func softwareRenderer(name string) bool {
	n := strings.ToLower(name)
	return name == "no WebGL2" || strings.Contains(n, "swiftshader") || strings.Contains(n, "llvmpipe") || strings.Contains(n, "software")
}

// gpuMeasure is one frame-rate measurement of TestBrowserGPUFrameRate.
type gpuMeasure struct {
	Case     string  `json:"case"`
	Units    int     `json:"units"`
	Playback string  `json:"playback"` // the page's stats.playback: frame or clock
	Frames   int     `json:"frames"`   // frames the page played in about two seconds
	FPS      float64 `json:"fps"`      // their rate: the display's 60 Hz at most
	DrawMs   float64 `json:"draw_ms"`  // one frame drawn, GPU finished (bonebake.drawTimed)
	CPUMs    float64 `json:"cpu_ms"`   // the page's own JavaScript a frame (stats.cpuMs, last frame)
	Skinned  float64 `json:"skinned"`  // vertex·influences skinned a frame, counted at the draws
}

// TestBrowserGPUFrameRate measures the viewer's crowd on a real GPU: the frames
// per second the page plays (paced by the display, 60 Hz at most) and the time
// one frame takes to draw (bonebake.drawTimed: the rate the GPU could give), at
// 1,920×1,080 with multisampling, for the parade
// of the six built-in creatures at 1,000 to 20,000 units, each playback mode,
// level of detail on and off, and the battle (BENCHMARKS.md, "The viewer on a
// GPU"). Set BONEBAKE_GPU_BENCH=1 to run it, on a machine with a GPU;
// BONEBAKE_GPU_FLAGS (flag sets separated by ';') replaces gpuFlagSets;
// BONEBAKE_GPU_BENCH_OUT names a file the figures are written to as JSON;
// BONEBAKE_GPU_UNITS (comma-separated) replaces the crowd sizes. It fails when
// no flag set gives WebGL2 on a GPU, since a figure from a software renderer is
// no GPU figure, unless BONEBAKE_GPU_BENCH=any (to try the measuring itself on
// a machine without one, with small crowds: the page is then 480×270).
func TestBrowserGPUFrameRate(t *testing.T) {
	if os.Getenv("BONEBAKE_GPU_BENCH") == "" {
		t.Skip("set BONEBAKE_GPU_BENCH=1 to measure, on a machine with a GPU")
	}
	sets := gpuFlagSets
	if s := os.Getenv("BONEBAKE_GPU_FLAGS"); s != "" {
		sets = strings.Split(s, ";")
	}
	sizes := []int{1000, 5000, 10000, 20000}
	if s := os.Getenv("BONEBAKE_GPU_UNITS"); s != "" {
		sizes = sizes[:0]
		for _, f := range strings.Split(s, ",") {
			n, err := strconv.Atoi(f)
			if err != nil {
				t.Fatalf("BONEBAKE_GPU_UNITS: %v", err)
			}
			sizes = append(sizes, n)
		}
	}
	anyRenderer := os.Getenv("BONEBAKE_GPU_BENCH") == "any"
	assets, _, err := Default(t.TempDir(), creatures.All())
	if err != nil {
		t.Fatal(err)
	}
	w, h := 1920, 1080
	if anyRenderer {
		w, h = 480, 270 // a software renderer draws a full-HD frame in seconds
	}
	var p *page
	var renderer string
	for _, set := range sets {
		q, ready := openPage(t, assets, fmt.Sprintf("?frame=1&n=%d", sizes[0]), w, h, strings.Fields(set)...)
		if ready != "ready" {
			t.Logf("flags %q: the page did not start: %v; console: %v", set, ready, q.messages())
			continue
		}
		r, _ := q.eval(gpuRendererJS).(string)
		t.Logf("flags %q: renderer %q", set, r)
		if !softwareRenderer(r) || anyRenderer {
			p, renderer = q, r
			break
		}
		// Its browser stays until the test ends: leave the page, so that it
		// draws nothing while the others are measured.
		q.eval("bonebake.pause(), location.replace('about:blank'), true")
	}
	if p == nil {
		t.Fatal("no flag set gave WebGL2 on a GPU")
	}

	// within runs a hook call and waits up to 30 s for it; a page that stops
	// (an error, a step that never comes) is reported with what it shows,
	// and the test goes on to its next case.
	within := func(what, js string) bool {
		t.Helper()
		if p.settles(js, 30) {
			return true
		}
		t.Errorf("%s: %s timed out; page: %v; console: %q", what, js, p.eval(`JSON.stringify({ error: bonebake.error || null,
			frames: bonebake.stats.frames, steps: bonebake.stats.steps, playback: bonebake.stats.playback, units: bonebake.state.count })`), p.messages())
		return false
	}
	// measure plays the page for about two seconds after a warm-up and counts
	// the frames drawn.
	var out []gpuMeasure
	measure := func(name string) {
		if !within(name, "bonebake.settled().then(() => bonebake.nextFrames(20))") {
			return
		}
		m := p.eval(`(async () => { const b = bonebake, s = b.stats;
			const f0 = s.frames, t0 = performance.now();
			await b.nextFrames(120);
			const ms = performance.now() - t0, k = s.frames - f0;
			const per = b.drawTimed(5);
			const draw = b.drawTimed(Math.max(10, Math.min(500, Math.round(1000 / Math.max(per, 0.5)))));
			return { frames: k, ms, draw, cpu: s.cpuMs, playback: s.playback, units: b.state.count, skinned: b.lodStats().skinned }; })()`).(map[string]any)
		g := gpuMeasure{Case: name, Units: int(m["units"].(float64)), Playback: fmt.Sprint(m["playback"]),
			Frames: int(m["frames"].(float64)), DrawMs: m["draw"].(float64), CPUMs: m["cpu"].(float64), Skinned: m["skinned"].(float64)}
		g.FPS = float64(g.Frames) / m["ms"].(float64) * 1000
		t.Logf("%-28s %6d units  %-5s  %5.1f fps played  %6.2f ms a frame drawn (%6.0f fps)  js %.2f ms  skinned %.2f M",
			name, g.Units, g.Playback, g.FPS, g.DrawMs, 1000/g.DrawMs, g.CPUMs, g.Skinned/1e6)
		if g.Frames < 10 || g.FPS <= 0 || g.DrawMs <= 0 {
			t.Errorf("%s at %d units: %d frames measured, %v ms a frame drawn", g.Case, g.Units, g.Frames, g.DrawMs)
		}
		out = append(out, g)
	}
	for _, n := range sizes {
		if within("parade", fmt.Sprintf("bonebake.setInstances(%d)", n)) {
			measure("parade")
		}
	}
	for _, c := range []struct{ name, js string }{
		{"parade, frame mode", "bonebake.setClock('frame')"},
		{"parade, clock mode", "bonebake.setClock('clock')"},
		{"parade, clock mode, LOD off", "bonebake.setLOD(false)"},
		{"parade, frame mode, LOD off", "bonebake.setClock('frame')"},
		{"battle", "bonebake.setLOD(true).then(() => bonebake.setClock('auto')).then(() => bonebake.setLayout('battle'))"},
	} {
		if within(c.name, c.js) {
			measure(c.name)
		}
	}
	// Driver performance notes (a readback the browser itself makes to show
	// the canvas, say) are not the page's errors (messages leaves them out);
	// anything else on the console is.
	for _, m := range p.messages() {
		t.Errorf("console: %s", m)
	}
	if e := p.number("bonebake.stats.glErrors"); e != 0 {
		t.Errorf("%v WebGL errors during frames", e)
	}

	if path := os.Getenv("BONEBAKE_GPU_BENCH_OUT"); path != "" {
		b, err := json.MarshalIndent(map[string]any{"renderer": renderer, "width": w, "height": h, "measures": out}, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
