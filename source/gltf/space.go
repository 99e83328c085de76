package gltf

import (
	"fmt"
	"math"
	"strings"

	"github.com/bonebake/bonebake/anim"
	"github.com/bonebake/bonebake/rig"
)

// CheckScale says whether a model may be scaled uniformly by s: a positive,
// finite number. Scale applies it, and the command line applies it to --scale
// before any model is read.
func CheckScale(s float64) error {
	if !(s > 0) || !finite(s) {
		return fmt.Errorf("%v must be a positive number", s)
	}
	return nil
}

// Scale makes the model s times its size: every node's translation (at rest and in
// every translation key, tangents included), the inverse bind matrices'
// translations and the mesh's positions. That is the model conjugated by a uniform
// scale S, so each palette entry becomes S·G·S⁻¹ (same rotation, translation times
// s) and every skinned vertex lands at s times where it did. s must be positive
// and finite.
func (m *Model) Scale(s float64) error {
	if err := CheckScale(s); err != nil {
		return fmt.Errorf("scale %w", err)
	}
	if s == 1 {
		return nil
	}
	for i := range m.Skeleton.Rest {
		m.Skeleton.Rest[i].Translation = m.Skeleton.Rest[i].Translation.Scale(s)
	}
	for ci := range m.Clips {
		for ti := range m.Clips[ci].Tracks {
			tr := &m.Clips[ci].Tracks[ti]
			if tr.Path != anim.Translation {
				continue
			}
			vs := make([]float32, len(tr.Values)) // the accessor's floats may be shared
			for k, v := range tr.Values {
				vs[k] = float32(float64(v) * s)
			}
			tr.Values = vs
		}
	}
	for j := range m.InverseBind {
		for _, k := range [3]int{3, 7, 11} {
			m.InverseBind[j][k] *= s
		}
	}
	if m.Mesh != nil {
		for i, p := range m.Mesh.Positions {
			m.Mesh.Positions[i] = [3]float32{float32(float64(p[0]) * s), float32(float64(p[1]) * s), float32(float64(p[2]) * s)}
		}
	}
	for r := range 3 {
		for c := range 4 {
			m.MeshPlacement[r*4+c] *= s
		}
	}
	return nil
}

// WeightedJoints reports, per joint, whether some vertex of the mesh is weighted
// to it (a weight above zero). Without a mesh every joint counts as weighted.
func (m *Model) WeightedJoints() []bool {
	used := make([]bool, len(m.Joints))
	if m.Mesh == nil {
		for j := range used {
			used[j] = true
		}
		return used
	}
	for v, js := range m.Mesh.Joints {
		for k, j := range js {
			if m.Mesh.Weights[v][k] > 0 {
				used[j] = true
			}
		}
	}
	return used
}

// KeepJoints drops the joints for which keep is false from the palette: Joints,
// JointNames and InverseBind lose them and the mesh's joint indices are renumbered.
// The skeleton keeps every node (a dropped joint may still carry others). A vertex
// may keep a dropped joint only with weight zero; it is pointed at joint 0. It
// returns the names of the dropped joints.
func (m *Model) KeepJoints(keep []bool) (dropped []string, err error) {
	if len(keep) != len(m.Joints) {
		return nil, fmt.Errorf("%d flags for %d joints", len(keep), len(m.Joints))
	}
	newIndex := make([]int, len(m.Joints))
	var joints []int
	var names []string
	var ibm []rig.Mat4
	for j := range m.Joints {
		newIndex[j] = -1
		if !keep[j] {
			dropped = append(dropped, m.JointNames[j])
			continue
		}
		newIndex[j] = len(joints)
		joints = append(joints, m.Joints[j])
		names = append(names, m.JointNames[j])
		ibm = append(ibm, m.InverseBind[j])
	}
	if len(joints) == 0 {
		return nil, fmt.Errorf("no joint would be left")
	}
	if m.Mesh != nil {
		for v, js := range m.Mesh.Joints { // check every vertex before changing any
			for k, j := range js {
				if newIndex[j] < 0 && m.Mesh.Weights[v][k] > 0 {
					return nil, fmt.Errorf("vertex %d is weighted %v to dropped joint %d %q", v, m.Mesh.Weights[v][k], j, m.JointNames[j])
				}
			}
		}
		for v, js := range m.Mesh.Joints {
			for k, j := range js {
				m.Mesh.Joints[v][k] = uint16(max(newIndex[j], 0))
			}
		}
	}
	m.Joints, m.JointNames, m.InverseBind = joints, names, ibm
	return dropped, nil
}

// RestPositions returns the character's mesh skinned at the rest pose, in the
// scene's space (Σ w · G_rest(joint) · InverseBind · position): where a glTF
// viewer shows it before any animation. It is Mesh.Positions itself for a skin
// bound at its rest pose (docs/formats/gltf.md §1.2); for one bound in another
// pose it is what the size line and the viewer's framing measure. Nil without
// a mesh.
func (m *Model) RestPositions() [][3]float32 {
	if m.Mesh == nil {
		return nil
	}
	g := m.Skeleton.RestModelSpace()
	skin := make([]rig.Mat4, len(m.Joints))
	for j, b := range m.Joints {
		skin[j] = g[b].Mul(m.InverseBind[j])
	}
	out := make([][3]float32, len(m.Mesh.Positions))
	for v, p := range m.Mesh.Positions {
		pos := rig.Vec3{float64(p[0]), float64(p[1]), float64(p[2])}
		var x rig.Vec3
		for k, w := range m.Mesh.Weights[v] {
			if w != 0 {
				x = x.Add(skin[m.Mesh.Joints[v][k]].TransformPoint(pos).Scale(float64(w)))
			}
		}
		out[v] = [3]float32{float32(x[0]), float32(x[1]), float32(x[2])}
	}
	return out
}

// MergeJoints folds joints into others: into[j] is the joint whose palette entry
// joint j's vertices take (j itself keeps it). Every vertex weighted to a merged
// joint is re-weighted to its target, weights to one joint summed into one slot,
// and the merged joints leave the palette as KeepJoints drops them. A target must
// be kept itself (into[into[j]] = into[j]). It returns the merged joints' names.
func (m *Model) MergeJoints(into []int) (merged []string, err error) {
	if len(into) != len(m.Joints) {
		return nil, fmt.Errorf("%d targets for %d joints", len(into), len(m.Joints))
	}
	for j, t := range into {
		if t < 0 || t >= len(m.Joints) {
			return nil, fmt.Errorf("joint %d %q merges into joint %d, but there are %d", j, m.JointNames[j], t, len(m.Joints))
		}
		if into[t] != t {
			return nil, fmt.Errorf("joint %d %q merges into joint %d %q, which merges into joint %d itself", j, m.JointNames[j], t, m.JointNames[t], into[t])
		}
	}
	if m.Mesh != nil {
		for v := range m.Mesh.Joints {
			js, ws := &m.Mesh.Joints[v], &m.Mesh.Weights[v]
			for k := range js {
				if ws[k] > 0 {
					js[k] = uint16(into[js[k]])
				}
			}
			// One slot per joint: a vertex of a finger and its hand keeps one
			// weight on the hand.
			for k := range js {
				for l := k + 1; l < len(js); l++ {
					if ws[k] > 0 && ws[l] > 0 && js[k] == js[l] {
						ws[k] += ws[l]
						ws[l] = 0
					}
				}
			}
		}
	}
	keep := make([]bool, len(into))
	for j, t := range into {
		keep[j] = t == j
	}
	return m.KeepJoints(keep)
}

// faceTurns are the turns about +y that Face makes, by the axis the model
// faces: each takes that axis to +z, glTF's forward and the runtime's heading
// 0 (docs/runtime.md §10). Their quaternions are exact where they can be (a
// half turn swaps signs only, so its palettes are the unturned ones negated
// component by component).
var faceTurns = map[string]rig.Quat{
	"+Z": rig.IdentityQuat(),
	"-Z": {0, 1, 0, 0},                            // 180°
	"+X": {0, -math.Sqrt2 / 2, 0, math.Sqrt2 / 2}, // −90°: +x → +z
	"-X": {0, math.Sqrt2 / 2, 0, math.Sqrt2 / 2},  // +90°: −x → +z
}

// faceTurn returns the turn for face ("+z", "-z", "+x", "-x"; any case, the
// plus sign optional).
func faceTurn(face string) (rig.Quat, bool) {
	s := strings.ToUpper(strings.TrimSpace(face))
	if !strings.HasPrefix(s, "-") && !strings.HasPrefix(s, "+") {
		s = "+" + s
	}
	q, ok := faceTurns[s]
	return q, ok
}

// Unturn is where direction d of a model turned by Face(face) pointed before
// the turn (R⁻¹·d): the axis the turned model's +z was is face itself. d as it
// is for an axis CheckFace refuses.
func Unturn(face string, d rig.Vec3) rig.Vec3 {
	q, ok := faceTurn(face)
	if !ok {
		return d
	}
	return q.Conjugate().Rotate(d)
}

// CheckFace says whether face names an axis Face turns a model from: the
// horizontal axis the model faces, +z, -z, +x or -x.
func CheckFace(face string) error {
	if _, ok := faceTurn(face); !ok {
		return fmt.Errorf("%q: the horizontal axis the model faces, +z, -z, +x or -x", face)
	}
	return nil
}

// Face turns the model about +y so that the axis it faces (CheckFace) faces
// +z: every skeleton root's rest transform and animation keys (tangents
// included), so that each palette entry becomes R·G, the model-space
// transforms turned and each bone's own frame kept (sockets' offsets and
// props hold); the inverse bind matrices (IB·R⁻¹), the mesh's positions and
// normals and MeshPlacement (R·M), so that every skinned vertex lands at R
// times where it did. "+z" changes nothing.
func (m *Model) Face(face string) error {
	r, ok := faceTurn(face)
	if !ok {
		return fmt.Errorf("face %w", CheckFace(face))
	}
	if r == rig.IdentityQuat() {
		return nil
	}
	R := rig.Transform{Rotation: r, Scale: rig.Vec3{1, 1, 1}}.Matrix()
	Rinv := rig.Transform{Rotation: rig.Quat{-r[0], -r[1], -r[2], r[3]}, Scale: rig.Vec3{1, 1, 1}}.Matrix()
	sk := m.Skeleton
	for b, p := range sk.Parents {
		if p < 0 {
			sk.Rest[b].Translation = r.Rotate(sk.Rest[b].Translation)
			sk.Rest[b].Rotation = r.Mul(sk.Rest[b].Rotation)
		}
	}
	for ci := range m.Clips {
		for ti := range m.Clips[ci].Tracks {
			tr := &m.Clips[ci].Tracks[ti]
			if sk.Parents[tr.Bone] >= 0 || (tr.Path != anim.Translation && tr.Path != anim.Rotation) {
				continue
			}
			vs := make([]float32, len(tr.Values)) // the accessor's floats may be shared
			if tr.Path == anim.Translation {
				for k := 0; k+3 <= len(vs); k += 3 {
					v := r.Rotate(rig.Vec3{float64(tr.Values[k]), float64(tr.Values[k+1]), float64(tr.Values[k+2])})
					vs[k], vs[k+1], vs[k+2] = float32(v[0]), float32(v[1]), float32(v[2])
				}
			} else { // r·q is linear in q: a cubic spline's tangents turn alike
				for k := 0; k+4 <= len(vs); k += 4 {
					q := r.Mul(rig.Quat{float64(tr.Values[k]), float64(tr.Values[k+1]), float64(tr.Values[k+2]), float64(tr.Values[k+3])})
					vs[k], vs[k+1], vs[k+2], vs[k+3] = float32(q[0]), float32(q[1]), float32(q[2]), float32(q[3])
				}
			}
			tr.Values = vs
		}
	}
	for j := range m.InverseBind {
		m.InverseBind[j] = m.InverseBind[j].Mul(Rinv)
	}
	if m.Mesh != nil {
		turn := func(vs [][3]float32) {
			for i, p := range vs {
				v := r.Rotate(rig.Vec3{float64(p[0]), float64(p[1]), float64(p[2])})
				vs[i] = [3]float32{float32(v[0]), float32(v[1]), float32(v[2])}
			}
		}
		turn(m.Mesh.Positions)
		turn(m.Mesh.Normals)
	}
	m.MeshPlacement = R.Mul(m.MeshPlacement)
	return nil
}
