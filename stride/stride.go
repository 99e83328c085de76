// Package stride measures a clip's ground speed from its bones' motion: the speed
// at which a unit must travel while the clip plays for its feet not to slide
// (docs/formats/gait.md §2 has the rules and thresholds).
//
// Two kinds of clip are measured. A clip with root motion moves its root: the
// ground speed is the root's horizontal displacement over the clip divided by the
// clip's duration. An in-place clip keeps its root put and slides each planted
// foot backwards: the ground speed is the planted feet's horizontal speed relative
// to the root. Space is the model's: y up, metres (a glTF scene's units).
//
// A clip with no steady travel (an idle, an attack, a death) gets no speed
// (StatusNoTravel), and a measurement whose samples disagree says so
// (StatusUntrusted) instead of guessing.
package stride

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/bonebake/bonebake/rig"
)

// Sampler poses a skeleton at a time (bake.Sampler and anim's samplers are ones):
// it writes the local transform of every bone it animates into pose.
type Sampler interface {
	Sample(t float64, pose []rig.Transform)
}

// Status says what a measurement found.
type Status string

const (
	// StatusMeasured: the clip travels steadily; Result.Speed is its ground
	// speed, and Result.Confidence says how far the feet slide at it.
	StatusMeasured Status = "measured"
	// StatusNoTravel: neither the root nor the planted feet travel steadily (an
	// idle, an attack, a death): the clip plays in place and has no ground speed.
	StatusNoTravel Status = "no_travel"
	// StatusUntrusted: the clip seems to travel, but no speed fits it (its
	// feet slide a quarter of the way at any speed, never stand, or
	// contradict its root motion); Result.Reason says why. No speed is given.
	StatusUntrusted Status = "untrusted"
)

// Method says where a speed was read.
type Method string

const (
	MethodRootMotion Method = "root_motion" // the root's displacement over the clip
	MethodFeet       Method = "feet"        // the planted feet's speed relative to the root
)

// Thresholds of the measurement (docs/formats/gait.md §2). Lengths are fractions
// of the body's height H (the rest pose's extent along y), so that a model in
// centimetres is measured like one in metres.
const (
	// A foot is low while its height is within PlantedHeight of its own
	// vertical range (and at least PlantedHeightMin·H) above its lowest point.
	PlantedHeight    = 0.10
	PlantedHeightMin = 0.005
	// MinPlanted is the least fraction of a clip in which some foot must stand
	// for a feet measurement. A gallop's foot stands for a fifth of the cycle,
	// and a gallop baked at 12 frames per cycle holds a foot fully planted
	// between two frames only: 8 % of the clip.
	MinPlanted = 0.05
	// StanceSlack: a low foot stands while its speed in the world is under
	// StanceSlack times the unit's speed (a fifth: a stride's slip of 20 % at
	// most before the refinement cancels it).
	StanceSlack = 0.2
	// MinStance is the shortest stance, as a fraction of the clip: shorter runs
	// of standing samples are a foot brushing the ground.
	MinStance = 0.03
	// SlipPerConfidence is the slip (a foot's drift in the world while it
	// stands, against the distance the unit travels meanwhile) that costs a
	// confidence of 1: a confidence of Trusted (0.8) means the worst stance
	// slips 5 %.
	SlipPerConfidence = 0.25
	// Unsteady is the largest departure of the root from a straight line at
	// constant speed, as a fraction of its travel, that still counts as
	// locomotion (a fall or a lunge departs further).
	Unsteady = 0.2
	// MinSpeed is the slowest travel counted as travel: MinSpeed·H per second of
	// the clip (9 cm/s for a 1.8 m body).
	MinSpeed = 0.05
	// MinDuration is the shortest clip, in seconds of its own time, that can
	// hold a stride (a mouse's gallop takes a tenth of a second): a shorter
	// one is a pose held (Mixamo's and three.js's poses last one frame, 1/30 s).
	MinDuration = 0.1
	// MinStride is the least ground, as a fraction of H, one pass of a clip
	// must cover for its feet to get a speed below Trusted: a walk covers
	// about a body height per cycle; a rider's feet shifting in the stirrups
	// (the built-in rider's reining, 0.17·H) cover much less.
	MinStride = 0.3
	// Trusted is the least confidence at which a measured speed keeps every
	// stance within 5 % of the distance travelled. A planted-feet speed below
	// it is still given (the speed at which the feet slide least) with its
	// Reason naming the foot that slides; a root-motion clip below it, or
	// feet that slide SlipPerConfidence or more at every speed, get none.
	Trusted = 0.8
	// FootZone is the height, as a fraction of H above the lowest rest joint, a
	// foot found by name or hierarchy must lie within at rest.
	FootZone = 0.25
	// SameLevel: a leaf found by hierarchy beside feet found by name (a
	// quadruped's front feet called hands) must stand at rest no higher than
	// SameLevel·H above the highest of them.
	SameLevel = 0.1
)

// Rig is a skeleton prepared for measuring: its feet and root found.
type Rig struct {
	Skeleton *rig.Skeleton
	Feet     []int // skeleton bones of the feet, in skeleton order
	// FeetFrom says how the feet were found: "given" (Options.Feet), "name" or
	// "hierarchy"; "" when none were.
	FeetFrom string
	Root     int     // the bone whose travel is root motion
	Height   float64 // H: the rest pose's extent along y
	// Soles, when set, are each foot's sole: points of the mesh that touch
	// the ground, which Plan pins instead of the foot's joint.
	Soles [][]Point
	// Unit names the model's lengths in Result.Reason: "m" when they are
	// known to be metres; "" says "units".
	Unit string
}

// unit is the word Reason texts give lengths in.
func (r *Rig) unit() string {
	if r.Unit == "" {
		return "units"
	}
	return r.Unit
}

// Options are what a user may say about a rig.
type Options struct {
	Feet     []string // foot bones by name; empty: found by name, then hierarchy
	RootBone string   // the bone whose travel is root motion; empty: see NewRig
}

// footWords are the words a foot bone's name holds, in any case.
var footWords = []string{"foot", "feet", "toe", "hoof", "paw", "ankle", "heel"}

// footName says whether name holds a foot word, case folded as strings.EqualFold
// folds (the KELVIN SIGN is a k): what the regular expression
// (?i)foot|feet|toe|hoof|paw|ankle|heel matches, without compiling it and
// running its backtracker at start-up (a tenth of a millisecond of a bake).
func footName(name string) bool {
	for i := range name { // every rune boundary
		for _, w := range footWords {
			end := i
			for range w { // as many runes as w has (all ASCII)
				if end == len(name) {
					end = -1
					break
				}
				_, n := utf8.DecodeRuneInString(name[end:])
				end += n
			}
			if end >= 0 && strings.EqualFold(name[i:end], w) {
				return true
			}
		}
	}
	return false
}

// NewRig finds a skeleton's feet and root among bones (skeleton indices: a skin's
// joints; nil means every bone).
//
// Feet: the bones o.Feet names; else the bones whose name says foot, feet, toe,
// hoof, paw, ankle or heel (the most distal of each chain of such bones) and that
// lie in the lowest FootZone of the body at rest; else, by hierarchy, the leaf
// bones lying there. Root: the bone o.RootBone names; else the lowest common
// ancestor of the feet (the pelvis of a biped: it carries root motion whether the
// rig puts it on a root bone or on the hips); else the topmost of bones.
func NewRig(sk *rig.Skeleton, bones []int, o Options) (*Rig, error) {
	if bones == nil {
		bones = make([]int, sk.Len())
		for i := range bones {
			bones[i] = i
		}
	}
	in := make([]bool, sk.Len())
	for _, b := range bones {
		in[b] = true
	}
	rest := sk.RestModelSpace()
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, b := range bones {
		y := rest[b][7]
		lo, hi = math.Min(lo, y), math.Max(hi, y)
	}
	r := &Rig{Skeleton: sk, Height: hi - lo}
	if !(r.Height > 0) {
		r.Height = 1
	}
	low := func(b int) bool { return rest[b][7] <= lo+FootZone*r.Height }
	// hasDesc[b]: b has a descendant among bones that satisfies pick.
	below := func(pick func(int) bool) []bool {
		has := make([]bool, sk.Len())
		for i := sk.Len() - 1; i >= 0; i-- {
			if p := sk.Parents[i]; p >= 0 && in[i] && (pick(i) || has[i]) {
				has[p] = true
			}
		}
		return has
	}
	switch {
	case len(o.Feet) > 0:
		for _, n := range o.Feet {
			b := sk.Index(n)
			if b < 0 || !in[b] {
				return nil, fmt.Errorf("foot %q: no such bone (bones: %s)", n, boneList(sk, bones))
			}
			if !slices.Contains(r.Feet, b) {
				r.Feet = append(r.Feet, b)
			}
		}
		slices.Sort(r.Feet)
		r.FeetFrom = "given"
	default:
		named := func(b int) bool { return in[b] && footName(sk.Names[b]) }
		desc := below(named)
		for _, b := range bones {
			if named(b) && !desc[b] && low(b) {
				r.Feet = append(r.Feet, b)
			}
		}
		r.FeetFrom = "name"
		if len(r.Feet) > 0 {
			// A quadruped's front feet may go by another name (the Fox's
			// are hands): a leaf on a limb that holds no named foot, standing
			// as low at rest as the named feet do, is a foot too.
			top := math.Inf(-1)
			for _, f := range r.Feet {
				top = math.Max(top, rest[f][7])
			}
			all := below(func(int) bool { return true })
			for _, b := range bones {
				if all[b] || named(b) || desc[b] || !low(b) || rest[b][7] > top+SameLevel*r.Height {
					continue
				}
				limb := false // an ancestor named a foot: b is a toe's stub
				for p := sk.Parents[b]; p >= 0; p = sk.Parents[p] {
					limb = limb || named(p)
				}
				if !limb {
					r.Feet = append(r.Feet, b)
				}
			}
		}
		if len(r.Feet) == 0 {
			desc := below(func(int) bool { return true })
			for _, b := range bones {
				if !desc[b] && low(b) {
					r.Feet = append(r.Feet, b)
				}
			}
			r.FeetFrom = "hierarchy"
		}
		slices.Sort(r.Feet)
		if len(r.Feet) == 0 {
			r.FeetFrom = ""
		}
	}
	switch {
	case o.RootBone != "":
		r.Root = sk.Index(o.RootBone)
		if r.Root < 0 {
			return nil, fmt.Errorf("root bone %q: no such bone (bones: %s)", o.RootBone, boneList(sk, bones))
		}
	case len(r.Feet) >= 2:
		r.Root = r.Feet[0]
		for _, f := range r.Feet[1:] {
			r.Root = ancestor(sk, r.Root, f)
		}
	default:
		r.Root = slices.Min(bones)
		for r.Root >= 0 && sk.Parents[r.Root] >= 0 && in[sk.Parents[r.Root]] {
			r.Root = sk.Parents[r.Root]
		}
	}
	if r.Root < 0 {
		r.Root = 0
	}
	return r, nil
}

// ancestor returns the lowest common ancestor of a and b (a or b itself when one
// holds the other), or the first of them when they share none.
func ancestor(sk *rig.Skeleton, a, b int) int {
	seen := map[int]bool{}
	for x := a; x >= 0; x = sk.Parents[x] {
		seen[x] = true
	}
	for x := b; x >= 0; x = sk.Parents[x] {
		if seen[x] {
			return x
		}
	}
	return a
}

func boneList(sk *rig.Skeleton, bones []int) string {
	var names []string
	for i, b := range bones {
		if i == 12 {
			names = append(names, fmt.Sprintf("… %d more", len(bones)-i))
			break
		}
		names = append(names, fmt.Sprintf("%q", sk.Names[b]))
	}
	return strings.Join(names, ", ")
}

// FootNames returns the names of the rig's feet.
func (r *Rig) FootNames() []string {
	var n []string
	for _, f := range r.Feet {
		n = append(n, r.Skeleton.Names[f])
	}
	return n
}

// Result is a clip's measurement.
type Result struct {
	Status Status
	Method Method // how the speed was (or would have been) read; "" with no travel
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
}

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
	n := len(pos) - 1
	dt := dur / float64(n)
	chain := r.chain()
	H := r.Height
	minSpeed := MinSpeed * H

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
		conf := clamp01(1 - 2*dev/d.Len())
		why := fmt.Sprintf("the root strays up to %.0f%% of its travel from a steady line", 100*dev/d.Len())
		if feet.ok && feet.low >= MinPlanted {
			// The planted feet should stand still in the world: relative to the
			// root they move back at the root's speed.
			if dis := math.Abs(feet.speed-travel.Len()) / travel.Len(); 1-2*dis < conf {
				conf = clamp01(1 - 2*dis)
				why = fmt.Sprintf("the planted feet slide %.0f%% off the root's speed: on the ground they move back at %.4g %s per s of clip relative to the root, which travels %.4g, so in the world they slide %.4g %[3]s per s", 100*dis, feet.speed, r.unit(), travel.Len(), math.Abs(feet.speed-travel.Len()))
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
		res.Reason = fmt.Sprintf("the planted feet move at %.3g %s per s of clip, below %v·H = %.3g: no steady travel", feet.speed, r.unit(), MinSpeed, minSpeed)
		return res
	case feet.planted < MinPlanted:
		res.Status, res.Method = StatusUntrusted, MethodFeet
		res.Reason = fmt.Sprintf("the feet stand still in the world in only %.0f%% of the clip (at %.4g %s per s of clip, the speed at which they stand longest)", 100*feet.planted, feet.speed, r.unit())
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

type feetResult struct {
	ok      bool
	speed   float64  // the speed at which the planted feet stand still
	dir     rig.Vec3 // the unit's travel: the way the planted feet move back, reversed
	planted float64  // fraction of the clip in which some foot stands
	low     float64  // fraction of the clip in which some foot is low
	conf    float64
	why     string
}

// measureFeet measures the planted feet: pos[k][1+i] is foot i at sample k, in
// the frame moving with the root's mean velocity (docs/formats/gait.md §2).
//
// A foot is low while its height is within PlantedHeight of its own vertical
// range (at least PlantedHeightMin·H) above its lowest point. The speed is the
// one at which the low feet stand still in the world longest: the densest
// backward speed of the low samples (a foot rolling from heel to toe, or
// touching down and lifting, moves faster or slower than the ground for a few
// samples only), refined to the stance phases it finds (StanceSlack). The
// confidence is read from those stances as a game would play them: the worst
// stance's drift in the world, against the distance travelled meanwhile, is
// what 1 − confidence counts in quarters (SlipPerConfidence).
//
// memo, when set, keeps the feet read (readFeet, in sc) from one call to the
// next on the same pos, dt, travel and scratch.
func (r *Rig) measureFeet(sc *scratch, pos [][]rig.Vec3, dt float64, loops bool, travel rig.Vec3, at float64, memo *feetMemo) feetResult {
	if memo == nil {
		return r.judgeFeet(sc, r.readFeet(sc, pos, dt, loops, travel), dt, loops, at)
	}
	if memo.fm == nil || memo.loops != loops {
		*memo = feetMemo{r.readFeet(sc, pos, dt, loops, travel), loops}
	}
	return r.judgeFeet(sc, memo.fm, dt, loops, at)
}

// feetMotion is what measureFeet reads of the feet whatever speed it judges them
// at (Samples keeps it from one measurement to the next): their motion
// (footMotion's, in the scratch it was read into), the way they move back,
// the densest speed and each foot's own.
type feetMotion struct {
	f         feetResult // so far; done: the result, no speed to judge
	done      bool
	vel       [][]rig.Vec3
	low, wide [][]bool
	u         rig.Vec3
	v         float64
	own, long []float64
	lo, hi    float64
	total     float64
}

// readFeet is measureFeet up to the speeds it judges.
func (r *Rig) readFeet(sc *scratch, pos [][]rig.Vec3, dt float64, loops bool, travel rig.Vec3) *feetMotion {
	n := len(pos) - 1
	nf := len(r.Feet)
	fm := &feetMotion{done: true}
	f := &fm.f
	if nf == 0 || n < 2 {
		return fm
	}
	vel, low, wide, sum := r.footMotion(sc, pos, dt, loops, travel)
	fm.vel, fm.low, fm.wide = vel, low, wide
	for k := 0; k < n; k++ {
		for i := range r.Feet {
			if low[i][k] {
				f.low++
				break
			}
		}
	}
	f.low /= float64(n)
	f.ok = true
	if sum.Len() == 0 {
		return fm // the low feet do not move: no speed
	}
	u := sum.Normalize() // backwards: a planted foot moves this way, at the unit's speed
	f.dir = u.Scale(-1)
	all := make([]int, nf)
	for i := range all {
		all[i] = i
	}
	v, _ := r.standSpeed(sc, vel, low, u, all, dt, loops)
	if v == 0 {
		return fm
	}
	// Each foot alone: the speed it stands still at and how long it stands
	// (a foot that stands for less than MinStance does not bear the body).
	own := make([]float64, nf)
	long := make([]float64, nf)
	var lo, hi, weighed, total float64 = math.Inf(1), math.Inf(-1), 0, 0
	for i := range r.Feet {
		vi, sti := r.standSpeed(sc, vel, low, u, all[i:i+1], dt, loops)
		for _, s := range sti {
			long[i] += s.dur
		}
		if long[i] < MinStance*float64(n)*dt {
			long[i] = 0
			continue
		}
		own[i] = vi
		lo, hi = math.Min(lo, vi), math.Max(hi, vi)
		weighed, total = weighed+vi*long[i], total+long[i]
	}
	if total > 0 && (v < lo || v > hi) {
		// The densest speed of all the feet is none of theirs (samples of
		// different feet at different phases fell together): the feet's own
		// speeds, weighted by how long each stands, are the better guess.
		v = weighed / total
	}
	fm.done, fm.u, fm.v, fm.own, fm.long, fm.lo, fm.hi, fm.total = false, u, v, own, long, lo, hi, total
	return fm
}

// judgeFeet is measureFeet from the speeds it judges on: at > 0, that one.
func (r *Rig) judgeFeet(sc *scratch, fm *feetMotion, dt float64, loops bool, at float64) feetResult {
	f := fm.f
	if fm.done {
		return f
	}
	nf := len(r.Feet)
	all := make([]int, nf)
	for i := range all {
		all[i] = i
	}
	vel, low, wide, u, v, own, long, lo, hi, total := fm.vel, fm.low, fm.wide, fm.u, fm.v, fm.own, fm.long, fm.lo, fm.hi, fm.total
	// The speed given is the one that slides least: the feet's joint speed,
	// each foot's own, and speeds between them, each judged by slipAt.
	cands := make([]float64, 1, 2+nf+slipSteps)
	cands[0] = v
	if total > 0 {
		for i := range own {
			if long[i] > 0 {
				cands = append(cands, own[i])
			}
		}
		for q := 0; lo < hi && q <= slipSteps; q++ {
			cands = append(cands, lo*math.Pow(hi/lo, float64(q)/slipSteps))
		}
	}
	if at > 0 {
		cands = append(cands[:0], at)
	}
	best := slipJudge{slip: math.Inf(1)}
	for q, c := range cands {
		if slices.Contains(cands[:q], c) {
			continue // judged already (a foot's own speed is the first step's): the same judgement
		}
		if j := r.slipAt(sc, vel, low, wide, u, c, own, long, all, dt, loops); j.slip < best.slip {
			best = j
		}
	}
	if best.stances == 0 {
		f.speed, f.why = v, "no foot stands still on the ground at any one speed"
		return f
	}
	f.speed, f.planted, f.why = best.v, best.planted, best.reason(r)
	f.conf = clamp01(1 - best.slip/SlipPerConfidence)
	return f
}

// footMotion reads the feet's motion from pos (as measureFeet takes it) in the
// frame moving with the root's mean velocity travel: vel[i][k] is foot i's
// horizontal velocity at sample k (central differences, wrapping around a
// loop), low[i][k] says it is in its lowest band there and wide[i][k] in a band
// half as high again; sum adds up the low samples' velocities (backwards).
func (r *Rig) footMotion(sc *scratch, pos [][]rig.Vec3, dt float64, loops bool, travel rig.Vec3) (vel [][]rig.Vec3, low, wide [][]bool, sum rig.Vec3) {
	n := len(pos) - 1
	H := r.Height
	nf := len(r.Feet)
	at := func(k, i int) rig.Vec3 { // the foot in the frame moving with the root
		return pos[k][1+i].Sub(travel.Scale(float64(k) * dt))
	}
	sc.vel, sc.velRow = grow(sc.vel, nf*n), grow(sc.velRow, nf)
	sc.flags, sc.flagRw = grow(sc.flags, 2*nf*n), grow(sc.flagRw, 2*nf)
	vel = sc.velRow
	low, wide = sc.flagRw[:nf], sc.flagRw[nf:] // the confidence is read with both
	for i := range r.Feet {
		ymin, ymax := math.Inf(1), math.Inf(-1)
		for k := 0; k <= n; k++ {
			y := pos[k][1+i][1]
			ymin, ymax = math.Min(ymin, y), math.Max(ymax, y)
		}
		band := ymin + math.Max(PlantedHeight*(ymax-ymin), PlantedHeightMin*H)
		vel[i] = sc.vel[i*n : (i+1)*n : (i+1)*n]
		low[i] = sc.flags[i*n : (i+1)*n : (i+1)*n]
		wide[i] = sc.flags[(nf+i)*n : (nf+i+1)*n : (nf+i+1)*n]
		wband := ymin + 1.5*math.Max(PlantedHeight*(ymax-ymin), PlantedHeightMin*H)
		for k := 0; k < n; k++ {
			var pa rig.Vec3
			span := 2 * dt
			switch {
			case k > 0:
				pa = at(k-1, i)
			case loops: // the sample before the start is the one before the end, a pass back
				pa = at(n-1, i).Sub(at(n, i).Sub(at(0, i)))
			default:
				pa, span = at(0, i), dt
			}
			v := at(k+1, i).Sub(pa).Scale(1 / span)
			vel[i][k] = rig.Vec3{v[0], 0, v[2]}
			wide[i][k] = pos[k][1+i][1] <= wband
			if low[i][k] = pos[k][1+i][1] <= band; low[i][k] {
				sum = sum.Add(vel[i][k])
			}
		}
	}
	return vel, low, wide, sum
}

// slipSteps is how many speeds between the slowest and the fastest foot's own
// standing speed slipAt judges, besides those speeds themselves: steps of
// under 1 % for feet up to 60 % apart.
const slipSteps = 48

// slipJudge is what playing the feet at one speed shows.
type slipJudge struct {
	v, slip  float64
	stances  int     // how many stances the feet make at v
	planted  float64 // the fraction of the clip some foot stands
	worst    stance  // the stance that slips most
	odd      int     // the foot whose own speed is furthest from v, or -1 when the worst stance is the slip
	oddSpeed float64 // its own speed
	dt       float64
}

// reason says which foot slips most at j.v, and how far: written only for
// the speed chosen, not for each of the speeds judged.
func (j slipJudge) reason(r *Rig) string {
	if j.odd >= 0 {
		return fmt.Sprintf("at %.4g %s per s of clip, the speed at which the feet slide least, they slide %.0f%% of the distance travelled: foot %s would stand still at %.4g %[2]s per s of clip instead",
			j.v, r.unit(), 100*j.slip, r.Skeleton.Names[r.Feet[j.odd]], j.oddSpeed)
	}
	return fmt.Sprintf("at %.4g %s per s of clip, the speed at which the feet slide least, foot %s slides %.0f%% of the distance travelled in its stance at %.3g s of the clip",
		j.v, r.unit(), r.Skeleton.Names[r.Feet[j.worst.foot]], 100*j.slip, float64(j.worst.first)*j.dt)
}

// slipAt judges speed v: the feet's stances at it (StanceSlack) and the slip,
// the worse of (a) the worst stance, found as stances are here and, so that
// it does not hang on where a stance is said to begin and end, with a band
// and a slack a half and a quarter larger, and (b) the feet's mean
// disagreement: each foot that stands (long[i] > 0) still at its own speed
// own[i] slides at v by the difference over its whole stance, weighted by
// how long it stands.
// all lists every foot (indices into r.Feet).
func (r *Rig) slipAt(sc *scratch, vel [][]rig.Vec3, low, wide [][]bool, u rig.Vec3, v float64, own, long []float64, all []int, dt float64, loops bool) slipJudge {
	// The stances at StanceSlack in the low band and, for the worst, at
	// wideSlack in the wide one, found together: one world speed a sample.
	const wideSlack = 1.25 * StanceSlack
	uv := u.Scale(v)
	sc.st, sc.stW = sc.st[:0], sc.stW[:0]
	for _, i := range all {
		n := len(vel[i])
		sc.stand, sc.standW = grow(sc.stand, n), grow(sc.standW, n)
		stand, standW := sc.stand, sc.standW
		for k := range n {
			stand[k], standW[k] = false, false
			if low[i][k] || wide[i][k] {
				d := vel[i][k].Sub(uv).Len()
				stand[k] = low[i][k] && d < StanceSlack*v
				standW[k] = wide[i][k] && d < wideSlack*v
			}
		}
		sc.st = runs(sc.st, stand, vel[i], i, u, uv, dt, loops, false)
		sc.stW = runs(sc.stW, standW, vel[i], i, u, uv, dt, loops, false)
	}
	j := slipJudge{v: v, stances: len(sc.st), odd: -1, dt: dt}
	n := len(vel[0])
	sc.cover = grow(sc.cover, n)
	covered := sc.cover
	clear(covered)
	for _, s := range sc.st {
		for q := 0; q < s.len; q++ {
			covered[(s.first+q)%n] = true
		}
	}
	for _, c := range covered {
		if c {
			j.planted++
		}
	}
	j.planted /= float64(n)
	if j.stances == 0 {
		j.slip = math.Inf(1)
		return j
	}
	worst := sc.st[0]
	sc.st = append(sc.st, sc.stW...)
	for _, s := range sc.st {
		if s.drift/s.dur > worst.drift/worst.dur {
			worst = s
		}
	}
	j.worst = worst
	j.slip = worst.drift / (v * worst.dur)
	var slid, total float64
	odd, oddD := -1, 0.0
	for i := range r.Feet {
		if long[i] == 0 {
			continue
		}
		d := math.Abs(own[i]-v) / v
		slid, total = slid+d*long[i], total+long[i]
		if d > oddD {
			odd, oddD = i, d
		}
	}
	if total > 0 && slid/total > j.slip {
		j.slip = slid / total
		j.odd, j.oddSpeed = odd, own[odd]
	}
	return j
}

// standSpeed returns the speed at which the low samples of the feet (indices
// into r.Feet) stand still longest, and their stances at it: the densest
// backward speed of the low samples (a histogram of log speed whose windows are
// StanceSlack wide), then the speed that carries the standing feet exactly as
// far as the unit goes while they stand (their drifts cancel), found again
// from the stances at each new speed.
// The stances returned lie in sc, until the next call.
func (r *Rig) standSpeed(sc *scratch, vel [][]rig.Vec3, low [][]bool, u rig.Vec3, feet []int, dt float64, loops bool) (float64, []stance) {
	speeds := sc.speeds[:0]
	still := 0 // low samples that stand still relative to the root
	for _, i := range feet {
		for k := range vel[i] {
			switch s := vel[i][k].Dot(u); {
			case !low[i][k]:
			case vel[i][k].Len() < MinSpeed*r.Height:
				still++
			case s > 0:
				speeds = append(speeds, math.Log(s))
			}
		}
	}
	sc.speeds = speeds
	if len(speeds) == 0 {
		return 0, nil
	}
	sort.Float64s(speeds)
	best, v := 0, 0.0
	width := math.Log1p(StanceSlack)
	for j, lo := 0, 0; j < len(speeds); j++ {
		for speeds[j]-speeds[lo] > width {
			lo++
		}
		if j-lo+1 > best { // the window (speeds[lo], speeds[j]) holds the most
			best, v = j-lo+1, math.Exp((speeds[lo]+speeds[j])/2)
		}
	}
	if still >= best {
		return 0, nil // the feet mostly stand where they are: an idle, an attack
	}
	var st []stance
	for range 4 {
		sc.st = r.stances(sc, sc.st[:0], vel, low, u, v, StanceSlack, feet, dt, loops)
		st = sc.st
		var d, T float64
		for _, s := range st {
			d += s.along
			T += s.dur
		}
		if !(T > 0) || !(d > 0) {
			break
		}
		v = d / T
	}
	return v, st
}

// stance is a run of samples in which a foot stands still in the world.
type stance struct {
	foot, first, len int
	dur              float64 // seconds of the clip
	along            float64 // how far the foot moves backwards meanwhile, relative to the root
	drift            float64 // how far it moves in the world (horizontally)
}

// stances finds the feet's stances when the unit travels at v along −u: runs
// of low samples whose world speed is under slack·v, lasting MinStance of
// the clip or more (shorter ones are touches), wrapping around a loop. It
// appends them to out.
func (r *Rig) stances(sc *scratch, out []stance, vel [][]rig.Vec3, low [][]bool, u rig.Vec3, v, slack float64, feet []int, dt float64, loops bool) []stance {
	uv := u.Scale(v)
	for _, i := range feet {
		n := len(vel[i])
		sc.stand = grow(sc.stand, n)
		stand := sc.stand
		for k := range n {
			stand[k] = low[i][k] && vel[i][k].Sub(uv).Len() < slack*v
		}
		out = runs(out, stand, vel[i], i, u, uv, dt, loops, true)
	}
	return out
}

// runs appends to out the stances of foot i, whose velocities are vel, in
// the samples where stand holds (stances' rules); along is measured only
// when asked: slipAt reads the drift alone.
func runs(out []stance, stand []bool, vel []rig.Vec3, i int, u, uv rig.Vec3, dt float64, loops, along bool) []stance {
	n := len(stand)
	standRuns(stand, loops, func(first, end int) {
		s := stance{foot: i, first: first % n, len: end - first, dur: float64(end-first) * dt}
		var w rig.Vec3 // the world displacement: the model's plus the unit's
		for k := first; k < end; k++ {
			j := k
			if j >= n {
				j -= n
			}
			h := vel[j]
			if along {
				s.along += h.Dot(u) * dt
			}
			w = w.Add(h.Sub(uv).Scale(dt))
		}
		s.drift = w.Len()
		out = append(out, s)
	})
	return out
}

// standRuns calls fn with each run of true in stand lasting MinStance of the
// clip or more, as unwrapped sample indices [first, end), end ≤ first+n. A
// looping clip's runs are read from its first sample that is false, so that a
// run across the loop's seam is one (first < n, end past n); a clip that stands
// throughout is one run from the start.
func standRuns(stand []bool, loops bool, fn func(first, end int)) {
	n := len(stand)
	off := 0
	if loops {
		if off = slices.Index(stand, false); off < 0 {
			off = 0
		}
	}
	at := func(q int) int { // (off+q) % n, for q < n, without a division
		if q += off; q >= n {
			q -= n
		}
		return q
	}
	for q := 0; q < n; {
		if !stand[at(q)] {
			q++
			continue
		}
		e := q
		for e < n && stand[at(e)] {
			e++
		}
		if float64(e-q) >= MinStance*float64(n) {
			first := at(q)
			fn(first, first+e-q)
		}
		q = e
	}
}

func clamp01(x float64) float64 { return math.Max(0, math.Min(1, x)) }
