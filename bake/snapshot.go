package bake

import (
	"fmt"
	"io"
	"math"

	"github.com/bonebake/bonebake/formats/bpat"
	"github.com/bonebake/bonebake/formats/bpsm"
	"github.com/bonebake/bonebake/internal/atomicfile"
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
	return snapshot(id, m, ibm, f.Clips(), f.Palette)
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
	sc, err := snapshot(j.SpeciesID, m, ibm, c.Clips, func(ci, f int) []float32 {
		return c.Palettes[ci][f*frame : (f+1)*frame]
	})
	if err != nil {
		return nil, fmt.Errorf("bake: snapshot: %w", err)
	}
	return sc, nil
}

// snapshot skins m, bound by ibm (one matrix per palette bone), at every frame
// of clips (their names and frame counts), whose palettes pal returns.
func snapshot(id uint32, m *mesh.Skinned, ibm []rig.Mat4, clips []bpat.Clip, pal func(c, f int) []float32) (*bpsm.Contents, error) {
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
	for c, cl := range clips {
		out.Clips = append(out.Clips, bpsm.Clip{Name: cl.Name})
		frames := make([]bpsm.Vertex, 0, cl.FrameCount*nv)
		for fr := range cl.FrameCount {
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
	return WriteSnapshotWith(atomicfile.Write, path, c)
}

// WriteSnapshotWith is WriteSnapshot writing path with write: an
// atomicfile.Set's Write, for a snapshot that is one of a set of files.
func WriteSnapshotWith(write atomicfile.WriteFunc, path string, c *bpsm.Contents) (int64, error) {
	n, err := c.Size()
	if err != nil {
		return 0, fmt.Errorf("writing %s: %w", path, err)
	}
	if err := write(path, func(w io.Writer) error { return bpsm.Write(w, c) }); err != nil {
		return 0, err
	}
	return n, nil
}
