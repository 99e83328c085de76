package gltfbake

import (
	"math"
	"testing"

	"github.com/bonebake/bonebake/formats/bpat"
	"github.com/bonebake/bonebake/internal/testfiles"
	"github.com/bonebake/bonebake/rig"
)

// TestFBXBlenderGLTFAgrees bakes Mixamo's FBX character and the glTF that
// Blender 3.4 made of it (its FBX importer, then its glTF exporter:
// testdata/fbx/README.md), and compares them frame by frame at the same
// times, within 1e-4 of the character's height:
//
//   - every palette joint's world position (the palette's translation),
//   - every vertex skinned by palette · inverse bind, the pose a game draws,
//   - the rest of each palette matrix, up to a constant of each joint: Blender's
//     global matrix is the FBX's times C = G_fbx⁻¹ · G_blender, the same at
//     every frame.
//
// C is 0.01 · identity for every joint: Blender's importer keeps each bone's
// matrix as the FBX joint's global matrix and the file's centimetres in the
// bones, putting the 0.01 on the armature node, so the palettes agree as they
// are but for that scale. Blender wants each bone to point along its Y axis,
// and Mixamo's joints already do: "Automatic Bone Orientation" gives this file
// byte for byte the same glTF. Where an importer does turn a bone (another
// rig), C is a rotation of that joint's own, which its inverse bind cancels:
// raw palette rotations then cannot agree, while joint positions and skinned
// vertices must (docs/formats/fbx.md §14).
//
// The same rest orientations are why an FBX clip file binds to Blender's
// glTF by joint name as it does to the FBX (§12): checked last.
func TestFBXBlenderGLTFAgrees(t *testing.T) {
	fbxPath := testfiles.Path(t, "fbx", "mixamo.fbx")
	glbPath := testfiles.Path(t, "fbx", "mixamo.blender.glb")
	fm, ff := bakeModel(t, fbxPath, Settings{})
	gm, gf := bakeModel(t, glbPath, Settings{})

	// One clip each (Blender names its action "Armature|mixamo.com|Layer0"),
	// at the same frame rate and of the same frames: Blender keyed the FBX's
	// 30 fps frames 1…506 at t = frame/30, bonebake drops that lead-in
	// (gltf.md §3) and both run 16.833 s, frame k at the same time in both.
	fc, gc := ff.Clips(), gf.Clips()
	if len(fc) != 1 || len(gc) != 1 {
		t.Fatalf("clips: FBX %d, Blender's glTF %d", len(fc), len(gc))
	}
	if fc[0].FrameCount != gc[0].FrameCount || fc[0].FPS != gc[0].FPS {
		t.Fatalf("FBX %q: %d frames at %v fps; Blender's %q: %d at %v", fc[0].Name, fc[0].FrameCount, fc[0].FPS, gc[0].Name, gc[0].FrameCount, gc[0].FPS)
	}
	height := fm.Size().Extent()[1]
	if gh := gm.Size().Extent()[1]; height < 1.7 || height > 1.9 || math.Abs(gh-height) > 1e-4*height {
		t.Fatalf("heights: FBX %v m, Blender's glTF %v m", height, gh)
	}
	tol := 1e-4 * height

	// The joints by name: both palettes keep the joints some vertex uses.
	gByName := map[string]int{}
	for p, b := range gm.Job.Rig.PaletteBones() {
		gByName[gm.Job.Rig.Skeleton.Names[b]] = p
	}
	type pair struct {
		name   string
		fp, gp int
	}
	var joints []pair
	for p, b := range fm.Job.Rig.PaletteBones() {
		name := fm.Job.Rig.Skeleton.Names[b]
		gp, ok := gByName[name]
		if !ok {
			t.Fatalf("Blender's glTF has no palette joint %q", name)
		}
		joints = append(joints, pair{name, p, gp})
	}
	if len(joints) != len(gByName) {
		t.Errorf("palettes of %d and %d joints", len(joints), len(gByName))
	}

	// The vertices: the FBX gives one per (control point, normal, UV), Blender
	// one per its own split, so each of Blender's is matched to the FBX
	// vertices at its rest position (several control points may share one).
	fv, gv := fm.GLTF.Mesh.Positions, gm.GLTF.Mesh.Positions
	near := nearSets(t, fv, gv, tol)

	step := 1
	if testing.Short() {
		step = 25
	}
	// Each joint's constant: Blender's global matrix is the FBX's times C,
	// C = G_fbx⁻¹ · G_blender at the first frame: Blender's bone orientation
	// and the armature's 0.01 scale (Blender keeps the file's centimetres in
	// the bones and scales the armature object).
	cs := make([]rig.Mat4, len(joints))
	for k, j := range joints {
		inv, ok := matrixAt(ff.Palette(0, 0), j.fp).Inverse()
		if !ok {
			t.Fatalf("joint %s: the FBX palette is singular", j.name)
		}
		cs[k] = inv.Mul(matrixAt(gf.Palette(0, 0), j.gp))
		s := math.Cbrt(cs[k].Determinant())
		if math.Abs(s-0.01) > 1e-6 {
			t.Errorf("joint %s: Blender's palette scales by %v, not the armature's 0.01", j.name, s)
		}
		// C/0.01 is the identity: the palettes agree as they are.
		for r := range 3 {
			for c := range 3 {
				if d := cs[k][r*4+c]/s - rig.IdentityMat4()[r*4+c]; math.Abs(d) > 1e-4 {
					t.Errorf("joint %s: Blender turned it (C/0.01 row %d col %d off the identity by %.3g)", j.name, r, c, d)
				}
			}
		}
	}
	worstJoint, worstVertex, worstC := 0.0, 0.0, 0.0
	for f := 0; f < int(gc[0].FrameCount); f += step {
		fpal, gpal := ff.Palette(0, f), gf.Palette(0, f)
		for k, j := range joints {
			a, b := translation(fpal, j.fp), translation(gpal, j.gp)
			d := a.Sub(b).Len()
			worstJoint = max(worstJoint, d)
			if d > tol {
				t.Fatalf("frame %d: joint %s at %.5f from the FBX, %.5f from Blender's glTF", f, j.name, a, b)
			}
			// The rest of the matrix: G_fbx · C is Blender's at every frame
			// (its rotation and scale, C's 0.01 taken out).
			want, got := matrixAt(fpal, j.fp).Mul(cs[k]), matrixAt(gpal, j.gp)
			for _, e := range []int{0, 1, 2, 4, 5, 6, 8, 9, 10} {
				d := math.Abs(want[e]-got[e]) / 0.01
				worstC = max(worstC, d)
				if d > 1e-4 {
					t.Fatalf("frame %d: joint %s: Blender's matrix is not the FBX's times a constant (element %d: %v, want %v)", f, j.name, e, got[e], want[e])
				}
			}
		}
		fs, _, err := fm.GLTF.Mesh.SkinPalette(fpal, fm.GLTF.InverseBind)
		if err != nil {
			t.Fatal(err)
		}
		gs, _, err := gm.GLTF.Mesh.SkinPalette(gpal, gm.GLTF.InverseBind)
		if err != nil {
			t.Fatal(err)
		}
		for i, p := range gs {
			best := math.Inf(1)
			for _, j := range near[i] {
				best = min(best, dist(fs[j], p))
			}
			worstVertex = max(worstVertex, best)
			if best > tol {
				t.Fatalf("frame %d: Blender's vertex %d skinned to %v, %.3g m from the FBX's", f, i, p, best)
			}
		}
	}
	t.Logf("%d frames (every %d), %d joints, %d of Blender's vertices: joints within %.2g, vertices within %.2g of the %.3g m height; rotations (Blender's ÷ 0.01) within %.2g",
		gc[0].FrameCount, step, len(joints), len(gv), worstJoint/height, worstVertex/height, height, worstC)

	// An FBX clip file (Mixamo's Samba, skin and all) binds to Blender's glTF
	// as it does to the FBX: the joints' rest orientations are the same.
	if notes, err := AddClipFiles(gm.GLTF, []string{testfiles.Path(t, "fbx", "Samba_Dancing.fbx")}, ClipFilesSettings{}); err != nil || len(gm.GLTF.Clips) != 2 {
		t.Errorf("the Samba FBX onto Blender's glTF: %v, %d clips, notes %q", err, len(gm.GLTF.Clips), notes)
	}
}

// translation is palette joint p's translation (row-major 4×4 matrices).
func translation(pal []float32, p int) rig.Vec3 {
	m := pal[p*bpat.FloatsPerBone:]
	return rig.Vec3{float64(m[3]), float64(m[7]), float64(m[11])}
}

// matrixAt is palette joint p's matrix.
func matrixAt(pal []float32, p int) rig.Mat4 {
	var m rig.Mat4
	for i, v := range pal[p*bpat.FloatsPerBone : (p+1)*bpat.FloatsPerBone] {
		m[i] = float64(v)
	}
	return m
}

func dist(a, b [3]float32) float64 {
	x, y, z := float64(a[0]-b[0]), float64(a[1]-b[1]), float64(a[2]-b[2])
	return math.Sqrt(x*x + y*y + z*z)
}
