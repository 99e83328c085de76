// The character's skeleton: the skins and their clusters (skins, §9), the bones
// they and the clips move, and their bind pose (skeletonOf).

package fbx

import (
	"fmt"
	"slices"

	fbxfile "github.com/bonebake/bonebake/formats/fbx"
	"github.com/bonebake/bonebake/rig"
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
