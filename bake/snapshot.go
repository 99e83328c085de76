package bake

import (
	"fmt"
	"math"
	"os"

	"bonebake/formats/bpat"
	"bonebake/formats/bpsm"
	"bonebake/mesh"
	"bonebake/species"
)

// Snapshot skins a species' minimal mesh on the CPU at every frame of its baked
// palette file f (docs/formats/bpsm.md): the far-LOD snapshot, where a creature costs no
// skinning at all at run time.
func Snapshot(s *species.Creature, f *bpat.File) (*bpsm.Contents, error) {
	m := s.Minimal
	if m == nil {
		return nil, fmt.Errorf("bake: species %s has no minimal mesh", s.Name)
	}
	if f.BoneCount() != s.Skeleton.Len() {
		return nil, fmt.Errorf("bake: %s has %d bones, species %s has %d", f.Name(), f.BoneCount(), s.Name, s.Skeleton.Len())
	}
	for v, js := range m.Joints {
		for _, j := range js {
			if int(j) >= s.Skeleton.Len() || j > math.MaxUint8 {
				return nil, fmt.Errorf("bake: %s minimal mesh vertex %d uses bone %d", s.Name, v, j)
			}
		}
	}
	ibm := s.InverseBind()
	nv := m.VertexCount()
	skin := make([]float32, len(ibm)*16)
	pos, nrm := make([][3]float32, nv), make([][3]float32, nv)
	out := &bpsm.Contents{SpeciesID: s.ID, LOD: bpsm.LODMinimal, VertexCount: m.VertexCount(), Indices: m.Indices}
	for c, cl := range f.Clips() {
		out.Clips = append(out.Clips, bpsm.Clip{Name: cl.Name})
		frames := make([]bpsm.Vertex, 0, cl.FrameCount*m.VertexCount())
		for fr := 0; fr < cl.FrameCount; fr++ {
			if err := mesh.SkinMatrices(skin, f.Palette(c, fr), ibm); err != nil {
				return nil, err
			}
			if err := m.Skin(skin, pos, nrm); err != nil {
				return nil, fmt.Errorf("bake: %s minimal mesh: %w", s.Name, err)
			}
			for v := range nv {
				vx := bpsm.Vertex{Position: pos[v], Normal: nrm[v], Weights: m.Weights[v]}
				if m.UVs != nil {
					vx.UV = m.UVs[v]
				}
				if m.Roles != nil {
					vx.Role = m.Roles[v]
				}
				for k, j := range m.Joints[v] {
					vx.Joints[k] = uint8(j)
				}
				frames = append(frames, vx)
			}
		}
		out.Frames = append(out.Frames, frames)
	}
	return out, nil
}

// SnapshotFile writes Snapshot's result to path atomically and returns its size.
func SnapshotFile(path string, s *species.Creature, f *bpat.File) (int64, error) {
	c, err := Snapshot(s, f)
	if err != nil {
		return 0, err
	}
	if err := bpsm.WriteFile(path, c); err != nil {
		return 0, err
	}
	st, err := os.Stat(path)
	if err != nil {
		return 0, err
	}
	return st.Size(), nil
}
