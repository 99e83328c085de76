package viewer

import (
	"encoding/json"
	"fmt"
	"image"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/bonebake/bonebake/crowd"
	"github.com/bonebake/bonebake/crowd/unit"
)

// clockRecords returns time records of every kind crowd.GPUClock writes, from a
// fighting crowd of the built-in species driven at random: loops, one-shots
// (idle fidgets), clamped deaths, swings, fades with and without a prior, and
// speed blends; and a few written by hand (a swing before, through and past
// its timeline, phases leaving [0,1) both ways, a one-frame clip). Each is moved
// to Start 0.
func clockRecords(t *testing.T) []crowd.TimeRecord {
	reg := builtinRegistry(t)
	const n = 64
	g := crowd.NewGPUClock(n)
	fight := crowd.NewScheduledCombat(reg, g)
	for i := range n {
		g.Spawn(i, unit.Kind(i%int(unit.NumKinds)))
		fight.Melee.Damage[i], fight.Melee.Cooldown[i], fight.Melee.Reach[i] = 10, 1.3, 100
		fight.World.HP[i], fight.World.Team[i] = 25, uint8(i%2)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	kinds := map[string][]crowd.TimeRecord{}
	kind := func(r *crowd.TimeRecord) string {
		own, fading := r.Own.Shape, r.FadeInv > 0
		switch {
		case r.Prior.Shape&crowd.ShapeGait != 0:
			return "speed blend"
		case fading && r.PriorShare > 0:
			return "fade with prior"
		case fading:
			return "fade"
		case own&crowd.ShapeSwing != 0:
			return "swing"
		case own&crowd.ShapeWraps == 0:
			return "clamped"
		case own&crowd.ShapeLoops == 0:
			return "one-shot"
		}
		return "loop"
	}
	const dt = float32(1) / 30
	for frame := range 400 {
		for range 3 {
			i := rng.IntN(n)
			in := g.Inputs(i)
			in.Speed, in.Flags = 0, in.Flags&(unit.Mounted|unit.Attacking|unit.Dying)
			switch rng.IntN(6) {
			case 0:
				in.Speed = 1.4
			case 1:
				in.Speed = 2.5 // between walk and run
			case 2:
				in.Speed, in.Flags = 4, in.Flags|unit.Running
			case 3:
				if frame > 250 {
					in.Flags |= unit.Dying
				}
			}
			g.SetInputs(i, in)
		}
		if frame%2 == 0 {
			a := rng.IntN(n)
			fight.Attack(a, (a+1+2*rng.IntN(n/2-1))%n)
		}
		fight.Step(dt)
		if err := g.Commit(reg); err != nil {
			t.Fatal(err)
		}
		for _, i := range g.Changed() {
			r := g.Records[i]
			if k := kind(&r); len(kinds[k]) < 8 && frame%3 == 0 {
				kinds[k] = append(kinds[k], r)
			}
		}
		g.Advance(dt)
	}
	var out []crowd.TimeRecord
	for _, k := range []string{"loop", "one-shot", "clamped", "swing", "fade", "fade with prior", "speed blend"} {
		if len(kinds[k]) == 0 {
			t.Fatalf("the crowd wrote no record of kind %s", k)
		}
		out = append(out, kinds[k]...)
	}
	attack := crowd.Playhead{Rate: 1.3, Row: 40, Shape: 20 | crowd.ShapeWraps | crowd.ShapeSwing}
	late := attack
	late.Phase = -0.2
	loop := crowd.Playhead{Phase: -0.35, Rate: 0.7, Row: 7, Shape: 11 | crowd.ShapeLoops | crowd.ShapeWraps}
	die := crowd.Playhead{Phase: 0.6, Rate: 0.8, Row: 90, Shape: 15}
	still := crowd.Playhead{Phase: 0.5, Rate: 1, Row: 3}
	out = append(out,
		crowd.TimeRecord{Own: attack}, crowd.TimeRecord{Own: late}, crowd.TimeRecord{Own: loop}, crowd.TimeRecord{Own: die},
		crowd.TimeRecord{Own: still, From: loop, FadeStart: 0.05, FadeInv: 2},
		crowd.TimeRecord{Own: loop, From: die, Prior: attack, FadeInv: 1 / 0.3, PriorShare: 0.4})
	for k := range out {
		out[k].FadeStart -= out[k].Start
		out[k].Start = 0
	}
	return out
}

// recordWords is a record as the page takes it: 16 uint32 words, the Go layout.
func recordWords(r crowd.TimeRecord) []uint32 {
	buf := make([]byte, crowd.TimeRecordSize)
	putRecord(buf, 0, &r)
	w := make([]uint32, 16)
	for k := range w {
		w[k] = uint32(buf[4*k]) | uint32(buf[4*k+1])<<8 | uint32(buf[4*k+2])<<16 | uint32(buf[4*k+3])<<24
	}
	return w
}

// TestBrowserClockResolve: the GPU clock mode's resolve pass (clock.vert.glsl)
// gives, for every kind of time record at times through and past their fades
// and swings, the rows, lerps and weights crowd.TimeRecord.At gives, as a unit's
// own record and as its rider's.
func TestBrowserClockResolve(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test skipped in -short mode")
	}
	recs := clockRecords(t)
	times := []float32{0, 0.043, 0.1, 0.17, 0.29, 0.61, 0.97, 1.3, 2.9}
	ws := make([][]uint32, len(recs))
	for k, r := range recs {
		ws[k] = recordWords(r)
	}
	js, _ := json.Marshal(ws)
	tj, _ := json.Marshal(times)
	a := fader(t)
	p := openViewer(t, []*Asset{a}, "?n=1&paused=1&aa=0", 400, 157)
	got := p.eval(fmt.Sprintf("bonebake.clockResolve(%s, %s)", js, tj)).([]any)
	bad := 0
	for ti, tm := range times {
		out := got[ti].([]any)
		for k, r := range recs {
			o, b := r.At(tm)
			want := []float64{float64(o.Frame), float64(o.Next), float64(o.Lerp), 0,
				float64(b.Frame), float64(b.Next), float64(b.Lerp), float64(b.Weight),
				float64(b.PriorFrame), float64(b.PriorNext), float64(b.PriorLerp), float64(b.PriorWeight)}
			rec := make([]float64, RecordFloats)
			for j := range rec {
				rec[j] = out[k*RecordFloats+j].(float64)
			}
			for _, at := range [][3]int{{recFrame, recFade, recFade + 4}, {recRider, recRiderFade, recRiderFade + 4}} {
				g := append(append(append([]float64(nil), rec[at[0]:at[0]+4]...), rec[at[1]:at[1]+4]...), rec[at[2]:at[2]+4]...)
				if !sameSides(want, g) {
					if bad++; bad <= 5 {
						t.Errorf("t=%v record %+v:\nAt   %v\nGLSL %v", tm, r, want, g)
					}
				}
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d resolutions differ", bad, 2*len(times)*len(recs))
	}
	p.checkClean()
}

// sameSides compares three sides (frame row, next row, lerp, weight): the same
// rows with lerps and weights within float32 rounding, or, at a frame
// boundary, the same place (row + lerp); a side weighing 0 in both is not
// compared.
func sameSides(a, b []float64) bool {
	for s := 0; s < 12; s += 4 {
		if s > 0 && a[s+3] == 0 && b[s+3] == 0 {
			continue
		}
		if absf(a[s+3]-b[s+3]) > 1e-5 {
			return false
		}
		if a[s] == b[s] && a[s+1] == b[s+1] && absf(a[s+2]-b[s+2]) < 1e-4 {
			continue
		}
		if absf(a[s]+a[s+2]-b[s]-b[s+2]) > 1e-4 {
			return false
		}
	}
	return true
}

// TestBrowserClockPicture: the same crowd, stepped alike (a clip chosen on the
// way, so that units fade), looks the same played per frame and in the GPU
// clock mode, riders, swords and the focus unit's overlays included; a step
// later it does not (the comparison sees motion).
func TestBrowserClockPicture(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test skipped in -short mode")
	}
	start := time.Now()
	p := openViewer(t, builtins(t), "?frame=1&n=40&paused=1&aa=0&clock=0&lod=0&zoom=0.4", 560, 237)
	t.Logf("page ready in %v", time.Since(start).Round(time.Millisecond))
	run := func() {
		defer func(t0 time.Time) { t.Logf("steps in %v", time.Since(t0).Round(time.Millisecond)) }(time.Now())
		p.eval("bonebake.step(0.77)")
		p.eval("bonebake.selectClip(bonebake.state.assets[bonebake.state.selected].clips[1].name, 1 / 30)")
		p.eval("bonebake.step(0.05)")
		p.frames(2)
		p.eval("bonebake.sync()")
	}
	run()
	if s := p.eval("bonebake.stats.playback"); s != "frame" {
		t.Fatalf("playback %v with clock=0", s)
	}
	perFrame := p.screenshot()
	r := rect{0, 0, 560, 380}
	p.eval("bonebake.selectClip(null).then(() => bonebake.setClock('clock'))")
	run()
	if s := p.eval("bonebake.stats.playback"); s != "clock" {
		t.Fatalf("playback %v after setClock('clock')", s)
	}
	clocked := p.screenshot()
	p.eval("bonebake.step(0.1)")
	p.frames(2)
	later := p.screenshot()
	n, total := differing(perFrame, clocked, r)
	moved, _ := differing(clocked, later, r)
	t.Logf("%d of %d pixels differ between the modes; %d a tenth of a second later", n, total, moved)
	if moved < 300 || moved < 20*n {
		t.Errorf("the comparison cannot tell: %d pixels differ a step apart, %d between the modes", moved, n)
	}
	if n > total/500 {
		t.Errorf("%d of %d pixels differ between the per-frame and clock pictures", n, total)
	}
	if txt := p.eval("document.getElementById('stats').textContent").(string); !strings.Contains(txt, "GPU clock") {
		t.Errorf("the panel does not show the mode: %q", txt)
	}
	p.checkClean()
}

// TestBrowserClockSends: a crowd of 5,000 plays in the GPU clock mode by
// default, level of detail on; its first step sends every record, later steps
// with nothing chosen almost none, a clip chosen for the species all its
// units'; played per frame every step sends all.
func TestBrowserClockSends(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test skipped in -short mode")
	}
	a := fader(t)
	p := openViewer(t, []*Asset{a}, "?frame=1&n=5000&paused=1&aa=0&skeleton=0&sockets=0", 320, 97)
	// Every record once: the first step sends all 5000, a step with nothing
	// changed none. On a loaded machine a second step's answer can be applied
	// with the first (the last answer's count is then its 0), so the check is
	// on the records sent in all: a first step that sent fewer leaves them
	// short, since later steps send only what changed.
	if m := p.eval("[bonebake.state.crowd.playback, bonebake.stats.playback, bonebake.stats.records, bonebake.stats.steps > 0]"); fmt.Sprint(m) != "[clock clock 5000 true]" {
		t.Fatalf("mode, last mode, records sent and a step: %v, want the clock mode with all 5000 first", m)
	}
	// sent runs a step and returns the records per answer applied meanwhile.
	sent := func(js string) float64 {
		t.Helper()
		s0, r0 := p.number("bonebake.stats.steps"), p.number("bonebake.stats.records")
		p.eval(js)
		s1, r1 := p.number("bonebake.stats.steps"), p.number("bonebake.stats.records")
		if s1 == s0 {
			t.Fatalf("%s: no step came", js)
		}
		return (r1 - r0) / (s1 - s0)
	}
	quiet := 0.0
	for range 3 {
		quiet = math.Max(quiet, sent("bonebake.step(1 / 30)"))
	}
	if quiet > 50 {
		t.Errorf("steps with no change sent %v records each", quiet)
	}
	// The parade alternates the fader's two clips: "side" changes the half on "up".
	r0 := p.number("bonebake.stats.records")
	p.eval("bonebake.selectClip('side', 1 / 30)")
	if n := p.number("bonebake.stats.records") - r0; n < 2500 || n > 5000 {
		t.Errorf("choosing a clip sent %v records, want the 2500 units it changes", n)
	}
	if n := sent("bonebake.step(1 / 30)"); n > 50 {
		t.Errorf("a fading crowd sent %v records a step: the fade is the GPU's", n)
	}
	p.eval("bonebake.setClock('frame')")
	p.eval("bonebake.step(1 / 30)")
	if m := p.eval("[bonebake.stats.playback, bonebake.stats.recordsSent]"); fmt.Sprint(m) != "[frame 5000]" {
		t.Errorf("per frame: %v, want every record every step", m)
	}
	t.Logf("clock mode: %v of 5000 records a step with no change", quiet)
	p.checkClean()
}

// TestBrowserClockLOD: with level of detail on, the GPU clock mode shows every
// unit at the level the per-frame mode does, and the same picture: a sparse
// crowd seen from just outside its front row, where all three levels show, each
// unit tinted by its level, a clip chosen on the way so that units fade (a
// fading unit in the snapshot band shows reduced). The levels come from the
// server's runtime in both modes; the clock mode's only when they change.
func TestBrowserClockLOD(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test skipped in -short mode")
	}
	start := time.Now()
	p := openCrowdHidden(t, builtins(t), "?frame=1&n=300&paused=1&aa=0&clock=0&lodcolor=1&skeleton=0&sockets=0", 480, 237)
	// 300 units three times as far apart as usual span the distances 2,000
	// would: few to draw in software, every level among them.
	p.eval("bonebake.state.assets.forEach((A) => { A.spacing *= 3; }), bonebake.setClock('frame')")
	t.Logf("page ready in %v", time.Since(start).Round(time.Millisecond))
	type shown struct {
		levels  map[string]any // per asset: its units' levels (lodLevels)
		records map[string]any // per asset: the records drawn at each level (lodRecords)
		tally   lodTally
		shot    image.Image
	}
	grab := func() shown {
		var s shown
		s.levels, s.records = map[string]any{}, map[string]any{}
		for _, name := range p.eval("bonebake.state.assets.map((A) => A.name)").([]any) {
			if m, ok := p.eval(fmt.Sprintf("bonebake.lodLevels(%q)", name)).(map[string]any); ok {
				s.levels[name.(string)] = m["level"]
			}
			s.records[name.(string)] = p.eval(fmt.Sprintf("bonebake.lodRecords(%q)", name))
		}
		p.eval("bonebake.setCrowdVisible(true)")
		p.frames(1)
		s.tally = parseTally(p.eval("bonebake.lodStats()").(map[string]any))
		s.shot = p.screenshot()
		p.eval("bonebake.setCrowdVisible(false)")
		return s
	}
	run := func() shown {
		// Levels keep a history (hysteresis): a camera kilometres away first puts
		// every unit of either crowd in the farthest band, then the close view.
		p.eval("bonebake.camera.target = [0, 1, 5000]; bonebake.settled()")
		p.eval(closeView)
		p.eval("bonebake.step(0.77)")
		p.eval("bonebake.selectClip(bonebake.state.assets[bonebake.state.selected].clips[1].name, 1 / 30)")
		p.eval("bonebake.step(0.05)")
		p.eval("bonebake.settled()")
		return grab()
	}
	frame := run()
	if m := p.eval("bonebake.stats.playback"); m != "frame" {
		t.Fatalf("playback %v with clock=0", m)
	}
	p.eval("bonebake.selectClip(null).then(() => bonebake.setClock('clock'))")
	clocked := run()
	if m := p.eval("bonebake.stats.playback"); m != "clock" {
		t.Fatalf("playback %v after setClock('clock')", m)
	}
	if clocked.tally.Units[0] == 0 || clocked.tally.Units[1] == 0 || clocked.tally.Units[2] == 0 {
		t.Errorf("units per level %v: want all three", clocked.tally.Units)
	}
	if fmt.Sprint(frame.tally.Units, frame.tally.Riders) != fmt.Sprint(clocked.tally.Units, clocked.tally.Riders) {
		t.Errorf("units and riders per level: %v %v per frame, %v %v clocked", frame.tally.Units, frame.tally.Riders, clocked.tally.Units, clocked.tally.Riders)
	}
	for name, lv := range frame.levels {
		a, b := lv.([]any), clocked.levels[name].([]any)
		bad := 0
		for i := range min(len(a), len(b)) {
			if a[i] != b[i] {
				bad++
			}
		}
		if len(a) != len(b) || bad > 0 {
			t.Errorf("%s: %d of %d units at another level in the clock mode (%d units there)", name, bad, len(a), len(b))
		}
	}
	// The records drawn at each level: the same rows, weights and places (sameRecord),
	// and the same levels and snapshot frames (floats 3 and 15), but for a unit
	// whose phase a rounding puts on the other side of a frame boundary.
	compared, snapshots, bad := 0, 0, 0
	for name, fr := range frame.records {
		cr, ok := clocked.records[name].(map[string]any)
		if !ok || fr == nil {
			continue
		}
		for _, side := range []string{"body", "rider"} {
			for lv := range 3 {
				a := fr.(map[string]any)[side].([]any)[lv].([]any)
				b := cr[side].([]any)[lv].([]any)
				if len(a) != len(b) {
					t.Errorf("%s %s level %d: %d records per frame, %d clocked", name, side, lv, len(a)/RecordFloats, len(b)/RecordFloats)
					continue
				}
				for o := 0; o < len(a); o += RecordFloats {
					var x, y [RecordFloats]float32
					for k := range RecordFloats {
						x[k], y[k] = float32(a[o+k].(float64)), float32(b[o+k].(float64))
					}
					compared++
					if lv == 2 {
						snapshots++
					}
					if !sameRecord(x[:], y[:]) || x[recLevel] != y[recLevel] || x[recRiderLevel] != y[recRiderLevel] {
						if bad++; bad <= 5 {
							t.Logf("%s %s level %d record %d:\nper frame %v\nclocked   %v", name, side, lv, o/RecordFloats, x, y)
						}
					}
				}
			}
		}
	}
	t.Logf("%d records compared (%d at the snapshot level), %d differ", compared, snapshots, bad)
	if snapshots == 0 || bad > compared/100 {
		t.Errorf("%d of %d records drawn differ between the modes (%d at the snapshot level)", bad, compared, snapshots)
	}
	p.eval("bonebake.step(0.1)")
	later := grab()
	r := rect{0, 0, 480, 237}
	n, total := differing(frame.shot, clocked.shot, r)
	moved, _ := differing(clocked.shot, later.shot, r)
	t.Logf("levels %v (riders %v); %d of %d pixels differ between the modes, %d a tenth of a second later", clocked.tally.Units, clocked.tally.Riders, n, total, moved)
	if moved < 300 || moved < 20*n {
		t.Errorf("the comparison cannot tell: %d pixels differ a step apart, %d between the modes", moved, n)
	}
	if n > total/500 {
		t.Errorf("%d of %d pixels differ between the per-frame and clock pictures", n, total)
	}
	p.checkClean()
}

// TestBrowserClockResizePlaying: a playing crowd resized back and forth across
// the size the GPU clock mode starts at keeps playing. A step asked for the
// old crowd and answered after the new one came must be dropped: applied to
// the new crowd, a per-frame answer replaced its records with the old crowd's
// fewer ones, and the next clock answer failed ("offset is out of bounds").
func TestBrowserClockResizePlaying(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test skipped in -short mode")
	}
	a := fader(t)
	p := openViewer(t, []*Asset{a}, "?frame=1&n=1000&aa=0&skeleton=0&sockets=0", 320, 97)
	// Hidden, the crowd costs no drawing: frames come fast and a step is
	// nearly always in flight when the crowd changes, as on a fast GPU.
	p.eval("bonebake.setCrowdVisible(false)")
	for _, n := range []int{5000, 1000, 6000, 2000, 5000} {
		if !p.settles(fmt.Sprintf("bonebake.setInstances(%d).then(() => bonebake.nextFrames(10))", n), 20) {
			t.Fatalf("resized to %d: timed out; page error: %v", n, p.eval("bonebake.error || null"))
		}
		want := "frame"
		if n >= 5000 {
			want = "clock"
		}
		if m := p.eval("[bonebake.state.crowd.unit_count, bonebake.state.crowd.playback, bonebake.stats.playback]"); fmt.Sprint(m) != fmt.Sprintf("[%d %s %s]", n, want, want) {
			t.Errorf("resized to %d: crowd size, mode and last answer's mode %v", n, m)
		}
	}
	// Two sizes asked for at once (a slider dragged): the last one asked for
	// is the crowd, whichever answer comes first.
	p.eval("Promise.all([bonebake.setInstances(20000), bonebake.setInstances(1000)]).then(() => bonebake.nextFrames(10))")
	if m := p.eval("[bonebake.state.count, bonebake.state.crowd.unit_count, bonebake.stats.playback]"); fmt.Sprint(m) != "[1000 1000 frame]" {
		t.Errorf("20000 then 1000 asked for: count, crowd size and last answer's mode %v", m)
	}
	p.checkClean()
}
