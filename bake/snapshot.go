package bake

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"slices"

	"github.com/bonebake/bonebake/formats/bpat"
	"github.com/bonebake/bonebake/formats/bpsm"
	"github.com/bonebake/bonebake/mesh"
	"github.com/bonebake/bonebake/mesh/simplify"
	"github.com/bonebake/bonebake/rig"
	"github.com/bonebake/bonebake/source/gltf"
	"github.com/bonebake/bonebake/species"
)

// Snapshot skins a species' minimal mesh on the CPU at every frame of its baked
// palette file f (docs/formats/bpsm.md): the far-LOD snapshot, where a creature costs no
// skinning at all at run time.
func Snapshot(s *species.Creature, f *bpat.File) (*bpsm.Contents, error) {
	if s.Minimal == nil {
		return nil, fmt.Errorf("bake: species %s has no minimal mesh", s.Name)
	}
	if f.BoneCount() != s.Skeleton.Len() {
		return nil, fmt.Errorf("bake: %s has %d bones, species %s has %d", f.Name(), f.BoneCount(), s.Name, s.Skeleton.Len())
	}
	var names []string
	var counts []int
	for _, cl := range f.Clips() {
		names, counts = append(names, cl.Name), append(counts, cl.FrameCount)
	}
	c, err := snapshot(s.ID, s.Minimal, s.InverseBind(), names, counts, f.Palette)
	if err != nil {
		return nil, fmt.Errorf("bake: %s minimal mesh: %w", s.Name, err)
	}
	return c, nil
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

// SnapshotBytes is Snapshot encoded: the bytes of the creature's
// NAME_minimal.bpsm, made in memory (as SpeciesBytes makes its BPAT file's).
func SnapshotBytes(s *species.Creature, f *bpat.File) ([]byte, error) {
	c, err := Snapshot(s, f)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := bpsm.Write(&buf, c); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// SnapshotFile writes Snapshot's result to path atomically and returns its size.
func SnapshotFile(path string, s *species.Creature, f *bpat.File) (int64, error) {
	c, err := Snapshot(s, f)
	if err != nil {
		return 0, err
	}
	return writeSnapshot(path, c)
}

func writeSnapshot(path string, c *bpsm.Contents) (int64, error) {
	if err := bpsm.WriteFile(path, c); err != nil {
		return 0, err
	}
	st, err := os.Stat(path)
	if err != nil {
		return 0, err
	}
	return st.Size(), nil
}

// DefaultSnapshotTriangles is the far mesh's triangle budget when neither the
// caller nor the manifest gives one: about the built-in creatures' minimal
// meshes (270 to 300 triangles).
const DefaultSnapshotTriangles = 300

// SnapshotSettings says how a model's far-LOD snapshot is made (bake --snapshot).
type SnapshotSettings struct {
	// Triangles is the budget the model's mesh is simplified to (0: the
	// manifest's snapshot_triangles, else DefaultSnapshotTriangles). A mesh
	// given by Mesh or a model's own level of detail is used as it is.
	Triangles int
	// Mesh is the path of a glTF model whose skinned mesh is the far mesh, bound
	// to the model's skeleton by joint names ("" none).
	Mesh string
	// LOD picks a level of the model's MSFT_lod levels: -1 (the default) the
	// coarsest, 0 none (the full mesh simplified), k the k-th lower level.
	LOD int
	// FPS, when > 0, stores each clip at this rate (at most its own): fewer
	// frames, placed by the rules of docs/formats/bpat.md §5 over the clip's
	// duration. 0 keeps every clip's own frames.
	FPS float64
}

// ModelSnapshot is a model's far mesh, ready to be baked into a snapshot.
type ModelSnapshot struct {
	Mesh *mesh.Skinned
	// InverseBind holds one matrix per palette bone, binding Mesh.
	InverseBind []rig.Mat4
	// From says where the mesh came from, for the user.
	From string
	// Frames holds each clip's snapshot frame count.
	Frames []int
	fps    float64
}

// Snapshot prepares m's far mesh as s says: the user's mesh bound by joint
// names, else the model's coarsest MSFT_lod level, else its mesh simplified to
// the budget.
func (m *Model) Snapshot(s SnapshotSettings) (*ModelSnapshot, error) {
	g := m.GLTF
	if g.Mesh == nil {
		if g.MeshError != nil {
			return nil, fmt.Errorf("%s: snapshot: %w", m.Path, g.MeshError)
		}
		return nil, fmt.Errorf("%s: snapshot: the model has no skinned mesh", m.Path)
	}
	out := &ModelSnapshot{fps: s.FPS}
	for _, c := range m.Job.Clips {
		_, d := m.Job.Span(&c)
		n := FrameCount(d, c.FPS, c.Loops)
		if s.FPS > 0 && s.FPS < c.FPS {
			n = FrameCount(d, s.FPS, c.Loops)
		}
		out.Frames = append(out.Frames, n)
	}
	budget := s.Triangles
	if budget == 0 {
		budget = m.SnapshotTriangles
	}
	if budget == 0 {
		budget = DefaultSnapshotTriangles
	}
	switch {
	case s.Mesh != "":
		low, err := gltf.Load(s.Mesh, gltf.Options{LOD: s.LOD})
		if err != nil {
			return nil, err
		}
		if low.Mesh == nil {
			return nil, fmt.Errorf("%s: --snapshot-mesh: the model has no readable skinned mesh", s.Mesh)
		}
		if m.Scale != 0 {
			if err := low.Scale(m.Scale); err != nil {
				return nil, err
			}
		}
		if out.Mesh, out.InverseBind, err = bindByName(low, g); err != nil {
			return nil, fmt.Errorf("%s: --snapshot-mesh: %w", s.Mesh, err)
		}
		out.From = fmt.Sprintf("%s's mesh", s.Mesh)
	case s.LOD != 0 && g.LODLevels > 0:
		lod, err := gltf.Load(m.Path, gltf.Options{Skin: m.Skin, LOD: s.LOD, FilesRoot: m.filesRoot, NoMemoryLimit: true})
		if err != nil {
			return nil, err
		}
		if m.Scale != 0 {
			if err := lod.Scale(m.Scale); err != nil {
				return nil, err
			}
		}
		if out.Mesh, out.InverseBind, err = bindByName(lod, g); err != nil {
			return nil, fmt.Errorf("%s: MSFT_lod level %d: %w", m.Path, lod.LOD, err)
		}
		out.From = fmt.Sprintf("MSFT_lod level %d of %d", lod.LOD, lod.LODLevels)
	default:
		simple, st, err := simplify.Simplify(g.Mesh, budget, simplify.Options{})
		if err != nil {
			return nil, err
		}
		out.Mesh, out.InverseBind = simple, g.InverseBind
		out.From = fmt.Sprintf("the mesh simplified from %d triangles", st.TrianglesIn)
		if !st.Reached {
			out.From += fmt.Sprintf(" (the budget was %d: its parts allow no fewer)", budget)
		}
	}
	return out, nil
}

// bindByName returns low's mesh with its joints renumbered to model's palette by
// joint name, and the inverse bind matrices that bind it (low's own, per
// palette bone; the identity for bones it does not use).
func bindByName(low, model *gltf.Model) (*mesh.Skinned, []rig.Mat4, error) {
	ibm := make([]rig.Mat4, len(model.JointNames))
	for i := range ibm {
		ibm[i] = rig.IdentityMat4()
	}
	to := make([]int, len(low.JointNames))
	for j, name := range low.JointNames {
		to[j] = slices.Index(model.JointNames, name)
	}
	m := *low.Mesh
	m.Joints = make([][4]uint16, len(low.Mesh.Joints))
	for v, js := range low.Mesh.Joints {
		for k, j := range js {
			if low.Mesh.Weights[v][k] == 0 {
				continue
			}
			p := to[j]
			if p < 0 {
				return nil, nil, fmt.Errorf("joint %q is not one of the model's joints", low.JointNames[j])
			}
			m.Joints[v][k] = uint16(p)
			ibm[p] = low.InverseBind[j]
		}
	}
	return &m, ibm, nil
}

// Size is the size in bytes of the snapshot file (docs/formats/bpsm.md §5).
func (s *ModelSnapshot) Size(clipNames []string) int64 {
	strs := 0
	seen := map[string]bool{}
	for _, n := range clipNames {
		if !seen[n] {
			seen[n] = true
			strs += len(n) + 1
		}
	}
	align := func(x int64) int64 { return (x + bpsm.DataAlign - 1) / bpsm.DataAlign * bpsm.DataAlign }
	idx := align(int64(bpsm.HeaderSize + bpsm.ClipEntrySize*len(clipNames) + strs))
	vtx := align(idx + int64(len(s.Mesh.Indices))*bpsm.IndexSize)
	frames := 0
	for _, n := range s.Frames {
		frames += n
	}
	return vtx + int64(frames)*int64(s.Mesh.VertexCount())*bpsm.VertexSize
}

// Write bakes the snapshot of j's clips (as many frames as s.Frames says) into
// path and returns its size. The palettes are baked anew at the snapshot's
// frame times, so a frame is exactly the pose of its time.
func (s *ModelSnapshot) Write(path string, j *Job) (int64, error) {
	jj := *j
	jj.Clips = slices.Clone(j.Clips)
	jj.Progress = nil
	for i := range jj.Clips {
		if s.fps > 0 && s.fps < jj.Clips[i].FPS {
			jj.Clips[i].FPS = s.fps
		}
	}
	c, err := Bake(&jj)
	if err != nil {
		return 0, err
	}
	var names []string
	var counts []int
	for i, cl := range c.Clips {
		n := len(c.Palettes[i]) / (c.BoneCount * bpat.FloatsPerBone)
		if n != s.Frames[i] {
			return 0, fmt.Errorf("bake: snapshot clip %q: %d frames baked, %d planned", cl.Name, n, s.Frames[i])
		}
		names, counts = append(names, cl.Name), append(counts, n)
	}
	if c.BoneCount != len(s.InverseBind) {
		return 0, fmt.Errorf("bake: %d palette bones, %d inverse bind matrices", c.BoneCount, len(s.InverseBind))
	}
	frame := c.BoneCount * bpat.FloatsPerBone
	sc, err := snapshot(j.SpeciesID, s.Mesh, s.InverseBind, names, counts, func(ci, f int) []float32 {
		return c.Palettes[ci][f*frame : (f+1)*frame]
	})
	if err != nil {
		return 0, fmt.Errorf("bake: snapshot: %w", err)
	}
	return writeSnapshot(path, sc)
}
