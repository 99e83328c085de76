// Package gltf turns a glTF 2.0 file (.gltf with external or data-URI buffers, or
// .glb) into bonebake's editable data: a rig.Skeleton holding every node a skin's
// palette depends on, the skin's joints and inverse bind matrices, the animations as
// anim.Clips retargeted to that skeleton, and the skinned mesh.
//
// Palette semantics (docs/formats/gltf.md §1): with G(n) the global (scene) transform
// of node n, the baked palette entry of joint j is G(Joints[j]), in the scene's space,
// as the glTF spec positions a skinned mesh (the skinned mesh node's own transform is
// ignored), and skinning a vertex multiplies that by InverseBind[j]. A character is
// its skin and every mesh that moves with it (§1.1): its mesh nodes, those of other
// skins on its joints, and rigid parts hung on its joints, merged into one mesh at
// the rest pose with normalized weights. Because the
// skeleton also holds the joints' non-joint ancestors, animating any of them moves the
// palette as glTF says it should.
//
// Bad files give an *Error naming the file and the Rule they broke; nothing in a
// file can make Load panic or allocate much more than the file's own size.
package gltf

import (
	"fmt"
	"github.com/bonebake/bonebake/mesh"
	"math"

	qgltf "github.com/qmuntal/gltf"

	"github.com/bonebake/bonebake/anim"
	"github.com/bonebake/bonebake/rig"
)

// Options selects what Load reads.
type Options struct {
	Skin     int  // which skin (index into the file's skins); default 0
	Textures bool // also read the base colour images of the mesh's materials
	// FilesRoot is the folder external buffers and images must lie inside
	// (default: the model's own folder).
	FilesRoot string
	// NoMemoryLimit lifts the limit on what the file may make Load allocate
	// (MemoryPerFileByte times its size).
	NoMemoryLimit bool
	// LOD picks the meshes of members that carry MSFT_lod (lower levels of
	// detail, each a node that replaces it): 0 the node's own mesh, k the k-th
	// lower level (a member with fewer levels: its coarsest), -1 the coarsest.
	// Ignored when no member has levels.
	LOD int
}

// Model is what Load makes of a glTF file.
type Model struct {
	Path string
	// Skeleton holds every node the palette depends on: the skin's joints and all
	// their ancestors, parents first. Rest
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
	// MeshNode is the glTF index of the character's first mesh node (the first
	// that uses the skin, else Members[0]'s), or -1 when it has none. Node
	// transforms do not move skinned vertices (glTF ignores them); MeshNode only
	// says where the mesh came from.
	MeshNode int
	// InverseBind holds each joint's inverse bind matrix, row-major, taking Mesh's
	// rest-pose positions to the joint's space: G_rest(joint)⁻¹ for every joint
	// of a skin bound at its rest pose, and for every joint no skinned vertex
	// uses (docs/formats/gltf.md §1.2). Skinning gives what the file says:
	// palette · InverseBind · position. The file's own matrices (identity when
	// the skin has none) when the character has no mesh.
	InverseBind []rig.Mat4
	// Clips holds every animation in file order, tracks retargeted to Skeleton
	// indices. Channels on nodes outside the skeleton (they cannot move the palette)
	// and weights channels are dropped. A clip's Start and Duration are the
	// smallest and largest key times of all its channels, dropped ones included
	// (docs/formats/gltf.md §3: a clip runs from its first key to its last). An
	// animation without a name is called "animation_<N>", as three.js names it.
	Clips []anim.Animation
	// Mesh is the character's mesh (docs/formats/gltf.md §1.1): every primitive
	// of every member, merged in Members' order, joints renumbered to this
	// skin's palette, weights normalized (§1.3), and positions and normals at
	// the rest pose in the scene's space, so that the mesh at rest stands where
	// a glTF viewer shows the model. Skinning gives the same vertices as the
	// file's own data: palette · InverseBind · position. Nil when the character
	// has no mesh node, or when MeshError says why it cannot be read.
	Mesh *Mesh
	// Members are the character's mesh nodes and how each moves with the skin,
	// in the order their vertices lie in Mesh.
	Members []Member
	// MeshPlacement is the matrix that took the file's vertices of this skin's
	// own meshes to the rest pose (identity when none was needed).
	MeshPlacement rig.Mat4
	// WeightsNormalized counts the vertices whose weights did not sum to 1 and
	// were normalized (§1.3): a caller should say so.
	WeightsNormalized int
	// MeshError, when set, says why the skinned mesh was not read although the
	// file has one (it is Draco-compressed): the skeleton and clips are complete,
	// but commands that need the mesh must stop with this error.
	MeshError error
	// LODLevels is how many lower levels of detail the first member lists in
	// MSFT_lod (0: none); LOD is the one Mesh was read from (0: the node's own).
	// Other members with levels give their level LOD, or their coarsest.
	LODLevels, LOD int
	// Parts splits Mesh's triangles by glTF primitive (member by member), each
	// with its material.
	Parts []Part
	// Warnings says what of the file was not used and why (a texture that cannot
	// be read, ...): nothing that changes the skeleton, clips or mesh.
	Warnings []string
	// Notes says what of the file is read differently from how it is stored,
	// though every output is exact (a skin bound in a pose other than its
	// rest pose: its vertices skin exactly but are kept in that pose). inspect
	// shows them; bake and view do not, for the user has nothing to do.
	Notes []string
	// Morphs lists the members whose meshes have morph targets, which are not
	// baked (a BPAT file holds bone palettes), and MorphOnly the clips that
	// animate morph target weights and move no bone: they bake as a still pose
	// (docs/formats/gltf.md §3).
	Morphs    []Morph
	MorphOnly []string
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
	return withDocument(path, opt.FilesRoot, func(d *document) (*Model, error) {
		if opt.NoMemoryLimit {
			d.memory.limit = -1
		}
		return d.model(opt)
	})
}

func (d *document) model(opt Options) (*Model, error) {
	doc := d.doc
	if err := d.checkRequired(); err != nil {
		return nil, err
	}
	if len(doc.Skins) == 0 {
		return nil, d.noSkins()
	}
	if opt.Skin < 0 || opt.Skin >= len(doc.Skins) {
		return nil, d.fail(RuleSkinIndex, "skin %d was asked for, but the file has %s (numbered from 0)", opt.Skin, count(len(doc.Skins), "skin"))
	}
	skin := doc.Skins[opt.Skin]
	if len(skin.Joints) == 0 {
		return nil, d.fail(RuleSkin, "skin %d has no joints", opt.Skin)
	}
	if len(skin.Joints) > maxJoints {
		return nil, d.fail(RuleSkin, "skin %d has %d joints; JOINTS_0 can address at most %d", opt.Skin, len(skin.Joints), maxJoints)
	}
	firstUse := make(map[int]int, len(skin.Joints))
	for j, n := range skin.Joints {
		if n < 0 || n >= len(doc.Nodes) {
			return nil, d.fail(RuleSkin, "skin %d joint %d is node %d, but there are %d nodes", opt.Skin, j, n, len(doc.Nodes))
		}
		if k, dup := firstUse[n]; dup { // glTF requires unique joints: a vertex's index would be ambiguous
			return nil, d.fail(RuleSkin, "skin %d joint %d is node %d again (joint %d already is)", opt.Skin, j, n, k)
		}
		firstUse[n] = j
	}
	if skin.Skeleton != nil && (*skin.Skeleton < 0 || *skin.Skeleton >= len(doc.Nodes)) {
		return nil, d.fail(RuleSkin, "skin %d has skeleton root node %d, but there are %d nodes", opt.Skin, *skin.Skeleton, len(doc.Nodes))
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
		Path:          d.path,
		Skeleton:      skel,
		Nodes:         order,
		MeshNode:      -1,
		MeshPlacement: rig.IdentityMat4(),
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
	if m.Members = d.members(opt.Skin); len(m.Members) > 0 {
		m.MeshNode = m.Members[0].Node
		jointOf := make(map[int]int, len(skin.Joints))
		for j, n := range skin.Joints {
			jointOf[n] = j
		}
		if err := d.character(m, opt, jointOf); err != nil {
			return nil, err
		}
	}
	m.Morphs, m.MorphOnly = d.morphs(m.Members, bone)
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

// count says "1 skin", "2 skins".
func count(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}
