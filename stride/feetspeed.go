// The planted feet's speed (docs/formats/gait.md §2): each foot's motion in
// the frame moving with the root, read once (readFeet), and judged at the
// speeds asked (judgeFeet).

package stride

import (
	"math"
	"slices"

	"github.com/bonebake/bonebake/rig"
)

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
	if travel.Len() >= MinSpeed*r.Height && u.Dot(travel) > 0 {
		// The low feet sum forward along the root's travel: feet as low
		// in their swing as in their stance (a compass gait's straight
		// legs), the swing the faster. Back is against the travel.
		u = travel.Scale(-1 / travel.Len())
	}
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
	f.conf = rig.Clamp01(1 - best.slip/SlipPerConfidence)
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
