// Package meshgen builds low-poly skinned meshes around a skeleton for the built-in
// species: tubes and limbs along bones, ellipsoids, boxes. Every part is given in
// the skeleton's model space at the bind pose and skinned with smooth weights:
// vertices near a joint blend between the bones that meet there, with one to four
// influences per vertex, normalized and sorted by weight. Each part is a welded
// surface, so its normals (computed from the faces) are smooth; triangles wind
// counter-clockwise seen from outside, as glTF expects.
//
// A Builder collects parts; Mesh returns the finished mesh.Skinned:
//
//	var b meshgen.Builder
//	b.Tube(hip, knee, hipPos, kneePos, .08, .06, 8, 4, meshgen.RoleCloth)
//	b.Ellipsoid(head, headCentre, rig.Vec3{.09, .11, .10}, 10, 6, meshgen.RoleSkin)
//	m := b.Mesh()
package meshgen

import (
	"math"
	"sort"

	"github.com/bonebake/bonebake/mesh"
	"github.com/bonebake/bonebake/rig"
)

// Colour roles stored per vertex in mesh.Skinned.Roles; a renderer maps them to
// tints. Any uint8 is allowed; these are the ones the built-in species use.
const (
	RoleSkin    uint8 = iota // bare skin, or an animal's hide
	RoleCloth                // clothing
	RoleHair                 // hair, beard, mane, tail
	RoleMetal                // armour, helmets, buckles
	RoleLeather              // boots, belts, straps, saddlery
	RoleBone                 // bare bone (a skeleton), teeth, tusks, hooves, horn
	RoleWood                 // shafts, shields
	RoleEye                  // eyes
)

// DefaultBlend is the fraction of a segment's length over which a tube's weights
// slide from one bone to the next at a joint, when Builder.Blend is 0.
const DefaultBlend = 0.3

// Weight is one bone influence before normalization.
type Weight struct {
	Bone int
	W    float64
}

// Skin gives the influences of a bind-pose point. The builder merges repeated
// bones, drops non-positive weights, keeps the four largest and normalizes them.
type Skin func(p rig.Vec3) []Weight

// Rigid skins every point to one bone.
func Rigid(bone int) Skin {
	return func(rig.Vec3) []Weight { return []Weight{{bone, 1}} }
}

// Along blends from bone a to bone b along the segment from→to: a point that
// projects onto from is skinned half to a and half to b, and the share of b grows
// smoothly to 1 at the fraction blend of the segment's length (the joint at from is
// where a ends and b begins). Points before from count as at from. blend ≤ 0 means
// DefaultBlend; a == b, or a < 0, gives a rigid skin to b.
func Along(a, b int, from, to rig.Vec3, blend float64) Skin {
	if blend <= 0 {
		blend = DefaultBlend
	}
	if a < 0 || a == b {
		return Rigid(b)
	}
	axis := to.Sub(from)
	l2 := axis.Dot(axis)
	return func(p rig.Vec3) []Weight {
		t := 0.0
		if l2 > 0 {
			t = p.Sub(from).Dot(axis) / l2
		}
		wb := 0.5 + 0.5*rig.Smoothstep(t/blend)
		return []Weight{{b, wb}, {a, 1 - wb}}
	}
}

// Builder collects mesh parts. The zero value is ready to use.
type Builder struct {
	// Blend is the fraction of a segment over which weights slide between the
	// bones at a joint (Tube, Limb); 0 means DefaultBlend.
	Blend float64

	m mesh.Skinned
}

// part accumulates one welded surface: its vertices share normals through groups
// (a seam duplicate made for its UV belongs to the group of the vertex it copies).
type part struct {
	b      *Builder
	base   int   // index of the part's first vertex in the mesh
	group  []int // per part vertex: the part vertex whose normal it shares
	skin   Skin
	role   uint8
	smooth bool
}

func (b *Builder) begin(skin Skin, role uint8) *part {
	return &part{b: b, base: len(b.m.Positions), skin: skin, role: role, smooth: true}
}

// vertex adds a vertex and returns its part-local index; group < 0 means its own.
func (p *part) vertex(pos rig.Vec3, uv [2]float64, group int) int {
	m := &p.b.m
	i := len(p.group)
	if group < 0 {
		group = i
	}
	p.group = append(p.group, group)
	m.Positions = append(m.Positions, f32(pos))
	m.Normals = append(m.Normals, [3]float32{})
	m.UVs = append(m.UVs, [2]float32{float32(uv[0]), float32(uv[1])})
	j, w := normalizeWeights(p.skin(pos))
	m.Joints = append(m.Joints, j)
	m.Weights = append(m.Weights, w)
	m.Roles = append(m.Roles, p.role)
	return i
}

// tri adds a triangle of part-local indices, counter-clockwise seen from outside.
func (p *part) tri(a, b, c int) {
	if a == b || b == c || a == c {
		return
	}
	p.b.m.Indices = append(p.b.m.Indices, uint32(p.base+a), uint32(p.base+b), uint32(p.base+c))
}

// finish computes the part's normals: area-weighted face normals summed per group.
func (p *part) finish(firstIndex int) {
	m := &p.b.m
	acc := make([]rig.Vec3, len(p.group))
	for k := firstIndex; k+2 < len(m.Indices); k += 3 {
		ia, ib, ic := int(m.Indices[k])-p.base, int(m.Indices[k+1])-p.base, int(m.Indices[k+2])-p.base
		a, b, c := f64(m.Positions[p.base+ia]), f64(m.Positions[p.base+ib]), f64(m.Positions[p.base+ic])
		n := b.Sub(a).Cross(c.Sub(a))
		for _, i := range [3]int{ia, ib, ic} {
			g := p.group[i]
			acc[g] = acc[g].Add(n)
		}
	}
	for i, g := range p.group {
		n := acc[g].Normalize()
		m.Normals[p.base+i] = f32(n)
	}
}

// Tube adds a closed tube (with slightly domed caps) from from to to, radius
// radiusFrom at from and radiusTo at to, skinned with Along(boneA, boneB, ...):
// half to boneA and half to boneB at from (the joint where boneB leaves its parent
// boneA), fully boneB after the first Blend of its length. Pass boneA = boneB (or
// -1) for a rigid tube. sides ≥ 3 vertices around, rings ≥ 1 segments along.
func (b *Builder) Tube(boneA, boneB int, from, to rig.Vec3, radiusFrom, radiusTo float64, sides, rings int, role uint8) {
	b.TubeSkin(Along(boneA, boneB, from, to, b.Blend), from, to, radiusFrom, radiusTo, sides, rings, role)
}

// TubeSkin is Tube with any skin.
func (b *Builder) TubeSkin(skin Skin, from, to rig.Vec3, radiusFrom, radiusTo float64, sides, rings int, role uint8) {
	b.limb(skin, []rig.Vec3{from, to}, []float64{radiusFrom, radiusTo}, sides, rings, role)
}

// Limb adds one welded tube through points (at least two), with radii[i] at
// points[i]. Segment i, from points[i] to points[i+1], is skinned to bones[i]
// (len(bones) = len(points)−1); at each inner point the weights slide from one
// segment's bone to the next (half and half at the point), and at points[0] from
// parent (−1 for none) to bones[0]. ringsPerSegment ≥ 1.
func (b *Builder) Limb(parent int, bones []int, points []rig.Vec3, radii []float64, sides, ringsPerSegment int, role uint8) {
	if len(points) < 2 || len(bones) != len(points)-1 || len(radii) != len(points) {
		panic("meshgen: Limb needs len(points) ≥ 2, len(bones) = len(points)−1 and len(radii) = len(points)")
	}
	blend := b.Blend
	if blend <= 0 {
		blend = DefaultBlend
	}
	skin := func(p rig.Vec3) []Weight {
		// The segment the point belongs to: the nearest by distance to the segment.
		best, bestD, bestT := 0, math.Inf(1), 0.0
		for i := 0; i+1 < len(points); i++ {
			ax := points[i+1].Sub(points[i])
			t := rig.Clamp01(p.Sub(points[i]).Dot(ax) / math.Max(ax.Dot(ax), 1e-18))
			q := points[i].Add(ax.Scale(t))
			if d := p.Sub(q).Len(); d < bestD-1e-9 {
				best, bestD, bestT = i, d, t
			}
		}
		ws := []Weight{{bones[best], 1}}
		prev := parent
		if best > 0 {
			prev = bones[best-1]
		}
		if prev >= 0 && bestT < blend {
			w := 0.5 * (1 - rig.Smoothstep(bestT/blend))
			ws[0].W -= w
			ws = append(ws, Weight{prev, w})
		}
		if best+1 < len(bones) && bestT > 1-blend {
			w := 0.5 * (1 - rig.Smoothstep((1-bestT)/blend))
			ws[0].W -= w
			ws = append(ws, Weight{bones[best+1], w})
		}
		return ws
	}
	b.limb(skin, points, radii, sides, ringsPerSegment, role)
}

// limb builds the welded tube geometry through points.
func (b *Builder) limb(skin Skin, points []rig.Vec3, radii []float64, sides, ringsPer int, role uint8) {
	sides = max(sides, 3)
	ringsPer = max(ringsPer, 1)
	first := len(b.m.Indices)
	p := b.begin(skin, role)

	// Ring centres, directions and radii.
	type ring struct {
		c, d rig.Vec3
		r    float64
		v    float64 // UV v
	}
	var rs []ring
	total := 0.0
	for i := 0; i+1 < len(points); i++ {
		total += points[i+1].Sub(points[i]).Len()
	}
	along := 0.0
	for i := 0; i+1 < len(points); i++ {
		seg := points[i+1].Sub(points[i])
		sl := seg.Len()
		d := seg.Normalize()
		for k := 0; k < ringsPer; k++ {
			if i > 0 && k == 0 {
				continue // the joint ring was added by the previous segment
			}
			t := float64(k) / float64(ringsPer)
			rs = append(rs, ring{points[i].Add(seg.Scale(t)), d, radii[i] + (radii[i+1]-radii[i])*t, (along + sl*t) / math.Max(total, 1e-12)})
		}
		along += sl
		// The segment's end ring; at an inner joint it faces along the bisector.
		dEnd := d
		if i+2 < len(points) {
			dEnd = d.Add(points[i+2].Sub(points[i+1]).Normalize()).Normalize()
			if dEnd.Len() == 0 {
				dEnd = d
			}
		}
		rs = append(rs, ring{points[i+1], dEnd, radii[i+1], along / math.Max(total, 1e-12)})
	}

	// Frames carried along the tube without twisting.
	u := rs[0].d.Perpendicular()
	idx := make([][]int, len(rs))
	for k, r := range rs {
		u = u.Reject(r.d).Normalize()
		if u.Len() == 0 {
			u = r.d.Perpendicular()
		}
		v := r.d.Cross(u) // u × v = d
		idx[k] = make([]int, sides+1)
		for j := 0; j <= sides; j++ {
			th := 2 * math.Pi * float64(j%sides) / float64(sides)
			s, c := math.Sincos(th)
			pos := r.c.Add(u.Scale(r.r * c).Add(v.Scale(r.r * s)))
			g := -1
			if j == sides {
				g = idx[k][0]
			}
			idx[k][j] = p.vertex(pos, [2]float64{float64(j) / float64(sides), r.v}, g)
		}
	}
	for k := 0; k+1 < len(rs); k++ {
		for j := 0; j < sides; j++ {
			a, bb, c, e := idx[k][j], idx[k][j+1], idx[k+1][j+1], idx[k+1][j]
			p.tri(a, bb, c)
			p.tri(a, c, e)
		}
	}
	// Domed caps.
	r0, r1 := rs[0], rs[len(rs)-1]
	c0 := p.vertex(r0.c.Sub(r0.d.Scale(0.4*r0.r)), [2]float64{0.5, 0}, -1)
	c1 := p.vertex(r1.c.Add(r1.d.Scale(0.4*r1.r)), [2]float64{0.5, 1}, -1)
	last := len(rs) - 1
	for j := 0; j < sides; j++ {
		p.tri(c0, idx[0][j+1], idx[0][j])
		p.tri(c1, idx[last][j], idx[last][j+1])
	}
	p.finish(first)
}

// Ellipsoid adds an ellipsoid with semi-axes radii (along x, y, z) around center,
// rigidly skinned to bone; sides ≥ 3 around y, rings ≥ 2 from bottom to top.
func (b *Builder) Ellipsoid(bone int, center, radii rig.Vec3, sides, rings int, role uint8) {
	b.EllipsoidSkin(Rigid(bone), center, radii, sides, rings, role)
}

// EllipsoidSkin is Ellipsoid with any skin.
func (b *Builder) EllipsoidSkin(skin Skin, center, radii rig.Vec3, sides, rings int, role uint8) {
	sides = max(sides, 3)
	rings = max(rings, 2)
	first := len(b.m.Indices)
	p := b.begin(skin, role)
	bottom := p.vertex(center.Add(rig.Vec3{0, -radii[1], 0}), [2]float64{0.5, 0}, -1)
	idx := make([][]int, rings+1)
	for k := 1; k < rings; k++ {
		phi := -math.Pi/2 + math.Pi*float64(k)/float64(rings)
		sp, cp := math.Sincos(phi)
		idx[k] = make([]int, sides+1)
		for j := 0; j <= sides; j++ {
			th := 2 * math.Pi * float64(j%sides) / float64(sides)
			st, ct := math.Sincos(th)
			pos := center.Add(rig.Vec3{radii[0] * cp * ct, radii[1] * sp, radii[2] * cp * st})
			g := -1
			if j == sides {
				g = idx[k][0]
			}
			idx[k][j] = p.vertex(pos, [2]float64{float64(j) / float64(sides), float64(k) / float64(rings)}, g)
		}
	}
	top := p.vertex(center.Add(rig.Vec3{0, radii[1], 0}), [2]float64{0.5, 1}, -1)
	for j := 0; j < sides; j++ {
		p.tri(bottom, idx[1][j], idx[1][j+1])
		for k := 1; k+1 < rings; k++ {
			a, bb, c, e := idx[k][j], idx[k+1][j], idx[k+1][j+1], idx[k][j+1]
			p.tri(a, bb, c)
			p.tri(a, c, e)
		}
		p.tri(idx[rings-1][j], top, idx[rings-1][j+1])
	}
	p.finish(first)
}

// Box adds an axis-aligned box with half extents half around center, rigidly
// skinned to bone, with flat faces (24 vertices, 12 triangles).
func (b *Builder) Box(bone int, center, half rig.Vec3, role uint8) {
	b.BoxSkin(Rigid(bone), center, half, role)
}

// BoxSkin is Box with any skin.
func (b *Builder) BoxSkin(skin Skin, center, half rig.Vec3, role uint8) {
	axes := [3]rig.Vec3{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}
	for f := 0; f < 6; f++ {
		ax := f / 2
		sign := 1.0
		if f%2 == 1 {
			sign = -1
		}
		n := axes[ax].Scale(sign)
		a := axes[(ax+1)%3]
		c := n.Cross(a) // a × c = n
		first := len(b.m.Indices)
		p := b.begin(skin, role)
		fc := center.Add(n.Scale(half[ax]))
		ha, hc := half[(ax+1)%3], half[(ax+2)%3]
		var q [4]int
		for k, s := range [4][2]float64{{-1, -1}, {1, -1}, {1, 1}, {-1, 1}} {
			pos := fc.Add(a.Scale(s[0] * ha).Add(c.Scale(s[1] * hc)))
			q[k] = p.vertex(pos, [2]float64{(s[0] + 1) / 2, (s[1] + 1) / 2}, -1)
		}
		p.tri(q[0], q[1], q[2])
		p.tri(q[0], q[2], q[3])
		p.finish(first)
	}
}

// VertexCount is the number of vertices added so far.
func (b *Builder) VertexCount() int { return len(b.m.Positions) }

// Mesh returns a copy of the mesh built so far.
func (b *Builder) Mesh() *mesh.Skinned {
	return &mesh.Skinned{
		Positions: append([][3]float32(nil), b.m.Positions...),
		Normals:   append([][3]float32(nil), b.m.Normals...),
		UVs:       append([][2]float32(nil), b.m.UVs...),
		Joints:    append([][4]uint16(nil), b.m.Joints...),
		Weights:   append([][4]float32(nil), b.m.Weights...),
		Indices:   append([]uint32(nil), b.m.Indices...),
		Roles:     append([]uint8(nil), b.m.Roles...),
	}
}

// minWeight is the smallest influence kept; smaller ones are dropped.
const minWeight = 1e-4

// normalizeWeights merges repeated bones, drops weights below minWeight, keeps the
// four largest (ties by bone index), and scales them to sum to 1. With no positive
// weight the vertex goes to bone 0.
func normalizeWeights(ws []Weight) ([4]uint16, [4]float32) {
	merged := make([]Weight, 0, len(ws))
outer:
	for _, w := range ws {
		if w.Bone < 0 || w.Bone > math.MaxUint16 || !(w.W > 0) || math.IsInf(w.W, 0) {
			continue
		}
		for i := range merged {
			if merged[i].Bone == w.Bone {
				merged[i].W += w.W
				continue outer
			}
		}
		merged = append(merged, w)
	}
	sort.Slice(merged, func(i, j int) bool {
		if merged[i].W != merged[j].W {
			return merged[i].W > merged[j].W
		}
		return merged[i].Bone < merged[j].Bone
	})
	if len(merged) > 4 {
		merged = merged[:4]
	}
	sum := 0.0
	for _, w := range merged {
		sum += w.W
	}
	kept := merged[:0]
	for _, w := range merged {
		if w.W/sum >= minWeight {
			kept = append(kept, w)
		}
	}
	var j [4]uint16
	var out [4]float32
	if len(kept) == 0 {
		out[0] = 1
		return j, out
	}
	sum = 0
	for _, w := range kept {
		sum += w.W
	}
	var rest float32
	for i, w := range kept {
		j[i] = uint16(w.Bone)
		if i > 0 {
			out[i] = float32(w.W / sum)
			rest += out[i]
		}
	}
	out[0] = 1 - rest // the largest takes the rounding, so the sum is 1 in float32
	return j, out
}

func f32(a rig.Vec3) [3]float32 { return [3]float32{float32(a[0]), float32(a[1]), float32(a[2])} }
func f64(a [3]float32) rig.Vec3 {
	return rig.Vec3{float64(a[0]), float64(a[1]), float64(a[2])}
}
