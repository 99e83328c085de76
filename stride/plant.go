// Foot locking (docs/formats/gait.md §7): a hand-animated clip whose feet slide
// at any one speed is changed so that they do not. With the unit travelling at
// the clip's ground speed, each foot's contact (a run of samples in which it is
// in its low band and moves slower over the ground than the unit) is pinned at
// the place in the world where the foot stands at the contact's middle; the
// leg's two bending joints are turned (rig's TwoBoneIK) so that the foot lies
// there at every frame, its orientation kept as animated, and the pin is
// blended in before the contact and out after it so that nothing pops.

package stride

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/bonebake/bonebake/rig"
)

// Thresholds of foot locking.
const (
	// LegBone is the least length, as a fraction of H, of each of the two
	// bones a leg bends (the thigh and the shin, or the shin and the
	// metatarsus): a toe or a heel is shorter.
	LegBone = 0.1
	// PlantBlend is the longest a pin takes to blend in or out, as a fraction
	// of the clip (never more than half the swing between two contacts).
	PlantBlend = 0.1
	// ShortOf is the least miss, as a fraction of H, of a foot that cannot
	// reach its pin that Plan tells of (a leg eased short of its pin by a
	// centimetre or so, softReach's, is not worth a note).
	ShortOf = 0.01
	// SoftReach is the part of a leg's reach (its two bones' lengths) over
	// which a pin's distance from the hip is eased (softReach).
	SoftReach = 0.05
	// ReachShort is the most, as a fraction of H, a pinned foot may fall
	// short of its pin (softReach) in a contact: a contact whose ends ask more
	// of the leg is shortened to where it reaches (reach).
	ReachShort = 0.03
	// RootDrop is the most, as a fraction of H, the body is lowered for a leg
	// to reach its pin (Plan.lower): a crouch deeper than that changes the gait.
	RootDrop = 0.05
	// RootBlend is how long, as a fraction of the clip, the body takes to sink
	// to a drop and to rise from it (Plan.lower).
	RootBlend = 0.5
	// LiftRamp is how long, as a fraction of the clip, a foot whose contact
	// was shortened to its leg's reach takes to rise off the ground (lifts).
	LiftRamp = 0.025
)

// Point is a skinned vertex of a foot's sole: where the skeleton puts it is the
// sum of where each of its bones (Bone[i], Weight[i] > 0) puts Offset[i], the
// vertex in that bone's space, times its weight (mesh's linear blend
// skinning). A boot skinned to the foot and the shin rolls with both: followed
// by one bone, its contact patch would seem to stand while the mesh drawn
// slides (the three.js robot's Running: 5.1 % of its travel).
type Point struct {
	Bone   [4]int
	Weight [4]float64
	Offset [4]rig.Vec3
}

// At returns where the bones' model-space matrices global put p.
func (p *Point) At(global []rig.Mat4) rig.Vec3 {
	var at rig.Vec3
	for i := range p.Weight {
		if w := p.Weight[i]; w > 0 {
			// at.Add(global[b].TransformPoint(o).Scale(w)), term for term,
			// without copying the matrix (a sole of a thousand points is
			// skinned at every sample of a clip, several times a clip).
			a, o := &global[p.Bone[i]], &p.Offset[i]
			at[0] += (a[0]*o[0] + a[1]*o[1] + a[2]*o[2] + a[3]) * w
			at[1] += (a[4]*o[0] + a[5]*o[1] + a[6]*o[2] + a[7]) * w
			at[2] += (a[8]*o[0] + a[9]*o[1] + a[10]*o[2] + a[11]) * w
		}
	}
	return at
}

// Plan is a clip's feet locked to the ground: the offsets each foot is moved by
// and the legs that move them. Sampler plays a motion with it.
type Plan struct {
	r      *Rig
	sk     *rig.Skeleton
	height float64
	legs   []leg
	all    []leg // every foot's, in r.Feet's order (solesAt)
	// pelvis is the legs' nearest common ancestor, lowered by drop at each
	// sample (0..n) where a pinned foot lies beyond its leg's reach (lower);
	// -1: none.
	pelvis int
	drop   []float64
	start  float64
	dt     float64
	n      int
	loops  bool
	// travel is the root's travel per second of clip; the unit moves along
	// −u at Speed (with travel, the ground's motion in the model's space).
	travel, u rig.Vec3
	// Speed is the ground speed the feet are locked at, per second of the
	// clip's own time (MeasureAt measures the planted clip at it).
	Speed float64
	// Locked counts the contacts pinned, all feet; Notes say which feet were
	// left as animated (no leg to bend) and which cannot reach their pin.
	Locked int
	Notes  []string
	posed  *Samples
}

// Posed returns the planted clip posed for measuring: what Rig.Samples gives
// of p.Sampler(s) (s the motion Plan was given, from its start for its
// duration), posed once by Plan itself.
func (p *Plan) Posed() *Samples { return p.posed }

// Plan pins the feet of the motion s (sampled from start for dur seconds, as
// Measure samples it) while the unit travels at the clip's ground speed: the
// root's travel for a root-motion clip (the pin stands still in model space),
// else speed (per second of the clip's own time; 0: the planted feet's speed
// res.FeetSpeed) along the direction the planted feet move back. It returns nil
// when the clip has no speed, poses another body than the rest pose's or
// stands off the mesh (res measured nothing: Resized, Rig.OffMesh), or no
// foot has a contact to pin.
func (r *Rig) Plan(s Sampler, start, dur float64, loops bool, res Result, speed float64) *Plan {
	if !(dur > 0) || len(r.Feet) == 0 || res.Status == StatusNoTravel || res.Method == "" {
		return nil
	}
	p := &Plan{r: r, sk: r.Skeleton, height: r.Height, loops: loops}
	var legs []leg
	for _, f := range r.Feet {
		lg, why := r.leg(f)
		if why != "" {
			p.Notes = append(p.Notes, why)
		}
		legs = append(legs, lg)
	}
	n := samples(dur)
	dt := dur / float64(n)
	p.start, p.dt, p.n = start, dt, n
	sc := scratchPool.Get().(*scratch)
	defer scratchPool.Put(sc)
	var joints []int // the legs' ends and hips, tracked too
	for _, lg := range legs {
		if lg.upper >= 0 && !lg.shin {
			joints = append(joints, lg.end, lg.lower, lg.upper)
		}
	}
	pos, track := r.track(sc, s, start, dt, n, joints)
	travel := horiz(pos[n][0].Sub(pos[0][0])).Scale(1 / dur)
	vel, low, wide, sum := r.footMotion(sc, pos, dt, loops, travel)
	// The unit moves along −u at v; a foot still in the world moves along u at
	// v in the frame moving with the root.
	var u rig.Vec3
	v := speed
	switch {
	case res.Method == MethodRootMotion:
		// The root carries the unit: the world is the model's space.
		v = travel.Len()
		u = travel.Scale(-1 / v)
	case sum.Len() > 0:
		u = sum.Normalize()
		if !(v > 0) {
			v = res.FeetSpeed
		}
	}
	if !(v > 0) || u == (rig.Vec3{}) {
		return nil
	}
	p.Speed, p.u, p.travel, p.all = v, u, travel, legs
	world := func(K, j int) rig.Vec3 { // tracked bone j in the world at unwrapped sample K ≥ 0
		k, pass := K%n, K/n
		w := pos[k][j].Sub(travel.Scale(float64(k) * dt))
		w = w.Add(pos[n][j].Sub(travel.Scale(float64(n) * dt)).Sub(pos[0][j]).Scale(float64(pass)))
		return horiz(w.Sub(u.Scale(v * float64(K) * dt)))
	}
	soles := r.solesAt(s, start, dt, n, legs)
	var pins []func(q, e int) // each planted leg's (p.legs)
	var feet []int            // and its foot's index in r.Feet
	for i, lg := range legs {
		if lg.end < 0 {
			continue
		}
		// The foot is on the ground while it is low (in the wider band) and
		// moves slower over the ground than the unit (a toe scuffing forward
		// in mid-swing is not).
		stand := make([]bool, n)
		for k := range n {
			stand[k] = wide[i][k] && vel[i][k].Sub(u.Scale(v)).Len() < v
		}
		// With a sole, the foot is on the ground while the sole is too (its
		// toe may touch down after the joint has risen), and what stands
		// still is the sole's contact patch.
		var step []rig.Vec3 // the patch's move over the ground from sample k to k+1
		if i < len(r.Soles) && len(r.Soles[i]) > 0 {
			var on []bool
			on, step = r.soleContact(soles[i], dt, n, travel.Add(u.Scale(v)), v)
			for k := range n {
				stand[k] = stand[k] || on[k]
			}
		}
		// A foot as low in its swing as in its stance (a compass gait's
		// straight legs) cannot be told on the ground by its height, nor
		// by its speed where the animation slides it: its contacts are
		// the runs in which it moves back under the body that reach its
		// wide band.
		if back := backUnder(pos, 1+i, u, dt, loops); swingsLow(low[i], back, v, loops) {
			stand = alongBack(wide[i], back, loops)
		}

		runs := contacts(stand, loops)
		if len(runs) == 0 {
			continue
		}
		lg.off = make([]rig.Vec3, n+1)
		// The foot stands still where it is at the contact's middle (with a
		// sole, where its contact patch is: the offset takes back each of the
		// patch's moves in the world).
		pin := func(q, e int) { // samples q..e-1, unwrapped (e may pass n)
			if step != nil {
				for K := q; K < e; K++ {
					lg.off[K%n] = rig.Vec3{}
				}
				hold(lg.off, step, q, e)
				return
			}
			at := world((q+e-1)/2, 1+i)
			for K := q; K < e; K++ {
				lg.off[K%n] = at.Sub(world(K, 1+i))
			}
		}
		for _, run := range runs {
			pin(run[0], run[1])
		}
		lg.runs = runs
		p.legs = append(p.legs, lg)
		pins = append(pins, pin)
		feet = append(feet, i)
	}
	if len(p.legs) == 0 {
		return nil
	}
	p.lower(pos, track)
	for j := range p.legs {
		lg := &p.legs[j]
		whole := slices.Clone(lg.runs)
		if lg.upper >= 0 && !lg.shin {
			for c, run := range lg.runs {
				lg.runs[c] = lg.reach(pos, track, p.drop, run, ReachShort*r.Height, pins[j])
			}
		}
		lg.lift = r.lifts(pos, 1+feet[j], soles[feet[j]], whole, lg.runs, loops)
		fill(lg.off, lg.runs, loops)
		p.Locked += len(lg.runs)
		lg.ground = make([]bool, n+1)
		for _, run := range lg.runs {
			for K := run[0]; K < run[1]; K++ {
				lg.ground[K%n] = true
			}
		}
		lg.ground[n] = loops && lg.ground[0]
	}
	p.bends(s)
	// The patch was found in the clip as authored; planted, the bones it
	// follows turn otherwise (a shin bent to a moved foot, and a boot skinned
	// to it): what still moves of it in a contact is taken back.
	// A touch too brief to pin as authored may last long enough planted (the
	// pins on either side move the foot; the Fox's Run as Blender samples it,
	// 1.125 s of its 1.158: a front paw's second touch, 3.7 % of the clip,
	// sliding 87 %): the foot is raised over it, as over a shortened
	// contact's ends, so that it steps.
	at := r.solesAt(p.Sampler(s), start, dt, n, legs)
	for j := range p.legs {
		lg := &p.legs[j]
		i := slices.Index(r.Feet, lg.foot)
		if at[i] == nil {
			continue
		}
		on, step := r.soleContact(at[i], dt, n, travel.Add(u.Scale(v)), v)
		for _, run := range lg.runs {
			hold(lg.off, step, run[0], run[1])
		}
		fill(lg.off, lg.runs, loops)
		var brief, mids [][2]int // the touches not pinned, each shortened to its middle
		for _, run := range contacts(on, loops) {
			if slices.ContainsFunc(lg.runs, func(c [2]int) bool { return overlap(c, run, n) }) {
				continue
			}
			mid := (run[0] + run[1]) / 2
			brief, mids = append(brief, run), append(mids, [2]int{mid, mid})
		}
		if len(brief) > 0 {
			for k, h := range r.lifts(pos, 1+i, soles[i], brief, mids, loops) {
				lg.lift[k] = math.Max(lg.lift[k], h)
			}
		}
	}
	// Where a leg cannot reach its pin, the foot lies short of it: say how
	// often (the frames of the plan's own samples), in the pass that poses the
	// planted clip for measuring it (Posed).
	pl := p.Sampler(s).(*planted)
	p.posed = &Samples{r: r, dur: dur, sc: new(scratch)}
	p.posed.pos, p.posed.track = r.track(p.posed.sc, pl, start, dt, n, r.chain())
	// On the ground and in the swing apart: a foot short of its pin while
	// pinned is seen off the ground; one short in its swing, of an offset
	// blended across it, misses nothing.
	var short []string
	for j, lg := range p.legs {
		var parts []string
		for g, where := range [2]string{"on the ground", "in its swing"} {
			if c := pl.short[j][g]; c > 0 {
				parts = append(parts, fmt.Sprintf("%s by up to %.2g·H in %.0f%% of the clip", where, pl.miss[j][g]/r.Height, 100*float64(c)/float64(n+1)))
			}
		}
		if len(parts) > 0 {
			short = append(short, r.Skeleton.Names[lg.foot]+" "+strings.Join(parts, " and "))
		}
	}
	if len(short) > 0 {
		p.Notes = append(p.Notes, "the leg is straightened toward a foot it cannot reach, which falls short there, in "+r.hIs()+": "+strings.Join(short, ", "))
	}
	return p
}

// overlap says whether the contacts a and b (unwrapped sample runs of a clip
// of n samples) share a sample.
func overlap(a, b [2]int, n int) bool {
	for _, d := range [3]int{-n, 0, n} {
		if a[0] < b[1]+d && b[0]+d < a[1] {
			return true
		}
	}
	return false
}
