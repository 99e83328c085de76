package gltf

import (
	qgltf "github.com/qmuntal/gltf"

	"github.com/bonebake/bonebake/anim"
	"github.com/bonebake/bonebake/rig"
)

// ClipFile is a glTF file read for its animations alone, to be put on another
// model's skeleton by node name (docs/formats/gltf.md §6): a Mixamo-style
// export of one animation, whose nodes are a copy of the character's joints
// and which need not have a skin or a mesh.
type ClipFile struct {
	Path string
	// Format is the format the file was read from, as messages name it: ""
	// for glTF, "fbx" or "bvh".
	Format string
	// Nodes are all the file's nodes, in file order: a track's Bone in
	// Animations is an index into it.
	Nodes []ClipNode
	// Animations holds every animation in file order, tracks on node indices;
	// weights channels are dropped. Start and Duration are as Model.Clips' are,
	// and an animation without a name is called "animation_<N>".
	Animations []anim.Animation
	// Unnamed says, per animation, that the file gave it no name (so that the
	// caller may name it after the file instead).
	Unnamed []bool
	// Weights counts, per animation, its channels on morph target weights,
	// which are not baked (docs/formats/gltf.md §3).
	Weights []int
	// Unoriented says that the file's joints have no orientation of their own
	// at rest (a BVH file, docs/formats/bvh.md §6): a rotation turns a joint from
	// the rest pose in the file's axes, and is re-expressed in the character's
	// joint frames when bound.
	Unoriented bool
	// Notes are what the reader decided that the user should be told (a BVH
	// file's up axis or units that no skeleton made clear).
	Notes []string
}

// ClipNode is one node of a clip file: its name as the file writes it ("" when
// it has none), its parent (-1 for a root) and its rest transform, a matrix
// decomposed.
type ClipNode struct {
	Name   string
	Parent int
	Rest   rig.Transform
}

// LoadClips reads the animations of the glTF or GLB file at path with the nodes
// they target. Only opt.FilesRoot and opt.NoMemoryLimit apply. A file without
// animations is refused (RuleClipFile): a clip file that gives no clip is a
// mistake in the list of files.
func LoadClips(path string, opt Options) (*ClipFile, error) {
	return withDocument(path, opt.FilesRoot, func(d *document) (*ClipFile, error) { return d.clipFile(opt) })
}

func (d *document) clipFile(opt Options) (*ClipFile, error) {
	if opt.NoMemoryLimit {
		d.memory.limit = -1
	}
	if err := d.checkRequired(); err != nil {
		return nil, err
	}
	if len(d.doc.Animations) == 0 {
		return nil, d.fail(RuleClipFile, "the file has no animations to take clips from")
	}
	cf := &ClipFile{Path: d.path, Nodes: make([]ClipNode, len(d.doc.Nodes))}
	self := make([]int, len(d.doc.Nodes)) // every node is a "bone" of its own
	for n := range d.doc.Nodes {
		t, err := d.restTransform(n)
		if err != nil {
			return nil, err
		}
		cf.Nodes[n] = ClipNode{Name: d.doc.Nodes[n].Name, Parent: d.parents[n], Rest: t}
		self[n] = n
	}
	var err error
	if cf.Animations, err = d.clips(self, len(self)); err != nil {
		return nil, err
	}
	for _, a := range d.doc.Animations {
		cf.Unnamed = append(cf.Unnamed, a.Name == "")
		w := 0
		for _, ch := range a.Channels {
			if ch.Target.Node != nil && ch.Target.Path == qgltf.TRSWeights {
				w++
			}
		}
		cf.Weights = append(cf.Weights, w)
	}
	return cf, nil
}

// RestGlobal returns node n's global transform at rest, row-major: the product
// of its ancestors' rest transforms and its own.
func (cf *ClipFile) RestGlobal(n int) rig.Mat4 {
	g := rig.IdentityMat4()
	for x := n; x >= 0; x = cf.Nodes[x].Parent {
		g = cf.Nodes[x].Rest.Matrix().Mul(g)
	}
	return g
}
