// What retargeting a clip file needs (docs/formats/gltf.md §7): the roots'
// tracks mapped under the character's parents and scaled by the legs' lengths
// (rootMap, hipHeights), and the character's size the fit is measured against.

package gltfbake

import (
	"math"

	"github.com/bonebake/bonebake/anim"
	"github.com/bonebake/bonebake/rig"
	"github.com/bonebake/bonebake/source/gltf"
)

// rootMap takes a root joint's local rotation and translation from under its
// parent in the clip file (global rest Pk) to under its parent in the character
// (Pc) so that it lands at the same place in the scene, its position there
// scaled by ratio: t' = Pc⁻¹·(ratio·Pk·t), q' = Rc⁻¹·Rk·q.
type rootMap struct {
	identity bool
	lin      rig.Mat4 // the linear part for translations (offset in [3], [7], [11])
	q        rig.Quat
}

func newRootMap(pc, pk rig.Mat4, ratio float64) rootMap {
	inv, ok := pc.Inverse()
	if !ok {
		inv = rig.IdentityMat4()
	}
	lin := inv.Mul(rig.Mat4{ratio, 0, 0, 0, 0, ratio, 0, 0, 0, 0, ratio, 0, 0, 0, 0, 1}.Mul(pk))
	tc, _ := rig.Decompose(pc)
	tk, _ := rig.Decompose(pk)
	rm := rootMap{lin: lin, q: tc.Rotation.Conjugate().Mul(tk.Rotation).Normalize()}
	rm.identity = sameMat(lin, rig.IdentityMat4(), 1e-9) && math.Abs(math.Abs(rm.q[3])-1) < 1e-12
	return rm
}

// apply maps a root track's values, cubic-spline tangents by the linear part
// alone (they are derivatives). The accessor's floats may be shared: it copies.
func (rm rootMap) apply(path anim.Path, ip anim.Interpolation, vs []float32) []float32 {
	if rm.identity {
		return vs
	}
	width := 3
	if path == anim.Rotation {
		width = 4
	}
	out := make([]float32, len(vs))
	for e := 0; e+width <= len(vs); e += width {
		tangent := ip == anim.CubicSpline && (e/width)%3 != 1
		if path == anim.Rotation {
			q := rm.q.Mul(rig.Quat{float64(vs[e]), float64(vs[e+1]), float64(vs[e+2]), float64(vs[e+3])})
			for k := range 4 {
				out[e+k] = float32(q[k])
			}
			continue
		}
		v := rig.Vec3{float64(vs[e]), float64(vs[e+1]), float64(vs[e+2])}
		if tangent {
			v = rm.lin.TransformVector(v)
		} else {
			v = rm.lin.TransformPoint(v)
		}
		for k := range 3 {
			out[e+k] = float32(v[k])
		}
	}
	return out
}

// scaled returns vs times k, in a new slice: the accessor's floats may be shared.
func scaled(vs []float32, k float64) []float32 {
	out := make([]float32, len(vs))
	for i, v := range vs {
		out[i] = float32(float64(v) * k)
	}
	return out
}

func sameMat(a, b rig.Mat4, tol float64) bool {
	for i := range a {
		if math.Abs(a[i]-b[i]) > tol {
			return false
		}
	}
	return true
}

// hipHeights measures the leg under root joint b in both skeletons: the
// lengths, bone by bone in scene units, of the chain from b down to the
// lowest joint (at the character's rest) whose chain is in both files. Lengths
// rather than heights, because a clip file's rest is often its first frame,
// crouched or mid-stride.
func hipHeights(m *gltf.Model, cf *gltf.ClipFile, b int, nodeOf []int, charRest []rig.Mat4) (charLen, clipLen float64, ok bool) {
	skel := m.Skeleton
	lowest, lowY := -1, math.Inf(1)
	for _, j := range m.Joints {
		if j == b || nodeOf[j] < 0 {
			continue
		}
		below := false
		for x := j; x >= 0; x = skel.Parents[x] {
			if x == b {
				below = true
				break
			}
			if nodeOf[x] < 0 {
				break
			}
		}
		if y := charRest[j].Translation()[1]; below && y < lowY {
			lowest, lowY = j, y
		}
	}
	if lowest < 0 {
		return 0, 0, false
	}
	for x := lowest; x != b; x = skel.Parents[x] {
		p := skel.Parents[x]
		charLen += charRest[x].Translation().Sub(charRest[p].Translation()).Len()
		n, q := nodeOf[x], nodeOf[p]
		clipLen += cf.RestGlobal(n).Translation().Sub(cf.RestGlobal(q).Translation()).Len()
	}
	return charLen, clipLen, charLen > 0 && clipLen > 0
}

// jointsSize is the largest side of the box around the joints at rest: the
// character's size, which the fit tolerance is relative to.
func jointsSize(m *gltf.Model, rest []rig.Mat4) float64 {
	lo := rig.Vec3{math.Inf(1), math.Inf(1), math.Inf(1)}
	hi := lo.Scale(-1)
	for _, j := range m.Joints {
		p := rest[j].Translation()
		for k := range 3 {
			lo[k], hi[k] = min(lo[k], p[k]), max(hi[k], p[k])
		}
	}
	e := hi.Sub(lo)
	return max(e[0], e[1], e[2])
}

// uniformScale is the scale a transform applies to lengths: the cube root of
// its linear part's determinant (an armature is scaled alike on every axis).
func uniformScale(g rig.Mat4) float64 {
	return math.Cbrt(math.Abs(g.Determinant()))
}
