package pack

import (
	"bytes"
	"encoding/binary"
	"math"
	"testing"

	"github.com/bonebake/bonebake/formats/bpat"
	"github.com/bonebake/bonebake/formats/bpx"
	"github.com/bonebake/bonebake/species/creatures"
)

func openContainer(t *testing.T, b []byte) *bpx.File {
	t.Helper()
	f, err := bpx.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func bakedHorse(t *testing.T) *bpat.File {
	t.Helper()
	b, err := creatures.ByName("horse").Bytes()
	if err != nil {
		t.Fatal(err)
	}
	f, err := bpat.Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func TestPaletteTexture(t *testing.T) {
	f := bakedHorse(t)
	b, err := bpx.EncodeTexture(PaletteTexture(f), bpx.XZ)
	if err != nil {
		t.Fatal(err)
	}
	c := openContainer(t, b)
	ext := c.Header.TypeExt
	w, h := f.BoneCount()*16, int(f.Header().FrameTotal)
	if pw, ph := 2<<(ext[2]&15), 2<<(ext[2]>>4); pw < w || pw >= 2*w || ph < h || ph >= 2*h || ext[3] != byte(bpx.Float32) {
		t.Fatalf("TypeExt % x for %d×%d", ext[:5], w, h)
	}
	tex, err := bpx.ReadTexture(c)
	if err != nil {
		t.Fatal(err)
	}
	if tex.Width != w || tex.Height != h || tex.What != "bpat palette" {
		t.Fatalf("%d×%d %q", tex.Width, tex.Height, tex.What)
	}
	row := 0
	for ci, clip := range f.Clips() {
		for fr := range clip.FrameCount {
			for k, v := range f.Palette(ci, fr) {
				got := math.Float32frombits(binary.LittleEndian.Uint32(tex.Pixels[4*(row*w+k):]))
				if got != v {
					t.Fatalf("clip %d frame %d float %d: %v, want %v", ci, fr, k, got, v)
				}
			}
			row++
		}
	}
}

// TestCreatureModel writes the horse as a model, reads it back, and composes
// each frame's transforms into matrices: they give palette × inverse bind.
func TestCreatureModel(t *testing.T) {
	s := creatures.ByName("horse")
	f := bakedHorse(t)
	m, err := CreatureModel(s, f)
	if err != nil {
		t.Fatal(err)
	}
	b, err := bpx.EncodeModel(m, bpx.XZ)
	if err != nil {
		t.Fatal(err)
	}
	back, err := bpx.ReadModel(openContainer(t, b))
	if err != nil {
		t.Fatal(err)
	}
	if len(back.Vertices) != s.Mesh.VertexCount() || len(back.Indices) != len(s.Mesh.Indices) || len(back.Bones) != f.BoneCount() || len(back.Animations) != len(f.Clips()) {
		t.Fatalf("%d vertices, %d indices, %d bones, %d animations", len(back.Vertices), len(back.Indices), len(back.Bones), len(back.Animations))
	}
	for i, v := range back.Vertices {
		if int(v.Weights[0])+int(v.Weights[1])+int(v.Weights[2])+int(v.Weights[3]) != 255 || v.Position != s.Mesh.Positions[i] {
			t.Fatalf("vertex %d: %+v", i, v)
		}
	}
	inv := s.InverseBind()
	worst := 0.0
	for ai, a := range back.Animations {
		if a.Name != f.Clips()[ai].Name || int(a.FrameCount) != f.Clips()[ai].FrameCount {
			t.Fatalf("animation %d %+v", ai, a)
		}
		for fr := range int(a.FrameCount) {
			pal := f.Palette(ai, fr)
			for _, tr := range back.Frames[int(a.FirstFrame)+fr] {
				got := compose(tr)
				bone := int(tr.Bone)
				var want [16]float64
				for r := range 4 {
					for c := range 4 {
						for k := range 4 {
							want[r*4+c] += float64(pal[16*bone+r*4+k]) * inv[bone][k*4+c]
						}
					}
				}
				for k := range want {
					worst = math.Max(worst, math.Abs(got[k]-want[k]))
				}
			}
		}
	}
	if worst > 1e-5 {
		t.Errorf("composed transforms differ from palette × inverse bind by %g", worst)
	}
	t.Logf("largest difference %g", worst)
}

// compose builds translate · rotate · scale from a frame transform, written out
// from the quaternion formula rather than with rig.
func compose(tr bpx.Transform) [16]float64 {
	x, y, z, w := float64(tr.Rotation[0]), float64(tr.Rotation[1]), float64(tr.Rotation[2]), float64(tr.Rotation[3])
	r := [9]float64{
		1 - 2*(y*y+z*z), 2 * (x*y - z*w), 2 * (x*z + y*w),
		2 * (x*y + z*w), 1 - 2*(x*x+z*z), 2 * (y*z - x*w),
		2 * (x*z - y*w), 2 * (y*z + x*w), 1 - 2*(x*x+y*y),
	}
	var m [16]float64
	for row := range 3 {
		for c := range 3 {
			m[row*4+c] = r[row*3+c] * float64(tr.Scale[c])
		}
		m[row*4+3] = float64(tr.Position[row])
	}
	m[15] = 1
	return m
}

func TestUnorm8Weights(t *testing.T) {
	for _, w := range [][4]float32{{1, 0, 0, 0}, {0.5, 0.5, 0, 0}, {1. / 3, 1. / 3, 1. / 3, 0}, {0.25, 0.25, 0.25, 0.25}, {0, 0, 0, 0}, {0.7, 0.2, 0.1, 0}} {
		q := Unorm8Weights(w)
		sum := int(q[0]) + int(q[1]) + int(q[2]) + int(q[3])
		if sum != 255 {
			t.Errorf("%v → %v sums to %d", w, q, sum)
		}
		for i := range w {
			if math.Abs(float64(q[i])-float64(w[i])*255) > 1 && w != [4]float32{} {
				t.Errorf("%v → %v", w, q)
			}
		}
	}
}
