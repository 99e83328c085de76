package stride

import "github.com/bonebake/bonebake/rig"

// RemoveTravel returns a sampler that plays s with the root's horizontal travel
// taken out: at time t the carrier bone (Result.Carrier) is moved back by
// Travel·(t − start), so the root ends each pass where it began while keeping
// its sway and bob (only the steady part of the travel is removed). It returns s
// itself when the clip has no travel.
func (r *Rig) RemoveTravel(s Sampler, res Result, start float64) Sampler {
	if res.Carrier < 0 || res.Travel == (rig.Vec3{}) {
		return s
	}
	var chain []int // the carrier's ancestors, topmost first
	for b := r.Skeleton.Parents[res.Carrier]; b >= 0; b = r.Skeleton.Parents[b] {
		chain = append([]int{b}, chain...)
	}
	return &inPlace{inner: s, bone: res.Carrier, chain: chain, travel: res.Travel, start: start}
}

type inPlace struct {
	inner  Sampler
	bone   int
	chain  []int
	travel rig.Vec3
	start  float64
}

func (p *inPlace) Sample(t float64, pose []rig.Transform) {
	p.inner.Sample(t, pose)
	back := p.travel.Scale(t - p.start) // model space
	if len(p.chain) > 0 {
		parent := rig.IdentityMat4()
		for _, b := range p.chain {
			parent = parent.MulAffine(pose[b].Matrix())
		}
		if inv, ok := parent.Inverse(); ok {
			back = inv.TransformVector(back) // into the carrier's parent space
		}
	}
	pose[p.bone].Translation = pose[p.bone].Translation.Sub(back)
}
