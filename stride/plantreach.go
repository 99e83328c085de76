// Where a leg cannot reach its pin: the body lowered (lower), the contact
// shortened to the leg's reach (reach), and the foot lifted over the rest so
// that it steps instead of sliding (lifts).

package stride

import (
	"math"
	"slices"

	"github.com/bonebake/bonebake/rig"
)

// lower finds how far the body is lowered at each sample (p.drop): where a
// pinned foot lies further from its hip than softReach leaves the leg, the
// smallest drop of the legs' nearest common ancestor (the hips, or a root
// above them) that brings the worst leg back within it, at most RootDrop·H,
// each drop spread over RootBlend of the clip either way (a smoothstep: the
// body sinks and rises slowly, around a loop's seam too), the largest kept,
// then averaged.
// It does nothing when a planted foot hangs from the body (its leg does not
// bend to it: lowering the body would lower it). pos are the tracked joints
// (track) at each sample.
func (p *Plan) lower(pos [][]rig.Vec3, track []int) {
	n, sk := p.n, p.sk
	p.pelvis = -1
	var ups []int
	for _, lg := range p.legs {
		if lg.upper < 0 || lg.shin {
			return
		}
		ups = append(ups, lg.upper)
	}
	pelvis := sk.Parents[ups[0]]
	for ; pelvis >= 0; pelvis = sk.Parents[pelvis] {
		if !slices.ContainsFunc(ups, func(u int) bool { return !below(sk, u, pelvis) }) {
			break
		}
	}
	if pelvis < 0 {
		return
	}
	need := make([]float64, n)
	for _, lg := range p.legs {
		ie, il, iu := slices.Index(track, lg.end), slices.Index(track, lg.lower), slices.Index(track, lg.upper)
		for _, run := range lg.runs {
			for K := run[0]; K < run[1]; K++ {
				k := K % n
				hip, knee, end := pos[k][iu], pos[k][il], pos[k][ie]
				a := math.Max(end.Sub(hip).Len(), (1-SoftReach)*(knee.Sub(hip).Len()+end.Sub(knee).Len()))
				t := end.Add(lg.off[k])
				h, dy := horiz(t.Sub(hip)).Len(), hip[1]-t[1]
				if h < a {
					dy -= math.Sqrt(a*a - h*h)
				}
				need[k] = math.Max(need[k], math.Min(dy, RootDrop*p.height))
			}
		}
	}
	drop := make([]float64, n+1)
	w := max(1, int(RootBlend*float64(n)))
	for k, d := range need {
		if !(d > 0) {
			continue
		}
		for j := -w; j <= w; j++ {
			q, ok := sampleAt(k+j, n, p.loops)
			if !ok {
				continue
			}
			drop[q] = math.Max(drop[q], d*rig.Smoothstep(1-math.Abs(float64(j))/float64(w+1)))
		}
	}
	if !slices.ContainsFunc(drop, func(d float64) bool { return d > 0 }) {
		return
	}
	// Where one spread drop overtakes another the body would change its
	// pace in a frame: the envelope is averaged over half as long again
	// (raised cosine weights).
	h := max(1, w/2)
	env := slices.Clone(drop[:n])
	for k := range n {
		var sum, wsum float64
		for j := -h; j <= h; j++ {
			q, ok := sampleAt(k+j, n, p.loops)
			if !ok {
				continue
			}
			x := 0.5 + 0.5*math.Cos(math.Pi*float64(j)/float64(h+1))
			sum, wsum = sum+x*env[q], wsum+x
		}
		drop[k] = sum / wsum
	}
	drop[n] = drop[0]
	if !p.loops {
		drop[n] = drop[n-1]
	}
	p.pelvis, p.drop = pelvis, drop
}

// sampleAt is the index of sample q of n: wrapped around a looping clip's
// seam, or false past a one-shot's ends.
func sampleAt(q, n int, loops bool) (int, bool) {
	if loops {
		return (q%n + n) % n, true
	}
	return q, q >= 0 && q < n
}

// below says whether bone b is a or lies under it.
func below(sk *rig.Skeleton, b, a int) bool {
	for ; b >= 0; b = sk.Parents[b] {
		if b == a {
			return true
		}
	}
	return false
}

// reach shortens a contact (samples run[0]..run[1]-1, unwrapped) at whose ends
// the leg cannot reach its pin, the way from the hip to the pinned ankle longer
// than softReach leaves it (a front leg asked to sweep further than it is
// long): the foot stands for the longest run of samples at which it reaches,
// pinned anew there (pin), a few times over, since the pin moves with the
// contact's middle. pos are the tracked joints (track) at each sample, the
// body lowered by drop (Plan.lower; nil: not lowered).
func (lg *leg) reach(pos [][]rig.Vec3, track []int, drop []float64, run [2]int, short float64, pin func(q, e int)) [2]int {
	n := len(pos) - 1
	ie, il, iu := slices.Index(track, lg.end), slices.Index(track, lg.lower), slices.Index(track, lg.upper)
	q, e := run[0], run[1]
	for range 4 {
		best, from, cur := 0, q, 0
		for K := q; K < e; K++ {
			k := K % n
			hip, knee, end := pos[k][iu], pos[k][il], pos[k][ie]
			target := end.Add(lg.off[k]) // where the pin holds it, the body lowered by drop
			// nil: lower found no need to lower the body
			if drop != nil {
				hip[1] -= drop[k]
				knee[1] -= drop[k]
				end[1] -= drop[k]
			}
			if softReach(hip, target, end.Sub(hip).Len(), knee.Sub(hip).Len()+end.Sub(knee).Len()).Sub(target).Len() <= short {
				if cur++; cur > best {
					best, from = cur, K-cur+1
				}
			} else {
				cur = 0
			}
		}
		if best == e-q {
			break
		}
		if best == 0 { // nowhere: the middle alone
			from, best = (q+e-1)/2, 1
		}
		q, e = from, from+best
		pin(q, e)
	}
	return [2]int{q, e}
}

// lifts returns how high foot f (its joint's index in pos, the tracked
// samples 0..n, and its sole's track, or nil) is raised at
// each sample: where its contacts (whole) were shortened to runs (reach), the
// foot, still on the ground as animated, would slide: it is raised above the
// bands a contact is found in (its joint's wide band, its sole's band), and a
// little more, rising from the shortened contact's end and falling to its start
// over LiftRamp of the clip, so that it steps instead.
func (r *Rig) lifts(pos [][]rig.Vec3, f int, sole *soleTrack, whole, runs [][2]int, loops bool) []float64 {
	n := len(pos) - 1
	lift := make([]float64, n+1)
	H := r.Height
	top := func(y func(k int) float64) func(k int) float64 { // the need above the band of y
		lo, hi := math.Inf(1), math.Inf(-1)
		for k := 0; k <= n; k++ {
			lo, hi = math.Min(lo, y(k)), math.Max(hi, y(k))
		}
		band := lo + 1.5*math.Max(PlantedHeight*(hi-lo), PlantedHeightMin*H)
		return func(k int) float64 { return band + PlantedHeightMin*H - y(k) }
	}
	need := []func(k int) float64{top(func(k int) float64 { return pos[k][f][1] })}
	if sole != nil {
		need = append(need, top(func(k int) float64 { return sole.low[k] }))
	}
	w := max(2, int(LiftRamp*float64(n)))
	raise := func(K, from, dir int, h float64) { // from the shortened contact's edge outward
		if !loops && (K < 0 || K >= n) {
			return
		}
		k := ((K % n) + n) % n
		x := math.Min(1, float64(dir*(K-from)+1)/float64(w))
		lift[k] = math.Max(lift[k], h*rig.Smoothstep(x))
	}
	for c, run := range runs {
		q, e := whole[c][0], whole[c][1]
		if run == whole[c] {
			continue
		}
		h := 0.0
		for K := q; K < e; K++ {
			if K >= run[0] && K < run[1] {
				continue
			}
			for _, y := range need {
				h = math.Max(h, y(K%n))
			}
		}
		// Up from the shortened contact to the whole one's end, and down
		// after it where the foot rises as animated; mirrored before.
		for K := run[1]; K < e+w; K++ {
			raise(K, run[1], 1, h*rig.Smoothstep(math.Min(1, float64(e+w-K)/float64(w))))
		}
		for K := run[0] - 1; K >= q-w; K-- {
			raise(K, run[0]-1, -1, h*rig.Smoothstep(math.Min(1, float64(K-(q-w))/float64(w))))
		}
	}
	lift[n] = lift[0]
	if !loops {
		lift[n] = lift[n-1]
	}
	return lift
}
