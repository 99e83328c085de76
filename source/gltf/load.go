// Package gltf turns a glTF 2.0 file (.gltf with external or data-URI buffers, or
// .glb) into bonebake's editable data: a rig.Skeleton holding every node a skin's
// palette depends on, the skin's joints and inverse bind matrices, the animations as
// anim.Clips retargeted to that skeleton, and the skinned mesh.
//
// Palette semantics (FACTS §3): with G(n) the global transform of node n, the baked
// palette entry of joint j is inverse(G(ModelBone)) · G(Joints[j]), and skinning a
// vertex multiplies that by InverseBind[j]. Because the skeleton also holds the
// joints' non-joint ancestors and the mesh node with its ancestors, animating any of
// them moves the palette as glTF says it should.
//
// Bad files give an *Error naming the file and the Rule they broke; nothing in a
// file can make Load panic or allocate much more than the file's own size.
package gltf

import (
	"bonebake/mesh"
	"fmt"
	"math"
	"sort"

	qgltf "github.com/qmuntal/gltf"

	"bonebake/anim"
	"bonebake/rig"
)

// Options selects what Load reads.
type Options struct {
	Skin     int  // which skin (index into the file's skins); default 0
	Textures bool // also read the base colour images of the mesh's materials
}

// Model is what Load makes of a glTF file.
type Model struct {
	Path string
	// Skeleton holds every node the palette depends on: the skin's joints and all
	// their ancestors, the skinned mesh node and its ancestors, parents first. Rest
	// is each node's local transform (a node given as a matrix is decomposed).
	// Bone names are node names ("node<N>" when a node has none; a repeated name
	// gets "~node<N>" appended so that names stay unique).
	Skeleton *rig.Skeleton
	// Nodes maps each Skeleton bone to its glTF node index.
	Nodes []int
	// Joints maps a palette index (the skin's joint order, the index JOINTS_0
	// holds) to a Skeleton bone index.
	Joints []int
	// JointNames are the joints' bone names, in palette order.
	JointNames []string
	// ModelBone is the Skeleton index of the skinned mesh node (model space is that
	// node's space), or -1 when no node uses the skin (model space = scene root).
	ModelBone int
	// InverseBind holds each joint's inverse bind matrix, row-major; identity when
	// the skin has none.
	InverseBind []rig.Mat4
	// Clips holds every animation in file order, tracks retargeted to Skeleton
	// indices. Channels on nodes outside the skeleton (they cannot move the palette)
	// and weights channels are dropped. A clip's Duration is the largest key time of
	// all its channels, dropped ones included. An animation without a name is
	// called "animation<N>".
	Clips []anim.Clip
	// Mesh is the skinned mesh: every primitive of the mesh on ModelBone's node,
	// merged. Nil when ModelBone is -1.
	Mesh *Mesh
	// Parts splits Mesh's triangles by glTF primitive, each with its material.
	Parts []Part
	// Warnings says what of the file was not used and why (a texture that cannot
	// be read, ...): nothing that changes the skeleton, clips or mesh.
	Warnings []string
	// Meta and ClipMeta (one per clip) are bonebake's own data from the file's
	// extras, written by export-gltf; zero when the file has none.
	Meta     ModelMeta
	ClipMeta []ClipMeta
}

// Mesh is the skinned mesh type Load returns; see mesh.Skinned.
type Mesh = mesh.Skinned

// maxJoints is the most joints a skin can use: JOINTS_0 holds 16-bit indices.
const maxJoints = 1 << 16

// Load reads the glTF or GLB file at path and returns its skin opt.Skin with the
// skeleton, clips and mesh that go with it.
func Load(path string, opt Options) (*Model, error) {
	d, err := readDocument(path)
	if err != nil {
		return nil, err
	}
	return d.model(opt)
}

func (d *document) model(opt Options) (*Model, error) {
	doc := d.doc
	if len(doc.Skins) == 0 {
		return nil, d.fail(RuleSkinIndex, "the file has no skins")
	}
	if opt.Skin < 0 || opt.Skin >= len(doc.Skins) {
		return nil, d.fail(RuleSkinIndex, "skin %d was asked for, but the file has %d skins", opt.Skin, len(doc.Skins))
	}
	skin := doc.Skins[opt.Skin]
	if len(skin.Joints) == 0 {
		return nil, d.fail(RuleSkin, "skin %d has no joints", opt.Skin)
	}
	if len(skin.Joints) > maxJoints {
		return nil, d.fail(RuleSkin, "skin %d has %d joints; JOINTS_0 can address at most %d", opt.Skin, len(skin.Joints), maxJoints)
	}
	for j, n := range skin.Joints {
		if n < 0 || n >= len(doc.Nodes) {
			return nil, d.fail(RuleSkin, "skin %d joint %d is node %d, but there are %d nodes", opt.Skin, j, n, len(doc.Nodes))
		}
	}
	if skin.Skeleton != nil && (*skin.Skeleton < 0 || *skin.Skeleton >= len(doc.Nodes)) {
		return nil, d.fail(RuleSkin, "skin %d has skeleton root node %d, but there are %d nodes", opt.Skin, *skin.Skeleton, len(doc.Nodes))
	}

	meshNode := -1
	for i, n := range doc.Nodes {
		if n.Skin != nil && *n.Skin == opt.Skin && n.Mesh != nil {
			meshNode = i
			break
		}
	}

	// The nodes the palette depends on.
	in := make([]bool, len(doc.Nodes))
	mark := func(x int) {
		for ; x >= 0 && !in[x]; x = d.parents[x] {
			in[x] = true
		}
	}
	for _, n := range skin.Joints {
		mark(n)
	}
	if meshNode >= 0 {
		mark(meshNode)
	}
	order := d.preorder(in)
	bone := make([]int, len(doc.Nodes)) // node → bone, -1 outside
	for i := range bone {
		bone[i] = -1
	}
	for b, n := range order {
		bone[n] = b
	}

	names := d.uniqueNames(order)
	parents := make([]int, len(order))
	rest := make([]rig.Transform, len(order))
	for b, n := range order {
		parents[b] = -1
		if p := d.parents[n]; p >= 0 {
			parents[b] = bone[p]
		}
		t, err := d.restTransform(n)
		if err != nil {
			return nil, err
		}
		rest[b] = t
	}
	skel, err := rig.New(names, parents, rest)
	if err != nil {
		return nil, d.wrap(RuleSkeleton, err, "the skeleton of skin %d was refused", opt.Skin)
	}

	m := &Model{
		Path:      d.path,
		Skeleton:  skel,
		Nodes:     order,
		ModelBone: -1,
	}
	if meshNode >= 0 {
		m.ModelBone = bone[meshNode]
	}
	for _, n := range skin.Joints {
		m.Joints = append(m.Joints, bone[n])
		m.JointNames = append(m.JointNames, names[bone[n]])
	}
	if m.InverseBind, err = d.inverseBind(opt.Skin); err != nil {
		return nil, err
	}
	if m.Clips, err = d.clips(bone, len(order)); err != nil {
		return nil, err
	}
	if err := readMeta(skin.Extras, &m.Meta); err != nil {
		return nil, d.wrap(RuleSkin, err, "skin %d", opt.Skin)
	}
	m.ClipMeta = make([]ClipMeta, len(m.Clips))
	for i, a := range doc.Animations {
		if err := readMeta(a.Extras, &m.ClipMeta[i]); err != nil {
			return nil, d.wrap(RuleSampler, err, "animation %d", i)
		}
	}
	if meshNode >= 0 {
		mi := *doc.Nodes[meshNode].Mesh
		if m.Mesh, m.Parts, err = d.mesh(mi, len(skin.Joints)); err != nil {
			return nil, err
		}
		for k := range m.Parts {
			warn := func(format string, args ...any) {
				m.Warnings = append(m.Warnings, fmt.Sprintf("mesh %d primitive %d: ", mi, k)+fmt.Sprintf(format, args...))
			}
			m.Parts[k].Material = d.material(doc.Meshes[mi].Primitives[k].Material, opt.Textures, warn)
		}
	}
	return m, nil
}

// preorder lists the marked nodes parents first: a depth-first walk from the
// marked roots in node order, children in the order their parent lists them.
func (d *document) preorder(in []bool) []int {
	var order, stack []int
	for r := len(in) - 1; r >= 0; r-- {
		if in[r] && d.parents[r] < 0 {
			stack = append(stack, r)
		}
	}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		order = append(order, n)
		ch := d.doc.Nodes[n].Children
		for k := len(ch) - 1; k >= 0; k-- {
			if in[ch[k]] {
				stack = append(stack, ch[k])
			}
		}
	}
	return order
}

// uniqueNames names the bones after their nodes, making repeated names unique.
func (d *document) uniqueNames(order []int) []string {
	names := make([]string, len(order))
	used := make(map[string]bool, len(order))
	for b, n := range order {
		name := d.nodeName(n)
		for k := 0; used[name]; k++ {
			name = fmt.Sprintf("%s~node%d", d.nodeName(n), n)
			if k > 0 {
				name = fmt.Sprintf("%s~node%d~%d", d.nodeName(n), n, k)
			}
		}
		used[name] = true
		names[b] = name
	}
	return names
}

func finite(xs ...float64) bool {
	for _, x := range xs {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return false
		}
	}
	return true
}

// restTransform returns node n's local transform, decomposing a matrix.
func (d *document) restTransform(n int) (rig.Transform, error) {
	node := d.doc.Nodes[n]
	if node.Matrix != qgltf.DefaultMatrix {
		if !finite(node.Matrix[:]...) {
			return rig.Transform{}, d.fail(RuleNodeTransform, "%s: matrix has a NaN or infinite element", label("node", n, d.doc.Nodes[n].Name))
		}
		var m rig.Mat4
		for r := 0; r < 4; r++ {
			for c := 0; c < 4; c++ {
				m[r*4+c] = node.Matrix[c*4+r] // glTF stores matrices column-major
			}
		}
		t, ok := rig.Decompose(m)
		if !ok || !sameMatrix(t.Matrix(), m) {
			return rig.Transform{}, d.fail(RuleNodeTransform, "%s: matrix is not translation·rotation·scale (it has shear, projection or a zero scale)", label("node", n, d.doc.Nodes[n].Name))
		}
		return t, nil
	}
	t := rig.Transform{Translation: node.Translation, Rotation: rig.Quat(node.Rotation), Scale: node.Scale}
	if !finite(t.Translation[:]...) || !finite(t.Rotation[:]...) || !finite(t.Scale[:]...) {
		return rig.Transform{}, d.fail(RuleNodeTransform, "%s: translation, rotation or scale has a NaN or infinite number", label("node", n, d.doc.Nodes[n].Name))
	}
	l := t.Rotation.Len()
	if l < 1e-6 {
		return rig.Transform{}, d.fail(RuleNodeTransform, "%s: rotation %v is not a unit quaternion", label("node", n, d.doc.Nodes[n].Name), node.Rotation)
	}
	t.Rotation = t.Rotation.Normalize()
	return t, nil
}

// sameMatrix reports whether a and b agree to a tolerance relative to their size.
func sameMatrix(a, b rig.Mat4) bool {
	scale := 1.0
	for _, v := range a {
		scale = max(scale, math.Abs(v))
	}
	for i := range a {
		if math.Abs(a[i]-b[i]) > 1e-4*scale {
			return false
		}
	}
	return true
}

// inverseBind returns the skin's inverse bind matrices, row-major.
func (d *document) inverseBind(s int) ([]rig.Mat4, error) {
	skin := d.doc.Skins[s]
	out := make([]rig.Mat4, len(skin.Joints))
	if skin.InverseBindMatrices == nil {
		for j := range out {
			out[j] = rig.IdentityMat4()
		}
		return out, nil
	}
	what := fmt.Sprintf("skin %d inverseBindMatrices", s)
	f, err := d.floats(*skin.InverseBindMatrices, what, specMatrix)
	if err != nil {
		return nil, err
	}
	if len(f) < 16*len(out) {
		return nil, d.fail(RuleSkin, "%s: accessor %d has %d matrices for %d joints", what, *skin.InverseBindMatrices, len(f)/16, len(out))
	}
	for j := range out {
		for r := 0; r < 4; r++ {
			for c := 0; c < 4; c++ {
				v := float64(f[j*16+c*4+r])
				if !finite(v) {
					return nil, d.fail(RuleSkin, "%s: matrix %d has a NaN or infinite element", what, j)
				}
				out[j][r*4+c] = v
			}
		}
	}
	return out, nil
}

// clips converts every animation, keeping channels on nodes that have a bone.
func (d *document) clips(bone []int, boneCount int) ([]anim.Clip, error) {
	var clips []anim.Clip
	for ai, a := range d.doc.Animations {
		c := anim.Clip{Name: a.Name}
		if c.Name == "" {
			c.Name = fmt.Sprintf("animation%d", ai)
		}
		for ci, ch := range a.Channels {
			what := label("animation", ai, a.Name) + fmt.Sprintf(" channel %d", ci)
			if ch.Target.Node == nil {
				continue // an extension's target (KHR_animation_pointer): not a node
			}
			node := *ch.Target.Node
			if node < 0 || node >= len(d.doc.Nodes) {
				return nil, d.fail(RuleChannelTarget, "%s targets node %d, but there are %d nodes", what, node, len(d.doc.Nodes))
			}
			var path anim.Path
			switch ch.Target.Path {
			case qgltf.TRSTranslation:
				path = anim.Translation
			case qgltf.TRSRotation:
				path = anim.Rotation
			case qgltf.TRSScale:
				path = anim.Scale
			case qgltf.TRSWeights:
				path = 255
			default:
				return nil, d.fail(RuleChannelTarget, "%s targets unknown path %q of node %d", what, ch.Target.Path, node)
			}
			s, err := d.sampler(ai, ci, path == 255)
			if err != nil {
				return nil, err
			}
			times, err := d.times(s.Input, what)
			if err != nil {
				return nil, err
			}
			for _, t := range times {
				c.Duration = max(c.Duration, float64(t))
			}
			if path == 255 || bone[node] < 0 {
				continue
			}
			tr := anim.Track{Bone: bone[node], Path: path, Times: times}
			switch s.Interpolation {
			case qgltf.InterpolationStep:
				tr.Interpolation = anim.Step
			case qgltf.InterpolationCubicSpline:
				tr.Interpolation = anim.CubicSpline
			default:
				tr.Interpolation = anim.Linear
			}
			spec, width := specVec3, 3
			if path == anim.Rotation {
				spec, width = specRotation, 4
			}
			if tr.Values, err = d.floats(s.Output, what+" output", spec); err != nil {
				return nil, err
			}
			per := width
			if tr.Interpolation == anim.CubicSpline {
				per *= 3
			}
			if len(tr.Values) != per*len(times) {
				return nil, d.fail(RuleSampler, "%s: output accessor %d has %d values for %d keys (want %d per key)", what, s.Output, len(tr.Values), len(times), per)
			}
			for k, v := range tr.Values {
				if !finite(float64(v)) {
					return nil, d.fail(RuleKeys, "%s: value %d of key %d is %v", what, k%per, k/per, v)
				}
			}
			c.Tracks = append(c.Tracks, tr)
		}
		if err := c.Validate(boneCount); err != nil {
			return nil, d.wrap(RuleKeys, err, "%s is not a valid clip", label("animation", ai, a.Name))
		}
		clips = append(clips, c)
	}
	return clips, nil
}

// sampler returns the sampler channel ci of animation ai uses, after checking that
// its input and output accessors exist and agree on the number of keys (a weights
// output has one element per morph target per key).
func (d *document) sampler(ai, ci int, weights bool) (*qgltf.AnimationSampler, error) {
	a := d.doc.Animations[ai]
	ch := a.Channels[ci]
	if ch.Sampler < 0 || ch.Sampler >= len(a.Samplers) {
		return nil, d.fail(RuleSampler, "animation %d channel %d uses sampler %d, but the animation has %d", ai, ci, ch.Sampler, len(a.Samplers))
	}
	s := a.Samplers[ch.Sampler]
	what := fmt.Sprintf("animation %d sampler %d", ai, ch.Sampler)
	for _, acc := range []int{s.Input, s.Output} {
		if acc < 0 || acc >= len(d.doc.Accessors) {
			return nil, d.fail(RuleSampler, "%s: accessor %d does not exist (there are %d)", what, acc, len(d.doc.Accessors))
		}
	}
	in, out := d.doc.Accessors[s.Input].Count, d.doc.Accessors[s.Output].Count
	per := 1
	if s.Interpolation == qgltf.InterpolationCubicSpline {
		per = 3
	}
	if weights {
		if in < 1 || out%(per*in) != 0 {
			return nil, d.fail(RuleSampler, "%s: input accessor %d has %d keys but output accessor %d has %d elements, not a multiple of %d",
				what, s.Input, in, s.Output, out, per*in)
		}
	} else if out != per*in {
		return nil, d.fail(RuleSampler, "%s: input accessor %d has %d keys but output accessor %d has %d elements (want %d for %s)",
			what, s.Input, in, s.Output, out, per*in, s.Interpolation)
	}
	return s, nil
}

// times reads a sampler's input accessor: key times in seconds, all finite.
func (d *document) times(acc int, what string) ([]float32, error) {
	t, err := d.floats(acc, what+" input", specTime)
	if err != nil {
		return nil, err
	}
	for k, v := range t {
		if !finite(float64(v)) {
			return nil, d.fail(RuleKeys, "%s: key %d time is %v", what, k, v)
		}
	}
	return t, nil
}

// mesh merges the primitives of mesh mi into one triangle list and says which
// indices came from which primitive (materials are left for the caller).
func (d *document) mesh(mi, jointCount int) (*Mesh, []Part, error) {
	type prim struct {
		pos, nrm, uv, wgt []float32
		jnt, idx          []uint32
	}
	var prims []prim
	has := map[string]bool{}
	total := 0
	for pi, p := range d.doc.Meshes[mi].Primitives {
		what := label("mesh", mi, d.doc.Meshes[mi].Name) + fmt.Sprintf(" primitive %d", pi)
		if p.Mode != qgltf.PrimitiveTriangles {
			return nil, nil, d.fail(RuleMesh, "%s has mode %s; only TRIANGLES is supported", what, p.Mode)
		}
		posAcc, ok := p.Attributes[qgltf.POSITION]
		if !ok {
			return nil, nil, d.fail(RuleMesh, "%s has no POSITION", what)
		}
		var q prim
		var err error
		if q.pos, err = d.floats(posAcc, what+" POSITION", specVec3); err != nil {
			return nil, nil, err
		}
		if err := d.allFinite(q.pos, what+" POSITION"); err != nil {
			return nil, nil, err
		}
		n := len(q.pos) / 3
		attr := func(name string, spec accessorSpec, width int, dst *[]float32) error {
			acc, ok := p.Attributes[name]
			if !ok {
				return nil
			}
			f, err := d.floats(acc, what+" "+name, spec)
			if err != nil {
				return err
			}
			if len(f) != n*width {
				return d.fail(RuleMesh, "%s: %s has %d elements but POSITION has %d", what, name, len(f)/width, n)
			}
			if err := d.allFinite(f, what+" "+name); err != nil {
				return err
			}
			has[name] = true
			*dst = f
			return nil
		}
		if err := attr(qgltf.NORMAL, specVec3, 3, &q.nrm); err != nil {
			return nil, nil, err
		}
		if err := attr(qgltf.TEXCOORD_0, specUV, 2, &q.uv); err != nil {
			return nil, nil, err
		}
		if err := attr(qgltf.WEIGHTS_0, specWeights, 4, &q.wgt); err != nil {
			return nil, nil, err
		}
		if acc, ok := p.Attributes[qgltf.JOINTS_0]; ok {
			if q.jnt, err = d.uints(acc, what+" JOINTS_0", specJoints); err != nil {
				return nil, nil, err
			}
			if len(q.jnt) != 4*n {
				return nil, nil, d.fail(RuleMesh, "%s: JOINTS_0 has %d elements but POSITION has %d", what, len(q.jnt)/4, n)
			}
			for k, j := range q.jnt {
				if int(j) >= jointCount {
					return nil, nil, d.fail(RuleMesh, "%s: vertex %d uses joint %d, but the skin has %d joints", what, k/4, j, jointCount)
				}
			}
			has[qgltf.JOINTS_0] = true
		}
		if p.Indices != nil {
			if q.idx, err = d.uints(*p.Indices, what+" indices", specIndices); err != nil {
				return nil, nil, err
			}
			for k, ix := range q.idx {
				if int(ix) >= n {
					return nil, nil, d.fail(RuleMesh, "%s: index %d is %d, but there are %d vertices", what, k, ix, n)
				}
			}
		} else {
			q.idx = make([]uint32, n)
			for k := range q.idx {
				q.idx[k] = uint32(k)
			}
		}
		if len(q.idx)%3 != 0 {
			return nil, nil, d.fail(RuleMesh, "%s: %d indices is not a whole number of triangles", what, len(q.idx))
		}
		if int64(total)+int64(n) > math.MaxUint32 {
			return nil, nil, d.fail(RuleMesh, "mesh %d has more than 2^32 vertices", mi)
		}
		total += n
		prims = append(prims, q)
	}

	m := &Mesh{Positions: make([][3]float32, 0, total)}
	if has[qgltf.NORMAL] {
		m.Normals = make([][3]float32, 0, total)
	}
	if has[qgltf.TEXCOORD_0] {
		m.UVs = make([][2]float32, 0, total)
	}
	if has[qgltf.JOINTS_0] {
		m.Joints = make([][4]uint16, 0, total)
	}
	if has[qgltf.WEIGHTS_0] {
		m.Weights = make([][4]float32, 0, total)
	}
	parts := make([]Part, len(prims))
	for k, q := range prims {
		parts[k] = Part{First: len(m.Indices), Count: len(q.idx)}
		base := uint32(len(m.Positions))
		n := len(q.pos) / 3
		for v := 0; v < n; v++ {
			m.Positions = append(m.Positions, [3]float32(q.pos[3*v:]))
			if m.Normals != nil {
				var x [3]float32
				if q.nrm != nil {
					x = [3]float32(q.nrm[3*v:])
				}
				m.Normals = append(m.Normals, x)
			}
			if m.UVs != nil {
				var x [2]float32
				if q.uv != nil {
					x = [2]float32(q.uv[2*v:])
				}
				m.UVs = append(m.UVs, x)
			}
			if m.Joints != nil {
				var x [4]uint16
				if q.jnt != nil {
					for k := range x {
						x[k] = uint16(q.jnt[4*v+k])
					}
				}
				m.Joints = append(m.Joints, x)
			}
			if m.Weights != nil {
				var x [4]float32
				if q.wgt != nil {
					x = [4]float32(q.wgt[4*v:])
				}
				m.Weights = append(m.Weights, x)
			}
		}
		for _, ix := range q.idx {
			m.Indices = append(m.Indices, base+ix)
		}
	}
	return m, parts, nil
}

// allFinite refuses NaN and infinite vertex data.
func (d *document) allFinite(f []float32, what string) error {
	for k, v := range f {
		if !finite(float64(v)) {
			return d.fail(RuleMesh, "%s: component %d is %v", what, k, v)
		}
	}
	return nil
}

// sortedKeys returns a map's keys in order (for deterministic reports).
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
