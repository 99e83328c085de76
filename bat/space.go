package bat

import (
	"cmp"
	"slices"

	"github.com/bonebake/bonebake/rig"
)

// space is the space a bake's textures are in (docs/formats/bat.md §7): positions
// p' = s·O·p and rotations R' = O·R·Oᵀ, with O orthogonal (a rotation, or for the
// gametools preset a rotation followed by axis flips) and s the unit scale. The
// input is in the glTF scene's space: metres, y up.
type space struct {
	zUp bool       // raw and ue with --z-up: O is upRotation (handled by quaternions, as always)
	o   [9]float64 // gametools: row-major O
	s   float64
	gt  bool
}

// newSpace returns the texture space of the resolved options.
func newSpace(opt Options) space {
	if opt.Preset != GameTools {
		return space{zUp: opt.ZUp, s: unitScale(opt.Centimetres)}
	}
	g := opt.GameTools
	sign := func(neg bool) float64 {
		if neg {
			return -1
		}
		return 1
	}
	// glTF (x, y, z) is Blender's (x, −z, y); then the add-on's unit_invert_x/y/z.
	sx, sy, sz := sign(g.InvertX), sign(g.InvertY), sign(g.InvertZ)
	return space{gt: true, s: g.UnitScale, o: [9]float64{sx, 0, 0, 0, 0, -sy, 0, sz, 0}}
}

// unitScale is what raw and ue multiply metres by: 100 in centimetres.
func unitScale(cm bool) float64 {
	if cm {
		return 100
	}
	return 1
}

// dir maps a direction (no scale).
func (sp space) dir(v rig.Vec3) rig.Vec3 {
	switch {
	case sp.gt:
		o := sp.o
		return rig.Vec3{o[0]*v[0] + o[1]*v[1] + o[2]*v[2], o[3]*v[0] + o[4]*v[1] + o[5]*v[2], o[6]*v[0] + o[7]*v[1] + o[8]*v[2]}
	case sp.zUp:
		return upRotation.Rotate(v)
	}
	return v
}

// point maps a position.
func (sp space) point(p rig.Vec3) rig.Vec3 { return sp.dir(p).Scale(sp.s) }

// rotation maps a rotation: O·R·Oᵀ.
func (sp space) rotation(q rig.Quat) rig.Quat {
	switch {
	case sp.gt:
		m := q.Matrix()
		r := [9]float64{m[0], m[1], m[2], m[4], m[5], m[6], m[8], m[9], m[10]}
		var or, out [9]float64
		for i := range 3 {
			for j := range 3 {
				for k := range 3 {
					or[i*3+j] += sp.o[i*3+k] * r[k*3+j]
				}
			}
		}
		for i := range 3 {
			for j := range 3 {
				for k := range 3 {
					out[i*3+j] += or[i*3+k] * sp.o[j*3+k]
				}
			}
		}
		return rig.QuatFromMat3(out)
	case sp.zUp:
		return upRotation.Mul(q).Mul(upRotation.Conjugate())
	}
	return q
}

// rigid splits a model-space matrix into translation and rotation, dropping
// scale (§3), in the texture space.
func rigid(m rig.Mat4, sp space) bone {
	t, _ := rig.Decompose(m)
	return bone{sp.point(t.Translation), sp.rotation(t.Rotation.Normalize())}
}

// influenceOrder returns the order of vertex k's influences, most influential
// first (stable among equal weights), as the skin texture stores them (§5).
func influenceOrder(w [4]float32) [4]int {
	order := []int{0, 1, 2, 3}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(w[b], w[a]) })
	return [4]int(order)
}

// columns returns the joint of each texture column and each joint's column (−1
// for none): every joint in palette order, or with addon the joints that carry
// weight in the order the add-on meets them, vertex after vertex, each vertex's
// influences most influential first (§2).
func columns(in *Input, addon bool) (cols, colOf []int) {
	colOf = make([]int, in.Bones)
	if !addon {
		for j := range in.Bones {
			cols = append(cols, j)
			colOf[j] = j
		}
		return cols, colOf
	}
	for j := range colOf {
		colOf[j] = -1
	}
	m := in.Mesh
	for k := range m.VertexCount() {
		for _, i := range influenceOrder(m.Weights[k]) {
			if j := int(m.Joints[k][i]); m.Weights[k][i] > 0 && colOf[j] < 0 {
				colOf[j] = len(cols)
				cols = append(cols, j)
			}
		}
	}
	return cols, colOf
}

// addonStack lists, as stack does, the palette frame of each row in the add-on's
// layout (§2): the reference row (ref: a frame of the stack, or −1 for the bind
// pose), with RefPadding the stack's last frame, each clip with padding rows
// (its last frame before it, its first after it, per PaddingMode), and with
// RefPadding the stack's first frame.
func addonStack(in *Input, g *AddonSettings, padding int) (src, first []int, ref int) {
	total := 0
	for _, c := range in.Clips {
		total += c.FrameCount
	}
	switch g.Reference {
	case RefStart:
		ref = 0
	case RefEnd:
		ref = total - 1
	default:
		ref = -1
	}
	src = []int{ref}
	if g.RefPadding {
		src = append(src, total-1)
	}
	f0 := 0
	for _, c := range in.Clips {
		if g.PaddingMode != PadSuffix {
			for range padding {
				src = append(src, f0+c.FrameCount-1)
			}
		}
		first = append(first, len(src))
		for f := range c.FrameCount {
			src = append(src, f0+f)
		}
		if g.PaddingMode != PadPrefix {
			for range padding {
				src = append(src, f0)
			}
		}
		f0 += c.FrameCount
	}
	if g.RefPadding {
		src = append(src, 0)
	}
	return src, first, ref
}

// ToScene is the linear map (row-major 3×3) from the report's texture space back
// to the glTF scene's (metres, y up): what a renderer that places the decoded
// vertices in a y-up, metre world applies last. It is (s·O)⁻¹ = Oᵀ/s for the
// gametools preset, the inverse of the +90° turn after --z-up, else identity.
func (r *Report) ToScene() [9]float64 {
	switch {
	case r.Preset == string(GameTools) && r.GameTools != nil:
		g := r.GameTools
		sp := newSpace(Options{Preset: GameTools, GameTools: &AddonSettings{UnitScale: g.UnitScale, InvertX: g.Invert[0], InvertY: g.Invert[1], InvertZ: g.Invert[2]}})
		var m [9]float64
		for i := range 3 {
			for j := range 3 {
				m[i*3+j] = sp.o[j*3+i] / sp.s
			}
		}
		return m
	}
	m := [9]float64{1, 0, 0, 0, 1, 0, 0, 0, 1}
	if r.Up == "z" {
		u := upRotation.Conjugate().Matrix()
		m = [9]float64{u[0], u[1], u[2], u[4], u[5], u[6], u[8], u[9], u[10]}
	}
	s := unitScale(r.Units == UnitsCM)
	for i := range m {
		m[i] /= s
	}
	return m
}

// FromScene is ToScene's inverse: it takes a point of the scene (where the
// mesh is) into the textures' space.
func (r *Report) FromScene() [9]float64 {
	m := r.ToScene()
	inv, _ := rig.Mat4{m[0], m[1], m[2], 0, m[3], m[4], m[5], 0, m[6], m[7], m[8], 0, 0, 0, 0, 1}.Inverse()
	return [9]float64{inv[0], inv[1], inv[2], inv[4], inv[5], inv[6], inv[8], inv[9], inv[10]}
}

// RadiansPerUnit is what one unit of a stored axis-angle angle is in radians
// (2π for the gametools preset's turns).
func (t TextureInfo) RadiansPerUnit() float64 { return 1 / angleScale(t.AngleUnit) }

// reportSpace is the texture space a report describes (§7).
func reportSpace(r *Report) space {
	if g := r.GameTools; g != nil {
		d := AddonSettings{UnitScale: g.UnitScale, InvertX: g.Invert[0], InvertY: g.Invert[1], InvertZ: g.Invert[2]}
		return newSpace(Options{Preset: GameTools, GameTools: &d})
	}
	return space{zUp: r.Up == "z", s: unitScale(r.Units == UnitsCM)}
}
