package bat

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bonebake/bonebake/formats/bpat"
	"github.com/bonebake/bonebake/mesh"
	"github.com/bonebake/bonebake/rig"
)

// synthetic returns a chain of bones animated by seeded random swings over
// frames frames, with a mesh of vertices spread along the chain, each bound to
// four neighbouring bones.
func synthetic(t testing.TB, bones, frames, vertices int) *Input {
	t.Helper()
	names := make([]string, bones)
	parents := make([]int, bones)
	rest := make([]rig.Transform, bones)
	for b := range bones {
		names[b] = "b" + string(rune('0'+b%10)) + string(rune('a'+b/10%26)) + string(rune('a'+b/260))
		parents[b] = b - 1
		rest[b] = rig.Transform{Translation: rig.Vec3{0, 0.1, 0}, Rotation: rig.IdentityQuat(), Scale: rig.Vec3{1, 1, 1}}
	}
	sk, err := rig.New(names, parents, rest)
	if err != nil {
		t.Fatal(err)
	}
	restModel := sk.RestModelSpace()
	in := &Input{Name: "synthetic", Bones: bones, Clips: []bpat.Clip{{Name: "swing", FrameCount: frames, FPS: 30, Loops: true}}}
	for _, m := range restModel {
		inv, _ := m.Inverse()
		in.InverseBind = append(in.InverseBind, inv)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	phase := make([]float64, bones)
	for b := range phase {
		phase[b] = rng.Float64() * 2 * math.Pi
	}
	pose := sk.RestPose()
	model := make([]rig.Mat4, bones)
	in.Palettes = make([]float32, 0, frames*bones*16)
	for f := range frames {
		for b := range bones {
			a := 0.3 * math.Sin(2*math.Pi*float64(f)/float64(frames)+phase[b])
			pose[b].Rotation = rig.QuatFromAxisAngle(rig.Vec3{math.Cos(phase[b]), 0, math.Sin(phase[b])}, a)
		}
		sk.ModelSpace(pose, model)
		var buf [16]float32
		for b := range bones {
			model[b].PutFloat32(buf[:])
			in.Palettes = append(in.Palettes, buf[:]...)
		}
	}
	m := &mesh.Skinned{}
	for v := range vertices {
		b := v % bones
		y := restModel[b].Translation()[1]
		m.Positions = append(m.Positions, [3]float32{float32(rng.Float64()*0.1 - 0.05), float32(y + rng.Float64()*0.1), float32(rng.Float64()*0.1 - 0.05)})
		var js [4]uint16
		var ws [4]float32
		sum := float32(0)
		for k := range 4 {
			js[k] = uint16(min(b+k, bones-1))
			ws[k] = float32(rng.Float64()) + 0.01
			sum += ws[k]
		}
		for k := range ws {
			ws[k] /= sum
		}
		m.Joints, m.Weights = append(m.Joints, js), append(m.Weights, ws)
	}
	for v := 0; v+2 < vertices; v += 3 {
		m.Indices = append(m.Indices, uint32(v), uint32(v+1), uint32(v+2))
	}
	in.Mesh = m
	return in
}

// TestStacked bakes more than 4,096 rows: the textures stack the table (§8) and
// the rebuild still matches.
func TestStacked(t *testing.T) {
	in := synthetic(t, 100, 5000, 600)
	opts := []Options{{}, {Preset: UE}, {InvertV: true, Padding: 1}}
	if testing.Short() {
		opts = opts[:1] // the other layouts stack alike
	}
	for _, opt := range opts {
		out, err := Write(t.TempDir(), in, opt)
		if err != nil {
			t.Fatal(err)
		}
		r := out.Report
		want := (r.Rows*100 + 4095) / 4096
		if !r.Stacked || r.Position.Width != 4096 || r.Position.Height != want {
			t.Errorf("%+v: stacked %v, %d × %d; want stacked, 4096 × %d", opt, r.Stacked, r.Position.Width, r.Position.Height, want)
		}
		if tol := 2e-3 * diagonal(in); r.MaxError.Vertex > tol {
			t.Errorf("%+v: worst vertex %g > %g", opt, r.MaxError.Vertex, tol)
		}
	}
	// A table of 170,000 frames of 100 bones: the refusal comes from the
	// table's size, before any palette is read, so the palettes are zeros of
	// the right length (never written: a gigabyte of seeded swings took most
	// of this test's time), and the error must be that refusal, not one the
	// zero matrices could cause further on.
	big := synthetic(t, 100, 10, 10)
	big.Clips[0].FrameCount = 170000
	big.Palettes = make([]float32, 170000*100*16)
	if _, err := Bake(big, Options{}); err == nil || !strings.Contains(err.Error(), "more than 4096 × 4096") {
		t.Errorf("a table larger than 4096 × 4096 texels was not refused: %v", err)
	}
}

// TestVerifyCatchesDamage changes one stored texel and one TEXCOORD_1 and expects
// the verification to see it: the check is not vacuous.
func TestVerifyCatchesDamage(t *testing.T) {
	in := synthetic(t, 8, 20, 40)
	dir := t.TempDir()
	out, err := Write(dir, in, Options{Preset: UE})
	if err != nil {
		t.Fatal(err)
	}
	good := out.Report.MaxError.Vertex
	r := out.Report
	open := func(name string) ([]byte, error) { return os.ReadFile(filepath.Join(dir, name)) }

	// A rotation texel of frame 5, bone 3, decoded wrongly.
	tex, _ := decodePNG("", out.File(r.Rotation.File), 4, 16)
	g, _ := newGrid(r.Rows, r.Bones, false)
	tex.Data[g.texel(6, 3)*4+3] += 0.01
	damaged, _ := encodePNG(tex, 16)
	e, err := Verify(in, r, func(name string) ([]byte, error) {
		if name == r.Rotation.File {
			return damaged, nil
		}
		return open(name)
	})
	if err != nil || !(e.Vertex > 100*good) {
		t.Errorf("a damaged rotation texel: worst vertex %g (undamaged %g), err %v", e.Vertex, good, err)
	}

	// The report's position range off by 1%.
	bad := *r
	bad.Position.Range = []float64{r.Position.Range[0] * 1.01, r.Position.Range[1], r.Position.Range[2]}
	if e, err := Verify(in, &bad, open); err != nil || !(e.Position > 100*out.Report.MaxError.Position) {
		t.Errorf("a wrong range: worst bone position %g, err %v", e.Position, err)
	}
	bad = *r
	bad.Skin.IndexScale = 1
	if e, err := Verify(in, &bad, open); err != nil || !(e.Vertex > 100*good) {
		t.Errorf("unorm indices decoded without their scale: worst vertex %g, err %v", e.Vertex, err)
	}
}

// TestPadding: a looping clip is padded with its wrap-around, a one-shot with its
// ends held (§9), and first_row skips the padding.
func TestPadding(t *testing.T) {
	in := &Input{Clips: []bpat.Clip{{Name: "loop", FrameCount: 5, Loops: true}, {Name: "once", FrameCount: 3}}}
	src, first := stack(in, 2)
	want := []int{-1, 3, 4, 0, 1, 2, 3, 4, 0, 1, 5, 5, 5, 6, 7, 7, 7}
	if fmt.Sprint(src) != fmt.Sprint(want) || fmt.Sprint(first) != "[3 12]" {
		t.Errorf("rows %v first %v; want %v [3 12]", src, first, want)
	}
}
