// The character's skinned mesh (docs/formats/fbx.md §8–§10): each geometry's
// polygon vertices and their layers (normals, UVs, materials) welded into
// glTF-style vertices, with the clusters' weights (character).

package fbx

import (
	"fmt"
	"slices"

	fbxfile "github.com/bonebake/bonebake/formats/fbx"
	"github.com/bonebake/bonebake/mesh"
	"github.com/bonebake/bonebake/rig"
	"github.com/bonebake/bonebake/source/gltf"
)

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
