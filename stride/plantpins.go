// A foot's pins: its contacts (contacts; for a foot as low in its swing as in
// its stance, the runs in which it moves back under the body: alongBack), the
// offsets that hold it still over each (hold), blended between them so that
// nothing pops (fill).

package stride

import (
	"slices"

	"github.com/bonebake/bonebake/rig"
)

// hold adds to the offsets off, over the contact of samples q..e-1
// (unwrapped), what takes back each of the patch's moves over the ground
// step, from where it stands at the contact's middle.
func hold(off, step []rig.Vec3, q, e int) {
	n := len(off) - 1
	var d rig.Vec3
	acc := make([]rig.Vec3, e-q)
	for K := q; K < e; K++ {
		acc[K-q] = d
		d = d.Sub(step[K%n])
	}
	mid := acc[(e-q-1)/2]
	for K := q; K < e; K++ {
		off[K%n] = off[K%n].Add(acc[K-q].Sub(mid))
	}
}

// fill blends a foot's offsets off (n+1 of them) outside its contacts runs,
// from the offsets that pin it within them, so that nothing pops.
func fill(off []rig.Vec3, runs [][2]int, loops bool) {
	n := len(off) - 1
	for c, run := range runs {
		q, e := run[0], run[1]
		// Blend windows: up to PlantBlend of the clip, at most half the
		// gap to the neighbouring contacts (around a loop); the gaps
		// between contacts are bridged below, so these stay at a
		// one-shot clip's start and end.
		prevEnd, nextStart := 0, n
		if loops {
			prev, next := runs[(c+len(runs)-1)%len(runs)], runs[(c+1)%len(runs)]
			prevEnd, nextStart = prev[1], next[0]
			if prevEnd > q {
				prevEnd -= n
			}
			if nextStart < e {
				nextStart += n
			}
		} else {
			if c > 0 {
				prevEnd = runs[c-1][1]
			}
			if c+1 < len(runs) {
				nextStart = runs[c+1][0]
			}
		}
		wMax := int(PlantBlend * float64(n))
		in := min(wMax, (q-prevEnd)/2)
		out := min(wMax, (nextStart-e)/2)
		if !loops {
			in, out = min(in, q), min(out, n-e)
		}
		first, last := off[q%n], off[(e-1)%n]
		for j := 1; j <= in; j++ {
			off[((q-j)%n+n)%n] = first.Scale(rig.Smoothstep(1 - float64(j)/float64(in+1)))
		}
		for j := 0; j < out; j++ {
			off[(e+j)%n] = last.Scale(rig.Smoothstep(1 - float64(j+1)/float64(out+1)))
		}
	}
	if loops || len(runs) > 1 {
		// Between two contacts the offset goes from the one's last to
		// the next's first across the whole swing (smoothstep): a
		// short swing is not asked to blend out and in again, which
		// doubles its steps.
		pairs := len(runs) - 1
		if loops {
			pairs = len(runs)
		}
		for c := 0; c < pairs; c++ {
			a, b := runs[c], runs[(c+1)%len(runs)]
			from, to := a[1], b[0]
			if to < from {
				to += n
			}
			last, first := off[(from-1+n)%n], off[to%n]
			gap := to - from
			for j := 0; j < gap; j++ {
				x := rig.Smoothstep(float64(j+1) / float64(gap+1))
				off[(from+j)%n] = last.Scale(1 - x).Add(first.Scale(x))
			}
		}
	}
	if loops {
		off[n] = off[0]
	} else {
		off[n] = off[n-1]
	}
}

// backUnder returns how fast foot f (its index in pos, the tracked samples
// 0..n, whose first is the root) moves back along u relative to the root, at
// each sample 0..n-1 (central differences, wrapping around a loop): positive
// under a body carried over a foot on the ground, negative in a swing.
func backUnder(pos [][]rig.Vec3, f int, u rig.Vec3, dt float64, loops bool) []float64 {
	n := len(pos) - 1
	rel := func(k int) rig.Vec3 { return pos[k][f].Sub(pos[k][0]) }
	back := make([]float64, n)
	for k := range n {
		var pa rig.Vec3
		span := 2 * dt
		switch {
		case k > 0:
			pa = rel(k - 1)
		case loops:
			pa = rel(n - 1).Sub(rel(n).Sub(rel(0)))
		default:
			pa, span = rel(0), dt
		}
		back[k] = rel(k+1).Sub(pa).Dot(u) / span
	}
	return back
}

// swingsLow says whether a foot swings through its low band: for MinStance of
// the clip or more it is there while moving forward under the body faster
// than the unit travels (v), as a swinging foot does and one on the ground
// never does.
func swingsLow(low []bool, back []float64, v float64, loops bool) bool {
	swing := make([]bool, len(back))
	for k, b := range back {
		swing[k] = low[k] && b < -v
	}
	return len(contacts(swing, loops)) > 0
}

// alongBack returns the runs of samples in which a foot moves back under the
// body (back > 0) that reach its band (low): its contacts, from where it
// lands to where it lifts, however high the animation holds it between.
func alongBack(low []bool, back []float64, loops bool) []bool {
	n := len(back)
	out := make([]bool, n)
	for k := range n {
		if !low[k] || back[k] <= 0 || out[k] {
			continue
		}
		out[k] = true
		for _, dir := range [2]int{-1, 1} {
			for j := 1; j < n; j++ {
				q, ok := sampleAt(k+dir*j, n, loops)
				if !ok || back[q] <= 0 || out[q] {
					break
				}
				out[q] = true
			}
		}
	}
	return out
}

// contacts returns the runs of true in stand lasting MinStance of the clip or
// more, as [first, end) sample indices in order, end past len(stand) for a
// run across a looping clip's seam (standRuns); none for a foot that never
// lifts: nothing to pin it against.
func contacts(stand []bool, loops bool) [][2]int {
	if loops && !slices.Contains(stand, false) {
		return nil
	}
	var out [][2]int
	standRuns(stand, loops, func(first, end int) { out = append(out, [2]int{first, end}) })
	slices.SortFunc(out, func(a, b [2]int) int { return a[0] - b[0] })
	return out
}
