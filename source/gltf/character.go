package gltf

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	qgltf "github.com/qmuntal/gltf"

	"github.com/bonebake/bonebake/mesh"
	"github.com/bonebake/bonebake/rig"
)

// Member is one mesh node of a character and how it moves with the chosen skin
// (docs/formats/gltf.md §1.1): skinned by that skin, skinned by another skin
// whose joints are among its joints, or rigid on one of its joints.
type Member struct {
	Node  int    `json:"node"`
	Name  string `json:"name"` // the node's name ("node<N>" when it has none)
	Mesh  int    `json:"mesh"` // the glTF mesh read for it (an MSFT_lod level's when one was asked for)
	Skin  int    `json:"skin"` // the skin that deforms it; -1 for a rigid part
	Joint string `json:"joint,omitempty"`
	// How says it in words: "skinned by skin 0", "skin 1, on joints of skin 0",
	// "rigid on joint Head".
	How string `json:"how"`
	// Vertices is how many vertices it adds to Model.Mesh (Load only).
	Vertices int `json:"vertices,omitempty"`
}

// members lists the character of skin s: the nodes that draw a mesh with it
// first, then in node order the nodes skinned by another skin all of whose
// joints are joints of s, and the mesh nodes without a skin whose nearest
// ancestor-or-self among s's joints is reached through plain nodes (they move
// rigidly with it). A node that is a lower level of detail of another
// (MSFT_lod) stands in for it rather than adding to it and is left out, as is,
// when the file has scenes, a node of the other two kinds no scene shows.
func (d *document) members(s int) []Member {
	doc := d.doc
	jointOf := make(map[int]int, len(doc.Skins[s].Joints))
	for j, n := range doc.Skins[s].Joints {
		jointOf[n] = j
	}
	shown := d.shownNodes()
	levels := map[int]bool{}
	for _, n := range doc.Nodes {
		var lod struct {
			IDs []int `json:"ids"`
		}
		if ok, err := extension(n.Extensions, extLOD, &lod); ok && err == nil {
			for _, id := range lod.IDs {
				levels[id] = true
			}
		}
	}
	onJoints := make(map[int]bool, len(doc.Skins))
	for k, sk := range doc.Skins {
		ok := k != s && len(sk.Joints) > 0
		for _, n := range sk.Joints {
			if _, in := jointOf[n]; !in {
				ok = false
				break
			}
		}
		onJoints[k] = ok
	}
	var own, others []Member
	for i, n := range doc.Nodes {
		// A node of the chosen skin counts wherever it is (as it always
		// did); the others must be shown, so that nothing beside the
		// character that no scene draws joins it.
		chosen := n.Skin != nil && *n.Skin == s
		if n.Mesh == nil || levels[i] || (!chosen && shown != nil && !shown[i]) {
			continue
		}
		mb := Member{Node: i, Name: d.nodeName(i), Mesh: *n.Mesh, Skin: -1}
		switch {
		case n.Skin != nil && *n.Skin == s:
			mb.Skin, mb.How = s, fmt.Sprintf("skinned by skin %d", s)
			own = append(own, mb)
			continue
		case n.Skin != nil:
			if !onJoints[*n.Skin] {
				continue
			}
			mb.Skin, mb.How = *n.Skin, fmt.Sprintf("skin %d, on joints of skin %d", *n.Skin, s)
		default:
			x := i
			for x >= 0 {
				if _, ok := jointOf[x]; ok {
					break
				}
				x = d.parents[x]
			}
			if x < 0 {
				continue
			}
			mb.Joint = d.nodeName(x)
			mb.How = "rigid on joint " + mb.Joint
		}
		others = append(others, mb)
	}
	return append(own, others...)
}

// shownNodes marks the nodes some scene shows, or returns nil when the file has
// no scenes (then every node counts).
func (d *document) shownNodes() []bool {
	if len(d.doc.Scenes) == 0 {
		return nil
	}
	shown := make([]bool, len(d.doc.Nodes))
	var stack []int
	for _, sc := range d.doc.Scenes {
		for _, r := range sc.Nodes {
			if r >= 0 && r < len(shown) {
				stack = append(stack, r)
			}
		}
	}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if shown[n] {
			continue
		}
		shown[n] = true
		for _, c := range d.doc.Nodes[n].Children {
			if c >= 0 && c < len(shown) {
				stack = append(stack, c)
			}
		}
	}
	return shown
}

// piece is one member's mesh as read, on its way into the character's mesh.
type piece struct {
	mesh  *Mesh
	parts []Part
	joint int // a rigid part's joint (palette index)
	// normalized counts its vertices whose weights were normalized.
	normalized int
}

// character reads the meshes of m.Members into one mesh (docs/formats/gltf.md
// §1.1-1.3): weights normalized, joints renumbered to skin s's palette, and
// positions, normals and inverse binds rebased so that each vertex stands where
// the rest pose puts it while palette · InverseBind · position is what the file
// says. jointOf maps a node to its palette index.
func (d *document) character(m *Model, opt Options, jointOf map[int]int) error {
	doc := d.doc
	s := opt.Skin
	if err := d.pickLevels(m, opt); err != nil {
		return err
	}
	for _, mb := range m.Members {
		if m.MeshError = d.dracoMesh(mb.Mesh); m.MeshError != nil {
			m.Warnings = append(m.Warnings, m.MeshError.Error())
			return nil
		}
	}
	nj := len(m.Joints)
	pieces := make([]piece, len(m.Members))
	for i, mb := range m.Members {
		limit := maxJoints // a rigid part's JOINTS_0, if any, means nothing
		if mb.Skin >= 0 {
			limit = len(doc.Skins[mb.Skin].Joints)
		}
		me, parts, err := d.mesh(mb.Mesh, limit)
		if err != nil {
			return err
		}
		nv := me.VertexCount()
		m.Members[i].Vertices = nv
		for k := range parts {
			warn := func(format string, args ...any) {
				m.Warnings = append(m.Warnings, fmt.Sprintf("mesh %d primitive %d: ", mb.Mesh, k)+fmt.Sprintf(format, args...))
			}
			parts[k].Material = d.material(doc.Meshes[mb.Mesh].Primitives[k].Material, opt.Textures, warn)
		}
		pc := piece{mesh: me, parts: parts, joint: -1}
		switch {
		case mb.Skin < 0:
			x := mb.Node
			for {
				if k, ok := jointOf[x]; ok {
					pc.joint = k
					break
				}
				x = d.parents[x]
			}
			me.Joints = make([][4]uint16, nv)
			me.Weights = make([][4]float32, nv)
			for v := range nv {
				me.Joints[v] = [4]uint16{uint16(pc.joint)}
				me.Weights[v] = [4]float32{1}
			}
		default:
			if me.Joints == nil || me.Weights == nil {
				me.Joints, me.Weights = make([][4]uint16, nv), make([][4]float32, nv)
			}
			// Remap before normalizing, so that an unweighted vertex is bound
			// to its own skin's joint 0, which is a palette joint.
			remap := make([]uint16, len(doc.Skins[mb.Skin].Joints))
			for k, n := range doc.Skins[mb.Skin].Joints {
				remap[k] = uint16(jointOf[n])
			}
			for v := range me.Joints {
				for k, j := range me.Joints[v] {
					me.Joints[v][k] = remap[j]
				}
			}
			pc.normalized = mesh.NormalizeWeights(me.Joints, me.Weights, remap[0])
		}
		pieces[i] = pc
	}

	// The inverse binds, skin by skin: the chosen skin first, so that the
	// palette's binds are its own wherever it has vertices.
	rest := m.Skeleton.RestModelSpace()
	ibm := make([]rig.Mat4, nj)
	fixed := make([]bool, nj)
	skins := []int{s}
	for _, mb := range m.Members {
		if mb.Skin >= 0 && !slices.Contains(skins, mb.Skin) {
			skins = append(skins, mb.Skin)
		}
	}
	placement := make(map[int]rig.Mat4, len(skins))
	for _, sk := range skins {
		p, ok, err := d.bindSkin(m, s, sk, pieces, rest, ibm, fixed, jointOf)
		if err != nil {
			return err
		}
		if ok {
			placement[sk] = p
		}
	}
	for k := range ibm {
		if fixed[k] {
			continue
		}
		// No vertex of a skin uses this joint: any bind is exact, and the rest
		// pose's makes a rigid part on it stand at rest.
		inv, ok := rest[m.Joints[k]].Inverse()
		if !ok {
			inv = m.InverseBind[k]
		}
		ibm[k] = inv
	}
	if p, ok := placement[s]; ok {
		m.MeshPlacement = p
	}

	// Every piece into the scene, then into one mesh.
	var keep []int
	for i, mb := range m.Members {
		pc := pieces[i]
		var place rig.Mat4
		if mb.Skin >= 0 {
			p, ok := placement[mb.Skin]
			if !ok {
				continue // left out, with a warning
			}
			place = p
		} else {
			r, err := d.restBelow(mb.Node, m.Nodes[m.Joints[pc.joint]])
			if err != nil {
				return err
			}
			bind, ok := ibm[pc.joint].Inverse()
			if !ok {
				return d.fail(RuleSkin, "skin %d: the inverse bind matrix of joint %d %q cannot be inverted, so %s cannot be placed on it", s, pc.joint, m.JointNames[pc.joint], label("node", mb.Node, doc.Nodes[mb.Node].Name))
			}
			place = bind.Mul(r)
		}
		transformMesh(pc.mesh, place)
		keep = append(keep, i)
	}
	m.Warnings = append(m.Warnings, d.unbakedMotion(m, jointOf)...)
	merged, parts, err := d.merge(pieces, keep)
	if err != nil {
		return err
	}
	m.Mesh, m.Parts = merged, parts
	members := make([]Member, 0, len(keep))
	for _, i := range keep {
		members = append(members, m.Members[i])
		m.WeightsNormalized += pieces[i].normalized
	}
	m.Members = members
	m.InverseBind = ibm
	return nil
}

// pickLevels applies Options.LOD to every member that lists MSFT_lod levels:
// level k of each, or its coarsest when it has fewer; the first member's count
// is the model's LODLevels, and asking for more than it has is an error.
func (d *document) pickLevels(m *Model, opt Options) error {
	doc := d.doc
	for i := range m.Members {
		mb := &m.Members[i]
		var lod struct {
			IDs []int `json:"ids"`
		}
		if _, err := extension(doc.Nodes[mb.Node].Extensions, extLOD, &lod); err != nil {
			return d.wrap(RuleSkin, err, "node %d: %s", mb.Node, extLOD)
		}
		levels := len(lod.IDs)
		k := opt.LOD
		if k < 0 {
			k = levels
		}
		if i == 0 {
			m.LODLevels = levels
			if k > levels && levels > 0 {
				return d.fail(RuleSkin, "level of detail %d was asked for, but node %d lists %d in %s", k, mb.Node, levels, extLOD)
			}
		}
		k = min(k, levels)
		if k == 0 {
			continue
		}
		n := lod.IDs[k-1]
		if n < 0 || n >= len(doc.Nodes) || doc.Nodes[n].Mesh == nil {
			return d.fail(RuleSkin, "node %d's %s level %d is node %d, which has no mesh", mb.Node, extLOD, k, n)
		}
		sk := doc.Nodes[n].Skin
		switch {
		case sk != nil && mb.Skin >= 0 && *sk != mb.Skin:
			return d.fail(RuleSkin, "node %d's %s level %d is node %d, skinned by skin %d rather than %d", mb.Node, extLOD, k, n, *sk, mb.Skin)
		case sk != nil && mb.Skin < 0:
			return d.fail(RuleSkin, "node %d's %s level %d is node %d, skinned by skin %d, but node %d is a rigid part", mb.Node, extLOD, k, n, *sk, mb.Node)
		}
		mb.Mesh = *doc.Nodes[n].Mesh
		if i == 0 {
			m.MeshNode, m.LOD = n, k
		}
	}
	return nil
}

// bindSkin settles the inverse binds of the palette joints skin sk's vertices
// use and returns the matrix P that takes its meshes' file positions to the
// rest pose (docs/formats/gltf.md §1.2). With B_j = G_rest(j) · IBM_j, a skin
// bound at its rest pose has one B for every joint: P = B, and the palette's
// bind IBM_j · P⁻¹ = G_rest(j)⁻¹ leaves palette · bind · (P · v) as the file
// says. A skin bound in another pose has no such P: P is the B of its heaviest
// joint (exact skinning still; the vertices stand in the bind pose, placed by
// that joint). A later skin must agree with the binds already settled up to one
// matrix; one that does not is left out with a warning (ok false).
func (d *document) bindSkin(m *Model, chosen, sk int, pieces []piece, rest, ibm []rig.Mat4, fixed []bool, jointOf map[int]int) (p rig.Mat4, ok bool, err error) {
	file, err := d.inverseBind(sk)
	if err != nil {
		return p, false, err
	}
	local := make(map[int]int, len(file)) // palette joint → this skin's joint
	for k, n := range d.doc.Skins[sk].Joints {
		local[jointOf[n]] = k
	}
	weight := map[int]float64{}
	lo := rig.Vec3{math.Inf(1), math.Inf(1), math.Inf(1)}
	hi := lo.Scale(-1)
	for i, mb := range m.Members {
		if mb.Skin != sk {
			continue
		}
		me := pieces[i].mesh
		for v, js := range me.Joints {
			for k, j := range js {
				if w := me.Weights[v][k]; w > 0 {
					weight[int(j)] += float64(w)
				}
			}
			for c := range 3 {
				lo[c] = min(lo[c], float64(me.Positions[v][c]))
				hi[c] = max(hi[c], float64(me.Positions[v][c]))
			}
		}
	}
	if len(weight) == 0 {
		return rig.IdentityMat4(), true, nil // no vertices: nothing to place
	}
	used := make([]int, 0, len(weight))
	for j := range weight {
		used = append(used, j)
	}
	slices.SortFunc(used, func(a, b int) int { // heaviest first, ties by index
		if c := cmp.Compare(weight[b], weight[a]); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	// bindOf is what P must be for palette joint j to skin this skin's
	// vertices as the file says.
	bindOf := func(j int) (rig.Mat4, error) {
		if !fixed[j] {
			return rest[m.Joints[j]].Mul(file[local[j]]), nil
		}
		inv, ok := ibm[j].Inverse()
		if !ok {
			return p, d.fail(RuleSkin, "skin %d: the inverse bind matrix of joint %d %q cannot be inverted", chosen, j, m.JointNames[j])
		}
		return inv.Mul(file[local[j]]), nil
	}
	// The reference: a joint whose bind is settled (the later skin must agree
	// with it), else the heaviest; the first of them whose bind can be inverted.
	cands := slices.Clone(used)
	slices.SortStableFunc(cands, func(a, b int) int {
		switch {
		case fixed[a] == fixed[b]:
			return 0
		case fixed[a]:
			return -1
		}
		return 1
	})
	ref, inv, found := cands[0], rig.IdentityMat4(), false
	for _, j := range cands {
		b, err := bindOf(j)
		if err != nil {
			return p, false, err
		}
		if i, ok := b.Inverse(); ok {
			ref, p, inv, found = j, b, i, true
			break
		}
	}
	if !found {
		if fixed[ref] {
			return p, false, d.fail(RuleSkin, "skin %d: no joint's bind (its rest transform times its inverse bind matrix) can be inverted", sk)
		}
		keepBinds(used, file, local, ibm, fixed) // degenerate: the file's own data
		return rig.IdentityMat4(), true, nil
	}
	for _, j := range used {
		b, err := bindOf(j)
		if err != nil {
			return p, false, err
		}
		if agree(b, p, lo, hi) {
			continue
		}
		if fixed[j] {
			m.Warnings = append(m.Warnings, fmt.Sprintf("skin %d is bound to joint %q in another pose than skin %d is: its meshes are left out (one palette holds one bind per joint)", sk, m.JointNames[j], chosen))
			return p, false, nil
		}
		if !fixed[ref] {
			m.Notes = append(m.Notes, fmt.Sprintf("skin %d is bound in a pose other than its rest pose (joint %q differs from %q): its meshes skin exactly, but stand in the bind pose, placed by joint %q", sk, m.JointNames[j], m.JointNames[ref], m.JointNames[ref]))
			break
		}
	}
	for _, j := range used {
		if !fixed[j] {
			ibm[j], fixed[j] = file[local[j]].Mul(inv), true
		}
	}
	return p, true, nil
}

// keepBinds settles the binds of the joints a skin uses to its file's own
// matrices, for a skin no placement can be found for (every bind is singular):
// its vertices are left as the file has them.
func keepBinds(used []int, file []rig.Mat4, local map[int]int, ibm []rig.Mat4, fixed []bool) {
	for _, j := range used {
		if !fixed[j] {
			ibm[j], fixed[j] = file[local[j]], true
		}
	}
}

// agree reports whether a and b place the box lo–hi alike: its corners within
// 1e-4 of the box's size under a (float32 data composed through a deep chain
// of joints lands within 1e-6).
func agree(a, b rig.Mat4, lo, hi rig.Vec3) bool {
	size := a.TransformPoint(hi).Sub(a.TransformPoint(lo)).Len()
	worst := 0.0
	for c := range 8 {
		x := lo
		for k := range 3 {
			if c&(1<<k) != 0 {
				x[k] = hi[k]
			}
		}
		pa := a.TransformPoint(x)
		worst = max(worst, pa.Sub(b.TransformPoint(x)).Len())
		size = max(size, 1e-9*pa.Len())
	}
	return worst <= 1e-4*size
}

// restBelow returns the rest transform from joint node j down to node n (the
// product of the local transforms of the nodes below j on the way, n's
// included; identity when n is j).
func (d *document) restBelow(n, j int) (rig.Mat4, error) {
	g := rig.IdentityMat4()
	for x := n; x != j && x >= 0; x = d.parents[x] {
		t, err := d.restTransform(x)
		if err != nil {
			return g, err
		}
		g = t.Matrix().Mul(g)
	}
	return g, nil
}

// transformMesh moves positions by p and normals by its inverse transpose.
func transformMesh(me *Mesh, p rig.Mat4) {
	if p == rig.IdentityMat4() {
		return
	}
	for i, q := range me.Positions {
		r := p.TransformPoint(rig.Vec3{float64(q[0]), float64(q[1]), float64(q[2])})
		me.Positions[i] = [3]float32{float32(r[0]), float32(r[1]), float32(r[2])}
	}
	inv, ok := p.Inverse()
	if !ok {
		return
	}
	nm := inv.Transpose() // normals follow the inverse transpose
	for i, n := range me.Normals {
		q := nm.TransformVector(rig.Vec3{float64(n[0]), float64(n[1]), float64(n[2])})
		if q.Len() > 0 {
			q = q.Normalize()
		}
		me.Normals[i] = [3]float32{float32(q[0]), float32(q[1]), float32(q[2])}
	}
}

// merge concatenates the kept pieces into one mesh, their parts after one
// another. An attribute some piece lacks is zero on its vertices.
func (d *document) merge(pieces []piece, keep []int) (*Mesh, []Part, error) {
	if len(keep) == 1 {
		return pieces[keep[0]].mesh, pieces[keep[0]].parts, nil
	}
	out := &Mesh{}
	nv, ni := 0, 0
	var normals, uvs bool
	for _, i := range keep {
		me := pieces[i].mesh
		nv += me.VertexCount()
		ni += len(me.Indices)
		normals = normals || me.Normals != nil
		uvs = uvs || me.UVs != nil
	}
	if nv > math.MaxUint32 {
		return nil, nil, d.fail(RuleMesh, "the character's meshes have more than 2^32 vertices")
	}
	if err := d.charge(int64(nv)*(12+12+8+8+16)+int64(ni)*4, "the character's meshes merged"); err != nil {
		return nil, nil, err
	}
	out.Positions = make([][3]float32, 0, nv)
	out.Joints = make([][4]uint16, 0, nv)
	out.Weights = make([][4]float32, 0, nv)
	out.Indices = make([]uint32, 0, ni)
	if normals {
		out.Normals = make([][3]float32, 0, nv)
	}
	if uvs {
		out.UVs = make([][2]float32, 0, nv)
	}
	var parts []Part
	for _, i := range keep {
		me := pieces[i].mesh
		base := uint32(len(out.Positions))
		for _, pt := range pieces[i].parts {
			pt.First += len(out.Indices)
			parts = append(parts, pt)
		}
		out.Positions = append(out.Positions, me.Positions...)
		out.Joints = append(out.Joints, me.Joints...)
		out.Weights = append(out.Weights, me.Weights...)
		if normals {
			if me.Normals != nil {
				out.Normals = append(out.Normals, me.Normals...)
			} else {
				out.Normals = append(out.Normals, make([][3]float32, me.VertexCount())...)
			}
		}
		if uvs {
			if me.UVs != nil {
				out.UVs = append(out.UVs, me.UVs...)
			} else {
				out.UVs = append(out.UVs, make([][2]float32, me.VertexCount())...)
			}
		}
		for _, ix := range me.Indices {
			out.Indices = append(out.Indices, base+ix)
		}
	}
	return out, parts, nil
}

// unbakedMotion says which rigid parts hang on their joint through nodes (their
// own included) that clips animate: those nodes are not joints, so their motion
// is not in the palette and the part follows its joint as at rest.
func (d *document) unbakedMotion(m *Model, jointOf map[int]int) []string {
	animated := map[int][]string{}
	for ai, a := range d.doc.Animations {
		for _, ch := range a.Channels {
			if ch.Target.Node == nil || ch.Target.Path == qgltf.TRSWeights {
				continue
			}
			n := *ch.Target.Node
			if name := m.Clips[ai].Name; !slices.Contains(animated[n], name) {
				animated[n] = append(animated[n], name)
			}
		}
	}
	var out []string
	for _, mb := range m.Members {
		if mb.Skin >= 0 {
			continue
		}
		for x := mb.Node; x >= 0; x = d.parents[x] {
			if _, ok := jointOf[x]; ok {
				break
			}
			if clips := animated[x]; len(clips) > 0 {
				which := "clip " + clips[0] + " animates"
				if len(clips) > 1 {
					which = "clips " + strings.Join(clips, ", ") + " animate"
				}
				out = append(out, fmt.Sprintf("%s hangs on joint %q through %s, which %s: only joints are baked, so it follows %q as at rest",
					label("node", mb.Node, d.doc.Nodes[mb.Node].Name), mb.Joint, label("node", x, d.doc.Nodes[x].Name), which, mb.Joint))
				break
			}
		}
	}
	return out
}
