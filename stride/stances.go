// The feet's stances at one speed (stances, runs): the speed that carries them
// (standSpeed) and how far they slip at it (slipAt).

package stride

import (
	"fmt"
	"math"
	"slices"
	"sort"

	"github.com/bonebake/bonebake/rig"
)

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
			j.v, r.UnitWord(), 100*j.slip, r.Skeleton.Names[r.Feet[j.odd]], j.oddSpeed)
	}
	return fmt.Sprintf("at %.4g %s per s of clip, the speed at which the feet slide least, foot %s slides %.0f%% of the distance travelled in its stance at %.3g s of the clip",
		j.v, r.UnitWord(), r.Skeleton.Names[r.Feet[j.worst.foot]], 100*j.slip, float64(j.worst.first)*j.dt)
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
	sc.st = append(sc.st, sc.stW...)
	// A clip that does not loop cuts the stances at its ends: a take's last
	// touch-down, judged without the rest of its stance, slides more of the
	// little ground it covers. Judged where another is whole.
	whole := func(s stance) bool { return loops || s.first > 0 && s.first+s.len < n }
	worst := sc.st[0]
	for _, s := range sc.st {
		if whole(s) {
			worst = s
			break
		}
	}
	for _, s := range sc.st {
		if whole(s) && s.drift/s.dur > worst.drift/worst.dur {
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
