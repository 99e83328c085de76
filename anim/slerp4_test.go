package anim

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/bonebake/bonebake/rig"
)

// slerp4 gives slerpSpan.slerp's bits in every lane: random key pairs at every
// angle, pairs close enough for the lerp (where the normalization takes its
// square root) and exactly equal, u at the ends, and keys with NaN or infinity.
func TestSlerp4Bits(t *testing.T) {
	if !useAVX {
		t.Skip("slerp4 is the scalar slerp without AVX")
	}
	rnd := rand.New(rand.NewPCG(4, 46))
	randQuat := func() rig.Quat {
		return rig.Quat{rnd.NormFloat64(), rnd.NormFloat64(), rnd.NormFloat64(), rnd.NormFloat64()}.Normalize()
	}
	near := func(q rig.Quat, eps float64) rig.Quat {
		return rig.Quat{q[0] + eps*rnd.NormFloat64(), q[1] + eps*rnd.NormFloat64(), q[2] + eps*rnd.NormFloat64(), q[3] + eps*rnd.NormFloat64()}.Normalize()
	}
	type pair struct{ a, b rig.Quat }
	var pairs []pair
	for range 4000 {
		a := randQuat()
		switch rnd.IntN(6) {
		case 0:
			pairs = append(pairs, pair{a, near(a, 1e-4)}) // lerp, normalized by 1/√n
		case 1:
			pairs = append(pairs, pair{a, near(a, 1e-8)}) // lerp, 1 − d/2
		case 2:
			pairs = append(pairs, pair{a, a})
		case 3:
			b := near(a, 1e-2)
			pairs = append(pairs, pair{a, rig.Quat{-b[0], -b[1], -b[2], -b[3]}}) // the shorter arc through −b
		default:
			pairs = append(pairs, pair{a, randQuat()})
		}
	}
	pairs = append(pairs, pair{rig.Quat{math.NaN(), 0, 0, 1}, rig.IdentityQuat()}, pair{rig.IdentityQuat(), rig.Quat{math.Inf(1), 0, 0, 1}})
	for len(pairs)%4 != 0 {
		pairs = append(pairs, pair{randQuat(), randQuat()})
	}
	us := []float64{0, 1, 0.5, math.Nextafter(1, 0), 1e-300}
	for i := 0; i < len(pairs); i += 4 {
		var b slerpBatch
		var spans [4]slerpSpan
		var got, want [4]rig.Quat
		for j := range 4 {
			p := &pairs[i+j]
			spans[j] = newSpan(p.a, p.b)
			u := rnd.Float64()
			if rnd.IntN(4) == 0 {
				u = us[rnd.IntN(len(us))]
			}
			b.a[j], b.b[j], b.sp[j], b.u[j], b.dst[j] = &p.a, &p.b, &spans[j], u, &got[j]
			spans[j].slerp(&want[j], &p.a, &p.b, u)
		}
		slerp4(&b)
		for j := range 4 {
			for c := range 4 {
				if math.Float64bits(got[j][c]) != math.Float64bits(want[j][c]) {
					t.Fatalf("pair %d, u=%v: slerp4 %v, slerp %v", i+j, b.u[j], got[j], want[j])
				}
			}
		}
	}
}
