package viewer

import (
	"cmp"
	"encoding/binary"
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/bonebake/bonebake/internal/testfiles"
	"github.com/bonebake/bonebake/roster"
	"github.com/bonebake/bonebake/source/gltf/gltfbake"
)

// paradeOf builds a parade of n units of assets with every unit of asset a on
// its clip named clip (fades off), after one step of no time.
func paradeOf(t *testing.T, s *Server, n int, clock bool, a int, clip string) (*Scene, StepInput) {
	t.Helper()
	c, err := s.NewScene(SceneParams{Layout: LayoutParade, Count: n, Seed: 7, Clock: clock})
	if err != nil {
		t.Fatal(err)
	}
	in := StepInput{Focus: a, Seek: math.NaN(), NoFade: true, Override: make([]int, len(s.assets))}
	for k := range in.Override {
		in.Override[k] = -1
	}
	if in.Override[a] = s.assets[a].file.ClipIndex(clip); in.Override[a] < 0 {
		t.Fatalf("%s has no clip %q", s.assets[a].Name, clip)
	}
	if _, err := c.Step(0, in); err != nil {
		t.Fatal(err)
	}
	return c, in
}

// TestParadeUnitsTravel: in the parade a unit on a clip with a ground speed
// (the built-in humanoid's walk and run: 1.4 m/s over a 0.92 s cycle, 3.8 m/s
// over 0.56 s, docs/species.md) moves along +x, the way it faces, by its rate
// (passes a second) · speed · cycle each step, and comes back at the lanes'
// start when it walks off their end, one lane length back; z stays; a seek
// moves it by the stride of the phase it skips. A unit on a clip without one
// (idle) stays where it stands.
func TestParadeUnitsTravel(t *testing.T) {
	s := New(builtins(t))
	hum, _ := roster.ByName("humanoid")
	gaits := hum.Gaits
	for _, clip := range []string{"walk", "run", "idle"} {
		c, in := paradeOf(t, s, 60, false, 0, clip)
		g := gaits[clip]
		e := c.Extent()
		lane := float64(e[2] - e[0])
		wraps := 0
		for k := range 400 {
			dt := float32(1) / 30
			if k%5 == 2 {
				dt = 0.011 // uneven steps
			}
			before := slices.Clone(c.Records)
			if _, err := c.Step(dt, in); err != nil {
				t.Fatal(err)
			}
			for i := c.First[0]; i < c.First[0]+c.Count[0]; i++ {
				r0, r := before[i*RecordFloats:], c.Records[i*RecordFloats:]
				if r[recPlace+2] != math.Pi/2 || r[recPlace+1] != r0[recPlace+1] {
					t.Fatalf("%s: unit %d faces %v and moved in z from %v to %v", clip, i, r[recPlace+2], r0[recPlace+1], r[recPlace+1])
				}
				want := float64(c.play.Rate[i]) * g.Speed * g.Cycle * float64(dt) // 0 without a speed
				got := float64(r[recPlace] - r0[recPlace])
				if got < 0 {
					got += lane
					wraps++
				}
				if math.Abs(got-want) > 1e-4 {
					t.Fatalf("%s: unit %d moved %v m in %v s at rate %v, want %v", clip, i, got, dt, c.play.Rate[i], want)
				}
				if x := r[recPlace]; x < e[0] || x >= e[2] {
					t.Fatalf("%s: unit %d at x %v, outside the lanes %v", clip, i, x, e)
				}
			}
		}
		// A seek moves the focus unit by the stride of the phase it skips.
		i := c.First[0]
		x0, ph := c.Records[i*RecordFloats+recPlace], c.play.PhaseNow(i)
		seek := in
		seek.Seek = 0.5
		if _, err := c.Step(0, seek); err != nil {
			t.Fatal(err)
		}
		got := math.Mod(float64(c.Records[i*RecordFloats+recPlace]-x0)+lane, lane)
		want := math.Mod((0.5-float64(ph))*g.Speed*g.Cycle+lane, lane)
		if math.Abs(got-want) > 1e-4 {
			t.Errorf("%s: a seek from phase %v to 0.5 moved the unit %v m, want %v", clip, ph, got, want)
		}
		if (g.Speed > 0) != (wraps > 0) {
			t.Errorf("%s: %d wraps in %.1f m lanes", clip, wraps, lane)
		}
		t.Logf("%s: %d wraps in %.1f m lanes", clip, wraps, lane)
	}
}

// TestClockTravel: a clock answer's entries carry each unit's travel, and the
// rule docs/viewer-wire.md §4 states (x = x0 + (x_s − x0 + v·(t − t_s)) mod L)
// puts every unit where the per-frame parade has it at every step, while a
// walking unit's entry is sent once, not every step.
func TestClockTravel(t *testing.T) {
	strafer, err := LoadGLTF(testfiles.StraferGLTF(t))
	if err != nil {
		t.Fatal(err)
	}
	// The built-in humanoid's walk, a strafe, whose units face across
	// their asset's way (heading 0, not π/2) while they play it, and a walk
	// whose frames carry its travel, which neither mode adds to.
	for _, c := range []struct {
		assets []*Asset
		clip   string
	}{{builtins(t), "walk"}, {[]*Asset{strafer}, "Strafe"}, {[]*Asset{plantedBiped(t)}, "a_biped_walk"}} {
		s := New(c.assets)
		frame, in := paradeOf(t, s, 120, false, 0, c.clip)
		clocked, _ := paradeOf(t, s, 120, true, 0, c.clip)
		entries := map[uint32][]float32{} // the last entry of each unit
		sends := 0
		for k := range 90 {
			if _, err := frame.Step(1.0/30, in); err != nil {
				t.Fatal(err)
			}
			f, err := clocked.Step(1.0/30, in)
			if err != nil {
				t.Fatal(err)
			}
			b := clocked.appendClock(nil, f)
			le := binary.LittleEndian
			o := stepHeader + 4*len(s.assets)
			now := math.Float32frombits(le.Uint32(b[o:]))
			o += 4 + RecordFloats*4
			n := int(le.Uint32(b[o:]))
			o += 4
			for range n {
				i := le.Uint32(b[o:])
				w := make([]float32, clockFloats)
				for j := range w {
					w[j] = math.Float32frombits(le.Uint32(b[o+4+4*j:]))
				}
				entries[i] = w
				o += clockEntry
				if k > 0 && int(i) < clocked.Count[0] {
					sends++
				}
			}
			for i := range clocked.Len() {
				w := entries[uint32(i)]
				x0, l, v, ts := float64(w[clockTravel]), float64(w[clockTravel+1]), float64(w[clockTravel+2]), float64(w[clockTravel+3])
				s := float64(w[recPlace-recTint]) - x0 + v*(float64(now)-ts)
				x := x0 + s - l*math.Floor(s/l)
				if want := float64(frame.Records[i*RecordFloats+recPlace]); math.Abs(x-want) > 2e-3 && math.Abs(math.Abs(x-want)-l) > 2e-3 {
					t.Fatalf("%s: step %d unit %d: the entry puts it at x %v, the per-frame parade at %v", c.clip, k, i, x, want)
				}
				if h, want := w[recPlace+2-recTint], frame.Records[i*RecordFloats+recPlace+2]; h != want {
					t.Fatalf("%s: step %d unit %d: the entry faces it %v, the per-frame parade %v", c.clip, k, i, h, want)
				}
			}
		}
		if sends > 0 {
			t.Errorf("%s: the travelling units' entries were sent %d times after the first step", c.clip, sends)
		}
	}
}

// plantedBiped is a_biped_walk.bvh as view --plant-feet loads it: its walk
// keeps its root's travel, its ground speed measured from it.
func plantedBiped(t *testing.T) *Asset {
	t.Helper()
	a, err := LoadGLTFWith(testfiles.Path(t, "bvh", "a_biped_walk.bvh"), gltfbake.Settings{PlantFeet: true})
	if err != nil {
		t.Fatal(err)
	}
	if g, _ := a.src.Gaits.Clip("a_biped_walk"); !g.TravelsInFrames() {
		t.Fatalf("a_biped_walk planted: %+v, want a ground speed from root motion, not in place", g)
	}
	return a
}

// TestParadeFeetPlanted: a planted walk travelling in the parade keeps its
// feet where they stand: the synthetic walker (feet planted 60 % of a 1 s
// cycle at exactly 1.4 m/s, its gait measured from the glTF as bake measures
// it), its strafe (the same toward +x, across the way it faces) and the built-in creatures' walks and runs (their stride covers speed ·
// cycle, docs/species.md), seen in the world as the page draws them (the
// palette's foot bones, turned by the unit's yaw and put at its place). Each
// stance (a run of a foot's samples in the lowest tenth of its own height's
// range) drifts less than 5 % of the distance the unit's ground speed carries
// it meanwhile; played in place (before units travelled), they drift by all
// of it.
func TestParadeFeetPlanted(t *testing.T) {
	walker, err := LoadGLTF(testfiles.WalkerGLTF(t, false))
	if err != nil {
		t.Fatal(err)
	}
	type travelCase struct {
		asset *Asset
		clip  string
		speed float64 // m/s and
		cycle float64 // s, as the asset's maker says
		foot  string  // what its foot bones' names hold: "Foot" when ""
	}
	cases := []travelCase{{walker, "Walk", testfiles.WalkerSpeed, 1, ""}}
	// The walker with a strafe toward +x beside its walk toward +z: the strafe
	// travels along its lane too, its unit turned sideways to it (it slid in
	// place, across the walker's facing).
	strafer, err := LoadGLTF(testfiles.StraferGLTF(t))
	if err != nil {
		t.Fatal(err)
	}
	cases = append(cases, travelCase{strafer, "Walk", testfiles.WalkerSpeed, 1, ""}, travelCase{strafer, "Strafe", testfiles.WalkerSpeed, 1, ""})
	// Three.js's Soldier faces −z: as it is, and baked facing +z (--face -z),
	// its walks go forward, at the speeds the bake measured.
	soldier := testfiles.Path(t, "gltf", "threejs/Soldier.glb")
	for _, face := range []string{"", "-z"} {
		a, err := LoadGLTFWith(soldier, gltfbake.Settings{Face: face})
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range []string{"Walk", "Run"} {
			g, _ := a.src.Gaits.Clip(name)
			cases = append(cases, travelCase{a, name, g.GroundSpeed, g.Cycle, ""})
		}
	}
	// A clip that travels in its own frames (root motion, not baked in place):
	// its frames carry it along its lane, and the parade must not move it too.
	// a_biped_walk.bvh planted stands within 0.47 % baked --in-place
	// (docs/formats/gait.md §4); moved twice, no foot stands.
	biped := plantedBiped(t)
	bg, _ := biped.src.Gaits.Clip("a_biped_walk")
	cases = append(cases, travelCase{biped, "a_biped_walk", bg.GroundSpeed, bg.Cycle, "foot."})
	for _, a := range builtins(t) {
		sp, _ := roster.ByName(a.Name)
		for name, g := range sp.Gaits {
			if g.Speed > 0 {
				cases = append(cases, travelCase{a, name, g.Speed, g.Cycle, ""})
			}
		}
	}
	for _, tc := range cases {
		a := tc.asset
		s := New([]*Asset{a})
		c, in := paradeOf(t, s, 1, false, 0, tc.clip)
		f := a.file
		bones := f.BoneCount()
		pal := f.PaletteBytes()
		at := func(row, b, k int) float64 {
			return float64(math.Float32frombits(binary.LittleEndian.Uint32(pal[((row*bones+b)*16+k)*4:])))
		}
		var feet []int
		foot := cmp.Or(tc.foot, "Foot")
		for b, n := range a.boneNames {
			if strings.Contains(n, foot) {
				feet = append(feet, b)
			}
		}
		if len(feet) < 2 {
			t.Fatalf("%s: feet %v", a.Name, feet)
		}
		const dt = 1.0 / 240
		steps := int(3 * tc.cycle / dt)
		pos := make([][][3]float64, len(feet))
		var unit []float64 // the unit's x, unwrapped
		for range steps {
			if _, err := c.Step(dt, in); err != nil {
				t.Fatal(err)
			}
			r := c.Records[:RecordFloats]
			x := float64(r[recPlace])
			if n := len(unit); n > 0 {
				for x < unit[n-1]-1 { // wrapped: one lane back
					x += float64(c.lane.length)
				}
			}
			unit = append(unit, x)
			cy, sy, sc := math.Cos(float64(r[recPlace+2])), math.Sin(float64(r[recPlace+2])), float64(r[recPlace+3])
			row, next, lerp := int(r[recFrame]), int(r[recFrame+1]), float64(r[recFrame+2])
			for j, b := range feet {
				var q [3]float64
				for k := range 3 {
					q[k] = (1-lerp)*at(row, b, 4*k+3) + lerp*at(next, b, 4*k+3)
				}
				pos[j] = append(pos[j], [3]float64{(cy*q[0]+sy*q[2])*sc + x, q[1] * sc, (-sy*q[0]+cy*q[2])*sc + float64(r[recPlace+1])})
			}
		}
		// The unit's ground speed at its pace: passes a second · speed · cycle.
		v := float64(c.play.Rate[0]) * tc.speed * tc.cycle
		// Stances by docs/formats/gait.md §2, in the world: a foot stands while
		// it is low (within 10 % of its own height's range, and 5 mm, of its
		// lowest) and moves under 0.2·v over the ground; a stance is a run of
		// such samples lasting 3 % of the cycle or more. Its drift is how far
		// the foot moves from the run's start to its end.
		worst, stances := 0.0, 0
		for j := range feet {
			p := pos[j]
			lo, hi := math.Inf(1), math.Inf(-1)
			for _, q := range p {
				lo, hi = math.Min(lo, q[1]), math.Max(hi, q[1])
			}
			band := lo + math.Max(0.1*(hi-lo), 0.005)
			stands := func(k int) bool {
				return k > 0 && k < steps-1 && p[k][1] <= band && math.Hypot(p[k+1][0]-p[k-1][0], p[k+1][2]-p[k-1][2])/(2*dt) < 0.2*v
			}
			for k := 1; k < steps; {
				if !stands(k) {
					k++
					continue
				}
				e := k
				for e < steps && stands(e) {
					e++
				}
				if !stands(k-1) && e < steps-1 && float64(e-k)*dt >= 0.03/float64(c.play.Rate[0]) {
					stances++
					drift := math.Hypot(p[e-1][0]-p[k][0], p[e-1][2]-p[k][2])
					worst = math.Max(worst, drift/(v*float64(e-1-k)*dt))
				}
				k = e
			}
		}
		t.Logf("%s %s (heading %.3f): %d stances, worst drift %.2f %% of the travel; the unit went %.2f m at %.3f m/s", a.Name, tc.clip, c.Records[recPlace+2], stances, 100*worst, unit[len(unit)-1]-unit[0], v)
		if stances < 2 || worst > 0.05 {
			t.Errorf("%s %s: %d stances (fewer than 2: the feet slide over the ground), a foot drifts %.1f %% of the distance travelled, want under 5 %%", a.Name, tc.clip, stances, 100*worst)
		}
	}
}

// TestParadeFacing: a parade unit faces the way its asset's clips travel, the
// axis nearest their measured directions turned to +x: CesiumMan walks
// toward +x (heading 0), the Soldier toward −z (−π/2), the built-ins, whose
// table gives no direction, +z (π/2).
func TestParadeFacing(t *testing.T) {
	for _, c := range []struct {
		model   string
		heading float32
	}{{"CesiumMan.gltf", 0}, {"threejs/Soldier.glb", -math.Pi / 2}} {
		a, err := LoadGLTF(testfiles.Path(t, "gltf", c.model))
		if err != nil {
			t.Fatal(err)
		}
		s := New(append([]*Asset{a}, builtins(t)[:1]...))
		sc, _ := paradeOf(t, s, 8, false, 0, a.file.Clips()[0].Name)
		for i := range sc.Len() {
			want := float32(math.Pi / 2)
			if i < sc.Count[0] {
				want = c.heading
			}
			if got := sc.Records[i*RecordFloats+recPlace+2]; got != want {
				t.Errorf("%s: unit %d (asset %d) faces %v, want %v", c.model, i, sc.unitAsset[i], got, want)
			}
		}
	}
}

// TestLaneEdgeGolden: the shrink at a lane's ends has two copies, the server's
// (lanes.edge, the per-frame records) and the GPU clock mode's (clock.vert.glsl's
// laneEdge); both give testdata/lane_edge.json's values, worked by hand from
// the rule. The GLSL runs as written, in node, by the npm package's GLSL
// evaluator (js/bonebake-three/test/glsl.mjs: float32, GLSL's types); it skips
// without node.
func TestLaneEdgeGolden(t *testing.T) {
	raw, err := os.ReadFile("testdata/lane_edge.json")
	if err != nil {
		t.Fatal(err)
	}
	var g struct {
		Tolerance float64
		Cases     []struct {
			X0, Len, X, Want float64
			Why              string
		}
	}
	if err := json.Unmarshal(raw, &g); err != nil {
		t.Fatal(err)
	}
	for _, c := range g.Cases {
		l := lanes{x0: float32(c.X0), length: float32(c.Len)}
		if got := l.edge(float32(c.X)); math.Abs(float64(got)-c.Want) > g.Tolerance {
			t.Errorf("lanes{%v, %v}.edge(%v) = %v, want %v (%s)", c.X0, c.Len, c.X, got, c.Want, c.Why)
		}
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("no node: clock.vert.glsl's laneEdge not run")
	}
	src, err := webFS.ReadFile("web/clock.vert.glsl")
	if err != nil {
		t.Fatal(err)
	}
	fn := regexp.MustCompile(`(?s)float laneEdge\(.*?\n}\n`).Find(src)
	if fn == nil {
		t.Fatal("clock.vert.glsl has no laneEdge")
	}
	evaluator, err := filepath.Abs("../js/bonebake-three/test/glsl.mjs")
	if err != nil {
		t.Fatal(err)
	}
	script := "import { compile } from " + strconv.Quote(evaluator) + ";\n" +
		"const g = compile(" + strconv.Quote(string(fn)) + "), cases = " + string(raw) + ".cases;\n" +
		"console.log(JSON.stringify(cases.map((c) => g.call('laneEdge', c.x, c.x0, c.len))));"
	out, err := exec.Command(node, "--input-type=module", "-e", script).CombinedOutput()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, out)
	}
	var got []float64
	if err := json.Unmarshal(out, &got); err != nil || len(got) != len(g.Cases) {
		t.Fatalf("node gave %s (%v)", out, err)
	}
	for k, c := range g.Cases {
		if math.Abs(got[k]-c.Want) > g.Tolerance {
			t.Errorf("GLSL laneEdge(%v, %v, %v) = %v, want %v (%s)", c.X, c.X0, c.Len, got[k], c.Want, c.Why)
		}
	}
}

// TestParadeLaneEndsHideTheWrap: per frame, a walking unit is drawn at full
// size a metre or more inside its lanes, smaller nearer their ends (at most
// 1.125 × its distance to the end: the smoothstep's steepest slope, 1.5, over
// the metre), and at every wrap it is all but gone on both sides (under a
// tenth of its size the step before and the step after: no pop). The focus
// unit keeps its size throughout, and so does every unit of a clip that
// plays in place (idle), which never wraps.
func TestParadeLaneEndsHideTheWrap(t *testing.T) {
	s := New(builtins(t))
	for _, clip := range []string{"walk", "idle"} {
		c, in := paradeOf(t, s, 60, false, 0, clip)
		e := c.Extent()
		wraps, shrunk := 0, 0
		for range 400 {
			before := slices.Clone(c.Records)
			if _, err := c.Step(1.0/30, in); err != nil {
				t.Fatal(err)
			}
			for i := c.First[0]; i < c.First[0]+c.Count[0]; i++ {
				r0, r := before[i*RecordFloats:], c.Records[i*RecordFloats:]
				x, sc := r[recPlace], r[recPlace+3]
				d := min(x-e[0], e[2]-x)
				switch {
				case i == c.First[0] || clip == "idle":
					if sc != 1 {
						t.Fatalf("%s: unit %d (focus: %v) at %.3f m from a lane's end drawn at scale %v, want 1", clip, i, i == c.First[0], d, sc)
					}
				case d >= 1 && sc != 1, d < 1 && !(sc < 1 && sc <= 1.125*d):
					t.Fatalf("%s: unit %d at %.3f m from a lane's end drawn at scale %v", clip, i, d, sc)
				}
				if sc < 1 {
					shrunk++
				}
				if i != c.First[0] && r[recPlace] < r0[recPlace] { // it wrapped
					wraps++
					if r0[recPlace+3] >= 0.1 || sc >= 0.1 {
						t.Errorf("%s: unit %d wrapped from scale %v to %v", clip, i, r0[recPlace+3], sc)
					}
				}
			}
		}
		if clip == "walk" && (wraps == 0 || shrunk == 0) {
			t.Errorf("walk: %d wraps, %d shrunk unit-steps: the test saw no lane's end", wraps, shrunk)
		}
	}
}
