package stride

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/bonebake/bonebake/rig"
)

// Foot locking (docs/formats/gait.md §7): a hand-animated clip whose feet slide
// at any one speed is changed so that they do not. With the unit travelling at
// the clip's ground speed, each foot's contact (a run of samples in which it is
// in its low band and moves slower over the ground than the unit) is pinned at
// the place in the world where the foot stands at the contact's middle; the
// leg's two bending joints are turned (rig's TwoBoneIK) so that the foot lies
// there at every frame, its orientation kept as animated, and the pin is
// blended in before the contact and out after it so that nothing pops.

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

// leg is a foot and the chain that moves it.
type leg struct {
	foot int // the bone pinned (one of Rig.Feet)
	// end is the foot's joint that the leg places (the ankle: the foot
	// itself or an ancestor), lower and upper the joints above it that bend;
	// upper < 0: the foot hangs from the body (no leg bends to it) and is
	// moved itself. shin: the foot hangs from the body beside a leg whose
	// lower bone is a leaf ending at it (the three.js robot's): the foot is
	// moved itself, and upper and lower bend to keep the leg's end on it.
	end, lower, upper int
	shin              bool
	// bend is the side the knee bends to over the clip, a unit vector in the
	// space of upper's parent: it steers a leg the animation holds straight.
	bend rig.Vec3
	off  []rig.Vec3 // the horizontal offset of the foot at each sample, 0..n
	runs [][2]int   // its contacts (contacts), shortened to its reach (reach)
	lift []float64  // how high the foot is raised at each sample, 0..n (lifts)
	// ground says, at each sample 0..n, that the foot is pinned (in one of
	// runs): a foot short of its pin there is short on the ground, seen;
	// elsewhere it is short of a blended offset in its swing.
	ground []bool
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
// when the clip has no speed or no foot has a contact to pin.
func (r *Rig) Plan(s Sampler, start, dur float64, loops bool, res Result, speed float64) *Plan {
	if !(dur > 0) || len(r.Feet) == 0 || res.Status == StatusNoTravel {
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
	vel, _, wide, sum := r.footMotion(sc, pos, dt, loops, travel)
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
	at := r.solesAt(p.Sampler(s), start, dt, n, legs)
	for j := range p.legs {
		lg := &p.legs[j]
		i := slices.Index(r.Feet, lg.foot)
		if at[i] == nil {
			continue
		}
		_, step := r.soleContact(at[i], dt, n, travel.Add(u.Scale(v)), v)
		for _, run := range lg.runs {
			hold(lg.off, step, run[0], run[1])
		}
		fill(lg.off, lg.runs, loops)
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
		p.Notes = append(p.Notes, "the leg is straightened toward a foot it cannot reach, which falls short there: "+strings.Join(short, ", "))
	}
	return p
}

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
			drop[q] = math.Max(drop[q], d*smooth(1-math.Abs(float64(j))/float64(w+1)))
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
		lift[k] = math.Max(lift[k], h*smooth(x))
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
			raise(K, run[1], 1, h*smooth(math.Min(1, float64(e+w-K)/float64(w))))
		}
		for K := run[0] - 1; K >= q-w; K-- {
			raise(K, run[0]-1, -1, h*smooth(math.Min(1, float64(K-(q-w))/float64(w))))
		}
	}
	lift[n] = lift[0]
	if !loops {
		lift[n] = lift[n-1]
	}
	return lift
}

// SoleSlip judges the soles of the clip s plays (the planted clip) as the unit
// travels at speed (per second of clip) the way the feet were locked: each
// sole's stances (soleContact's samples on the ground, standing, in runs of
// MinStance or more) and the worst one's drift over the ground against the
// distance travelled meanwhile, and where. ok is false when no foot has a
// sole or none stands.
func (p *Plan) SoleSlip(s Sampler, speed float64) (slip float64, where string, ok bool) {
	r, n, dt := p.r, p.n, p.dt
	at := r.solesAt(s, p.start, dt, n, p.all)
	for i, sole := range at {
		if sole == nil {
			continue
		}
		stand, step := r.soleContact(sole, dt, n, p.travel.Add(p.u.Scale(speed)), speed)
		for _, run := range contacts(stand, p.loops) {
			var d rig.Vec3
			for K := run[0]; K < run[1]; K++ {
				d = d.Add(step[K%n])
			}
			ok = true
			if x := d.Len() / (speed * float64(run[1]-run[0]) * dt); x > slip {
				slip, where = x, fmt.Sprintf("the sole of foot %s slides %.0f%% of the distance travelled in its stance at %.3g s of the clip", r.Skeleton.Names[r.Feet[i]], 100*x, float64(run[0]%n)*dt)
			}
		}
	}
	return slip, where, ok
}

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
			off[((q-j)%n+n)%n] = first.Scale(smooth(1 - float64(j)/float64(in+1)))
		}
		for j := 0; j < out; j++ {
			off[(e+j)%n] = last.Scale(smooth(1 - float64(j+1)/float64(out+1)))
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
				x := smooth(float64(j+1) / float64(gap+1))
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

// smooth is the smoothstep of x in [0, 1]: its slope is 0 at both ends.
func smooth(x float64) float64 { return x * x * (3 - 2*x) }

// leg finds the chain that moves foot f: of the foot and its two ancestors, the
// joint whose bone and whose parent's bone are longest (the shorter of the two
// the longest: an ankle under a shin and a thigh, not a toe under a foot), both
// at least LegBone·H, on the foot's own limb (the upper joint holds no other
// foot). A foot that hangs from the body (its parent holds another foot) is
// moved itself. It returns why when neither fits.
func (r *Rig) leg(f int) (leg, string) {
	sk := r.Skeleton
	rest := sk.RestModelSpace()
	bone := func(b int) float64 {
		p := sk.Parents[b]
		if p < 0 {
			return 0
		}
		return rest[b].Translation().Sub(rest[p].Translation()).Len()
	}
	holdsOther := func(a int) bool {
		for _, g := range r.Feet {
			if g == f {
				continue
			}
			for b := g; b >= 0; b = sk.Parents[b] {
				if b == a {
					return true
				}
			}
		}
		return false
	}
	best := leg{foot: f, end: -1, upper: -1}
	bestLen := LegBone * r.Height
	for e, step := f, 0; e >= 0 && step < 3; e, step = sk.Parents[e], step+1 {
		lo := sk.Parents[e]
		if lo < 0 || sk.Parents[lo] < 0 || holdsOther(sk.Parents[lo]) {
			break
		}
		if l := math.Min(bone(e), bone(lo)); l >= bestLen {
			best.end, best.lower, best.upper, bestLen = e, lo, sk.Parents[lo], l
		}
	}
	if best.end >= 0 {
		return best, ""
	}
	if p := sk.Parents[f]; p >= 0 && holdsOther(p) {
		best.end, best.lower = f, -1
		// A leg beside it whose lower bone is a leaf (no joint at the ankle):
		// the nearest such leaf to the foot at rest, its bone and its reach
		// to the foot each LegBone·H or more, the shin no longer than twice
		// the thigh.
		parent := make([]bool, sk.Len())
		for _, q := range sk.Parents {
			if q >= 0 {
				parent[q] = true
			}
		}
		near := math.Inf(1)
		for l := range sk.Len() {
			up := sk.Parents[l]
			if parent[l] || l == f || slices.Contains(r.Feet, l) || up < 0 || sk.Parents[up] < 0 || holdsOther(up) {
				continue
			}
			thigh := bone(l)
			shin := rest[f].Translation().Sub(rest[l].Translation()).Len()
			if thigh >= LegBone*r.Height && shin >= LegBone*r.Height && shin <= 2*thigh && shin < near {
				near, best.lower, best.upper, best.shin = shin, l, up, true
			}
		}
		return best, ""
	}
	return best, fmt.Sprintf("foot %s: no two bones of its leg, each %.2g·H long or more, bend to it: left as animated", sk.Names[f], LegBone)
}

// Sampler returns s played with the plan's feet pinned. Like every sampler it
// is for one goroutine; the bones it turns are put back as s left them before
// s samples again, so that a bone s does not animate keeps no turn.
func (p *Plan) Sampler(s Sampler) Sampler {
	pl := &planted{Plan: p, inner: s, short: make([][2]int, len(p.legs)), miss: make([][2]float64, len(p.legs))}
	var ends []int
	for _, lg := range p.legs {
		ends = append(ends, lg.end)
		switch {
		case lg.shin:
			ends = append(ends, lg.lower)
			pl.edits = append(pl.edits, lg.upper, lg.lower, lg.end)
		case lg.upper >= 0:
			pl.edits = append(pl.edits, lg.upper, lg.lower, lg.end)
		default:
			pl.edits = append(pl.edits, lg.end)
		}
	}
	if p.pelvis >= 0 {
		pl.edits = append(pl.edits, p.pelvis)
	}
	pl.placed = p.sk.Chain(ends)
	pl.global = make([]rig.Mat4, p.sk.Len())
	pl.saved = make([]rig.Transform, len(pl.edits))
	pl.legSk = rig.Skeleton{Parents: []int{-1, 0, 1, 2}, Names: make([]string, 4), Rest: make([]rig.Transform, 4)}
	return pl
}

type planted struct {
	*Plan
	inner  Sampler
	placed []int
	global []rig.Mat4
	edits  []int           // the bones the legs change
	saved  []rig.Transform // their transforms as inner left them
	dirty  bool
	legSk  rig.Skeleton     // bendShin's skeleton of four
	leg4   [4]rig.Transform // and its pose
	short  [][2]int         // samples at which each leg fell short of its pin by over ShortOf·H, on the ground and in its swing (leg.ground)
	miss   [][2]float64     // by how far at most
}

func (p *planted) Sample(t float64, pose []rig.Transform) {
	if p.dirty { // inner may not write a bone it does not animate
		for j, b := range p.edits {
			pose[b] = p.saved[j]
		}
	}
	p.inner.Sample(t, pose)
	for j, b := range p.edits {
		p.saved[j] = pose[b]
	}
	p.dirty = true
	// The offsets at t, between the plan's samples.
	x := (t - p.start) / p.dt
	k := int(math.Floor(x))
	k = max(0, min(p.n-1, k))
	a := math.Max(0, math.Min(1, x-float64(k)))
	p.sk.ModelSpaceOf(pose, p.global, p.placed)
	drop := 0.0
	if p.pelvis >= 0 {
		// The body lowered first: the legs bend from where it is.
		drop = p.drop[k]*(1-a) + p.drop[k+1]*a
		d := rig.Vec3{0, -drop, 0}
		if up := p.sk.Parents[p.pelvis]; up >= 0 {
			if inv, ok := p.global[up].Inverse(); ok {
				d = inv.TransformVector(d)
			}
		}
		pose[p.pelvis].Translation = pose[p.pelvis].Translation.Add(d)
		p.sk.ModelSpaceOf(pose, p.global, p.placed)
	}
	for j, lg := range p.legs {
		d := lg.off[k].Scale(1 - a).Add(lg.off[k+1].Scale(a))
		d[1] += lg.lift[k]*(1-a) + lg.lift[k+1]*a + drop // the ankle came down with the body
		if d == (rig.Vec3{}) {
			continue
		}
		if lg.upper < 0 || lg.shin {
			// A foot hanging from the body moves itself: d in its parent's space.
			if inv, ok := p.global[p.sk.Parents[lg.end]].Inverse(); ok {
				pose[lg.end].Translation = pose[lg.end].Translation.Add(inv.TransformVector(d))
			}
			if lg.shin {
				p.bendShin(pose, lg, p.global[lg.end].Translation().Add(d))
			}
			continue
		}
		ankle := p.global[lg.end].Translation()
		target := ankle.Add(d)
		// The knee stays on the side the animation bends it to, and a leg held
		// straight bends to the side the clip bends it most.
		knee := p.global[lg.lower].Translation()
		hip := p.global[lg.upper].Translation()
		l1, l2 := knee.Sub(hip).Len(), ankle.Sub(knee).Len()
		pinned := target
		target = softReach(hip, target, ankle.Sub(hip).Len(), l1+l2)
		bias := lg.bend
		if q := p.sk.Parents[lg.upper]; q >= 0 {
			bias = p.global[q].TransformVector(bias)
		}
		if b := bias.Len(); b > 0 {
			bias = bias.Scale(0.1 * (l1 + l2) / b)
		}
		pole := knee.Add(bias)
		ru, rl := pose[lg.upper].Rotation, pose[lg.lower].Rotation
		reached := p.sk.TwoBoneIK(pose, lg.upper, lg.lower, lg.end, target, pole)
		// Near or out of reach the foot lies short of its pin: by softReach's
		// difference, or (folded) by the limb's.
		miss := pinned.Sub(target).Len()
		if !reached {
			d := target.Sub(hip).Len()
			miss = math.Max(miss, math.Abs(l1-l2)-d)
		}
		if miss > ShortOf*p.height {
			g := 1
			if lg.ground != nil && lg.ground[max(0, min(p.n, int(math.Round(x))))] {
				g = 0
			}
			p.short[j][g]++
			p.miss[j][g] = math.Max(p.miss[j][g], miss)
		}
		// The foot keeps its animated orientation in model space: its parent
		// turned by (ru'·rl')⁻¹·(ru·rl).
		nu, nl := pose[lg.upper].Rotation, pose[lg.lower].Rotation
		turn := nu.Mul(nl).Conjugate().Mul(ru.Normalize().Mul(rl.Normalize()))
		pose[lg.end].Rotation = turn.Mul(pose[lg.end].Rotation).Normalize()
	}
}

// softReach returns the target the leg from hip (its reach l, the ankle d0
// from the hip as animated) bends to for the foot's pin at target. Within
// SoftReach·l of the straight leg the target's distance from the hip is eased
// toward the reach along the line from the hip (soft IK): a knee that two-bone
// IK would snap straight as its pin moves a few millimetres (ybot's walking:
// 156° to 180° in a frame, where the animation turns it 14.6° at most)
// straightens gradually, and the foot lies a little short of its pin instead.
// Where the animated ankle is further, the leg is eased from there, so that a
// pin blending in from nothing does not bend a straight leg.
func softReach(hip, target rig.Vec3, d0, l float64) rig.Vec3 {
	a := math.Max(d0, (1-SoftReach)*l)
	v := target.Sub(hip)
	d := v.Len()
	if !(a < l) || !(d > a) {
		return target
	}
	e := a + (l-a)*(1-math.Exp(-(d-a)/(l-a)))
	return hip.Add(v.Scale(e / d))
}

// bendShin turns a leg whose lower bone is a leaf so that the point of it where
// the foot stood (as animated) lies at target: rig's TwoBoneIK on a skeleton of
// four, the leg's parent in model space, the two bones and that point.
func (p *planted) bendShin(pose []rig.Transform, lg leg, target rig.Vec3) {
	base := rig.Transform{Rotation: rig.IdentityQuat(), Scale: rig.Vec3{1, 1, 1}}
	if up := p.sk.Parents[lg.upper]; up >= 0 {
		t, ok := rig.Decompose(p.global[up])
		if !ok {
			return
		}
		base = t
	}
	inv, ok := p.global[lg.lower].Inverse()
	if !ok {
		return
	}
	tip := rig.Transform{Translation: inv.TransformPoint(p.global[lg.end].Translation()), Rotation: rig.IdentityQuat(), Scale: rig.Vec3{1, 1, 1}}
	p.leg4[0], p.leg4[1], p.leg4[2], p.leg4[3] = base, pose[lg.upper], pose[lg.lower], tip
	p.legSk.TwoBoneIK(p.leg4[:], 1, 2, 3, target, p.global[lg.lower].Translation())
	pose[lg.upper].Rotation, pose[lg.lower].Rotation = p.leg4[1].Rotation, p.leg4[2].Rotation
}

// bends finds each leg's bend: the mean, over the plan's samples of s, of the
// knee's offset from the line from the hip to the ankle, in the space of the
// hip's parent.
func (p *Plan) bends(s Sampler) {
	sk := p.sk
	pose := sk.RestPose()
	global := make([]rig.Mat4, sk.Len())
	var ends []int
	for _, lg := range p.legs {
		ends = append(ends, lg.end, lg.lower)
	}
	placed := sk.Chain(ends)
	for k := 0; k <= p.n; k++ {
		s.Sample(p.start+float64(k)*p.dt, pose)
		sk.ModelSpaceOf(pose, global, placed)
		for j := range p.legs {
			lg := &p.legs[j]
			if lg.upper < 0 {
				continue
			}
			hip, knee, end := global[lg.upper].Translation(), global[lg.lower].Translation(), global[lg.end].Translation()
			off := knee.Sub(hip).Reject(end.Sub(hip).Normalize())
			if q := sk.Parents[lg.upper]; q >= 0 {
				if inv, ok := global[q].Inverse(); ok {
					off = inv.TransformVector(off)
				}
			}
			lg.bend = lg.bend.Add(off)
		}
	}
	for j := range p.legs {
		if l := p.legs[j].bend.Len(); l > 0 {
			p.legs[j].bend = p.legs[j].bend.Scale(1 / l)
		}
	}
}

// soleTrack is a foot's sole over a clip's samples 0..n, as soleContact and lifts
// read it: the height of its lowest point at each sample, and the move to the
// next sample of its contact patch (its points within PlantedHeightMin·H of the
// lowest), summed over the patch's points. Kept instead of every point at
// every sample (the three.js Xbot's soles are 1009 points each: 5.6 MB a foot
// and a pass, whose first touch of each page costs a VM far more than the
// skinning).
type soleTrack struct {
	low  []float64  // 0..n
	move []rig.Vec3 // 0..n-1
	size []int      // the patch's points, 0..n-1
}

// solesAt samples s at n+1 times dt apart from start, once for all the feet
// (a pass a foot sampled the clip four times over for a quadruped), and
// skins each foot's sole (r.Soles[i]) in model space at each sample, for each
// foot that has a sole and a leg to bend (nil for the others).
func (r *Rig) solesAt(s Sampler, start, dt float64, n int, legs []leg) []*soleTrack {
	sk := r.Skeleton
	at := make([]*soleTrack, len(legs))
	var bones []int
	rows := make([][2][]rig.Vec3, len(legs)) // the points at the last sample and this one
	for i, lg := range legs {
		if lg.end < 0 || i >= len(r.Soles) || len(r.Soles[i]) == 0 {
			continue
		}
		at[i] = &soleTrack{low: make([]float64, n+1), move: make([]rig.Vec3, n), size: make([]int, n)}
		flat := make([]rig.Vec3, 2*len(r.Soles[i]))
		rows[i] = [2][]rig.Vec3{flat[:len(r.Soles[i])], flat[len(r.Soles[i]):]}
		for _, p := range r.Soles[i] {
			for q, w := range p.Weight {
				if w > 0 {
					bones = append(bones, p.Bone[q])
				}
			}
		}
	}
	if len(bones) == 0 {
		return at
	}
	// Each bone's matrix is the same whatever else is placed with it
	// (rig.Skeleton.ModelSpaceOf): the points are those a pass per foot gave.
	placed := sk.Chain(bones)
	pose := sk.RestPose()
	global := make([]rig.Mat4, sk.Len())
	patch := PlantedHeightMin * r.Height
	for k := 0; k <= n; k++ {
		s.Sample(start+float64(k)*dt, pose)
		sk.ModelSpaceOf(pose, global, placed)
		for i, so := range at {
			if so == nil {
				continue
			}
			last, cur := rows[i][0], rows[i][1]
			low := math.Inf(1)
			for j := range r.Soles[i] {
				cur[j] = r.Soles[i][j].At(global)
				low = math.Min(low, cur[j][1])
			}
			so.low[k] = low
			if k > 0 {
				var d rig.Vec3
				c := 0
				for j, p := range last {
					if p[1] <= so.low[k-1]+patch {
						d = d.Add(cur[j].Sub(p))
						c++
					}
				}
				so.move[k-1], so.size[k-1] = d, c
			}
			rows[i][0], rows[i][1] = cur, last
		}
	}
	return at
}

// soleContact finds a foot's contact from its sole: the sole is on the
// ground while its lowest point is within PlantedHeight of that height's range
// over the clip (at least PlantedHeightMin·H) above its lowest, and its contact
// patch moves slower over the ground than the unit (v), the ground moving by
// back (per second) in the model's space. step[k] is the patch's horizontal
// move over the ground from sample k to k+1.
func (r *Rig) soleContact(at *soleTrack, dt float64, n int, back rig.Vec3, v float64) (stand []bool, step []rig.Vec3) {
	floor, top := math.Inf(1), math.Inf(-1)
	for _, low := range at.low {
		floor, top = math.Min(floor, low), math.Max(top, low)
	}
	band := floor + math.Max(PlantedHeight*(top-floor), PlantedHeightMin*r.Height)
	stand, step = make([]bool, n), make([]rig.Vec3, n)
	for k := range n {
		step[k] = horiz(at.move[k].Scale(1 / float64(at.size[k])).Sub(back.Scale(dt)))
		stand[k] = at.low[k] <= band && step[k].Len() < v*dt
	}
	return stand, step
}
