// A model's transforms (docs/formats/fbx.md §6–§8): FBX's transform rule
// (local, inherit), the rest and sampled locals in bonebake's units and axes
// (localAt, convert), the global rest matrix and the geometric transform.

package fbx

import (
	"math"

	"github.com/bonebake/bonebake/rig"
)

// rotationOrders are FBX's EulerOrder values, as the order the rotations
// apply in (0 eEulerXYZ: X first, so R = Rz·Ry·Rx).
var rotationOrders = [...]string{"XYZ", "XZY", "YZX", "YXZ", "ZXY", "ZYX", "XYZ"}

// euler returns the rotation of angles (degrees) applied in order.
func euler(deg [3]float64, order string) rig.Quat {
	q := rig.IdentityQuat()
	for _, c := range order {
		i := int(c - 'X')
		var axis rig.Vec3
		axis[i] = 1
		q = rig.QuatFromAxisAngle(axis, deg[i]*math.Pi/180).Mul(q)
	}
	return q
}

// trs are the animatable values of a model at one time.
type trs struct{ t, r, s [3]float64 }

func (m *model) static() trs {
	return trs{t: m.props.Vec3("Lcl Translation", [3]float64{}), r: m.props.Vec3("Lcl Rotation", [3]float64{}), s: m.props.Vec3("Lcl Scaling", [3]float64{1, 1, 1})}
}

func (m *model) order() string {
	o := m.props.Int("RotationOrder", 0)
	if o < 0 || int(o) >= len(rotationOrders) {
		o = 0
	}
	return rotationOrders[o]
}

// local applies FBX's transform rule (§7) to v, in the file's units:
//
//	L = T · Roff · Rp · Rpre · R · Rpost⁻¹ · Rp⁻¹ · Soff · Sp · S · Sp⁻¹
//
// The pivots and offsets only translate, so L is exactly the TRS of
// translation L·0, rotation Rpre·R·Rpost⁻¹ and scale S.
func (m *model) local(v trs) rig.Transform {
	zero := [3]float64{}
	roff, rp := m.props.Vec3("RotationOffset", zero), m.props.Vec3("RotationPivot", zero)
	soff, sp := m.props.Vec3("ScalingOffset", zero), m.props.Vec3("ScalingPivot", zero)
	pre := euler(m.props.Vec3("PreRotation", zero), "XYZ")
	post := euler(m.props.Vec3("PostRotation", zero), "XYZ")
	q := pre.Mul(euler(v.r, m.order())).Mul(post.Conjugate()).Normalize()
	var inner rig.Vec3
	for i := range 3 {
		inner[i] = -rp[i] + soff[i] + sp[i] - v.s[i]*sp[i]
	}
	t := q.Rotate(inner)
	for i := range 3 {
		t[i] += v.t[i] + roff[i] + rp[i]
	}
	return rig.Transform{Translation: t, Rotation: q, Scale: rig.Vec3(v.s)}
}

func uniform(s rig.Vec3) bool {
	tol := 1e-6 * max(math.Abs(s[0]), 1e-30)
	return math.Abs(s[0]-s[1]) <= tol && math.Abs(s[0]-s[2]) <= tol
}

// inherit folds a model's InheritType into its local transform (§7), given
// its parent's local scale: RSrs (1) is the rule every transform follows; Rrs
// (2) does not take the parent's local scale into its own rotation and scale
// (its position still follows it), which for a uniform parent scale is its
// scale divided by the parent's; RrSs (0) differs from RSrs only under
// non-uniform scale. What cannot be represented is refused.
func (s *scene) inherit(m *model, l rig.Transform, parentScale rig.Vec3) (rig.Transform, error) {
	switch m.props.Int("InheritType", 1) {
	case 2:
		if parentScale == (rig.Vec3{1, 1, 1}) {
			return l, nil
		}
		if !uniform(parentScale) || parentScale[0] == 0 {
			return l, s.fail(RuleInherit, "model %q does not inherit its parent's scale (InheritType 2, Rrs), which is not uniform (%v): such a transform is no translation, rotation and scale", m.obj.Name, parentScale)
		}
		// Its position still moves with the parent's scale (the SDK's rule,
		// and three.js's: global T = parent global · local T); only its
		// rotation and scale leave the parent's local scale out.
		l.Scale = l.Scale.Scale(1 / parentScale[0])
	case 0:
		if !uniform(parentScale) {
			return l, s.fail(RuleInherit, "model %q inherits as RrSs (InheritType 0) from a parent of non-uniform scale %v: not supported", m.obj.Name, parentScale)
		}
	}
	return l, nil
}

// parentScale is m's parent's local scale: from the sampled values when the
// parent is animated, else its static Lcl Scaling.
func parentScale(m *model, sampled map[*model]trs) rig.Vec3 {
	if m.parent == nil {
		return rig.Vec3{1, 1, 1}
	}
	if v, ok := sampled[m.parent]; ok {
		return rig.Vec3(v.s)
	}
	return rig.Vec3(m.parent.static().s)
}

// fitsFloat32 says whether a transform's values stay finite as float32s
// (a cubic curve's slopes can carry a value far past its keys).
func fitsFloat32(l rig.Transform) bool {
	for _, v := range [][]float64{l.Translation[:], l.Rotation[:], l.Scale[:]} {
		for _, x := range v {
			if math.Abs(x) > math.MaxFloat32 {
				return false
			}
		}
	}
	return true
}

func (s *scene) localAt(m *model, v trs, ps rig.Vec3) (rig.Transform, error) {
	l, err := s.inherit(m, m.local(v), ps)
	if err != nil {
		return l, err
	}
	if !l.IsFinite() || !fitsFloat32(l) {
		return l, s.fail(RuleTransform, "model %q's transform is not finite in float32, which clips store (%v)", m.obj.Name, l)
	}
	return l, nil
}

// convert takes a local transform in the file's units and axes to
// bonebake's (§6): translations in metres; a root also turned to +Y up.
func (s *scene) convert(l rig.Transform, root bool) rig.Transform {
	l.Translation = l.Translation.Scale(s.scale)
	if root {
		l.Translation = s.axis.Rotate(l.Translation)
		l.Rotation = s.axis.Mul(l.Rotation).Normalize()
	}
	return l
}

// convertGlobal takes a global matrix in the file's units and axes to
// bonebake's (§6): conv · g · unit⁻¹, the rotation and unit on the left and
// the unit taken back out on the right, as convert does to the roots' locals.
func (s *scene) convertGlobal(g rig.Mat4) rig.Mat4 {
	for r := range 3 {
		g[r*4+3] *= s.scale
	}
	return s.axis.Matrix().Mul(g)
}

// fileGlobal is m's global rest matrix in the file's units and axes.
func (s *scene) fileGlobal(m *model) (rig.Mat4, error) {
	g := rig.IdentityMat4()
	for x := m; x != nil; x = x.parent {
		l, err := s.localAt(x, x.static(), parentScale(x, nil))
		if err != nil {
			return g, err
		}
		g = l.Matrix().Mul(g)
	}
	return g, nil
}

// geometric is a model's geometric transform (§8): it moves the geometry
// without moving the model's children.
func geometric(m *model) rig.Mat4 {
	zero := [3]float64{}
	t := rig.Transform{
		Translation: rig.Vec3(m.props.Vec3("GeometricTranslation", zero)),
		Rotation:    euler(m.props.Vec3("GeometricRotation", zero), "XYZ"),
		Scale:       rig.Vec3(m.props.Vec3("GeometricScaling", [3]float64{1, 1, 1})),
	}
	return t.Matrix()
}
