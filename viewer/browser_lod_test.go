package viewer

import (
	"encoding/base64"
	"fmt"
	"math"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/bonebake/bonebake/species/creatures"
)

// lodDocDistances are docs/runtime.md §6.4's distances, in metres, beyond which a
// species' units drop to the reduced and to the snapshot level.
func lodDocDistances(name string) (reduced, snapshot float64) {
	switch {
	case strings.HasPrefix(name, "horse"):
		return 40, 120
	case strings.HasPrefix(name, "elephant"):
		return 55, 160
	}
	return 30, 90
}

// skinWork counts the vertex-influence pairs one unit of a mesh costs: at full
// detail every influence with weight (the first always), reduced at most two.
func skinWork(a *Asset) (full, reduced float64) {
	for _, w := range a.Mesh().Weights {
		k := 1
		for _, x := range w[1:] {
			if x > 0 {
				k++
			}
		}
		full += float64(k)
		reduced += float64(min(k, 2))
	}
	return full, reduced
}

type lodTally struct {
	Units, Riders [3]float64
	Assets        []struct {
		Name          string
		Units, Riders [3]float64
		Rider         string
	}
	Skinned float64
}

func (p *page) lodTally() lodTally {
	p.t.Helper()
	return parseTally(p.eval("bonebake.lodStats()").(map[string]any))
}

// parseTally reads what bonebake.lodStats() returns.
func parseTally(m map[string]any) lodTally {
	var t lodTally
	num := func(v any) [3]float64 {
		a := v.([]any)
		return [3]float64{a[0].(float64), a[1].(float64), a[2].(float64)}
	}
	t.Units, t.Riders, t.Skinned = num(m["units"]), num(m["riders"]), m["skinned"].(float64)
	for _, x := range m["assets"].([]any) {
		a := x.(map[string]any)
		e := struct {
			Name          string
			Units, Riders [3]float64
			Rider         string
		}{Name: a["name"].(string), Units: num(a["units"]), Riders: num(a["riders"])}
		if r, ok := a["rider"].(string); ok {
			e.Rider = r
		}
		t.Assets = append(t.Assets, e)
	}
	return t
}

// lodCrowd is TestBrowserLOD's crowd, its units lodSpread times as far apart
// as usual so that they cover the ground 2,000 would: the default view has
// units at the reduced and snapshot levels and the skinning work falls as much
// as for 10,000 (9.4× against 9.2×; 2,000 at the usual spacing 9.3×), a tenth
// of the draws for SwiftShader. TestBrowserLODFrameTime measures the default
// crowd of 10,000.
const (
	lodCrowd  = 1000
	lodSpread = math.Sqrt2
)

// TestBrowserLOD draws a parade of lodCrowd units with level of detail on
// and off: the skinning work the page counts at its draws is what the levels
// cost by the meshes' own influences and falls at least 5× with LOD on; every
// unit shows the level its distance from the camera gives (docs/runtime.md
// §6.4); the near units look the same either way; a camera moved back and forth
// across a boundary switches a unit at most once.
func TestBrowserLOD(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test skipped in -short mode")
	}
	start := time.Now()
	assets := builtins(t)
	byName := map[string]*Asset{}
	for _, a := range assets {
		if a.src.Snapshot == nil {
			t.Fatalf("%s has no snapshot mesh", a.Name)
		}
		byName[a.Name] = a
	}
	// Thousands of units skinned in software (SwiftShader) take seconds a frame,
	// so the crowd is hidden but for the frames grab draws. Spread out, the
	// crowd is built anew (per frame, as it opened) and framed as a page framed
	// it when it loads.
	p := openCrowdHidden(t, assets, fmt.Sprintf("?frame=1&n=%d&paused=1&skeleton=0&sockets=0&aa=0&clock=0", lodCrowd), 900, 417)
	p.eval(fmt.Sprintf("bonebake.state.assets.forEach((A) => { A.spacing *= %v; }), bonebake.setClock('frame').then(() => bonebake.frameCrowd())", lodSpread))
	p.eval("bonebake.settled()")
	t.Logf("page ready in %v", time.Since(start).Round(time.Millisecond))
	// grab draws one frame, the crowd shown or not, and returns the near third of
	// the view (its bottom) and the levels' tally, both read back in that frame;
	// the crowd is hidden again before the next.
	grab := func(visible bool) (near []byte, width int, tl lodTally) {
		v := p.eval(`bonebake.setCrowdVisible(` + fmt.Sprint(visible) + `), bonebake.nextFrames(1).then(() => {
			const gl = document.getElementById('view').getContext('webgl2');
			const w = gl.drawingBufferWidth, h = Math.floor(gl.drawingBufferHeight / 3), px = new Uint8Array(w * h * 4);
			gl.readPixels(0, 0, w, h, gl.RGBA, gl.UNSIGNED_BYTE, px);
			let s = '';
			for (let i = 0; i < px.length; i += 8192) s += String.fromCharCode.apply(null, px.subarray(i, i + 8192));
			const tally = bonebake.lodStats();
			bonebake.setCrowdVisible(false);
			return [w, btoa(s), tally]; })`).([]any)
		b, err := base64.StdEncoding.DecodeString(v[1].(string))
		if err != nil {
			t.Fatal(err)
		}
		return b, int(v[0].(float64)), parseTally(v[2].(map[string]any))
	}
	show := func() ([]byte, int, lodTally) { return grab(true) }
	hide := func() { p.eval("bonebake.setCrowdVisible(false)") }
	diff := func(a, b []byte) (n, all int) {
		for i := 0; i+3 < len(a) && i+3 < len(b); i += 4 {
			d := 0
			for c := range 3 {
				d += int(absDiff(uint32(a[i+c]), uint32(b[i+c])))
			}
			if d > 12 {
				n++
			}
		}
		return n, len(a) / 4
	}

	// expected is the skinning work of the levels the page reports.
	expected := func(tl lodTally) float64 {
		w := 0.0
		for _, a := range tl.Assets {
			full, red := skinWork(byName[a.Name])
			w += a.Units[0]*full + a.Units[1]*red
			if a.Rider != "" {
				full, red := skinWork(byName[a.Rider])
				w += a.Riders[0]*full + a.Riders[1]*red
			}
		}
		return w
	}
	// checkLevels compares every unit's level with its distance from the camera:
	// nearer than the bands around the boundaries, exactly; beyond the snapshot
	// band, the snapshot (or reduced, for a clip drawn from none: a death).
	checkLevels := func(t *testing.T) (seen [3]int) {
		eye := p.eval("bonebake.eye()").([]any)
		ex, ey, ez := eye[0].(float64), eye[1].(float64), eye[2].(float64)
		for _, a := range assets {
			m, ok := p.eval(fmt.Sprintf("bonebake.lodLevels(%q)", a.Name)).(map[string]any)
			if !ok {
				continue
			}
			r, s := lodDocDistances(a.Name)
			lv, xz := m["level"].([]any), m["xz"].([]any)
			bad, far, farSnap := 0, 0, 0
			for i := range lv {
				l := int(lv[i].(float64))
				seen[l]++
				q := xz[i].([]any)
				d := math.Sqrt(sq(q[0].(float64)-ex) + ey*ey + sq(q[1].(float64)-ez))
				switch {
				case d < 0.9*r && l != 0, d > 1.1*r && d < 0.9*s && l != 1:
					bad++
				case d > 1.1*s:
					far++
					if l == 2 {
						farSnap++
					}
					if l == 0 {
						bad++
					}
				}
			}
			if bad > 0 {
				t.Errorf("%s: %d of %d units at a level their distance does not give", a.Name, bad, len(lv))
			}
			if far > 0 && farSnap < far*3/4 {
				t.Errorf("%s: %d of %d units beyond %v m drawn from the snapshot mesh", a.Name, farSnap, far, 1.1*s)
			}
		}
		return seen
	}

	var onDefault float64
	t.Run("default view: levels and skinning work", func(t *testing.T) {
		p.t = t
		_, _, tl := show()
		if tl.Units[0]+tl.Units[1]+tl.Units[2] != lodCrowd {
			t.Fatalf("units per level %v: want %d in all", tl.Units, lodCrowd)
		}
		if want := expected(tl); tl.Skinned != want {
			t.Errorf("skinning work counted %v, the levels %v (riders %v) cost %v", tl.Skinned, tl.Units, tl.Riders, want)
		}
		checkLevels(t)
		onDefault = tl.Skinned
	})

	// A camera just outside the front row, looking in and down: every level.
	p.eval(closeView)
	p.eval("bonebake.settled()")
	empty, _, _ := grab(false)
	nearOn, width, tlClose := show()
	if n, all := diff(empty, nearOn); n < all/20 {
		t.Fatalf("the near third of the close view shows few units: %d of %d pixels differ from the empty scene", n, all)
	}
	var lodOn, lodOff float64
	t.Run("close view: all three levels", func(t *testing.T) {
		p.t = t
		seen := checkLevels(t)
		if seen[0] == 0 || seen[1] == 0 || seen[2] == 0 {
			t.Errorf("units per level %v: want all three", seen)
		}
		tl := tlClose
		if want := expected(tl); tl.Skinned != want {
			t.Errorf("skinning work counted %v, the levels %v cost %v", tl.Skinned, tl.Units, want)
		}
		lodOn = tl.Skinned
		p.checkClean()
	})

	t.Run("hysteresis: a swaying camera switches a unit once", func(t *testing.T) {
		p.t = t
		// Units that a plain boundary (a species' reduced distance: 30 m for a
		// humanoid) would switch at every sway of 1.5 m.
		eye := p.eval("bonebake.eye()").([]any)
		ex, ey, ez := eye[0].(float64), eye[1].(float64), eye[2].(float64)
		crossing := 0
		for _, a := range assets {
			m, ok := p.eval(fmt.Sprintf("bonebake.lodLevels(%q)", a.Name)).(map[string]any)
			if !ok {
				continue
			}
			r, _ := lodDocDistances(a.Name)
			for _, q := range m["xz"].([]any) {
				x, z := q.([]any)[0].(float64), q.([]any)[1].(float64)
				d0 := math.Sqrt(sq(x-ex) + ey*ey + sq(z-ez))
				d1 := math.Sqrt(sq(x-ex) + ey*ey + sq(z-ez-1.5))
				if (d0 < r) != (d1 < r) {
					crossing++
				}
			}
		}
		if crossing == 0 {
			t.Fatal("no unit crosses its reduced distance as the camera sways: the test shows nothing")
		}
		hide() // levels come with the steps, drawn or not
		p.eval("bonebake.resetLODSwitches()")
		// Back 8 m (units cross the boundaries, 6 m apart at 30 m), then swaying
		// 1.5 m about there.
		p.eval("bonebake.camera.target[2] += 8; bonebake.settled()")
		for k := range 6 {
			step := 1.5
			if k%2 == 1 {
				step = -1.5
			}
			p.eval(fmt.Sprintf("bonebake.camera.target[2] += %v; bonebake.settled()", step))
		}
		total, twice := 0, 0
		for _, a := range assets {
			m, ok := p.eval(fmt.Sprintf("bonebake.lodLevels(%q)", a.Name)).(map[string]any)
			if !ok {
				continue
			}
			for _, s := range m["switches"].([]any) {
				n := int(s.(float64))
				total += n
				if n > 1 {
					twice++
				}
			}
		}
		p.eval("bonebake.camera.target[2] -= 8; bonebake.settled()")
		t.Logf("%d units cross their reduced distance at each sway; %d level changes over a move of 8 m and 6 sways", crossing, total)
		if twice > 0 {
			t.Errorf("%d units changed level more than once as the camera swayed 1.5 m back and forth", twice)
		}
		if total == 0 {
			t.Error("no unit changed level as the camera moved 1.5 m: levels do not follow the camera")
		}
	})

	t.Run("LOD off: same near units, 5x the skinning", func(t *testing.T) {
		p.t = t
		p.eval("bonebake.setLOD(false)")
		nearOff, _, tl := show()
		if tl.Units[1]+tl.Units[2]+tl.Riders[1]+tl.Riders[2] != 0 {
			t.Errorf("LOD off: units per level %v, riders %v", tl.Units, tl.Riders)
		}
		if want := expected(tl); tl.Skinned != want {
			t.Errorf("skinning work counted %v, all full costs %v", tl.Skinned, want)
		}
		lodOff = tl.Skinned
		t.Logf("skinning work per frame: %.0f off, %.0f on in the close view (%.1fx), %.0f in the default view (%.1fx)",
			lodOff, lodOn, lodOff/lodOn, onDefault, lodOff/onDefault)
		if lodOff < 5*onDefault {
			t.Errorf("LOD saves too little skinning in the default view: %.0f off, %.0f on", lodOff, onDefault)
		}
		n, all := diff(nearOn, nearOff)
		t.Logf("near third (%d px wide): %d of %d pixels differ", width, n, all)
		if all < 10000 || n > all/200 {
			t.Errorf("near third of the view: %d of %d pixels differ with LOD on and off", n, all)
		}
		p.eval("bonebake.setLOD(true)")
		p.checkClean()
	})
}

func sq(x float64) float64 { return x * x }

// closeView puts the page's camera just outside the parade's front row, looking
// in and down: units at every level of detail in view.
const closeView = `(() => { let front = -Infinity;
	for (const A of bonebake.state.assets) for (let i = 0; i < A.count; i++) front = Math.max(front, A.instData[i * 32 + 9]);
	const c = bonebake.camera;
	c.target = [bonebake.state.extent.cx, 1, front - 18]; c.yaw = 0; c.pitch = 0.3; c.dist = 24; })()`

// TestBrowserLODFrameTime measures the page's frame time and the skinning work
// it counts at its draws for the default crowd of 10,000 units playing, LOD on
// and off in the same run (BENCHMARKS.md, "Viewer"; the README's figure). Set
// BONEBAKE_LOD_BENCH=1 to run it; BONEBAKE_LOD_QUERY is added to the page's query
// (&clock=0 or &clock=1 to measure either playback mode).
func TestBrowserLODFrameTime(t *testing.T) {
	if os.Getenv("BONEBAKE_LOD_BENCH") == "" {
		t.Skip("set BONEBAKE_LOD_BENCH=1 to measure")
	}
	assets, _, err := Default(t.TempDir(), creatures.All())
	if err != nil {
		t.Fatal(err)
	}
	p := openViewer(t, assets, "?frame=1&n=10000&skeleton=0&sockets=0&aa=0"+os.Getenv("BONEBAKE_LOD_QUERY"), 900, 417)
	p.eval("bonebake.snapshotsLoaded()")
	p.frames(2)
	measure := func(on bool) (ms, skinned float64) {
		// Switched with the crowd hidden, so that the switch takes no slow frames.
		p.eval(fmt.Sprintf("bonebake.setCrowdVisible(false), bonebake.setLOD(%v)", on))
		p.eval("bonebake.setCrowdVisible(true)")
		p.frames(1)
		t0 := time.Now()
		for range 3 {
			p.frames(1) // one at a time: a frame of 10,000 full units takes SwiftShader many seconds
		}
		ms = float64(time.Since(t0).Milliseconds()) / 3
		return ms, p.lodTally().Skinned // counted at the last frame's draws
	}
	on, wOn := measure(true)
	off, wOff := measure(false)
	on2, _ := measure(true)
	t.Logf("frame time, 10,000 units: LOD on %.0f and %.0f ms, off %.0f ms: %.2fx", on, on2, off, 2*off/(on+on2))
	t.Logf("skinning work per frame: %.0f off, %.0f on (%.1fx)", wOff, wOn, wOff/wOn)
}
