package bake

import (
	"bytes"
	"math"
	"testing"

	"bonebake/formats/bpat"
	"bonebake/formats/bpsm"
	"bonebake/species/quadruped"
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
