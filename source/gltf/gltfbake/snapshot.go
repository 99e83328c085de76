package gltfbake

import (
	"fmt"
	"io"
	"slices"

	"github.com/bonebake/bonebake/bake"
	"github.com/bonebake/bonebake/formats"
	"github.com/bonebake/bonebake/formats/bpsm"
	"github.com/bonebake/bonebake/mesh"
	"github.com/bonebake/bonebake/mesh/simplify"
	"github.com/bonebake/bonebake/rig"
	"github.com/bonebake/bonebake/source/gltf"
)

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

// Check says whether the snapshot settings fit, as Settings.Check does the
// model's (given names them SnapshotTriangles, SnapshotFPS).
func (s SnapshotSettings) Check(given func(setting string) bool) error {
	return bake.CheckSettings(given,
		bake.Rule{Setting: "SnapshotTriangles", Zero: s.Triangles == 0, Check: func() error {
			return checkTriangles(s.Triangles)
		}},
		bake.Rule{Setting: "SnapshotFPS", Zero: s.FPS == 0, Check: func() error { return bake.CheckFPS(s.FPS) }},
	)
}

// checkTriangles is the rule for a far mesh's triangle budget a user asks for
// (SnapshotSettings.Triangles, a manifest's snapshot_triangles): at least 1.
func checkTriangles(n int) error {
	if n < 1 {
		return fmt.Errorf("%d: the far mesh needs at least 1 triangle", n)
	}
	return nil
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
	if err := s.Check(nil); err != nil {
		return nil, err
	}
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
		n := bake.FrameCount(d, c.FPS, c.Loops)
		if s.FPS > 0 && s.FPS < c.FPS {
			n = bake.FrameCount(d, s.FPS, c.Loops)
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
		kind, _ := formats.SniffFile(s.Mesh) // unreadable: the glTF reader says why
		low, err := readModel(s.Mesh, kind, gltf.Options{LOD: s.LOD})
		if err != nil {
			return nil, err
		}
		if low.Mesh == nil {
			return nil, fmt.Errorf("%s: SnapshotSettings.Mesh: the model has no readable skinned mesh", s.Mesh)
		}
		if err := place(low, m.Scale, m.Face); err != nil {
			return nil, err
		}
		if out.Mesh, out.InverseBind, err = bindByName(low, g, m.Reduction); err != nil {
			return nil, fmt.Errorf("%s: SnapshotSettings.Mesh: %w", s.Mesh, err)
		}
		out.From = fmt.Sprintf("%s's mesh", s.Mesh)
	case s.LOD != 0 && g.LODLevels > 0:
		lod, err := gltf.Load(m.Path, gltf.Options{Skin: m.Skin, LOD: s.LOD, FilesRoot: m.filesRoot, NoMemoryLimit: true})
		if err != nil {
			return nil, err
		}
		if err := place(lod, m.Scale, m.Face); err != nil {
			return nil, err
		}
		if out.Mesh, out.InverseBind, err = bindByName(lod, g, m.Reduction); err != nil {
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
// palette bone; the identity for bones it does not use). A joint red merged
// binds to the joint it was merged into, as the model's own vertices do.
func bindByName(low, model *gltf.Model, red *Reduction) (*mesh.Skinned, []rig.Mat4, error) {
	ibm := make([]rig.Mat4, len(model.JointNames))
	own := make([]bool, len(ibm)) // ibm[p] is low's own joint p's
	for i := range ibm {
		ibm[i] = rig.IdentityMat4()
	}
	merged := map[string]string{}
	if red != nil {
		for _, mg := range red.Merged {
			merged[mg.Joint] = mg.Into
		}
	}
	to := make([]int, len(low.JointNames))
	for j, name := range low.JointNames {
		for merged[name] != "" { // merges are made leaf first: a chain ends
			name = merged[name]
		}
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
			if low.JointNames[j] == model.JointNames[p] {
				ibm[p], own[p] = low.InverseBind[j], true
			} else if !own[p] {
				// Merged: the vertex follows p as the model's own do, bound
				// by p's matrix; low's own, when it has joint p, replaces it.
				ibm[p] = model.InverseBind[p]
			}
		}
	}
	return &m, ibm, nil
}

// FrameTotal is the snapshot's frames, all clips together.
func (s *ModelSnapshot) FrameTotal() int {
	n := 0
	for _, f := range s.Frames {
		n += f
	}
	return n
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
	return vtx + int64(s.FrameTotal())*int64(s.Mesh.VertexCount())*bpsm.VertexSize
}

// Write bakes the snapshot of j's clips (as many frames as s.Frames says) into
// path and returns its size. The palettes are baked anew at the snapshot's
// frame times, so a frame is exactly the pose of its time.
func (s *ModelSnapshot) Write(path string, j *bake.Job) (int64, error) {
	return s.WriteWith(nil, path, j)
}

// WriteWith is Write writing path with write (an atomicfile.Set's Write, for a
// snapshot that is one of a set of files; nil: on its own, atomically).
func (s *ModelSnapshot) WriteWith(write func(path string, w func(io.Writer) error) error, path string, j *bake.Job) (int64, error) {
	jj := *j
	jj.Clips = slices.Clone(j.Clips)
	jj.Progress = nil
	for i := range jj.Clips {
		if s.fps > 0 && s.fps < jj.Clips[i].FPS {
			jj.Clips[i].FPS = s.fps
		}
	}
	sc, err := bake.SnapshotFromJob(&jj, s.Mesh, s.InverseBind)
	if err != nil {
		return 0, err
	}
	for i, cl := range sc.Clips {
		if n := len(sc.Frames[i]) / max(1, sc.VertexCount); sc.VertexCount > 0 && n != s.Frames[i] {
			return 0, fmt.Errorf("bake: snapshot clip %q: %d frames baked, %d planned", cl.Name, n, s.Frames[i])
		}
	}
	if write == nil {
		return bake.WriteSnapshot(path, sc)
	}
	return bake.WriteSnapshotWith(write, path, sc)
}
