package gltfbake

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/bonebake/bonebake/bake"
)

// wideBVH is an 80-joint skeleton in centimetres: Hips (moving forward), two
// still feet, and 77 leaves J1…J77 at (i, 10, 0) from the hips, each turning
// about Z by i° at frame 1 (0° at frames 0 and 2).
func wideBVH(t *testing.T) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("HIERARCHY\nROOT Hips\n{\n OFFSET 0 0 0\n CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation\n")
	for _, f := range []string{"LeftFoot -10", "RightFoot 10"} {
		name, x, _ := strings.Cut(f, " ")
		fmt.Fprintf(&b, " JOINT %s\n {\n  OFFSET %s -90 0\n  CHANNELS 3 Zrotation Xrotation Yrotation\n  End Site\n  {\n   OFFSET 0 -5 10\n  }\n }\n", name, x)
	}
	for i := 1; i <= 77; i++ {
		fmt.Fprintf(&b, " JOINT J%d\n {\n  OFFSET %d 10 0\n  CHANNELS 3 Zrotation Xrotation Yrotation\n  End Site\n  {\n   OFFSET 0 10 0\n  }\n }\n", i, i)
	}
	b.WriteString("}\nMOTION\nFrames: 3\nFrame Time: 0.1\n")
	for f := range 3 {
		fmt.Fprintf(&b, "0 95 %d 0 0 0 0 0 0 0 0 0", 10*f)
		for i := 1; i <= 77; i++ {
			fmt.Fprintf(&b, " %d 0 0", map[int]int{0: 0, 1: i, 2: 0}[f])
		}
		b.WriteString("\n")
	}
	p := filepath.Join(t.TempDir(), "wide.bvh")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// A BVH of more joints than a BPAT file holds bakes on its own (bvh.md §5):
// without a mesh, the bone limit merges leaf joints by the motion's positional
// error, each joint and its tip (one bone length beyond it) standing in for
// vertices. J_i's tip, (2i, 20, 0) cm, turns by i° about J_i at frame 1, which
// moves it 2·|(i, 10, 0)|·sin(i°/2) from where the hips would carry it; J_i's
// own position does not move. So the 16 merges are J1…J16, and the worst
// deviation is J16's: 2·√356·sin 8° cm = 0.052519 m.
func TestBVHOver64JointsReduced(t *testing.T) {
	m, err := Load(wideBVH(t), Settings{Up: "+Y", Scale: 0.01})
	if err != nil {
		t.Fatal(err)
	}
	red := m.Reduction
	if red == nil || red.Joints != 80 || len(m.GLTF.Joints) != 64 || len(red.Merged) != 16 || m.GLTF.Mesh != nil {
		t.Fatalf("reduction %+v, %d joints, mesh %v", red, len(m.GLTF.Joints), m.GLTF.Mesh != nil)
	}
	var merged []string
	for _, mg := range red.Merged {
		if mg.Into != "Hips" {
			t.Errorf("%s merged into %s", mg.Joint, mg.Into)
		}
		merged = append(merged, mg.Joint)
	}
	slices.Sort(merged)
	want := []string{"J1", "J10", "J11", "J12", "J13", "J14", "J15", "J16", "J2", "J3", "J4", "J5", "J6", "J7", "J8", "J9"}
	if !slices.Equal(merged, want) {
		t.Errorf("merged %v, want J1…J16", merged)
	}
	if dev := 2 * math.Sqrt(356) * math.Sin(8*math.Pi/180) / 100; math.Abs(red.Deviation-dev) > 1e-6 {
		t.Errorf("deviation %v m, want %v", red.Deviation, dev)
	}
	if n := strings.Join(m.Notes, "\n"); !strings.Contains(n, "least joint error first") || !strings.Contains(n, "worst joint deviation 0.0526 m") {
		t.Errorf("notes %q", m.Notes)
	}
	if _, err := bake.Bytes(m.Job); err != nil {
		t.Fatal(err)
	}
}
