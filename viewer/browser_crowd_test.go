package viewer

import (
	"context"
	"fmt"
	"math"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/bonebake/bonebake/formats/bpat"
	"github.com/bonebake/bonebake/species"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
)

// TestBrowser runs the page in headless Chromium on the built-in creatures (baked
// in memory, with the sword and rider props), a glTF model (drawn with its own
// mesh and skin) and a bare .bpat (drawn as boxes).
func TestBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test skipped in -short mode")
	}
	start := time.Now()
	fox, err := LoadGLTF(foxPath)
	if err != nil {
		t.Fatal(err)
	}
	bare, err := LoadBPAT(foxBPAT(t, t.TempDir()), nil)
	if err != nil {
		t.Fatal(err)
	}
	small, err := FromSpecies(swinger(t))
	if err != nil {
		t.Fatal(err)
	}
	long, err := FromSpecies(longSwinger(t))
	if err != nil {
		t.Fatal(err)
	}
	assets := append(append([]*Asset(nil), builtins(t)...), fox, bare, small, long)
	const units = 30
	// Opened paused: the page draws the frames the checks ask for, and plays
	// where they need it (TestBrowserNoWebGL opens a page playing). 30 units:
	// three of each species (SwiftShader skins about a hundred thousand
	// vertices a frame; a frame of 80 took a third of a second).
	p := openViewer(t, assets, fmt.Sprintf("?frame=1&n=%d&paused=1", units), 1000, 497)
	t.Logf("page ready in %v", time.Since(start).Round(time.Millisecond))

	t.Run("loads clean", func(t *testing.T) {
		p.t = t
		p.frames(3)
		p.checkClean()
		if n := p.number("bonebake.stats.instances"); n != units {
			t.Errorf("instances drawn: %v, want %d", n, units)
		}
		if n := p.number("bonebake.state.assets.length"); n != 10 {
			t.Errorf("%v assets on the page", n)
		}
		// One draw per species, a sword and a rider draw, the ground under the
		// focus unit and its fine grid, the grid, the skeleton and one gizmo per
		// socket of the selected humanoid (with level of detail off: on, each
		// level present is a draw of its own).
		p.eval("bonebake.setLOD(false).then(() => bonebake.nextFrames(1))")
		if n := p.number("bonebake.stats.drawCalls"); n != 10+2+2+1+1+10 {
			t.Errorf("%v draw calls", n)
		}
		p.eval("bonebake.setLOD(true)")
		props := p.eval(`(() => { const a = (n) => bonebake.state.assets.find((A) => A.name === n);
			return [a('humanoid_sword').sword?.socket, a('horse').rider?.asset.name,
				a('horse').sockets[a('horse').rider.source.index].name]; })()`)
		if fmt.Sprint(props) != "[1 humanoid saddle]" {
			t.Errorf("props: %v, want the sword on socket 1 (hand_r) and a humanoid rider on the saddle", props)
		}
		// Where the rider's pelvis is drawn at riding_idle frame 0 on the horse at
		// rest, from the saddle: the riding clips are in the game's mount frame, 1.23 m
		// above the built-in horse's saddle, so this fails unless the viewer seats them.
		d := p.eval(`(() => { const H = bonebake.state.assets.find((A) => A.name === 'horse'), R = H.rider, A = R.asset;
			const S = new Float32Array(H.socketData.buffer, H.socketData.byteOffset + R.source.index * 48, 12);
			const c = A.clips.find((c) => c.name === 'riding_idle'), o = (c.frame_offset * A.info.bone_count + 1) * 16;
			const p = [A.palette[o + 3], A.palette[o + 7], A.palette[o + 11]], L = R.local;
			const q = [0, 1, 2].map((r) => L[r] * p[0] + L[4 + r] * p[1] + L[8 + r] * p[2] + L[12 + r]);
			return [0, 1, 2].map((r) => S[r * 4] * q[0] + S[r * 4 + 1] * q[1] + S[r * 4 + 2] * q[2]); })()`)
		if v, ok := d.([]any); !ok || len(v) != 3 {
			t.Errorf("rider pelvis: %v", d)
		} else if x, y, z := v[0].(float64), v[1].(float64), v[2].(float64); math.Abs(x) > 0.05 || y < 0.05 || y > 0.25 || math.Abs(z) > 0.1 {
			t.Errorf("the rider's pelvis is drawn at saddle + (%.3f, %.3f, %.3f), want just above the saddle", x, y, z)
		}
	})

	t.Run("playback math is docs/formats/bpat.md §5", func(t *testing.T) {
		p.t = t
		// The page's resolve is the npm package's core's (whose node tests run
		// the golden cases), as the page loads it from /core/.
		if same := p.eval(`import('./core/playback.js').then((m) => m.resolve === bonebake.resolve)`); same != true {
			t.Errorf("the page's resolve is not the core's (/core/playback.js): %v", same)
		}
		// The page's resolve against bpat.Resolve on phases around every edge.
		var cases []string
		type c struct {
			phase  float64
			frames int
			loops  bool
		}
		var cs []c
		for _, n := range []int{1, 2, 5, 24, 103} {
			for _, loops := range []bool{true, false} {
				for _, ph := range []float64{-1.25, -1e-17, 0, 0.1, 0.2, 0.25, 1.0 / 3, 0.5, 0.999999, 1, 1.0000001, 2.75, 7.3} {
					cs = append(cs, c{ph, n, loops})
					cases = append(cases, fmt.Sprintf("[%v,%d,%v]", ph, n, loops))
				}
			}
		}
		got, ok := p.eval("[" + strings.Join(cases, ",") + "].map(([p, n, l]) => bonebake.resolve(p, n, l))").([]any)
		if !ok || len(got) != len(cs) {
			t.Fatalf("resolve returned %v", got)
		}
		for i, k := range cs {
			want := bpat.Resolve(k.phase, k.frames, k.loops)
			g := got[i].([]any)
			f, nx, l := int(g[0].(float64)), int(g[1].(float64)), g[2].(float64)
			if f != want.Frame || nx != want.Next || float32(l) != want.Lerp && absf(l-float64(want.Lerp)) > 1e-6 {
				t.Errorf("phase %v, N %d, loops %v: page (%d, %d, %v), Go %+v", k.phase, k.frames, k.loops, f, nx, l, want)
			}
		}
	})

	t.Run("crowd is drawn", func(t *testing.T) {
		p.t = t
		p.eval("bonebake.pause()")
		p.eval("bonebake.setCrowdVisible(false)")
		p.frames(2)
		empty := p.screenshot()
		p.eval("bonebake.setCrowdVisible(true)")
		p.frames(2)
		crowd := p.screenshot()
		r := p.crowdRect()
		n, total := differing(empty, crowd, r)
		if total < 2000 || n < total/50 {
			t.Errorf("crowd area %+v: %d of %d pixels differ from the empty scene", r, n, total)
		}
		whole, _ := differing(empty, crowd, rect{0, 0, 10000, 10000})
		if n < whole*9/10 {
			t.Errorf("only %d of the %d changed pixels lie in the crowd's area %+v", n, whole, r)
		}
	})

	t.Run("animation moves", func(t *testing.T) {
		p.t = t
		p.eval("bonebake.play()")
		p.frames(1)
		a := p.screenshot()
		f0 := p.number("bonebake.stats.frames")
		time.Sleep(300 * time.Millisecond)
		p.eval(fmt.Sprintf("new Promise((res) => { (function w() { if (bonebake.stats.frames >= %v) res(); else setTimeout(w, 10); })(); })", f0+2))
		p.eval("bonebake.pause()") // a paused page draws only what the checks ask for
		b := p.screenshot()
		if n, _ := differing(a, b, p.crowdRect()); n < 50 {
			t.Errorf("two screenshots 300 ms apart differ in %d pixels", n)
		}
	})

	t.Run("switching the clip changes the pose", func(t *testing.T) {
		p.t = t
		// Close to the first Fox (the crowd has three), so that its pose fills
		// pixels.
		p.eval("bonebake.pause(); bonebake.selectAsset('Fox').then(() => bonebake.focusSelected())")
		if ok := p.eval("bonebake.selectClip('Survey')"); ok != true {
			t.Fatal("no clip Survey")
		}
		p.frames(2)
		a := p.screenshot()
		// The clip table's row, as a click on it does.
		p.eval("[...document.querySelectorAll('#clips tbody tr')].find((tr) => tr.cells[1].textContent === 'Run').click()")
		if o := p.number("bonebake.state.override[bonebake.state.selected]"); o != 2 {
			t.Errorf("clicking Run selected clip %v", o)
		}
		p.eval("bonebake.settled()")
		if c := p.eval("bonebake.focusInstance().clip"); c != "Run" {
			t.Errorf("the server plays %v on the focus unit, want Run", c)
		}
		p.frames(2)
		b := p.screenshot()
		n, _ := differing(a, b, p.crowdRect())
		t.Logf("Survey and Run differ in %d pixels", n)
		if n < 200 {
			t.Errorf("Survey and Run differ in %d pixels", n)
		}
		p.eval("bonebake.selectClip(null); bonebake.frameCrowd()")
		p.checkClean()
	})

	t.Run("controls", func(t *testing.T) {
		p.t = t
		click := func(id string) { p.eval("document.getElementById('" + id + "').click()") }
		p.eval("bonebake.play()")
		click("play")
		if p.eval("bonebake.state.playing") != false {
			t.Error("the play button did not pause")
		}
		t0 := p.number("bonebake.state.time")
		p.frames(2)
		if t1 := p.number("bonebake.state.time"); t1 != t0 {
			t.Errorf("paused, time went %v → %v", t0, t1)
		}
		click("step")
		if t1 := p.number("bonebake.state.time"); !(t1 > t0) {
			t.Errorf("step: time %v → %v", t0, t1)
		}
		p.eval("{ const s = document.getElementById('count'); s.value = 123; s.dispatchEvent(new Event('input')); }")
		p.waitFor("bonebake.stats.instances === 123")
		if n := p.number("bonebake.stats.instances"); n != 123 {
			t.Errorf("slider at 123: %v instances drawn", n)
		}
		p.eval("{ const l = document.getElementById('layout'); l.value = 'battle'; l.dispatchEvent(new Event('change')); }")
		p.waitFor("bonebake.state.crowd.layout === 'battle'")
		if p.eval("bonebake.state.layout") != "battle" {
			t.Error("the layout did not change")
		}
		p.eval("{ const s = document.getElementById('speed'); s.value = 2; s.dispatchEvent(new Event('input')); }")
		if v := p.number("bonebake.state.speed"); v != 2 {
			t.Errorf("speed %v", v)
		}
		info := p.eval("document.getElementById('info').textContent + document.getElementById('stats').textContent").(string)
		for _, want := range []string{"bones", "clips", "sockets", "file size", "frame time", "instances drawn"} {
			if !strings.Contains(info, want) {
				t.Errorf("the info panel lacks %q", want)
			}
		}
		p.eval(fmt.Sprintf("bonebake.setSpeed(1); bonebake.setLayout('parade').then(() => bonebake.setInstances(%d))", units))
		p.checkClean()
	})

	t.Run("paused, frames are drawn only for a change", func(t *testing.T) {
		p.t = t
		p.eval("bonebake.pause()")
		p.frames(1)
		f0 := p.number("bonebake.stats.frames")
		p.eval("new Promise((res) => setTimeout(res, 300))")
		if f := p.number("bonebake.stats.frames"); f != f0 {
			t.Errorf("paused with nothing changed, %v frames were drawn in 300 ms", f-f0)
		}
		// A change made through the panel (an input event) draws a frame.
		p.eval("{ const s = document.getElementById('speed'); s.value = 1; s.dispatchEvent(new Event('input')); }")
		p.waitFor(fmt.Sprintf("bonebake.stats.frames > %v", f0))
		// So does a step's answer: the stepped crowd is shown.
		f1 := p.number("bonebake.stats.frames")
		t1 := p.number("bonebake.state.time")
		p.eval("bonebake.step()")
		if f := p.number("bonebake.stats.frames"); !(f > f1) || !(p.number("bonebake.state.time") > t1) {
			t.Errorf("a step while paused: frames %v → %v", f1, f)
		}
	})

	t.Run("orbit, pan and zoom", func(t *testing.T) {
		p.t = t
		cam := func() []float64 {
			v := p.eval("(({ yaw, pitch, dist, target }) => [yaw, pitch, dist, ...target])(bonebake.camera)").([]any)
			out := make([]float64, len(v))
			for i := range v {
				out[i] = v[i].(float64)
			}
			return out
		}
		drag := func(button input.MouseButton, buttons int64, dx, dy float64) {
			x, y := 400.0, 300.0
			err := chromedp.Do(p.ctx,
				chromedp.MouseEvent(chromedp.MousePressed, x, y, chromedp.ButtonType(button), chromedp.ClickCount(1)),
				chromedp.MouseEvent(chromedp.MouseMoved, x+dx/2, y+dy/2, withButtons(button, buttons)),
				chromedp.MouseEvent(chromedp.MouseMoved, x+dx, y+dy, withButtons(button, buttons)),
				chromedp.MouseEvent(chromedp.MouseReleased, x+dx, y+dy, chromedp.ButtonType(button), chromedp.ClickCount(1)))
			if err != nil {
				t.Fatal(err)
			}
		}
		c0 := cam()
		drag(input.MouseButtonLeft, 1, 80, 30) // orbit
		c1 := cam()
		if c1[0] == c0[0] || c1[1] == c0[1] || c1[3] != c0[3] || c1[5] != c0[5] {
			t.Errorf("left drag: camera %v → %v, want yaw and pitch to change, not the target", c0, c1)
		}
		drag(input.MouseButtonRight, 2, 60, 40) // pan
		c2 := cam()
		if c2[3] == c1[3] && c2[5] == c1[5] || c2[0] != c1[0] {
			t.Errorf("right drag: camera %v → %v, want the target to move", c1, c2)
		}
		if err := chromedp.Do(p.ctx, chromedp.MouseEvent(chromedp.MouseWheel, 400, 300, func(m *input.DispatchMouseEventParams) { m.DeltaX, m.DeltaY = 0.01, 300 })); err != nil {
			t.Fatal(err)
		}
		c3 := cam()
		if !(c3[2] > c2[2]) {
			t.Errorf("wheel: distance %v → %v, want it larger", c2[2], c3[2])
		}
		// Two fingers spreading apart zoom in.
		touch := func(typ input.DispatchTouchEventType, spread float64) {
			var pts []*input.TouchPoint
			if typ != input.DispatchTouchEventTypeTouchEnd {
				for i, x := range []float64{400 - spread, 400 + spread} {
					id := float64(i)
					pts = append(pts, &input.TouchPoint{X: x, Y: 300, ID: &id})
				}
			}
			err := chromedp.Do(p.ctx, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
				_, err := cdp.Call(ctx, tg, input.DispatchTouchEvent, input.DispatchTouchEventParams{Type: typ, TouchPoints: pts})
				return err
			}))
			if err != nil {
				t.Fatal(err)
			}
		}
		touch(input.DispatchTouchEventTypeTouchStart, 40)
		touch(input.DispatchTouchEventTypeTouchMove, 80)
		touch(input.DispatchTouchEventTypeTouchMove, 120)
		touch(input.DispatchTouchEventTypeTouchEnd, 0)
		c4 := cam()
		if !(c4[2] < c3[2]) {
			t.Errorf("pinch: distance %v → %v, want it smaller", c3[2], c4[2])
		}
		p.eval("bonebake.frameCrowd()")
	})

	t.Run("GPU pose matches the palette", func(t *testing.T) {
		p.t = t
		// One long swinger (9,001 frames: more than MAX_TEXTURE_SIZE rows, so two
		// frames share a texture row) at phase .9705 of its swing (frames 8734 and 8735, half way), seen from the front.
		p.eval(`bonebake.pause(); bonebake.setOverlays(false); bonebake.selectAsset('swinger_long')
			.then(() => bonebake.setCrowdSpecies('selected')).then(() => bonebake.setInstances(1))
			.then(() => bonebake.selectClip('swing')).then(() => bonebake.seek(0.9705))`)
		p.eval(`Object.assign(bonebake.camera, { yaw: 0, pitch: 0.1, dist: 6 }); bonebake.camera.target = [0, 1, 0];`)
		p.frames(2)
		p.eval("bonebake.sync()")
		fi := p.eval("bonebake.focusInstance()").(map[string]any)
		phase := fi["phase"].(float64)
		var rec [RecordFloats]float64
		for i, v := range fi["record"].([]any) {
			rec[i] = v.(float64)
		}
		if absf(phase-0.9705) > 1e-6 {
			t.Fatalf("phase %v, want .9705", phase)
		}
		// The server's frames are bpat.Resolve's.
		want := bpat.Resolve(phase, 9001, false)
		if int(rec[0]) != want.Frame || int(rec[1]) != want.Next || absf(rec[2]-float64(want.Lerp)) > 1e-5 || want.Frame <= 8192 {
			t.Fatalf("record frames %v, want %+v", rec[:3], want)
		}
		// Where the arm's tip box must be: palette[arm] · (1, 0, 0), blended on the
		// CPU from the file's own frames, then the instance transform.
		f := long.File()
		a, b := f.Palette(0, want.Frame)[16:32], f.Palette(0, want.Next)[16:32]
		m := make([]float32, 16)
		bpat.Lerp(m, a, b, want.Lerp)
		place := func(x, y, z float64) []float64 {
			s, c, yaw := rec[11], 0.0, rec[10]
			c = math.Cos(yaw)
			sn := math.Sin(yaw)
			return []float64{(c*x+sn*z)*s + rec[8], y * s, (-sn*x+c*z)*s + rec[9]}
		}
		tip := place(float64(m[0]+m[3]), float64(m[4]+m[7]), float64(m[8]+m[11]))
		rest := place(1, 1, 0) // where the tip is at phase 0
		img := p.screenshot()
		lit := func(pt []float64) bool {
			xy := p.eval(fmt.Sprintf("bonebake.project([%v, %v, %v])", pt[0], pt[1], pt[2])).([]any)
			x, y := int(xy[0].(float64)), int(xy[1].(float64))
			n := 0
			for dy := -2; dy <= 2; dy++ {
				for dx := -2; dx <= 2; dx++ {
					if r, g, b, _ := img.At(x+dx, y+dy).RGBA(); max(r, g, b)>>8 > 110 {
						n++
					}
				}
			}
			return n >= 20
		}
		if !lit(tip) {
			t.Errorf("nothing drawn where the palette puts the arm's tip (%.3f, %.3f, %.3f)", tip[0], tip[1], tip[2])
		}
		if lit(rest) {
			t.Errorf("the tip is still drawn where it rests at phase 0")
		}
		p.eval(fmt.Sprintf(`bonebake.setOverlays(true); bonebake.selectClip(null).then(() => bonebake.setCrowdSpecies('all'))
			.then(() => bonebake.selectAsset('humanoid')).then(() => bonebake.setInstances(%d))`, units))
		p.checkClean()
	})

	t.Run("10000 instances", func(t *testing.T) {
		p.t = t
		// SwiftShader on two cores draws well under a million triangles a second,
		// so this crowd is of the two-box swinger alone (24 triangles each).
		start := time.Now()
		p.eval(`bonebake.play(); bonebake.selectAsset('swinger').then(() => bonebake.setCrowdSpecies('selected'))
			.then(() => bonebake.setInstances(10000))`)
		f0 := p.number("bonebake.stats.frames")
		ph0 := p.number("bonebake.focusInstance().phase")
		p.frames(2)
		p.eval("bonebake.settled()")
		if ph1 := p.number("bonebake.focusInstance().phase"); ph1 == ph0 {
			t.Errorf("the focus unit's phase stayed at %v while playing", ph0)
		}
		if n := p.number("bonebake.stats.instances"); n != 10000 {
			t.Errorf("instances drawn: %v, want 10000", n)
		}
		if f := p.number("bonebake.stats.frames"); f < f0+2 {
			t.Errorf("frames went from %v to %v", f0, f)
		}
		// Paused, the page draws only the frame the picture below is read from
		// (each frame of this crowd takes SwiftShader seconds).
		p.eval("bonebake.pause()")
		p.eval("bonebake.sync()")
		p.frames(1)
		// The boxes are lit: far brighter than the background and the grid.
		img, r := p.screenshot(), p.crowdRect()
		bright, total := 0, 0
		for y := int(r.Y); y < int(r.Y+r.H); y++ {
			for x := int(r.X); x < int(r.X+r.W); x++ {
				if cr, _, _, _ := img.At(x, y).RGBA(); cr>>8 > 120 {
					bright++
				}
				total++
			}
		}
		if total == 0 || bright < total/20 {
			t.Errorf("10,000 instances: %d of %d pixels in the crowd's area %+v are lit", bright, total, r)
		}
		p.checkClean()
		t.Logf("2 frames of 10,000 instances in %v", time.Since(start).Round(time.Millisecond))
		// Back to a few units first: 10,000 of every species would take
		// SwiftShader many seconds to draw.
		p.eval(fmt.Sprintf("bonebake.setInstances(%d).then(() => bonebake.setCrowdSpecies('all'))", units))
	})

	if shot := os.Getenv("BONEBAKE_VIEWER_SCREENSHOT"); shot != "" {
		p.t = t
		b, err := chromedp.Run(p.ctx, chromedp.CaptureScreenshot())
		if err != nil || os.WriteFile(shot, b, 0o644) != nil {
			t.Errorf("screenshot: %v", err)
		}
	}
	t.Logf("browser tests took %v", time.Since(start).Round(time.Millisecond))
}

// longSwinger is a swinger whose one clip has more frames (9,001) than a texture
// can have rows, with a box at the arm's tip, one unit along the arm.
func longSwinger(t *testing.T) *species.Creature {
	s := swinger(t)
	s.Name, s.ID = "swinger_long", 10
	s.Clips = s.Clips[:1]
	s.Clips[0].Frames = 9001
	s.Clips[0].FPS = 24
	s.Mesh = BoxesMesh(2, 0.15)
	for i := range s.Mesh.Positions {
		if s.Mesh.Joints[i][0] == 1 {
			s.Mesh.Positions[i][0]++
			s.Mesh.Positions[i][1]++
		}
	}
	return s
}
