package gltfref

import (
	"fmt"
	"math"
)

// Animations lists the file's animations in file order.
func (d *Doc) Animations() []Animation {
	out := make([]Animation, len(d.anims))
	for i, a := range d.anims {
		out[i] = Animation{Name: a.name, Start: a.start, Duration: a.duration}
	}
	return out
}

// JointCount is the number of joints of skin `skin`.
func (d *Doc) JointCount(skin int) int { return len(d.skin(skin).joints) }

// JointNames are the names of skin `skin`'s joint nodes, in joint order.
func (d *Doc) JointNames(skin int) []string {
	sk := d.skin(skin)
	out := make([]string, len(sk.joints))
	for i, j := range sk.joints {
		out[i] = d.nodes[j].name
	}
	return out
}

// InverseBind returns skin `skin`'s inverse bind matrices, row-major, in joint order
// (identity for every joint when the skin has none).
func (d *Doc) InverseBind(skin int) [][16]float64 {
	return append([][16]float64(nil), d.skin(skin).ibm...)
}

// MeshNode is the first node (in node index order) whose skin is `skin`, or -1.
func (d *Doc) MeshNode(skin int) int {
	d.skin(skin)
	for i, n := range d.nodes {
		if n.skin == skin {
			return i
		}
	}
	return -1
}

// Palette returns, for every joint j of skin `skin`, G(joint_j), row-major, where G is
// a node's global (scene) transform with every node's local transform animated by
// animation `anim` at time t seconds (anim = -1: the rest pose). This is where the
// glTF spec puts a joint: a skinned vertex lands at Σ w · G(joint_j) · IBM_j · v,
// whatever the transform of the node that holds the mesh.
//
// A node with a "matrix" uses it as its local transform; the spec forbids animating
// such a node, and channels that try are ignored. Panics on an out-of-range skin or
// animation index.
func (d *Doc) Palette(skin, anim int, t float64) [][16]float64 {
	sk := d.skin(skin)
	if anim < -1 || anim >= len(d.anims) {
		panic(fmt.Sprintf("gltfref: animation %d out of range (the file has %d)", anim, len(d.anims)))
	}
	local := d.localMatrices(anim, t)
	out := make([][16]float64, len(sk.joints))
	for i, j := range sk.joints {
		out[i] = d.global(local, j)
	}
	return out
}

// Node returns the index of the first node called name, or -1.
func (d *Doc) Node(name string) int {
	for i, n := range d.nodes {
		if n.name == name {
			return i
		}
	}
	return -1
}

// Global returns node n's global (scene) transform, row-major, with every node
// animated by animation anim at time t seconds (anim = -1: the rest pose). It
// needs no skin: a file holding only an animation and its nodes evaluates too.
// Panics on an out-of-range node or animation index.
func (d *Doc) Global(n, anim int, t float64) [16]float64 {
	if anim < -1 || anim >= len(d.anims) {
		panic(fmt.Sprintf("gltfref: animation %d out of range (the file has %d)", anim, len(d.anims)))
	}
	return d.global(d.localMatrices(anim, t), n)
}

func (d *Doc) skin(i int) *skin {
	if i < 0 || i >= len(d.skins) {
		panic(fmt.Sprintf("gltfref: skin %d out of range (the file has %d)", i, len(d.skins)))
	}
	return &d.skins[i]
}

// global multiplies the local matrices from the root down to node n.
func (d *Doc) global(local [][16]float64, n int) [16]float64 {
	g := local[n]
	for p := d.parent[n]; p != -1; p = d.parent[p] {
		g = mul(local[p], g)
	}
	return g
}

// localMatrices evaluates every node's local transform at time t of animation anim.
func (d *Doc) localMatrices(anim int, t float64) [][16]float64 {
	type trs struct {
		t, s [3]float64
		r    [4]float64
	}
	pose := make([]trs, len(d.nodes))
	for i, n := range d.nodes {
		pose[i] = trs{t: n.t, r: n.r, s: n.s}
	}
	if anim >= 0 {
		for _, ch := range d.anims[anim].channels {
			v := sample(&ch, t)
			p := &pose[ch.node]
			switch ch.path {
			case pathTranslation:
				copy(p.t[:], v)
			case pathRotation:
				copy(p.r[:], v)
			case pathScale:
				copy(p.s[:], v)
			}
		}
	}
	out := make([][16]float64, len(d.nodes))
	for i, n := range d.nodes {
		if n.matrix != nil {
			out[i] = *n.matrix
		} else {
			out[i] = composeTRS(pose[i].t, pose[i].r, pose[i].s)
		}
	}
	return out
}

// sample evaluates a channel at time t: the first value before the first key, the
// last after the last key, otherwise STEP, LINEAR (slerp for rotations) or
// CUBICSPLINE between the two keys around t. Rotations come back normalized.
func sample(ch *channel, t float64) []float64 {
	n := len(ch.times)
	value := func(k int) []float64 {
		if ch.interp == interpCubic {
			return ch.values[3*k+1]
		}
		return ch.values[k]
	}
	var out []float64
	switch {
	case t <= ch.times[0]:
		out = value(0)
	case t >= ch.times[n-1]:
		out = value(n - 1)
	default:
		k := 0
		for k+1 < n && ch.times[k+1] <= t {
			k++
		}
		t0, t1 := ch.times[k], ch.times[k+1]
		td := t1 - t0
		u := (t - t0) / td
		switch ch.interp {
		case interpStep:
			out = value(k)
		case interpLinear:
			if ch.path == pathRotation {
				out = slerp(value(k), value(k+1), u)
			} else {
				out = lerpVec(value(k), value(k+1), u)
			}
		case interpCubic:
			v0 := ch.values[3*k+1]
			b0 := ch.values[3*k+2]   // out-tangent of key k
			a1 := ch.values[3*(k+1)] // in-tangent of key k+1
			v1 := ch.values[3*(k+1)+1]
			u2, u3 := u*u, u*u*u
			h00 := 2*u3 - 3*u2 + 1
			h10 := u3 - 2*u2 + u
			h01 := -2*u3 + 3*u2
			h11 := u3 - u2
			out = make([]float64, len(v0))
			for i := range out {
				out[i] = h00*v0[i] + h10*td*b0[i] + h01*v1[i] + h11*td*a1[i]
			}
		}
	}
	out = append([]float64(nil), out...)
	if ch.path == pathRotation {
		out = normalize4(out)
	}
	return out
}

func lerpVec(a, b []float64, u float64) []float64 {
	out := make([]float64, len(a))
	for i := range out {
		out[i] = a[i] + (b[i]-a[i])*u
	}
	return out
}

// slerp interpolates two rotation quaternions (x, y, z, w) on the shortest arc by
// the glTF 2.0 formula
//
//	a = acos(|dot|), s = sign(dot)
//	q = sin(a(1−u))/sin(a) · q0 + s · sin(a·u)/sin(a) · q1
//
// falling back to a normalized lerp when the two are nearly parallel. Both keys are
// normalized first (files store keys slightly off unit length and the formula is
// for unit quaternions); the result is normalized too.
func slerp(q0, q1 []float64, u float64) []float64 {
	a, b := normalize4(q0), normalize4(q1)
	dot := a[0]*b[0] + a[1]*b[1] + a[2]*b[2] + a[3]*b[3]
	s := 1.0
	if dot < 0 {
		s, dot = -1, -dot
	}
	if dot > 1-1e-9 {
		out := make([]float64, 4)
		for i := range out {
			out[i] = a[i]*(1-u) + s*b[i]*u
		}
		return normalize4(out)
	}
	ang := math.Acos(dot)
	sa := math.Sin(ang)
	w0 := math.Sin(ang*(1-u)) / sa
	w1 := s * math.Sin(ang*u) / sa
	out := make([]float64, 4)
	for i := range out {
		out[i] = w0*a[i] + w1*b[i]
	}
	return normalize4(out)
}

func normalize4(q []float64) []float64 {
	l := math.Sqrt(q[0]*q[0] + q[1]*q[1] + q[2]*q[2] + q[3]*q[3])
	if l == 0 {
		return []float64{0, 0, 0, 1}
	}
	return []float64{q[0] / l, q[1] / l, q[2] / l, q[3] / l}
}

// --- row-major 4×4 matrices ----------------------------------------------------------

func identity() [16]float64 {
	return [16]float64{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}
}

func transpose(m [16]float64) [16]float64 {
	var o [16]float64
	for r := 0; r < 4; r++ {
		for c := 0; c < 4; c++ {
			o[r*4+c] = m[c*4+r]
		}
	}
	return o
}

func mul(a, b [16]float64) [16]float64 {
	var o [16]float64
	for r := 0; r < 4; r++ {
		for c := 0; c < 4; c++ {
			var s float64
			for k := 0; k < 4; k++ {
				s += a[r*4+k] * b[k*4+c]
			}
			o[r*4+c] = s
		}
	}
	return o
}

// composeTRS builds T · R · S for translation t, rotation quaternion r (x, y, z, w;
// normalized here) and scale s.
func composeTRS(t [3]float64, r [4]float64, s [3]float64) [16]float64 {
	q := normalize4(r[:])
	x, y, z, w := q[0], q[1], q[2], q[3]
	rot := [3][3]float64{
		{1 - 2*(y*y+z*z), 2 * (x*y - z*w), 2 * (x*z + y*w)},
		{2 * (x*y + z*w), 1 - 2*(x*x+z*z), 2 * (y*z - x*w)},
		{2 * (x*z - y*w), 2 * (y*z + x*w), 1 - 2*(x*x+y*y)},
	}
	var m [16]float64
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			m[i*4+j] = rot[i][j] * s[j]
		}
		m[i*4+3] = t[i]
	}
	m[15] = 1
	return m
}

// inverse inverts a general 4×4 matrix by Gauss-Jordan elimination with partial
// pivoting. A singular matrix gives non-finite entries.
func inverse(m [16]float64) [16]float64 {
	a := m
	inv := identity()
	for c := 0; c < 4; c++ {
		p := c
		for r := c + 1; r < 4; r++ {
			if math.Abs(a[r*4+c]) > math.Abs(a[p*4+c]) {
				p = r
			}
		}
		if p != c {
			for k := 0; k < 4; k++ {
				a[c*4+k], a[p*4+k] = a[p*4+k], a[c*4+k]
				inv[c*4+k], inv[p*4+k] = inv[p*4+k], inv[c*4+k]
			}
		}
		piv := a[c*4+c]
		for k := 0; k < 4; k++ {
			a[c*4+k] /= piv
			inv[c*4+k] /= piv
		}
		for r := 0; r < 4; r++ {
			if r == c {
				continue
			}
			f := a[r*4+c]
			if f == 0 {
				continue
			}
			for k := 0; k < 4; k++ {
				a[r*4+k] -= f * a[c*4+k]
				inv[r*4+k] -= f * inv[c*4+k]
			}
		}
	}
	return inv
}

// FrameTimes lists the sample times of a clip of duration seconds baked at fps frames
// per second (docs/formats/bpat.md §5): a looping clip has N = max(1, round(D·F)) frames at
// t_f = f·D/N (the end equals the start and is not stored); a one-shot clip has
// N = max(1, round(D·F)) + 1 frames at t_f = f·D/(N−1), the last one at D.
// A product D·F that is not a positive finite number counts as 0.
func FrameTimes(duration, fps float64, loops bool) []float64 {
	p := duration * fps
	if !(p > 0) || math.IsInf(p, 0) {
		p = 0
	}
	n := int(math.Max(1, math.Round(p)))
	if !loops {
		n++
	}
	out := make([]float64, n)
	for f := range out {
		if loops {
			out[f] = float64(f) * duration / float64(n)
		} else {
			out[f] = float64(f) * duration / float64(n-1)
		}
	}
	if !loops {
		out[n-1] = duration
	}
	return out
}

// MeshOf is the mesh node n draws, or -1.
func (d *Doc) MeshOf(n int) int { return d.nodes[n].mesh }

// SkinOf is the skin node n is skinned by, or -1.
func (d *Doc) SkinOf(n int) int { return d.nodes[n].skin }

// Parent is node n's parent, or -1.
func (d *Doc) Parent(n int) int { return d.parent[n] }

// Vertices returns where the glTF spec puts every vertex of node n's mesh (its
// primitives one after another) with animation anim at time t (anim = -1: the
// rest pose), in the scene's space. A node with a skin: Σ w · G(joint) · IBM · v,
// the node's own transform ignored, with the weights divided by their sum as
// glTF loaders do (a vertex with no weight is bound to joint 0). A node without
// one: G(n) · v.
func (d *Doc) Vertices(n, anim int, t float64) ([][3]float64, error) {
	if mi := d.nodes[n].mesh; mi < 0 || mi >= len(d.meshes) {
		return nil, fmt.Errorf("node %d has no mesh (%d of %d)", n, mi, len(d.meshes))
	}
	local := d.localMatrices(anim, t)
	var out [][3]float64
	for pi, p := range d.meshes[d.nodes[n].mesh].Primitives {
		pos, err := d.attribute(p.Attributes, "POSITION", false)
		if err != nil {
			return nil, fmt.Errorf("primitive %d: %w", pi, err)
		}
		if d.nodes[n].skin < 0 {
			g := d.global(local, n)
			for _, v := range pos {
				out = append(out, apply(g, v))
			}
			continue
		}
		sk := d.skin(d.nodes[n].skin)
		joints, err := d.attribute(p.Attributes, "JOINTS_0", false)
		if err != nil {
			return nil, fmt.Errorf("primitive %d: %w", pi, err)
		}
		weights, err := d.attribute(p.Attributes, "WEIGHTS_0", true)
		if err != nil {
			return nil, fmt.Errorf("primitive %d: %w", pi, err)
		}
		if len(joints) != len(pos) || len(weights) != len(pos) {
			return nil, fmt.Errorf("primitive %d: %d positions, %d joints, %d weights", pi, len(pos), len(joints), len(weights))
		}
		for v := range pos {
			sum := 0.0
			for _, w := range weights[v] {
				sum += w
			}
			var x [3]float64
			if sum == 0 {
				out = append(out, apply(mul(d.global(local, sk.joints[0]), sk.ibm[0]), pos[v]))
				continue
			}
			for k, w := range weights[v] {
				if w == 0 {
					continue
				}
				j := int(joints[v][k])
				if j < 0 || j >= len(sk.joints) {
					return nil, fmt.Errorf("primitive %d vertex %d: joint %d out of range", pi, v, j)
				}
				y := apply(mul(d.global(local, sk.joints[j]), sk.ibm[j]), pos[v])
				for c := range 3 {
					x[c] += w / sum * y[c]
				}
			}
			out = append(out, x)
		}
	}
	return out, nil
}

// attribute reads a primitive's attribute, or fails when it has none.
func (d *Doc) attribute(attrs map[string]int, name string, normalize bool) ([][]float64, error) {
	a, ok := attrs[name]
	if !ok {
		return nil, fmt.Errorf("no %s", name)
	}
	return d.rd.accessor(a, normalize)
}

// apply is m · (v, 1).
func apply(m [16]float64, v []float64) [3]float64 {
	var out [3]float64
	for r := range 3 {
		out[r] = m[r*4]*v[0] + m[r*4+1]*v[1] + m[r*4+2]*v[2] + m[r*4+3]
	}
	return out
}

// NodeCount is how many nodes the file has.
func (d *Doc) NodeCount() int { return len(d.nodes) }

// Triangles returns the triangles of node n's mesh as indices into what
// Vertices returns (its primitives one after another): each primitive's
// indices, or 0, 1, 2, … without them. Primitives of other modes than
// TRIANGLES (4, the default) are refused.
func (d *Doc) Triangles(n int) ([][3]int, error) {
	if mi := d.nodes[n].mesh; mi < 0 || mi >= len(d.meshes) {
		return nil, fmt.Errorf("node %d has no mesh (%d of %d)", n, mi, len(d.meshes))
	}
	var out [][3]int
	base := 0
	for pi, p := range d.meshes[d.nodes[n].mesh].Primitives {
		if p.Mode != nil && *p.Mode != 4 {
			return nil, fmt.Errorf("primitive %d: mode %d, not TRIANGLES", pi, *p.Mode)
		}
		pos, err := d.attribute(p.Attributes, "POSITION", false)
		if err != nil {
			return nil, fmt.Errorf("primitive %d: %w", pi, err)
		}
		var idx []int
		if p.Indices != nil {
			rows, err := d.rd.accessor(*p.Indices, false)
			if err != nil {
				return nil, fmt.Errorf("primitive %d indices: %w", pi, err)
			}
			for _, r := range rows {
				idx = append(idx, int(r[0]))
			}
		} else {
			for i := range pos {
				idx = append(idx, i)
			}
		}
		for i := 0; i+2 < len(idx); i += 3 {
			t := [3]int{base + idx[i], base + idx[i+1], base + idx[i+2]}
			for _, v := range t {
				if v < base || v >= base+len(pos) {
					return nil, fmt.Errorf("primitive %d: index %d out of range (%d vertices)", pi, v-base, len(pos))
				}
			}
			out = append(out, t)
		}
		base += len(pos)
	}
	return out, nil
}
