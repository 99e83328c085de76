package mesh_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/bonebake/bonebake/mesh"
	"github.com/bonebake/bonebake/rig"
	"github.com/bonebake/bonebake/species/creatures"
)

func palette(ms ...rig.Mat4) []float32 {
	out := make([]float32, 16*len(ms))
	for i := range ms {
		ms[i].PutFloat32(out[i*16:])
	}
	return out
}

func near(a, b [3]float32, tol float64) bool {
	for i := range a {
		if math.Abs(float64(a[i]-b[i])) > tol {
			return false
		}
	}
	return true
}

func rotY(deg float64) rig.Mat4 {
	return rig.Transform{Rotation: rig.QuatFromAxisAngle([3]float64{0, 1, 0}, deg*math.Pi/180), Scale: [3]float64{1, 1, 1}}.Matrix()
}

func rotZ(deg float64) rig.Mat4 {
	return rig.Transform{Rotation: rig.QuatFromAxisAngle([3]float64{0, 0, 1}, deg*math.Pi/180), Scale: [3]float64{1, 1, 1}}.Matrix()
}

// testMesh is a random mesh over bones bones, normals unit length.
func testMesh(rng *rand.Rand, verts, bones int) *mesh.Skinned {
	m := &mesh.Skinned{}
	for range verts {
		m.Positions = append(m.Positions, [3]float32{float32(rng.NormFloat64()), float32(rng.NormFloat64()), float32(rng.NormFloat64())})
		n := [3]float64{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
		l := math.Sqrt(n[0]*n[0] + n[1]*n[1] + n[2]*n[2])
		m.Normals = append(m.Normals, [3]float32{float32(n[0] / l), float32(n[1] / l), float32(n[2] / l)})
		var j [4]uint16
		var w [4]float32
		sum := float32(0)
		for k := range 4 {
			j[k] = uint16(rng.IntN(bones))
			w[k] = float32(rng.Float64())
			sum += w[k]
		}
		for k := range w {
			w[k] /= sum
		}
		m.Joints, m.Weights = append(m.Joints, j), append(m.Weights, w)
	}
	return m
}

// At the bind pose, palette × inverse bind is the identity: every vertex stays put.
func TestSkinRestPoseIsIdentity(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const bones = 20
	rest := make([]rig.Mat4, bones)
	inv := make([]rig.Mat4, bones)
	for b := range rest {
		tr := rig.Transform{Translation: [3]float64{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()},
			Rotation: rig.QuatFromAxisAngle([3]float64{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}, rng.Float64()*6),
			Scale:    [3]float64{1, 1, 1}}
		rest[b] = tr.Matrix()
		inv[b], _ = rest[b].Inverse()
	}
	m := testMesh(rng, 500, bones)
	pos, nrm, err := m.SkinPalette(palette(rest...), inv)
	if err != nil {
		t.Fatal(err)
	}
	for v := range pos {
		if !near(pos[v], m.Positions[v], 1e-5) || !near(nrm[v], m.Normals[v], 1e-5) {
			t.Fatalf("vertex %d: %v %v, bind %v %v", v, pos[v], nrm[v], m.Positions[v], m.Normals[v])
		}
	}
}

// Known transforms, computed by hand.
func TestSkinKnownTransforms(t *testing.T) {
	id := rig.IdentityMat4()
	// One bone, bound at the origin, posed by a 90° turn about y and a move by (1,2,3):
	// x → −z, so (1,0,0) lands on (1,2,2) and the normal +x points to −z.
	pose := rig.Translate([3]float64{1, 2, 3}).Mul(rotY(90))
	m := &mesh.Skinned{Positions: [][3]float32{{1, 0, 0}, {0, 1, 0}}, Normals: [][3]float32{{1, 0, 0}, {0, 0, 1}},
		Joints: [][4]uint16{{0}, {0}}, Weights: [][4]float32{{1}, {1}}}
	pos, nrm, err := m.SkinPalette(palette(pose), []rig.Mat4{id})
	if err != nil {
		t.Fatal(err)
	}
	if !near(pos[0], [3]float32{1, 2, 2}, 1e-6) || !near(pos[1], [3]float32{1, 3, 3}, 1e-6) ||
		!near(nrm[0], [3]float32{0, 0, -1}, 1e-6) || !near(nrm[1], [3]float32{1, 0, 0}, 1e-6) {
		t.Errorf("turned: %v %v", pos, nrm)
	}

	// A bone whose joint sits at (0,1,0) in the bind pose, turned 90° about z at the
	// joint: a vertex one unit along +x from the joint swings up to (0,2,0). The inverse
	// bind takes the vertex into the joint's space first.
	bind := rig.Translate([3]float64{0, 1, 0})
	invBind, _ := bind.Inverse()
	pose = bind.Mul(rotZ(90))
	m = &mesh.Skinned{Positions: [][3]float32{{1, 1, 0}}, Joints: [][4]uint16{{0}}, Weights: [][4]float32{{1}}}
	pos, _, err = m.SkinPalette(palette(pose), []rig.Mat4{invBind})
	if err != nil {
		t.Fatal(err)
	}
	if !near(pos[0], [3]float32{0, 2, 0}, 1e-6) {
		t.Errorf("turned at the joint: %v, want (0,2,0)", pos[0])
	}

	// Linear blend: half on a bone that stays, half on one moved by (2,0,0); the
	// unused influences name bone 9, which does not exist, with weight 0.
	m = &mesh.Skinned{Positions: [][3]float32{{0, 0, 1}}, Joints: [][4]uint16{{0, 1, 9, 9}}, Weights: [][4]float32{{.5, .5, 0, 0}}}
	pos, _, err = m.SkinPalette(palette(id, rig.Translate([3]float64{2, 0, 0})), []rig.Mat4{id, id})
	if err != nil {
		t.Fatal(err)
	}
	if !near(pos[0], [3]float32{1, 0, 1}, 1e-7) {
		t.Errorf("blend: %v, want (1,0,1)", pos[0])
	}
	// Two opposite turns blend their matrices, not their results: ±90° about y
	// average to a scale of the x and z axes by cos 90° = 0.
	m = &mesh.Skinned{Positions: [][3]float32{{1, 1, 0}}, Joints: [][4]uint16{{0, 1}}, Weights: [][4]float32{{.5, .5}}}
	pos, _, _ = m.SkinPalette(palette(rotY(90), rotY(-90)), []rig.Mat4{id, id})
	if !near(pos[0], [3]float32{0, 1, 0}, 1e-6) {
		t.Errorf("matrix blend: %v, want (0,1,0)", pos[0])
	}
}

// The built-in creatures: at the bind pose every vertex of every mesh stays put, and
// at a baked frame the skinned mesh stays near the creature (no vertex flung off).
func TestSkinBuiltins(t *testing.T) {
	if testing.Short() {
		t.Skip("bakes the built-in species")
	}
	for _, s := range creatures.All() {
		inv := s.InverseBind()
		pos, nrm, err := s.Mesh.SkinPalette(palette(s.Skeleton.RestModelSpace()...), inv)
		if err != nil {
			t.Fatal(err)
		}
		for v := range pos {
			if !near(pos[v], s.Mesh.Positions[v], 1e-4) || (nrm != nil && !near(nrm[v], s.Mesh.Normals[v], 1e-4)) {
				t.Fatalf("%s vertex %d at rest: %v, bind %v", s.Name, v, pos[v], s.Mesh.Positions[v])
			}
		}
		c, err := s.Bake()
		if err != nil {
			t.Fatal(err)
		}
		// The walk (clip 1 or 5), half way through: within 4 m of the origin.
		walk := s.ClipIndex("walk")
		n := s.Skeleton.Len() * 16
		frame := c.Palettes[walk][(len(c.Palettes[walk])/n/2)*n:][:n]
		pos, _, err = s.Mesh.SkinPalette(frame, inv)
		if err != nil {
			t.Fatal(err)
		}
		for v, p := range pos {
			if d := math.Sqrt(float64(p[0]*p[0] + p[1]*p[1] + p[2]*p[2])); !(d < 4) {
				t.Fatalf("%s walk vertex %d at %v", s.Name, v, p)
			}
		}
	}
}

func TestSkinErrors(t *testing.T) {
	id := rig.IdentityMat4()
	m := &mesh.Skinned{Positions: [][3]float32{{0, 0, 0}}, Joints: [][4]uint16{{3}}, Weights: [][4]float32{{1}}}
	if _, _, err := m.SkinPalette(palette(id), []rig.Mat4{id}); err == nil {
		t.Error("skinned with a bone the palette lacks")
	}
	m.Joints[0][0] = 0
	if err := m.Skin(palette(id), make([][3]float32, 0), nil); err == nil {
		t.Error("skinned into a short buffer")
	}
	if err := mesh.SkinMatrices(make([]float32, 16), make([]float32, 8), []rig.Mat4{id}); err == nil {
		t.Error("short palette accepted")
	}
	if err := (&mesh.Skinned{Positions: make([][3]float32, 2)}).Skin(nil, make([][3]float32, 2), nil); err == nil {
		t.Error("mesh without weights skinned")
	}
}

func ExampleSkinned_Skin() {
	// A one-bone mesh whose bone is posed a quarter turn about y and lifted by 1.
	m := &mesh.Skinned{Positions: [][3]float32{{1, 0, 0}}, Joints: [][4]uint16{{0}}, Weights: [][4]float32{{1}}}
	pose := rig.Translate([3]float64{0, 1, 0}).Mul(rotY(90))
	pal := make([]float32, 16)
	pose.PutFloat32(pal) // as a BPAT palette stores it

	skin := make([]float32, 16)
	mesh.SkinMatrices(skin, pal, []rig.Mat4{rig.IdentityMat4()}) // the bone is bound at the origin
	pos := make([][3]float32, 1)
	m.Skin(skin, pos, nil)
	fmt.Printf("%.3f %.3f %.3f\n", pos[0][0], pos[0][1], pos[0][2])
	// Output: 0.000 1.000 -1.000
}

// BenchmarkSkin skins a 10,000-vertex mesh with four influences per vertex over 20
// bones, positions and normals.
func BenchmarkSkin(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 4))
	const verts, bones = 10_000, 20
	m := testMesh(rng, verts, bones)
	skin := make([]float32, bones*16)
	for i := range bones {
		r := rotY(float64(i) * 7)
		r.PutFloat32(skin[i*16:])
	}
	pos, nrm := make([][3]float32, verts), make([][3]float32, verts)
	b.ReportAllocs()
	for b.Loop() {
		m.Skin(skin, pos, nrm)
	}
	b.ReportMetric(float64(verts)*float64(b.N)/b.Elapsed().Seconds(), "vertices/s")
}
