package bake

import (
	"fmt"
	"math"
	"os"

	"github.com/bonebake/bonebake/formats/bpat"
	"github.com/bonebake/bonebake/formats/bpsm"
	"github.com/bonebake/bonebake/mesh"
	"github.com/bonebake/bonebake/rig"
)

// A snapshot is a far-LOD mesh skinned on the CPU at every baked frame
// (docs/formats/bpsm.md), where a unit costs no skinning at all at run time. The
// functions here are the part every source shares: a mesh, its inverse bind
// matrices (one per palette bone) and palettes in, a .bpsm's contents out. Which
// mesh, and which frames, the source's adapter says (species.Creature.Snapshot,
// the glTF adapter's ModelSnapshot).

// SnapshotFromFile skins m, bound by ibm, at every frame of the BPAT file f, for
// species id.
func SnapshotFromFile(id uint32, m *mesh.Skinned, ibm []rig.Mat4, f *bpat.File) (*bpsm.Contents, error) {
	var names []string
	var counts []int
	for _, cl := range f.Clips() {
		names, counts = append(names, cl.Name), append(counts, cl.FrameCount)
	}
	return snapshot(id, m, ibm, names, counts, f.Palette)
}

// SnapshotFromJob bakes j in memory and skins m, bound by ibm, at every frame: a
// snapshot whose frames are exactly the poses of their times.
func SnapshotFromJob(j *Job, m *mesh.Skinned, ibm []rig.Mat4) (*bpsm.Contents, error) {
	c, err := Bake(j)
	if err != nil {
		return nil, err
	}
	if c.BoneCount != len(ibm) {
		return nil, fmt.Errorf("bake: %d palette bones, %d inverse bind matrices", c.BoneCount, len(ibm))
	}
	frame := c.BoneCount * bpat.FloatsPerBone
	var names []string
	var counts []int
	for i, cl := range c.Clips {
		names, counts = append(names, cl.Name), append(counts, len(c.Palettes[i])/frame)
	}
	sc, err := snapshot(j.SpeciesID, m, ibm, names, counts, func(ci, f int) []float32 {
		return c.Palettes[ci][f*frame : (f+1)*frame]
	})
	if err != nil {
		return nil, fmt.Errorf("bake: snapshot: %w", err)
	}
	return sc, nil
}

// snapshot skins m, bound by ibm (one matrix per palette bone), at every frame
// of the clips named names, counts[c] frames each, whose palettes pal returns.
func snapshot(id uint32, m *mesh.Skinned, ibm []rig.Mat4, names []string, counts []int, pal func(c, f int) []float32) (*bpsm.Contents, error) {
	for v, js := range m.Joints {
		for k, j := range js {
			if m.Weights[v][k] != 0 && (int(j) >= len(ibm) || j > math.MaxUint8) {
				return nil, fmt.Errorf("vertex %d uses bone %d (a snapshot stores bones 0-255 of %d)", v, j, len(ibm))
			}
		}
	}
	nv := m.VertexCount()
	skin := make([]float32, len(ibm)*16)
	pos, nrm := make([][3]float32, nv), make([][3]float32, nv)
	out := &bpsm.Contents{SpeciesID: id, LOD: bpsm.LODMinimal, VertexCount: nv, Indices: m.Indices}
	for c, name := range names {
		out.Clips = append(out.Clips, bpsm.Clip{Name: name})
		frames := make([]bpsm.Vertex, 0, counts[c]*nv)
		for fr := range counts[c] {
			if err := mesh.SkinMatrices(skin, pal(c, fr), ibm); err != nil {
				return nil, err
			}
			if err := m.Skin(skin, pos, nrm); err != nil {
				return nil, err
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
					if j <= math.MaxUint8 { // a larger one has weight 0 (checked above)
						vx.Joints[k] = uint8(j)
					}
				}
				frames = append(frames, vx)
			}
		}
		out.Frames = append(out.Frames, frames)
	}
	return out, nil
}

// WriteSnapshot writes c to path atomically and returns the file's size.
func WriteSnapshot(path string, c *bpsm.Contents) (int64, error) {
	if err := bpsm.WriteFile(path, c); err != nil {
		return 0, err
	}
	st, err := os.Stat(path)
	if err != nil {
		return 0, err
	}
	return st.Size(), nil
}
