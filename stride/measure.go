// Measuring a clip: its motion posed once (track, Samples), the root's travel
// and the planted feet's speed read from it (measured), and the working memory
// reused from clip to clip (scratch).

package stride

import (
	"fmt"
	"math"
	"slices"
	"sync"

	"github.com/bonebake/bonebake/rig"
)

// Result is a clip's measurement.
type Result struct {
	Status Status
	// Method is how the speed was (or would have been) read; "" with no
	// travel, or where nothing is measured: the clip poses another body than
	// the rest pose's (Resized), or the joints do not stand in the mesh
	// (Rig.OffMesh).
	Method Method
	// Speed is the ground speed in the model's units per second when the clip
	// plays one pass per Cycle seconds; 0 unless Status is StatusMeasured.
	Speed float64
	// Stride is the distance one pass covers (Speed·Cycle).
	Stride float64
	Cycle  float64
	// Confidence in [0, 1]: how steady the travel was (1: perfectly): 1 −
	// slip/SlipPerConfidence for planted feet. At Trusted or above no stance
	// slips over 5 %; a planted-feet speed below it says why in Reason.
	Confidence float64
	// Reason explains a status other than StatusMeasured, and notes anything a
	// measured speed leaves out; "" when there is nothing to say.
	Reason string
	// Travel is the root's mean horizontal velocity over the clip, per second of
	// the clip's own time (zero for an in-place clip): what RemoveTravel removes.
	Travel rig.Vec3
	// Carrier is the topmost bone whose own translation carries the root's travel
	// (-1 when the root does not travel): the bone RemoveTravel edits.
	Carrier int
	// FeetSpeed is the planted feet's speed relative to the travelling root (per
	// second of the clip's time, before Cycle), 0 when the feet gave none; for a
	// root-motion clip it is a cross-check.
	FeetSpeed float64
	// Direction is the horizontal unit vector, in model space, along which a
	// measured clip travels (Status StatusMeasured): the root's travel for
	// root motion, the opposite of the way the planted feet move back for
	// feet; zero for any other status. A runtime's heading 0 takes it to be
	// +z (docs/runtime.md §10); a model facing another way measures that way.
	Direction rig.Vec3
	// Seam is how far the clip's last pose ends from its first, as a fraction
	// of the body's height: the farthest a foot ends from where it began,
	// against the root. A cycle ends as it began (0); a take ends where it
	// was cut. SeamTime is how long that foot, at its speed across the seam
	// (against the root, the mean of the first and last sample steps'), takes
	// to cover the gap, in seconds of the clip's own time: a cycle an
	// exporter ends a frame short (Blender's FBX) is a frame's motion away, a
	// frame's time, which no Seam in H tells from a cut take's (a run's frame
	// is 0.1·H and more). Above Reopened and TakeGap, a clip that loops and
	// measures low may be a take (docs/formats/gait.md §2, A take). Nothing
	// measured reads them.
	Seam, SeamTime float64
}

// Reopened is the Seam, and TakeGap the SeamTime (seconds: three frames at
// 30 fps; Blender's FBX runs a frame short measure 0.023 to 0.038 s), above
// which a looping clip does not end as it began.
const (
	Reopened = 0.05
	TakeGap  = 0.1
)

// samples is the number of poses a clip of d seconds is measured at.
func samples(d float64) int {
	return int(min(8192, max(96, math.Ceil(d*240))))
}

// Measure measures one clip: the motion sampled from start for dur seconds of its
// own time; it plays one pass per cycle seconds (0: dur). loops says the clip
// loops, so its pose at the end is its pose at the start (velocities wrap).
func (r *Rig) Measure(s Sampler, start, dur, cycle float64, loops bool) Result {
	return r.measure(s, start, dur, cycle, loops, 0)
}

// MeasureAt is Measure with the planted feet judged at speed (per second of
// the clip's own time) instead of the speed at which they slide least: a clip
// whose feet Plan locked at that speed (Plan.Speed) has it, and the
// confidence says how well the feet stand at it. A foot's joint may roll
// while its sole stands (a boot rocking onto its toe), which would bias the
// speed measured from the joints.
func (r *Rig) MeasureAt(s Sampler, start, dur, cycle float64, loops bool, speed float64) Result {
	return r.measure(s, start, dur, cycle, loops, speed)
}

func (r *Rig) measure(s Sampler, start, dur, cycle float64, loops bool, at float64) Result {
	sc := scratchPool.Get().(*scratch)
	defer scratchPool.Put(sc)
	var pos [][]rig.Vec3
	var track []int
	if n := samples(dur); dur > 0 && dur >= MinDuration { // else measured says why not
		pos, track = r.track(sc, s, start, dur/float64(n), n, r.chain())
	}
	return r.measured(sc, pos, track, dur, cycle, loops, at, nil)
}

// feetMemo is a clip's feet read (readFeet) and whether it was read looping.
type feetMemo struct {
	fm    *feetMotion
	loops bool
}

// Samples are a clip's bones that measuring reads (its root, the root's
// ancestors and its feet), posed once at the times Measure samples them: a
// clip measured at several speeds (a planted clip's speed is bisected, a
// dozen measurements) is posed once, not once a measurement.
type Samples struct {
	r     *Rig
	dur   float64
	pos   [][]rig.Vec3
	track []int
	// sc holds pos and the feet read from it (memo): it outlives a
	// measurement, and makes Samples a thing for one goroutine.
	sc   *scratch
	memo feetMemo
}

// Samples poses the motion s from start for dur seconds of its own time, as
// Measure does, for measuring it with Samples.Measure and Samples.MeasureAt.
func (r *Rig) Samples(s Sampler, start, dur float64) *Samples {
	t := &Samples{r: r, dur: dur, sc: new(scratch)}
	if n := samples(dur); dur > 0 && dur >= MinDuration {
		t.pos, t.track = r.track(t.sc, s, start, dur/float64(n), n, r.chain())
	}
	return t
}

// Measure is Rig.Measure of the motion t was posed from: the same Result.
func (t *Samples) Measure(cycle float64, loops bool) Result { return t.MeasureAt(cycle, loops, 0) }

// MeasureAt is Rig.MeasureAt of the motion t was posed from: the same Result.
// The feet's motion and their speeds of their own, which no speed judged
// changes, are read once.
func (t *Samples) MeasureAt(cycle float64, loops bool, speed float64) Result {
	return t.r.measured(t.sc, t.pos, t.track, t.dur, cycle, loops, speed, &t.memo)
}

// measured is measure's judgement of the clip tracked at pos (track's, with
// the root's ancestors as its chain; none when it lasts too little to pose),
// its feet read through memo (measureFeet).
func (r *Rig) measured(sc *scratch, pos [][]rig.Vec3, track []int, dur, cycle float64, loops bool, at float64, memo *feetMemo) Result {
	if !(cycle > 0) {
		cycle = dur
	}
	res := Result{Cycle: cycle, Carrier: -1, Status: StatusNoTravel}
	if !(dur > 0) {
		res.Reason = "the clip has no duration"
		return res
	}
	if dur < MinDuration {
		res.Reason = fmt.Sprintf("the clip lasts %.3g s, too short for a stride: a pose, not locomotion", dur)
		return res
	}
	if r.OffMesh != "" {
		res.Status, res.Reason = StatusUntrusted, r.OffMesh // no Method: nothing was measured
		return res
	}
	if why := r.resized(pos); why != "" {
		res.Status, res.Reason = StatusUntrusted, why // no Method: nothing was measured
		return res
	}
	n := len(pos) - 1
	dt := dur / float64(n)
	chain := r.chain()
	H := r.Height
	minSpeed := MinSpeed * H
	for i := range r.Feet {
		at := func(k int) rig.Vec3 { return pos[k][1+i].Sub(pos[k][0]) } // against the root
		if gap := at(n).Sub(at(0)).Len() / H; gap > res.Seam {
			speed := (at(n).Sub(at(n-1)).Len() + at(1).Sub(at(0)).Len()) / (2 * dt * H)
			res.Seam, res.SeamTime = gap, gap/speed // +Inf where the foot stands still against the root
		}
	}

	// Root motion: the root's displacement over the clip.
	d := horiz(pos[n][0].Sub(pos[0][0]))
	travel := d.Scale(1 / dur)
	rootTravels := travel.Len() >= minSpeed
	if rootTravels {
		res.Travel = travel
		res.Carrier = r.Root
		for _, b := range chain { // topmost first
			j := slices.Index(track, b)
			if db := horiz(pos[n][j].Sub(pos[0][j])); db.Sub(d).Len() <= 0.02*d.Len() {
				res.Carrier = b
				break
			}
		}
	}

	// Feet: planted samples' horizontal velocity in the frame moving with the
	// root's mean velocity.
	feet := r.measureFeet(sc, pos, dt, loops, travel, at, memo)
	res.FeetSpeed = feet.speed

	if rootTravels {
		res.Method = MethodRootMotion
		// Steadiness: the root's largest departure from a straight line at
		// constant speed, against the distance travelled.
		dev := 0.0
		for k := 0; k <= n; k++ {
			p := horiz(pos[k][0].Sub(pos[0][0])).Sub(travel.Scale(float64(k) * dt))
			dev = math.Max(dev, p.Len())
		}
		conf := rig.Clamp01(1 - 2*dev/d.Len())
		why := fmt.Sprintf("the root strays up to %.0f%% of its travel from a steady line", 100*dev/d.Len())
		if feet.ok && feet.low >= MinPlanted {
			// The planted feet should stand still in the world: relative to the
			// root they move back at the root's speed.
			if dis := math.Abs(feet.speed-travel.Len()) / travel.Len(); 1-2*dis < conf {
				conf = rig.Clamp01(1 - 2*dis)
				u := r.UnitWord()
				why = fmt.Sprintf("the planted feet slide %.0f%% off the root's speed: on the ground they move back at %.4g %s per s of clip relative to the root, which travels %.4g %s per s, so in the world they slide %.4g %s per s", 100*dis, feet.speed, u, travel.Len(), u, math.Abs(feet.speed-travel.Len()), u)
			}
			if feet.speed > 0 && feet.conf < conf {
				conf, why = feet.conf, feet.why
			}
		}
		res.Confidence = conf
		if conf < Trusted {
			res.Status, res.Reason = StatusUntrusted, why
			if dev > Unsteady*d.Len() {
				res.Status, res.Reason = StatusNoTravel, "the root moves but not steadily ("+why+"): not locomotion"
				res.Method, res.Travel, res.Carrier = "", rig.Vec3{}, -1
			}
			return res
		}
		res.Status = StatusMeasured
		res.Stride = d.Len()
		res.Speed = res.Stride / cycle
		res.Direction = d.Normalize()
		return res
	}
	switch {
	case len(r.Feet) == 0:
		res.Reason = "the root does not travel, and no feet were found to measure (name them with the feet setting)"
		return res
	case feet.speed == 0:
		res.Reason = "the planted feet stand where they are: no travel"
		return res
	case feet.speed < minSpeed:
		res.Reason = fmt.Sprintf("the planted feet move at %.3g %s per s of clip, below %v·H = %.3g: no steady travel", feet.speed, r.UnitWord(), MinSpeed, minSpeed)
		return res
	case feet.planted < MinPlanted:
		res.Status, res.Method = StatusUntrusted, MethodFeet
		res.Reason = fmt.Sprintf("the feet stand still in the world in only %.0f%% of the clip (at %.4g %s per s of clip, the speed at which they stand longest)", 100*feet.planted, feet.speed, r.UnitWord())
		if feet.planted == 0 {
			res.Reason = "the feet never plant: " + feet.why
		}
		return res
	}
	res.Method, res.Confidence = MethodFeet, feet.conf
	if feet.conf <= 0 || feet.conf < Trusted && feet.speed*dur < MinStride*H {
		// The feet slide a quarter of the way or more at every speed, or
		// slide over 5 % while covering too little ground for a stride (a
		// rider's feet shifting in the stirrups): no speed is better than
		// none (docs/formats/gait.md §2).
		res.Status, res.Reason = StatusUntrusted, feet.why
		return res
	}
	// The speed at which the feet slide least, even when they slide more
	// than Trusted allows: a game moving the unit at it slides the feet as
	// little as the clip permits, and the confidence (with the reason, which
	// names the foot that slides most) says how far.
	res.Status = StatusMeasured
	if feet.conf < Trusted {
		res.Reason = feet.why
	}
	res.Stride = feet.speed * dur
	res.Speed = res.Stride / cycle
	res.Direction = feet.dir
	return res
}

func horiz(v rig.Vec3) rig.Vec3 { return rig.Vec3{v[0], 0, v[2]} }

// scratch is a measurement's working memory, reused from clip to clip and
// from foot to foot and speed to speed within one: on a VM that reports its
// free memory to the host every page a process touches for the first time
// costs about 20 µs of CPU (BENCHMARKS.md, issue 46), and a clip measured in
// memory of its own touched about 1 MB.
type scratch struct {
	pos    []rig.Vec3   // track's samples, sample by sample
	rows   [][]rig.Vec3 // pos cut per sample
	global []rig.Mat4
	vel    []rig.Vec3 // footMotion's, foot by foot
	velRow [][]rig.Vec3
	flags  []bool // footMotion's low, then wide
	flagRw [][]bool
	stand  []bool // stances' and slipAt's
	standW []bool // slipAt's, in the wide band
	cover  []bool // slipAt's
	st     []stance
	stW    []stance // slipAt's, in the wide band
	speeds []float64
}

var scratchPool = sync.Pool{New: func() any { return new(scratch) }}

// grow returns s with length n, reallocated only when it is too short; the
// elements kept are stale, so every caller writes them all.
func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

// track samples s at n+1 times dt apart from start: pos[k][i] is the
// model-space position of bone track[i] at sample k, where track is the root,
// the feet, then the bones of chain that are neither. pos lies in sc.
func (r *Rig) track(sc *scratch, s Sampler, start, dt float64, n int, chain []int) (pos [][]rig.Vec3, track []int) {
	sk := r.Skeleton
	local := sk.RestPose()
	sc.global = grow(sc.global, sk.Len())
	global := sc.global
	track = make([]int, 0, 1+len(r.Feet)+len(chain))
	track = append(append(track, r.Root), r.Feet...)
	for _, b := range chain {
		if !slices.Contains(track, b) {
			track = append(track, b)
		}
	}
	m := len(track)
	sc.pos = grow(sc.pos, (n+1)*m)
	sc.rows = grow(sc.rows, n+1)
	pos = sc.rows
	placed := sk.Chain(track) // the tracked bones and their ancestors only
	for k := 0; k <= n; k++ {
		s.Sample(start+float64(k)*dt, local)
		sk.ModelSpaceOf(local, global, placed)
		pos[k] = sc.pos[k*m : (k+1)*m : (k+1)*m]
		for i, b := range track {
			pos[k][i] = global[b].Translation()
		}
	}
	return pos, track
}

// chain returns the bones from the root's topmost ancestor down to the root.
func (r *Rig) chain() []int {
	var c []int
	for b := r.Root; b >= 0; b = r.Skeleton.Parents[b] {
		c = append(c, b)
	}
	slices.Reverse(c)
	return c
}
