package main

import (
	"fmt"
	"math"
	"math/rand/v2"
	goruntime "runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/bonebake/bonebake/crowd"
	"github.com/bonebake/bonebake/crowd/battle"
	"github.com/bonebake/bonebake/crowd/registry"
	"github.com/bonebake/bonebake/crowd/unit"
)

// TestJumpMeterAsBefore plays battles (with fades and without, two seeds) and
// measures each step with the meter and with the one before issue 46, which
// posed every unit every step and kept its origins: the largest moves are equal
// bit for bit, and the meter posed at most a tenth of the unit-steps.
func TestJumpMeterAsBefore(t *testing.T) {
	reg, _, err := simRegistry("", false)
	if err != nil {
		t.Fatal(err)
	}
	defer reg.Close()
	for _, c := range []struct {
		seed   uint64
		noFade bool
	}{{1, false}, {1, true}, {7, false}} {
		t.Run(fmt.Sprintf("seed=%d,no-fade=%v", c.seed, c.noFade), func(t *testing.T) {
			const units, steps = 400, 900
			cfg := simConfig{units: units, seconds: 15, dt: 1.0 / 60, seed: c.seed, noFade: c.noFade, workers: 2}
			now := newJumpMeter(reg, units)
			before, _ := newJumpMeterBefore(reg, units)
			if _, err := playBattle(cfg, reg, steps, func(_ int, b *battle.Battle, _, _, _ time.Time) {
				now.measure(&b.Crowd.Batch)
				before.measure(&b.Crowd.Batch)
			}); err != nil {
				t.Fatal(err)
			}
			got, want := now.max(), before.max()
			posed := 0
			for _, p := range now.posed {
				posed += p
			}
			t.Logf("largest move %.4f m; posed %d of %d unit-steps", got, posed, units*steps)
			if math.Float64bits(got) != math.Float64bits(want) {
				t.Errorf("largest move %v, the meter before %v", got, want)
			}
			if !(want > 0) {
				t.Errorf("no move measured")
			}
			if posed > units*steps/10 {
				t.Errorf("posed %d of %d unit-steps: the bound skips too few", posed, units*steps)
			}
		})
	}
}

// The meter before issue 46.
// jumpMeterBefore finds the largest move of any bone's model-space origin from one
// step to the next, over all units: it keeps every unit's origins of the last
// step and compares the new ones, on all cores.
type jumpMeterBefore struct {
	reg     *registry.Registry
	stride  int       // floats per unit: 3 × the most bones of any species
	prev    []float32 // per unit, its origins at the last step
	has     []bool    // whether prev holds a pose yet
	most    []float64 // per worker
	workers int
}

// maxJumpFloatsBefore bounds the memory the meter keeps: 256 MB of origins.
const maxJumpFloatsBefore = 64 << 20

// newJumpMeterBefore returns a meter for n units, or nil and why not when their origins
// would take more than maxJumpFloatsBefore.
func newJumpMeterBefore(reg *registry.Registry, n int) (*jumpMeterBefore, string) {
	bones := 0
	for _, s := range reg.All() {
		bones = max(bones, s.File.BoneCount())
	}
	if n*bones*3 > maxJumpFloatsBefore {
		return nil, fmt.Sprintf("%d units of up to %d bones: more origins than the %d MB the measurement may keep", n, bones, maxJumpFloatsBefore*4>>20)
	}
	w := goruntime.GOMAXPROCS(0)
	return &jumpMeterBefore{reg: reg, stride: 3 * bones, prev: make([]float32, n*3*bones), has: make([]bool, n), most: make([]float64, w), workers: w}, ""
}

// measure compares every unit's pose now with its pose at the last call.
func (m *jumpMeterBefore) measure(b *crowd.Batch) {
	n := b.Len()
	var wg sync.WaitGroup
	for w := range m.workers {
		lo, hi := n*w/m.workers, n*(w+1)/m.workers
		wg.Add(1)
		go func() {
			defer wg.Done()
			cur := make([]float32, m.stride)
			most := m.most[w]
			for i := lo; i < hi; i++ {
				prev := m.prev[i*m.stride : (i+1)*m.stride]
				if b.Origins(m.reg, i, cur) != nil { // a species not loaded: nothing drawn
					m.has[i] = false
					continue
				}
				if m.has[i] {
					for k := 0; k < len(cur); k += 3 {
						dx, dy, dz := float64(cur[k]-prev[k]), float64(cur[k+1]-prev[k+1]), float64(cur[k+2]-prev[k+2])
						most = max(most, math.Sqrt(dx*dx+dy*dy+dz*dz))
					}
				}
				copy(prev, cur)
				m.has[i] = true
			}
			m.most[w] = most
		}()
	}
	wg.Wait()
}

func (m *jumpMeterBefore) max() float64 { return slices.Max(m.most) }

// TestJumpMeterShortcuts checks the meter's shortcuts for a pose of one clip
// and of two (speed blends, fades from one clip) against the general bound
// they stand in for: over every unit-step of a battle that one takes, the same
// bound bit for bit, both ways (reach and path); and a speed blend's from its
// columns (pairPath.bound) against twoClips'. The largest move alone would
// not show a shortcut that bounds too little: few units come near it.
func TestJumpMeterShortcuts(t *testing.T) {
	reg, _, err := simRegistry("", false)
	if err != nil {
		t.Fatal(err)
	}
	defer reg.Close()
	const units, steps = 400, 600
	cfg := simConfig{units: units, seconds: 10, dt: 1.0 / 60, seed: 1, workers: 2}
	m := newJumpMeter(reg, units)
	prev := make([]unitPose, units)
	took, speed, one, blends, tights, twices, faded := 0, 0, 0, 0, 0, 0, 0
	if _, err := playBattle(cfg, reg, steps, func(_ int, b *battle.Battle, _, _, _ time.Time) {
		for i := range units {
			// BlendWord's bits are Blending's, and fading's: SpeedBlend's ok.
			on, live := b.Crowd.BlendWord(i >> 6)
			bit := uint64(1) << (i & 63)
			_, _, _, speedBlend := b.Crowd.SpeedBlend(i)
			if on&bit != 0 != b.Crowd.Blending(i) || (on&bit != 0 && live&bit == 0) != speedBlend {
				t.Fatalf("unit %d: BlendWord's bits %v, %v; Blending %v, SpeedBlend %v", i, on&bit != 0, live&bit != 0, b.Crowd.Blending(i), speedBlend)
			}
			if on&bit != 0 && live&bit != 0 {
				faded++
			}
			cur := unitPose{species: b.Crowd.Species[i], sides: b.Crowd.Sides(i), has: true}
			if p := prev[i]; p.has && p.species == cur.species {
				sp := &m.paths[cur.species]
				twice := showsTwice(&cur.sides)
				if twice {
					twices++
				}
				for _, tight := range []bool{false, true} {
					// farther with most infinite: false for any bound found.
					if twice && !m.farther(&cur, &p, math.Inf(1), tight) {
						t.Fatalf("unit %d, %v to %v (tight %v): shows a clip twice, but farther finds a bound", i, p.sides, cur.sides, tight)
					}
					want, ok := sp.bound(&p.sides, &cur.sides, tight)
					if got, one1 := sp.oneClip(&p.sides, &cur.sides, tight); one1 {
						one++
						if !ok || math.Float64bits(got) != math.Float64bits(want) {
							t.Fatalf("unit %d, %v to %v (tight %v): oneClip %v, bound %v (%v)", i, p.sides, cur.sides, tight, got, want, ok)
						}
					}
					got, two := sp.twoClips(&p.sides, &cur.sides, tight)
					if k := m.keyOf(&p); k&pairBit != 0 && k != noKey && k == m.keyOf(&cur) {
						a, b := &p.sides, &cur.sides
						if !tight {
							if quick, ok := m.pairs[k&^pairBit].bound(a[0].Weight, a[1].Weight, b[0].Weight, b[1].Weight, a[0].Phase, b[0].Phase); ok {
								blends++
								if !two || math.Float64bits(quick) != math.Float64bits(got) {
									t.Fatalf("unit %d, %v to %v: the speed blend's %v, twoClips %v (%v)", i, p.sides, cur.sides, quick, got, two)
								}
							}
						} else if d, ok := sp.speedTight(a[0].Clip, a[1].Clip, a[0].Weight, a[1].Weight, b[0].Weight, b[1].Weight, a[0].Phase, b[0].Phase); ok != two || math.Float64bits(d) != math.Float64bits(got) {
							t.Fatalf("unit %d, %v to %v: the speed blend's tight bound %v (%v), twoClips %v (%v)", i, p.sides, cur.sides, d, ok, got, two)
						} else if ok {
							tights++
						}
					}
					if !two {
						continue
					}
					took++
					if p.sides[0].Phase == p.sides[1].Phase {
						speed++
					}
					if !ok || math.Float64bits(got) != math.Float64bits(want) {
						t.Fatalf("unit %d, %v to %v (tight %v): twoClips %v, bound %v (%v)", i, p.sides, cur.sides, tight, got, want, ok)
					}
				}
			}
			prev[i] = cur
		}
	}); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d bounds of one clip compared, %d of two, %d of them of speed blends, %d and %d tight from columns; %d poses showing a clip twice", one, took, speed, blends, tights, twices)
	if twices == 0 || faded == 0 {
		t.Errorf("%d poses showed a clip twice, %d units faded: want some", twices, faded)
	}
	if one < units*steps || took < units*steps/20 || speed == 0 || speed == took || blends < speed/4 || tights < speed/4 {
		t.Errorf("%d bounds of one clip compared, %d of two, %d of speed blends: the battle shows too few of some kind", one, took, speed)
	}
}

// TestJumpMeterPoses checks the meter's posing against Species.OriginsOf, whose
// origins the GPU's palettes hold: over every unit-step of a battle, the
// largest squared move of a bone is the same bit for bit, for one clip at full
// weight (most units; farthestHot too, against any largest move so far) and
// for blends alike; and the sides the meter reads (Batch.SidesTo, into a used
// array, and Batch.SpeedBlend, whose Batch.GaitColumns the meter reads) are
// Sides'.
func TestJumpMeterPoses(t *testing.T) {
	reg, cfg, m, prev, now, was := meterBattle(t)
	units, steps := cfg.units, 600
	single, blend, speed := 0, 0, 0
	if _, err := playBattle(cfg, reg, steps, func(_ int, b *battle.Battle, _, _, _ time.Time) {
		for i := range units {
			cur := unitPose{species: b.Crowd.Species[i], sides: b.Crowd.Sides(i), has: true}
			// What the meter reads, SidesTo, over what the last unit left.
			dirty := [3]registry.Side{{Clip: 9, Phase: 9, Weight: 9}, {Clip: 9, Phase: 9, Weight: 9}, {Clip: 9, Phase: 9, Weight: 9}}
			if b.Crowd.SidesTo(i, &dirty); dirty != cur.sides {
				t.Fatalf("unit %d: SidesTo %v, Sides %v", i, dirty, cur.sides)
			}
			// And SpeedBlend, for a unit blending two gaits and fading from none.
			other, w0, w1, ok := b.Crowd.SpeedBlend(i)
			if ok != (b.Crowd.Blending(i) && !b.Crowd.Fading(i)) {
				t.Fatalf("unit %d: SpeedBlend %v, blending %v, fading %v", i, ok, b.Crowd.Blending(i), b.Crowd.Fading(i))
			}
			if ph := b.Crowd.Phase[i]; ok && cur.sides != [3]registry.Side{{Clip: b.Crowd.Clip[i], Phase: ph, Weight: w0}, {Clip: other, Phase: ph, Weight: w1}} {
				t.Fatalf("unit %d: SpeedBlend %v %v %v, Sides %v", i, other, w0, w1, cur.sides)
			}
			// And the gait columns, which the meter reads for such a unit.
			if gc, gw := b.Crowd.GaitColumns(); ok && (gc[i] != other || 1-gw[i] != w0 || gw[i] != w1) {
				t.Fatalf("unit %d: gait columns %v %v, SpeedBlend %v %v %v", i, gc[i], gw[i], other, w0, w1)
			}
			if ok {
				speed++
			}
			if p := prev[i]; p.has && p.species == cur.species {
				s := reg.Species(cur.species)
				if err := s.OriginsOf(cur.sides, now); err != nil {
					t.Fatal(err)
				}
				if err := s.OriginsOf(p.sides, was); err != nil {
					t.Fatal(err)
				}
				var want float64
				for k := 0; k < 3*s.File.BoneCount(); k += 3 {
					dx, dy, dz := float64(now[k]-was[k]), float64(now[k+1]-was[k+1]), float64(now[k+2]-was[k+2])
					want = max(want, dx*dx+dy*dy+dz*dz)
				}
				sp := &m.paths[cur.species]
				var a, b [3]posedSide
				na, _ := sp.resolve(&cur.sides, &a)
				nb, _ := sp.resolve(&p.sides, &b)
				if got := sp.farthest(a[:na], b[:nb], make([]float32, len(now)), make([]float32, len(was))); math.Float64bits(got) != math.Float64bits(want) {
					t.Fatalf("unit %d, %v to %v: %v, OriginsOf's %v", i, p.sides, cur.sides, got, want)
				}
				if na == 1 && nb == 1 && a[0].wgt == 1 && b[0].wgt == 1 {
					single++
					if c := p.sides[0].Clip; c == cur.sides[0].Clip {
						// Looking only at the bones that could beat the largest
						// move so far, just under this move, at it or none.
						cp := &sp.clips[c]
						span := cp.span(p.sides[0].Phase, cur.sides[0].Phase)
						for _, most := range []float64{0, want * (1 - 1e-9), want, want / 4, 2 * want} {
							if got := cp.farthestHot(&a[0], &b[0], span, most); math.Float64bits(got) != math.Float64bits(max(most, want)) {
								t.Fatalf("unit %d, %v to %v, largest so far %v: farthestHot %v, want %v", i, p.sides, cur.sides, most, got, max(most, want))
							}
						}
					}
				} else {
					blend++
				}
			}
			prev[i] = cur
		}
	}); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d unit-steps of one clip, %d blending, %d speed blends", single, blend, speed)
	if single < units*steps/2 || blend < units*steps/20 || speed < units*steps/20 {
		t.Errorf("%d of one clip, %d blending: the battle shows too few of either", single, blend)
	}
}

// TestJumpMeterLimit checks the common case's phase-step limits against quick,
// whose decision they stand in for: for every clip of the built-in species and
// largest moves from 1 cm to 2 m, phase pairs that step no farther than the
// limit (a one-shot's phases clamped to [0, 1]) pass quick's test, and the
// limit is no shorter than it need be (a hundredth of a percent of the step
// quick allows); and likewise a steady speed blend's limit against its bound.
func TestJumpMeterLimit(t *testing.T) {
	reg, _, err := simRegistry("", false)
	if err != nil {
		t.Fatal(err)
	}
	defer reg.Close()
	m := newJumpMeter(reg, 1)
	rng := rand.New(rand.NewPCG(1, 2))
	tried := 0
	clamp := func(c *clipPath, x float32) float64 {
		if c.loops {
			return float64(x)
		}
		return min(max(float64(x), 0), 1)
	}
	for _, c := range m.flat {
		for _, jump := range []float64{0.01, 0.05, 0.2, 0.6, 2} {
			most := jump * jump
			l := c.limit(most)
			room := jump/(1+1e-6) - c.margin
			want := min(room/c.perPhase, 0.5)
			if !c.loops {
				want = min((room/c.fastest-1e-6)/float64(c.frames-1), 1)
			}
			if c.frames <= 1 || c.fastest == 0 {
				want = max(want, 0) // no step moves it: any limit will do
			}
			if l.step < want*(1-1e-4) {
				t.Errorf("loops %v, perPhase %v, margin %v, largest move %v: limit %v, %v would do", c.loops, c.perPhase, c.margin, jump, l.step, want)
			}
			pairs := make([][2]float32, 0, 210)
			for range 200 {
				a := rng.Float32()*1.4 - 0.2 // a one-shot's phase may lie outside [0, 1]
				pairs = append(pairs, [2]float32{a, float32(float64(a) + (2*rng.Float64()-1)*l.step)})
			}
			// The limit itself, from either side, and at a one-shot's ends.
			for _, a := range []float32{0.25, 0, 1} {
				pairs = append(pairs, [2]float32{a, a + float32(l.step)}, [2]float32{a, a - float32(l.step)})
			}
			for _, p := range pairs {
				if math.Abs(clamp(c, p[1])-clamp(c, p[0])) > l.step {
					continue
				}
				tried++
				if d := c.quick(p[0], p[1]); !(d*d <= most) {
					t.Fatalf("loops %v: phases %v to %v, within the limit %v: quick %v against %v", c.loops, p[0], p[1], l.step, d, math.Sqrt(most))
				}
			}
		}
	}
	if tried < 10000 {
		t.Errorf("%d phase pairs tried", tried)
	}
	// A steady speed blend's limit, against pairPath.bound: every pair of
	// looping clips of a species, weights 1 − w and w.
	tried = 0
	for _, pp := range m.pairs {
		if !pp.loops {
			continue
		}
		for _, jump := range []float64{0.01, 0.05, 0.2, 0.6, 2} {
			most := jump * jump
			l := pp.limit(most)
			for x := range 40 {
				w := rng.Float32()
				a := rng.Float32()*1.4 - 0.2
				b := float32(float64(a) + (2*rng.Float64()-1)*l.step)
				if x < 4 { // the limit itself, either way, nearly all the weight on either clip
					b = float32(float64(a) + float64(1-2*(x&1))*l.step)
					w = []float32{1e-7, math.Nextafter32(1, 0)}[x>>1]
				}
				if w == 0 {
					continue
				}
				w0, w1 := 1-w, w
				if math.Abs(float64(b)-float64(a)) > l.step || math.Abs(float64(w0))+math.Abs(float64(w1)) > steadyWeights {
					continue
				}
				tried++
				if d, ok := pp.bound(w0, w1, w0, w1, a, b); !ok || !(d*d <= most) {
					t.Fatalf("pair %+v, weights %v %v: phases %v to %v, within the limit %v: bound %v (%v) against %v", pp, w0, w1, a, b, l.step, d, ok, jump)
				}
			}
		}
	}
	if tried < 10000 {
		t.Errorf("%d steady speed blends tried", tried)
	}
}

// TestJumpMeterBoneBound checks boneBound against the moves OriginsOf's poses
// make: over every unit-step of a battle with fades, no bone moves farther than
// it says, for blends that show a clip twice too (a fade into a speed blend of
// the clip it fades from), whose clip-wide bound finds none; and its terms
// taken as one bone (boneTerms.wide, boneRules' first test) bound no less.
func TestJumpMeterBoneBound(t *testing.T) {
	reg, cfg, m, prev, now, was := meterBattle(t)
	units, steps := cfg.units, 600
	blends, twice := 0, 0
	if _, err := playBattle(cfg, reg, steps, func(_ int, b *battle.Battle, _, _, _ time.Time) {
		for i := range units {
			cur := unitPose{species: b.Crowd.Species[i], sides: b.Crowd.Sides(i), has: true}
			if p := prev[i]; p.has && p.species == cur.species {
				sp := &m.paths[cur.species]
				got, ok := sp.boneBound(&p.sides, &cur.sides)
				if ok {
					// boneRules' first test, the terms as one bone, rules out
					// only what boneBound does.
					var bt boneTerms
					sp.terms(&p.sides, &cur.sides, &bt)
					if w := bt.wide(); !(w >= got) {
						t.Fatalf("unit %d, %v to %v: the terms as one bone %v, boneBound %v", i, p.sides, cur.sides, w, got)
					}
					s := reg.Species(cur.species)
					if err := s.OriginsOf(cur.sides, now); err != nil {
						t.Fatal(err)
					}
					if err := s.OriginsOf(p.sides, was); err != nil {
						t.Fatal(err)
					}
					for k := 0; k < 3*s.File.BoneCount(); k += 3 {
						dx, dy, dz := float64(now[k]-was[k]), float64(now[k+1]-was[k+1]), float64(now[k+2]-was[k+2])
						if d := math.Sqrt(dx*dx + dy*dy + dz*dz); !(d <= got) {
							t.Fatalf("unit %d, %v to %v: bone %d moves %v, boneBound %v", i, p.sides, cur.sides, k/3, d, got)
						}
					}
					if cur.sides[1].Weight != 0 || p.sides[1].Weight != 0 {
						blends++
						if _, ok := sp.bound(&p.sides, &cur.sides, false); !ok {
							twice++
						}
					}
				}
			}
			prev[i] = cur
		}
	}); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d blending unit-steps bounded, %d of them showing a clip twice", blends, twice)
	if blends < units*steps/20 || twice < units*steps/200 {
		t.Errorf("%d blending unit-steps, %d showing a clip twice: the battle shows too few", blends, twice)
	}
}

// meterBattle is what TestJumpMeterPoses and TestJumpMeterBoneBound replay a
// battle with: the built-ins' registry (closed when t ends), a battle of 400
// units, a meter for them, their last poses, and two poses as long as the
// most bones of a species.
func meterBattle(t *testing.T) (reg *registry.Registry, cfg simConfig, m *jumpMeter, prev []unitPose, now, was []float32) {
	t.Helper()
	reg, _, err := simRegistry("", false)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { reg.Close() })
	const units = 400
	cfg = simConfig{units: units, seconds: 10, dt: 1.0 / 60, seed: 1, workers: 2}
	bones := 0
	for _, s := range reg.All() {
		bones = max(bones, s.File.BoneCount())
	}
	return reg, cfg, newJumpMeter(reg, units), make([]unitPose, units), make([]float32, 3*bones), make([]float32, 3*bones)
}

// TestJumpMeterWrap checks the step of a unit showing one clip taken the
// shorter way round a looping clip whose phase wrapped (meterRun.oneClip's
// 1 − d): units whose phases are set by hand, a few moving a little at each of
// two steps and then one jumping by a step that would look short only were it
// taken so wrongly (a one-shot's, or a loop's by more than a phase), and the
// meter finds the largest move the meter before finds, bit for bit, the
// jumping unit's.
func TestJumpMeterWrap(t *testing.T) {
	reg, _, err := simRegistry("", false)
	if err != nil {
		t.Fatal(err)
	}
	defer reg.Close()
	// The humanoid's run, a looping clip, and its death, a one-shot that ends
	// far from where it starts.
	var s *registry.Species
	for _, x := range reg.All() {
		if x.Name == "humanoid" {
			s = x
		}
	}
	if s == nil {
		t.Fatal("no humanoid among the built-in species")
	}
	loop, once := -1, -1
	for c, cl := range s.Clips {
		switch cl.Name {
		case "run":
			loop = c
		case "die_infantry":
			once = c
		}
	}
	if loop < 0 || once < 0 || !s.Clips[loop].Loops || s.Clips[once].Loops {
		t.Fatalf("the humanoid's run (clip %d) and die_infantry (clip %d): want a looping clip and a one-shot", loop, once)
	}
	for _, c := range []struct {
		name  string
		clip  int
		phase [3]float32 // the jumping unit's phases at the three steps
	}{
		{"one-shot from start to end", once, [3]float32{0, 0, 1 - 1e-4}},
		{"loop by a phase and a half", loop, [3]float32{0.25, 0.25, 1.75 - 1e-4}},
		{"loop wrapped", loop, [3]float32{0.9, 0.95, 0.3}},
	} {
		t.Run(c.name, func(t *testing.T) {
			// Every worker's units: a few walking a twentieth of a phase a step
			// (the largest move so far, for the limits), a wrapping one, then
			// the one that jumps.
			const n = 16
			b := crowd.NewBatch(n)
			m := newJumpMeter(reg, n)
			before, _ := newJumpMeterBefore(reg, n)
			jumper := n - 1
			for step := range 3 {
				for i := range n {
					b.Species[i], b.Clip[i] = s.ID, unit.ClipID(loop)
					b.Phase[i] = float32(i)/n + 0.05*float32(step)
					if i%4 == 1 {
						b.Phase[i] = [3]float32{0.97, 0.99, 0.005}[step] // wrapped, short
					}
				}
				b.Clip[jumper], b.Phase[jumper] = unit.ClipID(c.clip), c.phase[step]
				m.measure(b)
				before.measure(b)
			}
			got, want := m.max(), before.max()
			if math.Float64bits(got) != math.Float64bits(want) {
				t.Errorf("largest move %v, the meter before %v", got, want)
			}
			// The jumping unit's move is the largest: without it, less.
			b2 := crowd.NewBatch(n - 1)
			alone, _ := newJumpMeterBefore(reg, n-1)
			for step := range 3 {
				for i := range n - 1 {
					b2.Species[i], b2.Clip[i] = s.ID, unit.ClipID(loop)
					b2.Phase[i] = float32(i)/n + 0.05*float32(step)
					if i%4 == 1 {
						b2.Phase[i] = [3]float32{0.97, 0.99, 0.005}[step]
					}
				}
				alone.measure(b2)
			}
			t.Logf("largest move %.4f m, %.4f m without the jumping unit", got, alone.max())
			if !(want > alone.max()) {
				t.Errorf("the jumping unit's move is not the largest: %v, %v without it", want, alone.max())
			}
		})
	}
}
