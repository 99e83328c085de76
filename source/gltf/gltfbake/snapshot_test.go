package gltfbake

import (
	"encoding/base64"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bonebake/bonebake/bake"
	"github.com/bonebake/bonebake/formats"
	"github.com/bonebake/bonebake/formats/bpat"
	"github.com/bonebake/bonebake/formats/bpsm"
	"github.com/bonebake/bonebake/internal/testfiles"
)

// TestModelSnapshot bakes the Fox's far mesh at 150 triangles and 6 fps: the
// snapshot has each clip's frames at 6 fps by docs/formats/bpat.md §5, computed
// here from the BPAT file's own frame counts, and wherever a snapshot frame
// falls on a BPAT frame, its vertices are the simplified mesh skinned by hand
// with that BPAT frame's palette. The file validates strictly.
func TestModelSnapshot(t *testing.T) {
	m, err := Load(sharedModel(t, "Fox.glb"), Settings{Scale: 0.01})
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
	if err := bake.BakeFile(bp, m.Job); err != nil {
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

	m, err := Load(path, Settings{FilesRoot: root})
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
