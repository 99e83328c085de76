package viewer

import (
	"fmt"
	"github.com/bonebake/bonebake/bake"
	"image"
	"math"
	"strings"
	"testing"

	"github.com/bonebake/bonebake/formats/bpat"
	"github.com/bonebake/bonebake/rig"
	"github.com/bonebake/bonebake/species"
	"github.com/bonebake/bonebake/species/creatures"
)

// fader is the asset of a two-bone creature whose clips each hold one pose: "up"
// with the arm along +x from (0, 1, 0), "side" with it turned 90° about z. A box
// sits at the arm's tip, one unit along it, where the socket "tip" is.
func fader(t *testing.T) *Asset {
	t.Helper()
	sk := armSkeleton(t)
	hold := func(angle float64) func(float64, []rig.Transform) {
		return func(_ float64, p []rig.Transform) {
			p[0] = rig.IdentityTransform()
			p[1] = rig.Transform{Translation: [3]float64{0, 1, 0}, Rotation: rig.QuatFromAxisAngle([3]float64{0, 0, 1}, angle), Scale: [3]float64{1, 1, 1}}
		}
	}
	m := BoxesMesh(2, 0.06)
	for i := range m.Positions {
		if m.Joints[i][0] == 1 {
			m.Positions[i][0]++
			m.Positions[i][1]++
		}
	}
	a, err := FromSpecies(&species.Creature{ID: 11, Name: "fader", Skeleton: sk, Mesh: m,
		Sockets: []species.Socket{{Name: "tip", Anchor: 1, Offset: [3]float32{1, 0, 0}}},
		Clips: []species.Clip{
			{Clip: bake.Clip{Name: "up", FPS: 8, Loops: true, Markers: bpat.NoMarkers()}, Frames: 4, Pose: hold(0)},
			{Clip: bake.Clip{Name: "side", FPS: 8, Loops: true, Markers: bpat.NoMarkers()}, Frames: 4, Pose: hold(math.Pi / 2)},
		}})
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// TestBrowserFades: a unit mid-fade is drawn as docs/runtime.md §6.1's blend of
// the two clips' palettes, its socket gizmo at the blended socket; with fades on
// the arm sweeps over the fade, with them off it pops in one step; the panel has
// the toggle and the species' fade table.
func TestBrowserFades(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test skipped in -short mode")
	}
	a := fader(t)
	hum, err := FromSpecies(creatures.All()[0])
	if err != nil {
		t.Fatal(err)
	}
	p := openViewer(t, []*Asset{a, hum}, "?n=1&only=1&asset=fader&clip=up&paused=1&skeleton=0&aa=0", 900, 457)
	p.eval(`Object.assign(bonebake.camera, { yaw: 0, pitch: 0, dist: 4 }); bonebake.camera.target = [0.4, 1.3, 0];`)
	p.frames(2)

	// The arm's tip in the world: the Arm bone's palette matrix (the clip's
	// frame 0: each clip holds one pose) times the tip's local (1, 0, 0), blended
	// by weight w of "up" against "side", then the unit's place.
	f := a.File()
	up, side := f.Palette(0, 0)[16:32], f.Palette(1, 0)[16:32]
	var rec [RecordFloats]float64
	tip := func(w float64) []float64 {
		m := make([]float64, 12)
		for k := range m {
			m[k] = w*float64(up[k]) + (1-w)*float64(side[k])
		}
		x, y, z := m[0]+m[3], m[4]+m[7], m[8]+m[11]
		s, c, sn := rec[11], math.Cos(rec[10]), math.Sin(rec[10])
		return []float64{(c*x+sn*z)*s + rec[8], y * s, (-sn*x+c*z)*s + rec[9]}
	}
	screen := func(pt []float64) (int, int) {
		xy := p.eval(fmt.Sprintf("bonebake.project([%v, %v, %v])", pt[0], pt[1], pt[2])).([]any)
		return int(xy[0].(float64)), int(xy[1].(float64))
	}
	record := func() {
		for i, v := range p.eval("bonebake.focusInstance().record").([]any) {
			rec[i] = v.(float64)
		}
	}
	// count counts the pixels within r of a world point that pass ok.
	count := func(img image.Image, pt []float64, r int, ok func(r, g, b uint32) bool) int {
		x, y := screen(pt)
		n := 0
		for dy := -r; dy <= r; dy++ {
			for dx := -r; dx <= r; dx++ {
				if cr, cg, cb, _ := img.At(x+dx, y+dy).RGBA(); ok(cr>>8, cg>>8, cb>>8) {
					n++
				}
			}
		}
		return n
	}
	lit := func(r, g, b uint32) bool { return max(r, g, b) > 110 }
	red := func(r, g, b uint32) bool { return r > 200 && g < 120 && b < 120 } // the gizmo's x axis

	t.Run("mid-fade is the blend", func(t *testing.T) {
		p.t = t
		// "side" chosen with a step of 0.1 s: a fade of 0.3 s (FadeLocomotion: the
		// fader has no states) a third through, "up" weighing 1 − smoothstep(1/3).
		p.eval("bonebake.selectClip('side', 0.1)")
		p.frames(2)
		p.eval("bonebake.sync()")
		record()
		w := 1 - smooth(1.0/3)
		if absf(rec[19]-w) > 1e-5 || rec[23] != 0 || int(rec[16]) > 3 || int(rec[0]) < 4 {
			t.Fatalf("record %v: want side's rows, up's (0-3) faded from at weight %.6f", rec, w)
		}
		img := p.screenshot()
		at, from, to := tip(w), tip(1), tip(0)
		if n := count(img, at, 2, lit); n < 20 {
			t.Errorf("the blended tip (%.3f, %.3f, %.3f): %d of 25 pixels lit", at[0], at[1], at[2], n)
		}
		for _, q := range [][]float64{from, to} {
			if n := count(img, q, 2, lit); n > 5 {
				t.Errorf("a box drawn at an unblended tip (%.3f, %.3f, %.3f): %d of 25 pixels lit", q[0], q[1], q[2], n)
			}
		}
		// The socket gizmo starts at the blended socket (the tip), not at the new
		// clip's socket, where it would be if attached draws ignored the fade.
		if n := count(img, at, 4, red); n < 3 {
			t.Errorf("no socket gizmo at the blended tip: %d red pixels", n)
		}
		if n := count(img, to, 8, red); n > 0 {
			t.Errorf("%d red pixels at the new clip's socket: the gizmo does not follow the fade", n)
		}
		p.checkClean()
	})

	// centroid is where the arm's box is drawn: the middle of the lit pixels in
	// the rectangle its two poses span, padded.
	var box image.Rectangle
	centroid := func() (float64, float64) {
		img := p.screenshot()
		var sx, sy, n float64
		for y := box.Min.Y; y < box.Max.Y; y++ {
			for x := box.Min.X; x < box.Max.X; x++ {
				if r, g, b, _ := img.At(x, y).RGBA(); lit(r>>8, g>>8, b>>8) {
					sx, sy, n = sx+float64(x), sy+float64(y), n+1
				}
			}
		}
		if n < 20 {
			t.Fatalf("the arm's box is not drawn: %v lit pixels in %v", n, box)
		}
		return sx / n, sy / n
	}
	t.Run("fades on: smooth; off: a pop", func(t *testing.T) {
		p.t = t
		p.eval("bonebake.setOverlays(false)")
		x0, y0 := screen(tip(1))
		x1, y1 := screen(tip(0))
		box = image.Rect(x0, y0, x1, y1).Canon().Inset(-30)
		p.eval("bonebake.selectClip('up')")
		cx, cy := centroid()
		p.eval("bonebake.selectClip('side', 1 / 30)")
		worst, x, y := 0.0, cx, cy
		for range 10 {
			p.eval("bonebake.step(1 / 30)")
			nx, ny := centroid()
			worst, x, y = max(worst, math.Hypot(nx-x, ny-y)), nx, ny
		}
		whole := math.Hypot(x-cx, y-cy)

		p.eval("document.getElementById('fades').click()")
		if p.eval("bonebake.state.fades") != false {
			t.Fatal("the fades toggle did not turn fades off")
		}
		p.eval("bonebake.settled().then(() => bonebake.selectClip('up'))")
		a0, b0 := centroid()
		p.eval("bonebake.selectClip('side', 1 / 30)")
		a1, b1 := centroid()
		pop := math.Hypot(a1-a0, b1-b0)
		if record(); rec[19] != 0 {
			t.Errorf("fades off: the unit still fades (weight %v)", rec[19])
		}
		t.Logf("fades on: %.1f px in all, at most %.1f px a frame; off: %.1f px in one frame", whole, worst, pop)
		if pop < 100 || math.Abs(whole-pop) > 0.1*pop {
			t.Errorf("the arm moves %.1f px with fades and pops %.1f px without: want both its whole sweep", whole, pop)
		}
		if worst > 0.3*pop {
			t.Errorf("with fades the arm still jumps %.1f px in one frame of 1/30 s (the pop is %.1f px)", worst, pop)
		}
		p.eval("bonebake.setFades(true)")
		p.checkClean()
	})

	t.Run("panel: toggle and fade table", func(t *testing.T) {
		p.t = t
		if p.eval("document.getElementById('fades').checked") != true {
			t.Error("the fades toggle is not on")
		}
		if s := p.eval("document.getElementById('fade-table').textContent").(string); !strings.Contains(s, "any clip change") || !strings.Contains(s, "0.3 s") {
			t.Errorf("the fader's fade table reads %q, want every change at 0.3 s", s)
		}
		p.eval("bonebake.selectAsset('humanoid')")
		rows := p.eval("[...document.querySelectorAll('#fade-table tr')].map((tr) => tr.textContent)").([]any)
		s := fmt.Sprint(rows)
		t.Logf("humanoid's fade table: %s", s)
		// docs/runtime.md §6.1: none out of Dead, 0.15 s into a death or an attack,
		// 0.2 s out of an attack, 0.3 s otherwise.
		for _, want := range []string{"from Dead", "none", "Die, Dead", "AttackSword", "0.15 s", "0.2 s", "0.3 s", "into Idle"} {
			if !strings.Contains(s, want) {
				t.Errorf("the humanoid's fade table lacks %q", want)
			}
		}
		if len(rows) < 3 || len(rows) > 8 {
			t.Errorf("%d rows: want the default table's few rules", len(rows))
		}
		p.checkClean()
	})
}
