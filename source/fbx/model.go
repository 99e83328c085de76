package fbx

import (
	"encoding/base64"
	"fmt"
	"math"
	"slices"
	"strings"

	fbxfile "github.com/bonebake/bonebake/formats/fbx"
	"github.com/bonebake/bonebake/mesh"
	"github.com/bonebake/bonebake/rig"
	"github.com/bonebake/bonebake/source/gltf"
)

// boneClasses are the Model subclasses that are bones.
var boneClasses = map[string]bool{"LimbNode": true, "Limb": true, "Root": true}

// skinInfo is one Skin deformer: its geometry, the mesh model drawing it and
// its clusters.
type skinInfo struct {
	geom     *fbxfile.Object
	model    *model
	clusters []cluster
}

type cluster struct {
	obj     *fbxfile.Object
	link    *model
	indexes []int64
	weights []float64
	tl, t   rig.Mat4 // TransformLink and Transform, row-major, file units
	hasTL   bool     // the file writes TransformLink
}

// fbxMatrix reads a 16-double column-major matrix property into a row-major
// rig.Mat4 (identity when absent).
func fbxMatrix(n *fbxfile.Node, name string) (rig.Mat4, bool) {
	c := n.Child(name)
	if c == nil || len(c.Props) == 0 {
		return rig.IdentityMat4(), false
	}
	v := c.Props[0].FloatArray()
	if len(v) != 16 {
		return rig.IdentityMat4(), false
	}
	var m rig.Mat4
	for r := range 4 {
		for col := range 4 {
			m[r*4+col] = v[col*4+r]
		}
	}
	return m, true
}

func (s *scene) objectsOf(ids []int64, class string) []*fbxfile.Object {
	var out []*fbxfile.Object
	for _, id := range ids {
		if o := s.sc.ByID[id]; o != nil && o.Class == class {
			out = append(out, o)
		}
	}
	return out
}

// skins lists every Skin deformer with its geometry, mesh model and clusters.
func (s *scene) skins() ([]skinInfo, error) {
	var out []skinInfo
	for _, o := range s.sc.Objects {
		if o.Class != "Deformer" || o.SubClass != "Skin" {
			continue
		}
		sk := skinInfo{}
		for _, g := range s.objectsOf(s.parents[o.ID], "Geometry") {
			sk.geom = g
		}
		if sk.geom == nil {
			continue
		}
		for _, mo := range s.objectsOf(s.parents[sk.geom.ID], "Model") {
			sk.model = s.models[mo.ID]
		}
		for _, co := range s.objectsOf(s.children[o.ID], "Deformer") {
			if co.SubClass != "Cluster" {
				continue
			}
			c := cluster{obj: co}
			for _, mo := range s.objectsOf(s.children[co.ID], "Model") {
				c.link = s.models[mo.ID]
			}
			if c.link == nil {
				continue // a cluster on no bone moves nothing
			}
			if ix := co.Node.Child("Indexes"); ix != nil && len(ix.Props) > 0 {
				c.indexes = ix.Props[0].IntArray()
			}
			if w := co.Node.Child("Weights"); w != nil && len(w.Props) > 0 {
				c.weights = w.Props[0].FloatArray()
			}
			if len(c.indexes) != len(c.weights) {
				return nil, s.fail(RuleSkin, "cluster %q has %d indexes but %d weights", co.Name, len(c.indexes), len(c.weights))
			}
			if c.tl, c.hasTL = fbxMatrix(co.Node, "TransformLink"); !c.hasTL && len(c.indexes) > 0 {
				return nil, s.fail(RuleSkin, "cluster %q has no TransformLink (the bone's bind matrix)", co.Name)
			}
			c.t, _ = fbxMatrix(co.Node, "Transform")
			sk.clusters = append(sk.clusters, c)
		}
		if len(sk.clusters) > 0 && sk.model != nil {
			out = append(out, sk)
		}
	}
	return out, nil
}

// skeleton is the character's bones, parents first, with their rest
// transforms before (file) and after conversion.
type skeleton struct {
	bones  []*model
	boneOf map[*model]int
	names  []string
	par    []int
	file   []rig.Transform // local, file units and axes, inherit folded
	rest   []rig.Transform // converted
	// fileGlob is each bone's global rest matrix and bind its bind matrix,
	// file units and axes (§9).
	fileGlob, bind []rig.Mat4
}

// bindPose sets each bone's bind matrix: its first cluster's TransformLink,
// else its rest global. A file's bones need not stand in their bind pose:
// Blender writes the scene's current pose as Lcl, the bind pose only in the
// clusters (§9).
func (sk *skeleton) bindPose(skins []skinInfo) {
	sk.fileGlob = make([]rig.Mat4, len(sk.bones))
	for b := range sk.bones {
		sk.fileGlob[b] = sk.file[b].Matrix()
		if p := sk.par[b]; p >= 0 {
			sk.fileGlob[b] = sk.fileGlob[p].Mul(sk.fileGlob[b])
		}
	}
	sk.bind = slices.Clone(sk.fileGlob)
	set := make([]bool, len(sk.bones))
	for _, si := range skins {
		for _, c := range si.clusters {
			if b, ok := sk.boneOf[c.link]; ok && c.hasTL && !set[b] {
				sk.bind[b], set[b] = c.tl, true
			}
		}
	}
}

// skeletonOf collects the bones: every bone-class model, every cluster's
// link, and their ancestors, in a depth-first walk from the roots in file
// order, children in connection order.
func (s *scene) skeletonOf(want map[*model]bool) (*skeleton, error) {
	in := map[*model]bool{}
	for m := range want {
		for x := m; x != nil && !in[x]; x = x.parent {
			in[x] = true
		}
	}
	sk := &skeleton{boneOf: map[*model]int{}}
	var walk func(m *model)
	walk = func(m *model) {
		sk.boneOf[m] = len(sk.bones)
		sk.bones = append(sk.bones, m)
		for _, k := range m.kids {
			if in[k] {
				walk(k)
			}
		}
	}
	for _, m := range s.order {
		if in[m] && m.parent == nil {
			walk(m)
		}
	}
	seen := map[string]int{}
	for _, m := range sk.bones {
		seen[m.obj.Name]++
	}
	for _, m := range sk.bones {
		name := m.obj.Name
		if seen[name] > 1 || name == "" {
			name = fmt.Sprintf("%s~%d", name, m.obj.ID)
		}
		sk.names = append(sk.names, name)
		p := -1
		if m.parent != nil {
			p = sk.boneOf[m.parent]
		}
		sk.par = append(sk.par, p)
		l, err := s.localAt(m, m.static(), parentScale(m, nil))
		if err != nil {
			return nil, err
		}
		sk.file = append(sk.file, l)
		sk.rest = append(sk.rest, s.convert(l, p < 0))
	}
	return sk, nil
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

// Load reads the FBX character at path (docs/formats/fbx.md §6–§11): its
// skeleton, clips and skinned mesh, as gltf.Load gives a glTF one. A file
// without a skin is refused (RuleSkin): animation-only files are clip files.
// Of opt, Textures applies.
func Load(path string, opt gltf.Options) (*gltf.Model, error) {
	s, err := open(path)
	if err != nil {
		return nil, err
	}
	return s.load(opt)
}

func (s *scene) load(opt gltf.Options) (*gltf.Model, error) {
	path := s.path
	skins, err := s.skins()
	if err != nil {
		return nil, err
	}
	if len(skins) == 0 {
		return nil, s.fail(RuleSkin, "the file has no skin (no Skin deformer whose clusters bind a mesh to bones): an animation-only file gives clips to a character with gltfbake.Settings.ClipFiles")
	}
	want := map[*model]bool{}
	for _, m := range s.order {
		if boneClasses[m.obj.SubClass] {
			want[m] = true
		}
	}
	for _, sk := range skins {
		for _, c := range sk.clusters {
			want[c.link] = true
		}
	}
	sk, err := s.skeletonOf(want)
	if err != nil {
		return nil, err
	}
	sk.bindPose(skins)
	skel, err := rig.New(sk.names, sk.par, sk.rest)
	if err != nil {
		return nil, s.fail(RuleSkeleton, "%v", err)
	}
	m := &gltf.Model{Path: path, Skeleton: skel, MeshNode: -1, MeshPlacement: rig.IdentityMat4()}
	for b := range sk.bones {
		m.Nodes = append(m.Nodes, b)
		m.Joints = append(m.Joints, b)
		m.JointNames = append(m.JointNames, sk.names[b])
	}
	// Inverse binds are the converted bind pose's (§9): the mesh is placed
	// in the bind pose, so that palette · InverseBind · position is FBX's
	// skinning.
	for b := range sk.bones {
		inv, ok := s.convertGlobal(sk.bind[b]).Inverse()
		if !ok {
			return nil, s.fail(RuleTransform, "bone %q's bind matrix cannot be inverted (a zero scale)", sk.names[b])
		}
		m.InverseBind = append(m.InverseBind, inv)
	}
	var warn []string
	if m.Clips, warn, err = s.clips(sk, func(mm *model) int {
		if b, ok := sk.boneOf[mm]; ok {
			return b
		}
		return -1
	}); err != nil {
		return nil, err
	}
	m.Warnings = append(m.Warnings, warn...)
	m.ClipMeta = make([]gltf.ClipMeta, len(m.Clips))
	if err := s.character(m, sk, skins, opt); err != nil {
		return nil, err
	}
	return m, nil
}

// vertexKey tells a mesh's vertices apart: a control point with one normal
// and one UV.
type vertexKey struct{ cp, n, uv int }

// layer is one LayerElement (Normal, UV, Material) with its mapping (§8).
type layer struct {
	mapping, ref string
	data         []float64
	index        []int64
	width        int
	name         string
}

func readLayer(geom *fbxfile.Node, elem, data, index string, width int) *layer {
	n := geom.Child(elem)
	if n == nil {
		return nil
	}
	l := &layer{width: width, name: elem}
	if c := n.Child("MappingInformationType"); c != nil && len(c.Props) > 0 {
		l.mapping = c.Props[0].String
	}
	if c := n.Child("ReferenceInformationType"); c != nil && len(c.Props) > 0 {
		l.ref = c.Props[0].String
	}
	if c := n.Child(data); c != nil && len(c.Props) > 0 {
		if elem == "LayerElementMaterial" {
			for _, v := range c.Props[0].IntArray() {
				l.data = append(l.data, float64(v))
			}
		} else {
			l.data = c.Props[0].FloatArray()
		}
	}
	if c := n.Child(index); c != nil && len(c.Props) > 0 {
		l.index = c.Props[0].IntArray()
	}
	return l
}

// at returns the element index a polygon vertex reads (§8), or an error.
func (l *layer) at(pv, cp, poly int) (int, error) {
	var i int
	switch l.mapping {
	case "ByPolygonVertex":
		i = pv
	case "ByControlPoint", "ByVertice", "ByVertex":
		i = cp
	case "ByPolygon":
		i = poly
	case "AllSame":
		i = 0
	default:
		return 0, fmt.Errorf("%s: MappingInformationType %q is none of ByPolygonVertex, ByControlPoint, ByVertice, ByPolygon, AllSame", l.name, l.mapping)
	}
	switch l.ref {
	case "Direct":
	case "IndexToDirect", "Index":
		if l.mapping == "ByPolygon" && l.name == "LayerElementMaterial" || l.mapping == "AllSame" && l.name == "LayerElementMaterial" {
			break // materials are indices themselves
		}
		if i >= len(l.index) {
			return 0, fmt.Errorf("%s: index %d of %d", l.name, i, len(l.index))
		}
		i = int(l.index[i])
	default:
		return 0, fmt.Errorf("%s: ReferenceInformationType %q is neither Direct nor IndexToDirect", l.name, l.ref)
	}
	if i < 0 || (i+1)*l.width > len(l.data) {
		return 0, fmt.Errorf("%s: element %d lies outside its %d values", l.name, i, len(l.data)/max(l.width, 1))
	}
	return i, nil
}

// check reads the element of every polygon vertex, so that a layer that
// cannot be read is known before the mesh is built.
func (l *layer) check(pvi []int64) error {
	poly := 0
	for pv, ix := range pvi {
		cp := ix
		if cp < 0 {
			cp = ^cp
		}
		if _, err := l.at(pv, int(cp), poly); err != nil {
			return err
		}
		if ix < 0 {
			poly++
		}
	}
	return nil
}

// character reads every mesh that moves with the skeleton into m.Mesh, m.Parts
// and m.Members (§8–§10).
func (s *scene) character(m *gltf.Model, sk *skeleton, skins []skinInfo, opt gltf.Options) error {
	out := &mesh.Skinned{}
	skinOf := map[*model]*skinInfo{}
	for i := range skins {
		skinOf[skins[i].model] = &skins[i]
	}
	conv := s.axisMat()
	convLin := s.axis.Matrix()
	for _, mo := range s.order {
		geoms := s.objectsOf(s.children[mo.obj.ID], "Geometry")
		if len(geoms) == 0 || geoms[0].SubClass != "Mesh" {
			continue
		}
		geom := geoms[0]
		member := gltf.Member{Node: -1, Name: mo.obj.Name, Mesh: -1, Skin: -1}
		// Per control point: the matrix blend that places it at rest, and
		// its joints and weights.
		var rigid rig.Mat4
		anchor := -1
		si := skinOf[mo]
		if si == nil {
			for x := mo.parent; x != nil; x = x.parent {
				if b, ok := sk.boneOf[x]; ok {
					anchor = b
					break
				}
			}
			if anchor < 0 {
				m.Warnings = append(m.Warnings, fmt.Sprintf("mesh %q is neither skinned nor under a bone: it does not move with the character and is left out", mo.obj.Name))
				continue
			}
			g, err := s.fileGlobal(mo)
			if err != nil {
				return err
			}
			// It moves with its bone: placed by the bone's bind matrix
			// where it stands relative to the bone at rest.
			toBone, ok := sk.fileGlob[anchor].Inverse()
			if !ok {
				return s.fail(RuleTransform, "bone %q's rest transform cannot be inverted (a zero scale)", sk.names[anchor])
			}
			rigid = sk.bind[anchor].Mul(toBone).Mul(g).Mul(geometric(mo))
			member.Joint = sk.names[anchor]
			member.How = "rigid on joint " + sk.names[anchor]
		} else {
			member.Skin = 0
			member.How = "skinned"
		}
		vn := geom.Node.Child("Vertices")
		pn := geom.Node.Child("PolygonVertexIndex")
		if vn == nil || pn == nil || len(vn.Props) == 0 || len(pn.Props) == 0 {
			return s.fail(RuleMesh, "geometry %q has no Vertices or PolygonVertexIndex", geom.Name)
		}
		cps := vn.Props[0].FloatArray()
		pvi := pn.Props[0].IntArray()
		if len(cps)%3 != 0 {
			return s.fail(RuleMesh, "geometry %q: Vertices holds %d values, not a multiple of 3", geom.Name, len(cps))
		}
		ncp := len(cps) / 3
		type infl struct {
			j int
			w float64
			m rig.Mat4
		}
		var infls [][]infl
		var unweighted rig.Mat4 // the mesh model's global · Geo
		if si != nil {
			infls = make([][]infl, ncp)
			geo := geometric(mo)
			g, err := s.fileGlobal(mo)
			if err != nil {
				return err
			}
			unweighted = g.Mul(geo)
			for _, c := range si.clusters {
				b := sk.boneOf[c.link]
				// The file's Transform is the cluster's inverse bind matrix,
				// TransformLink⁻¹ · the mesh's bind matrix (§9): in the bind
				// pose a control point p stands at G_bind · Transform · Geo · p.
				mat := sk.bind[b].Mul(c.t).Mul(geo)
				for k, ix := range c.indexes {
					if ix < 0 || int(ix) >= ncp {
						return s.fail(RuleSkin, "cluster %q: index %d is outside the %d control points of %q", c.obj.Name, ix, ncp, geom.Name)
					}
					if w := c.weights[k]; w > 0 {
						infls[ix] = append(infls[ix], infl{b, w, mat})
					}
				}
			}
		}
		normals := readLayer(geom.Node, "LayerElementNormal", "Normals", "NormalsIndex", 3)
		uvs := readLayer(geom.Node, "LayerElementUV", "UV", "UVIndex", 2)
		mats := readLayer(geom.Node, "LayerElementMaterial", "Materials", "", 1)
		// A layer that cannot be read whole is left out, and said: normals,
		// UVs and materials are not needed to skin the mesh.
		for _, l := range []**layer{&normals, &uvs, &mats} {
			if *l == nil || len((*l).data) == 0 {
				*l = nil
				continue
			}
			if err := (*l).check(pvi); err != nil {
				m.Warnings = append(m.Warnings, fmt.Sprintf("mesh %q: %v: the layer is left out", mo.obj.Name, err))
				*l = nil
			}
		}
		materials := s.objectsOf(s.children[mo.obj.ID], "Material")
		base := len(out.Positions)
		seen := map[vertexKey]uint32{}
		byMat := map[int][]uint32{}
		var poly []int // polygon vertex positions of the polygon being read
		npoly := 0
		place := func(cp int) (rig.Vec3, rig.Mat4, [4]uint16, [4]float32) {
			p := rig.Vec3{cps[3*cp], cps[3*cp+1], cps[3*cp+2]}
			var js [4]uint16
			var ws [4]float32
			if si == nil {
				js[0], ws[0] = uint16(anchor), 1
				return rigid.TransformPoint(p), rigid, js, ws
			}
			in := infls[cp]
			if len(in) == 0 { // unweighted: not deformed, it stands where its mesh model puts it
				js[0], ws[0] = 0, 0
				return unweighted.TransformPoint(p), unweighted, js, ws
			}
			slices.SortStableFunc(in, func(a, b infl) int {
				switch {
				case a.w > b.w:
					return -1
				case a.w < b.w:
					return 1
				}
				return 0
			})
			var blend rig.Mat4
			total := 0.0
			for _, x := range in {
				total += x.w
			}
			for _, x := range in {
				for i := range blend {
					blend[i] += x.m[i] * x.w / total
				}
			}
			for k := range min(4, len(in)) {
				js[k], ws[k] = uint16(in[k].j), float32(in[k].w)
			}
			return blend.TransformPoint(p), blend, js, ws
		}
		emit := func() error {
			if len(poly) < 3 {
				poly = poly[:0]
				npoly++
				return nil // a point or a line draws nothing
			}
			mi := 0
			if mats != nil {
				k, err := mats.at(0, 0, npoly)
				if err != nil {
					return err
				}
				mi = int(mats.data[k])
			}
			var ids []uint32
			for _, pv := range poly {
				cp := int(pvi[pv])
				if cp < 0 {
					cp = ^cp
				}
				key := vertexKey{cp, -1, -1}
				var err error
				if normals != nil {
					if key.n, err = normals.at(pv, cp, npoly); err != nil {
						return err
					}
				}
				if uvs != nil {
					if key.uv, err = uvs.at(pv, cp, npoly); err != nil {
						return err
					}
				}
				id, ok := seen[key]
				if !ok {
					id = uint32(len(out.Positions))
					seen[key] = id
					p, blend, js, ws := place(cp)
					pc := conv.TransformPoint(p)
					out.Positions = append(out.Positions, [3]float32{float32(pc[0]), float32(pc[1]), float32(pc[2])})
					var nrm rig.Vec3
					if key.n >= 0 {
						n := rig.Vec3{normals.data[3*key.n], normals.data[3*key.n+1], normals.data[3*key.n+2]}
						if inv, ok := blend.Inverse(); ok {
							it := inv.Transpose()
							n = it.TransformVector(n)
						}
						nrm = convLin.TransformVector(n).Normalize()
					}
					out.Normals = append(out.Normals, [3]float32{float32(nrm[0]), float32(nrm[1]), float32(nrm[2])})
					var uv [2]float32
					if key.uv >= 0 { // FBX's V runs up, glTF's down
						uv = [2]float32{float32(uvs.data[2*key.uv]), float32(1 - uvs.data[2*key.uv+1])}
					}
					out.UVs = append(out.UVs, uv)
					out.Joints = append(out.Joints, js)
					out.Weights = append(out.Weights, ws)
				}
				ids = append(ids, id)
			}
			for k := 1; k+1 < len(ids); k++ { // a fan (§8)
				byMat[mi] = append(byMat[mi], ids[0], ids[k], ids[k+1])
			}
			poly = poly[:0]
			npoly++
			return nil
		}
		for pv, ix := range pvi {
			cp := ix
			if cp < 0 {
				cp = ^cp
			}
			if cp >= int64(ncp) {
				return s.fail(RuleMesh, "geometry %q: polygon vertex %d is control point %d, but there are %d", geom.Name, pv, cp, ncp)
			}
			poly = append(poly, pv)
			if ix < 0 {
				if err := emit(); err != nil {
					return s.fail(RuleMesh, "geometry %q: %v", geom.Name, err)
				}
			}
		}
		if len(poly) > 0 {
			return s.fail(RuleMesh, "geometry %q: its last polygon has no end (a negative index)", geom.Name)
		}
		keys := make([]int, 0, len(byMat))
		for k := range byMat {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			part := gltf.Part{First: len(out.Indices), Count: len(byMat[k])}
			part.Material = gltf.Material{BaseColor: [4]float32{1, 1, 1, 1}}
			if k >= 0 && k < len(materials) {
				part.Material = s.material(materials[k], opt.Textures, opt.FilesRoot, &m.Warnings)
			}
			out.Indices = append(out.Indices, byMat[k]...)
			m.Parts = append(m.Parts, part)
		}
		member.Vertices = len(out.Positions) - base
		m.Members = append(m.Members, member)
	}
	if len(out.Positions) == 0 {
		return nil
	}
	m.WeightsNormalized = mesh.NormalizeWeights(out.Joints, out.Weights, 0)
	m.Mesh = out
	return nil
}

// srgbToLinear converts one sRGB component to linear, as glTF's base colour is.
func srgbToLinear(c float64) float64 {
	if c <= 0.04045 {
		return c / 12.92
	}
	return math.Pow((c+0.055)/1.055, 2.4)
}

// material reads a Material's diffuse colour (§10) and, when asked, the image
// of the texture on it: embedded, else its file beside the FBX (inside
// filesRoot when one is given).
func (s *scene) material(o *fbxfile.Object, textures bool, filesRoot string, warn *[]string) gltf.Material {
	mat := gltf.Material{Name: o.Name, BaseColor: [4]float32{1, 1, 1, 1}}
	c := o.Props.Vec3("DiffuseColor", [3]float64{1, 1, 1})
	if o.Props["DiffuseColor"] == nil {
		c = o.Props.Vec3("Diffuse", c)
	}
	for i := range 3 {
		mat.BaseColor[i] = float32(srgbToLinear(c[i]))
	}
	if op, ok := o.Props["Opacity"].Number(0); ok && op >= 0 && op <= 1 {
		mat.BaseColor[3] = float32(op)
	}
	if !textures {
		return mat
	}
	for _, c := range s.opKids[o.ID] {
		if c.Property != "DiffuseColor" && c.Property != "Diffuse" {
			continue
		}
		tex := s.sc.ByID[c.Child]
		if tex == nil || tex.Class != "Texture" {
			continue
		}
		videos := s.objectsOf(s.children[tex.ID], "Video")
		var data []byte
		from := "embedded"
		for _, v := range videos {
			if data = embedded(v.Node.Child("Content")); len(data) > 0 {
				break
			}
		}
		if len(data) == 0 {
			var err error
			data, from, err = s.externalTexture(s.textureNames(tex, videos), filesRoot)
			if err != nil {
				*warn = append(*warn, fmt.Sprintf("material %q: texture %q is not embedded and its file cannot be read: %v: not used", o.Name, tex.Name, err))
				continue
			}
		}
		mime := imageMIME(data)
		if mime == "" {
			*warn = append(*warn, fmt.Sprintf("material %q: texture %q (%s) is neither PNG nor JPEG: not used", o.Name, tex.Name, from))
			continue
		}
		mat.Texture = &gltf.Texture{MIME: mime, Data: data, WrapS: 10497, WrapT: 10497}
		return mat
	}
	return mat
}

// embedded returns a Video's Content: raw bytes in a binary file, base64 text
// (perhaps in several strings) in an ASCII one; nil when there is none.
func embedded(n *fbxfile.Node) []byte {
	if n == nil || len(n.Props) == 0 {
		return nil
	}
	if n.Props[0].Type == 'R' {
		return n.Props[0].Raw
	}
	var text strings.Builder
	for _, p := range n.Props {
		text.WriteString(p.String)
	}
	b, err := base64.StdEncoding.DecodeString(text.String())
	if err != nil {
		return nil
	}
	return b
}
