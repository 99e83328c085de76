package bat

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/bonebake/bonebake/bake"
	"github.com/bonebake/bonebake/formats/bpat"
	"github.com/bonebake/bonebake/mesh"
	"github.com/bonebake/bonebake/rig"
	"github.com/bonebake/bonebake/source/gltf/gltfbake"
	"github.com/bonebake/bonebake/species"
)

// FromModel bakes a glTF model's job (gltfbake.Load) into an input named after
// the file. A model whose mesh cannot be read (Draco) fails with that reason.
func FromModel(m *gltfbake.Model) (*Input, error) {
	if m.GLTF.MeshError != nil {
		return nil, fmt.Errorf("%s: bone animation textures need the skinned mesh: %w", m.Path, m.GLTF.MeshError)
	}
	if m.GLTF.Mesh == nil {
		return nil, fmt.Errorf("%s: no node uses the skin, so there is no skinned mesh to bake textures for", m.Path)
	}
	c, block, err := bake.BakeBlock(m.Job)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", m.Path, err)
	}
	name := strings.TrimSuffix(filepath.Base(m.Path), filepath.Ext(m.Path))
	return fromContents(name, c, block, m.GLTF.InverseBind, m.GLTF.Mesh), nil
}

// FromSpecies bakes a built-in creature's clips into an input.
func FromSpecies(s *species.Creature) (*Input, error) {
	j, err := s.Job()
	if err != nil {
		return nil, fmt.Errorf("baking %s: %w", s.Name, err)
	}
	c, block, err := bake.BakeBlock(j)
	if err != nil {
		return nil, fmt.Errorf("baking %s: %w", s.Name, err)
	}
	return fromContents(s.Name, c, block, s.InverseBind(), s.Mesh), nil
}

// fromContents is an input of baked contents whose palettes are block, clip
// after clip (bake.BakeBlock's): the block is taken, not copied.
func fromContents(name string, c *bpat.Contents, block []float32, ibm []rig.Mat4, m *mesh.Skinned) *Input {
	return &Input{Name: name, Bones: c.BoneCount, InverseBind: ibm, Mesh: m, Clips: slices.Clone(c.Clips), Palettes: block}
}

// FromBPAT reads a BPAT file's palettes with the mesh and inverse bind matrices
// they were baked for (a bone's palette index is its JOINTS_0 index).
func FromBPAT(name string, f *bpat.File, ibm []rig.Mat4, m *mesh.Skinned) (*Input, error) {
	if len(ibm) != f.BoneCount() {
		return nil, fmt.Errorf("%s: %d bones but %d inverse bind matrices", name, f.BoneCount(), len(ibm))
	}
	in := &Input{Name: name, Bones: f.BoneCount(), InverseBind: ibm, Mesh: m}
	in.Clips = slices.Clone(f.Clips())
	frames := 0
	for _, c := range in.Clips {
		frames += c.FrameCount
	}
	in.Palettes = make([]float32, 0, frames*f.BoneCount()*16)
	for ci, c := range in.Clips {
		for fr := range c.FrameCount {
			in.Palettes = append(in.Palettes, f.Palette(ci, fr)...)
		}
	}
	return in, nil
}
