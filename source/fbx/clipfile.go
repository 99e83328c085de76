package fbx

import (
	"github.com/bonebake/bonebake/source/gltf"
)

// LoadClips reads the animation stacks of the FBX file at path with the
// models they move, as gltf.LoadClips reads a glTF file's (docs/formats/fbx.md
// §12): Mixamo's animation-only files ("without skin") and characters alike.
// Every model is a node, in file order, its rest transform converted as
// Load's are. A file whose stacks have no keys is refused (RuleClipFile).
func LoadClips(path string, opt gltf.Options) (*gltf.ClipFile, error) {
	s, err := open(path)
	if err != nil {
		return nil, err
	}
	return s.loadClips()
}

func (s *scene) loadClips() (*gltf.ClipFile, error) {
	path := s.path
	index := map[*model]int{}
	for i, m := range s.order {
		index[m] = i
	}
	cf := &gltf.ClipFile{Path: path, Format: "fbx", Nodes: make([]gltf.ClipNode, len(s.order))}
	for i, m := range s.order {
		p := -1
		if m.parent != nil {
			p = index[m.parent]
		}
		l, err := s.localAt(m, m.static(), parentScale(m, nil))
		if err != nil {
			return nil, err
		}
		cf.Nodes[i] = gltf.ClipNode{Name: m.obj.Name, Parent: p, Rest: s.convert(l, p < 0)}
	}
	// Clips are sampled parents first: s.order need not be, so sort by depth
	// through boneOf's order only where it matters (Rrs folding reads the
	// parent's samples, which clips computes in one pass per frame).
	anims, warn, err := s.clips(nil, func(m *model) int { return index[m] })
	if err != nil {
		return nil, err
	}
	if len(anims) == 0 {
		detail := "the file has no animation stack to take clips from"
		if len(warn) > 0 {
			detail = "no animation stack of the file has keys: " + warn[0]
		}
		return nil, s.fail(RuleClipFile, "%s", detail)
	}
	cf.Animations = anims
	cf.Notes = warn // what sampling could not do as FBX says (layers, velocities), and stacks left out
	cf.Unnamed = make([]bool, len(anims))
	cf.Weights = make([]int, len(anims))
	return cf, nil
}
