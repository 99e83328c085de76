// The feet's soles over a clip: each sole's lowest point and contact patch
// (solesAt), when it stands (soleContact), and how far it slides (SoleSlip).

package stride

import (
	"fmt"
	"math"

	"github.com/bonebake/bonebake/rig"
)

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
