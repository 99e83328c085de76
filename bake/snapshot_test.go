package bake

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bonebake/bonebake/formats"
	"github.com/bonebake/bonebake/formats/bpat"
	"github.com/bonebake/bonebake/formats/bpsm"
	"github.com/bonebake/bonebake/internal/testfiles"
	"github.com/bonebake/bonebake/mesh/simplify"
	"github.com/bonebake/bonebake/species/creatures"
	"github.com/bonebake/bonebake/species/humanoid"
	"github.com/bonebake/bonebake/species/quadruped"
)

// TestSnapshotHorse bakes the horse and its minimal snapshot: one frame per
// palette frame, and each snapshot vertex is where the minimal mesh's vertex goes
// under palette × inverse bind, computed here directly from the palette (the
// weighted sum of each influence's transform of the bind position).
func TestSnapshotHorse(t *testing.T) {
	s := quadruped.Horse()
	c, err := Species(s)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := bpat.Write(&buf, c); err != nil {
		t.Fatal(err)
	}
	f, err := bpat.Parse(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	snap, err := Snapshot(s, f)
	if err != nil {
		t.Fatal(err)
	}
	var sb bytes.Buffer
	if err := bpsm.Write(&sb, snap); err != nil {
		t.Fatal(err)
	}
	sf, err := bpsm.Parse(sb.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if err := sf.CheckVertices(); err != nil {
		t.Fatal(err)
	}
	h := sf.Header()
	if h.SpeciesID != 1 || h.LOD != bpsm.LODMinimal || h.FrameTotal != f.Header().FrameTotal || int(h.VertexCount) != s.Minimal.VertexCount() {
		t.Fatalf("header %+v", h)
	}
	ibm := s.InverseBind()
	clip := f.ClipIndex("gallop")
	for _, fr := range []int{0, 5} {
		pal := f.Palette(clip, fr)
		for _, v := range []int{0, s.Minimal.VertexCount() / 2, s.Minimal.VertexCount() - 1} {
			var want [3]float64
			p := s.Minimal.Positions[v]
			for k, j := range s.Minimal.Joints[v] {
				w := float64(s.Minimal.Weights[v][k])
				// bind position → bone space (inverse bind) → posed model space (palette)
				local := ibm[j].TransformPoint([3]float64{float64(p[0]), float64(p[1]), float64(p[2])})
				m := pal[int(j)*16:]
				for r := 0; r < 3; r++ {
					want[r] += w * (float64(m[r*4])*local[0] + float64(m[r*4+1])*local[1] + float64(m[r*4+2])*local[2] + float64(m[r*4+3]))
				}
			}
			got := sf.Vertex(clip, fr, v).Position
			for r := 0; r < 3; r++ {
				if math.Abs(float64(got[r])-want[r]) > 1e-4 {
					t.Fatalf("gallop frame %d vertex %d: %v, want %v", fr, v, got, want)
				}
			}
		}
	}
}

// TestSnapshotFrames checks every built-in's snapshot file against an
// independent posing of its meshes, frame by frame:
//   - every vertex of sampled frames is the far mesh's bind position moved by
//     palette × inverse bind, weighted by its influences (computed here from the
//     palette, in float64), where the far mesh of a humanoid is its full mesh
//     simplified to humanoid.MinimalTriangles (recomputed here) and a
//     quadruped's its hand-built minimal mesh;
//   - at every frame, a humanoid snapshot's bounding box lies inside the full
//     mesh's, posed by mesh.Skin (a simplified mesh keeps a subset of the
//     vertices), and within 0.106 m of it (2 pixels of a unit 50 m away,
//     mesh/simplify's bound);
//   - the file validates strictly, its per-vertex rules included.
func TestSnapshotFrames(t *testing.T) {
	for _, s := range creatures.All() {
		far := s.Minimal
		simplified := s.ID == 0 || s.ID >= 3
		boundsTol := math.Inf(1) // the hand-built minimal meshes drop small parts
		if simplified {
			var err error
			if far, _, err = simplify.Simplify(s.Mesh, humanoid.MinimalTriangles, simplify.Options{}); err != nil {
				t.Fatal(err)
			}
			boundsTol = 0.106
		}
		dir := t.TempDir()
		files, err := WriteSpecies(dir, s, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(files) != 2 {
			t.Fatalf("%s: %d files", s.Name, len(files))
		}
		f, err := bpat.Open(files[0].Path)
		if err != nil {
			t.Fatal(err)
		}
		sf, err := bpsm.Open(files[1].Path)
		if err != nil {
			t.Fatal(err)
		}
		if err := sf.CheckVertices(); err != nil {
			t.Fatal(err)
		}
		h := sf.Header()
		if int(h.VertexCount) != far.VertexCount() || int(h.IndexCount) != len(far.Indices) || h.FrameTotal != f.Header().FrameTotal {
			t.Fatalf("%s: header %+v, far mesh %d vertices", s.Name, h, far.VertexCount())
		}
		ibm := s.InverseBind()
		for c, cl := range f.Clips() {
			if sc := sf.Clips()[c]; sc.Name != cl.Name || sc.FrameCount != cl.FrameCount {
				t.Fatalf("%s clip %d: %+v, BPAT %+v", s.Name, c, sc, cl)
			}
			for fr := range cl.FrameCount {
				pal := f.Palette(c, fr)
				full, _, err := s.Mesh.SkinPalette(pal, ibm)
				if err != nil {
					t.Fatal(err)
				}
				flo, fhi := box(full)
				var got [][3]float32
				for v := range far.VertexCount() {
					got = append(got, sf.Vertex(c, fr, v).Position)
				}
				slo, shi := box(got)
				for k := range 3 {
					outside := slo[k] < flo[k]-1e-5 || shi[k] > fhi[k]+1e-5
					if (simplified && outside) || float64(slo[k]-flo[k]) > boundsTol || float64(fhi[k]-shi[k]) > boundsTol {
						t.Fatalf("%s %s frame %d: snapshot bounds %v–%v, full mesh %v–%v", s.Name, cl.Name, fr, slo, shi, flo, fhi)
					}
				}
				if fr%4 != 0 && fr != cl.FrameCount-1 {
					continue
				}
				for v := range far.VertexCount() {
					var want [3]float64
					p := far.Positions[v]
					for k, j := range far.Joints[v] {
						w := float64(far.Weights[v][k])
						local := ibm[j].TransformPoint([3]float64{float64(p[0]), float64(p[1]), float64(p[2])})
						m := pal[int(j)*16:]
						for r := range 3 {
							want[r] += w * (float64(m[r*4])*local[0] + float64(m[r*4+1])*local[1] + float64(m[r*4+2])*local[2] + float64(m[r*4+3]))
						}
					}
					for r := range 3 {
						if math.Abs(float64(got[v][r])-want[r]) > 1e-5 {
							t.Fatalf("%s %s frame %d vertex %d: %v, want %v", s.Name, cl.Name, fr, v, got[v], want)
						}
					}
				}
			}
		}
		f.Close()
		sf.Close()
	}
}

func box(ps [][3]float32) (lo, hi [3]float32) {
	lo, hi = ps[0], ps[0]
	for _, p := range ps {
		for k := range 3 {
			lo[k], hi[k] = min(lo[k], p[k]), max(hi[k], p[k])
		}
	}
	return lo, hi
}

// TestModelSnapshot bakes the Fox's far mesh at 150 triangles and 6 fps: the
// snapshot has each clip's frames at 6 fps by docs/formats/bpat.md §5, computed
// here from the BPAT file's own frame counts, and wherever a snapshot frame
// falls on a BPAT frame, its vertices are the simplified mesh skinned by hand
// with that BPAT frame's palette. The file validates strictly.
func TestModelSnapshot(t *testing.T) {
	m, err := LoadModel(filepath.Join("..", "testdata", "gltf", "Fox.glb"), Settings{Scale: 0.01})
	if err != nil {
		t.Fatal(err)
	}
	snap, err := m.Snapshot(SnapshotSettings{Triangles: 150, FPS: 6})
	if err != nil {
		t.Fatal(err)
	}
	if n := snap.Mesh.TriangleCount(); n > 150 || n < 148 {
		t.Fatalf("%d triangles", n)
	}
	dir := t.TempDir()
	bp, sp := filepath.Join(dir, "fox.bpat"), filepath.Join(dir, "fox_minimal.bpsm")
	if err := BakeFile(bp, m.Job); err != nil {
		t.Fatal(err)
	}
	size, err := snap.Write(sp, m.Job)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, c := range m.Job.Clips {
		names = append(names, c.Name)
	}
	if want := snap.Size(names); size != want {
		t.Fatalf("wrote %d bytes, Size said %d", size, want)
	}
	f, err := bpat.Open(bp, formats.KnownSpecies(m.Job.SpeciesID))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sf, err := bpsm.Open(sp, formats.KnownSpecies(m.Job.SpeciesID))
	if err != nil {
		t.Fatal(err)
	}
	defer sf.Close()
	if err := sf.CheckVertices(); err != nil {
		t.Fatal(err)
	}
	ibm := m.GLTF.InverseBind
	checked := 0
	for c, cl := range f.Clips() {
		d := float64(cl.FrameCount) / float64(cl.FPS) // looping: N / fps
		want := max(1, int(math.Floor(d*6+0.5)))
		if !cl.Loops {
			d = float64(cl.FrameCount-1) / float64(cl.FPS)
			want = max(1, int(math.Floor(d*6+0.5))) + 1
		}
		sc := sf.Clips()[c]
		if sc.Name != cl.Name || sc.FrameCount != want {
			t.Fatalf("clip %s: %d snapshot frames, want %d (BPAT %d at %v fps)", cl.Name, sc.FrameCount, want, cl.FrameCount, cl.FPS)
		}
		for fs := range sc.FrameCount {
			// The BPAT frame at the same phase, when there is one.
			num, den := fs*cl.FrameCount, sc.FrameCount
			if !cl.Loops {
				num, den = fs*(cl.FrameCount-1), sc.FrameCount-1
			}
			if num%den != 0 {
				continue
			}
			pal := f.Palette(c, num/den)
			for v := range snap.Mesh.VertexCount() {
				var want [3]float64
				p := snap.Mesh.Positions[v]
				for k, j := range snap.Mesh.Joints[v] {
					w := float64(snap.Mesh.Weights[v][k])
					if w == 0 {
						continue
					}
					local := ibm[j].TransformPoint([3]float64{float64(p[0]), float64(p[1]), float64(p[2])})
					mm := pal[int(j)*16:]
					for r := range 3 {
						want[r] += w * (float64(mm[r*4])*local[0] + float64(mm[r*4+1])*local[1] + float64(mm[r*4+2])*local[2] + float64(mm[r*4+3]))
					}
				}
				got := sf.Vertex(c, fs, v).Position
				for r := range 3 {
					if math.Abs(float64(got[r])-want[r]) > 1e-5 {
						t.Fatalf("%s snapshot frame %d vertex %d: %v, want %v", cl.Name, fs, v, got, want)
					}
				}
			}
			checked++
		}
	}
	if checked < 3 {
		t.Fatalf("only %d frames fall on BPAT frames", checked)
	}
}

// TestModelSnapshotFromMSFTLod: a model carrying its own lower level
// (MSFT_lod) gives the snapshot that level's mesh as it is, unless told
// otherwise; its buffer lies outside the model's folder, under the files root
// the bake was given, which the snapshot's second read must honour too.
func TestModelSnapshotFromMSFTLod(t *testing.T) {
	raw, err := os.ReadFile(testfiles.Path(t, "gltf", "SimpleSkin.gltf"))
	if err != nil {
		t.Fatal(err)
	}
	var d map[string]any
	if err := json.Unmarshal(raw, &d); err != nil {
		t.Fatal(err)
	}
	list := func(k string) []any { return d[k].([]any) }
	root := t.TempDir()
	buf0 := list("buffers")[0].(map[string]any)
	_, b64, _ := strings.Cut(buf0["uri"].(string), ",")
	data, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "mesh.bin"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	buf0["uri"] = "../mesh.bin"
	// Mesh 1: mesh 0's first two of eight triangles, on node 3, its one level.
	d["accessors"] = append(list("accessors"), map[string]any{"bufferView": 0, "componentType": 5123, "count": 6, "type": "SCALAR"})
	low := map[string]any{"attributes": map[string]any{"POSITION": 1, "JOINTS_0": 2, "WEIGHTS_0": 3}, "indices": len(list("accessors")) - 1}
	d["meshes"] = append(list("meshes"), map[string]any{"primitives": []any{low}})
	d["nodes"] = append(list("nodes"), map[string]any{"mesh": 1, "skin": 0})
	list("nodes")[0].(map[string]any)["extensions"] = map[string]any{"MSFT_lod": map[string]any{"ids": []any{3}}}
	d["extensionsUsed"] = []any{"MSFT_lod"}
	js, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(root, "model", "lod.gltf")
	os.Mkdir(filepath.Dir(path), 0o755)
	if err := os.WriteFile(path, js, 0o644); err != nil {
		t.Fatal(err)
	}

	m, err := LoadModel(path, Settings{FilesRoot: root})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		lod       int
		triangles int
		from      string
	}{
		{-1, 2, "MSFT_lod level 1 of 1"},
		{1, 2, "MSFT_lod level 1 of 1"},
		{0, 8, "the mesh simplified from 8 triangles"},
	} {
		snap, err := m.Snapshot(SnapshotSettings{LOD: c.lod})
		if err != nil {
			t.Fatalf("LOD %d: %v", c.lod, err)
		}
		if snap.Mesh.TriangleCount() != c.triangles || snap.From != c.from {
			t.Errorf("LOD %d: %d triangles from %q, want %d from %q", c.lod, snap.Mesh.TriangleCount(), snap.From, c.triangles, c.from)
		}
	}
	if _, err := m.Snapshot(SnapshotSettings{LOD: 2}); err == nil || !strings.Contains(err.Error(), "level of detail 2 was asked for") {
		t.Errorf("LOD 2 of 1: %v", err)
	}
}
