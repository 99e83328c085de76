package fbx

import (
	"github.com/bonebake/bonebake/rig"
	"github.com/bonebake/bonebake/source/gltf"
)

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
