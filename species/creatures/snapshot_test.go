package creatures

import (
	"bytes"
	"math"
	"testing"

	"github.com/bonebake/bonebake/formats/bpat"
	"github.com/bonebake/bonebake/formats/bpsm"
	"github.com/bonebake/bonebake/mesh/simplify"
	"github.com/bonebake/bonebake/species/humanoid"
	"github.com/bonebake/bonebake/species/quadruped"
)

// TestSnapshotHorse bakes the horse and its minimal snapshot: one frame per
// palette frame, and each snapshot vertex is where the minimal mesh's vertex goes
// under palette × inverse bind, computed here directly from the palette (the
// weighted sum of each influence's transform of the bind position).
func TestSnapshotHorse(t *testing.T) {
	s := quadruped.Horse()
	c, err := s.Bake()
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
	snap, err := s.Snapshot(f)
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
	for _, s := range All() {
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
		files, err := s.WriteFiles(dir, nil)
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
