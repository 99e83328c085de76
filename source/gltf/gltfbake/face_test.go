package gltfbake

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bonebake/bonebake/formats/bpat"
	"github.com/bonebake/bonebake/formats/bpsm"
	"github.com/bonebake/bonebake/internal/testfiles"
	"github.com/bonebake/bonebake/rig"
)

// TestFace: three.js's Soldier faces −z (three.js's own example turns it
// half round to walk it forward). Baked as it is, its walks measure toward
// −z and the hint names Settings.Face -z; baked with it, they measure toward
// +z at the same speeds, its palettes are the plain bake's turned 180° about
// +y (R·G, computed here: rows x and z negated), its mesh skinned with its
// inverse bind matrices lands where the plain one does turned, and its Walk
// played moving along +z keeps its feet planted (slipAlong, which shares no
// code with stride), where the plain Walk's feet slide.
func TestFace(t *testing.T) {
	path := testfiles.Path(t, "gltf", "threejs/Soldier.glb")
	plain, err := Load(path, Settings{})
	if err != nil {
		t.Fatal(err)
	}
	turned, err := Load(path, Settings{Face: "-z"})
	if err != nil {
		t.Fatal(err)
	}
	pf, tf := plain.Gaits("p.bpat"), turned.Gaits("t.bpat")
	if h := FacingHint(pf, ""); !strings.Contains(h, "(Run, Walk) go toward -z") || !strings.Contains(h, "backwards") || !strings.Contains(h, "Settings.Face -z") {
		t.Errorf("plain hint %q: want the walks toward -z, backwards, Settings.Face -z", h)
	}
	if h := FacingHint(tf, "-z"); h != "" {
		t.Errorf("turned hint %q: want none", h)
	}
	walk := -1
	for i, c := range pf.Clips {
		tc := tf.Clips[i]
		if c.Name == "Walk" {
			walk = i
		}
		_, pz, pok := c.Dir()
		_, tz, tok := tc.Dir()
		if pok != (c.GroundSpeed > 0) || tok != pok {
			t.Errorf("%s: direction %v turned %v, ground speed %v: want a direction exactly when a speed", c.Name, c.Direction, tc.Direction, c.GroundSpeed)
		}
		if pok && (pz > -0.99 || tz < 0.99 || math.Abs(c.GroundSpeed-tc.GroundSpeed) > 1e-3*c.GroundSpeed) {
			t.Errorf("%s: %v at %v m/s, turned %v at %v: want -z, then +z at the same speed", c.Name, c.Direction, c.GroundSpeed, tc.Direction, tc.GroundSpeed)
		}
	}
	if walk < 0 {
		t.Fatal("no Walk")
	}

	// The palettes: R·G for R the half turn about +y negates rows 0 and 2.
	pb, err := plain.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	tb, err := turned.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	p, err := bpat.Parse(pb)
	if err != nil {
		t.Fatal(err)
	}
	q, err := bpat.Parse(tb)
	if err != nil {
		t.Fatal(err)
	}
	ps, ts := plain.Size(), turned.Size()
	H := ps.Hi[1] - ps.Lo[1]
	// The rest bounds turn alike: x and z negated, y kept.
	if d := ts.Lo.Sub(rig.Vec3{-ps.Hi[0], ps.Lo[1], -ps.Hi[2]}).Len() + ts.Hi.Sub(rig.Vec3{-ps.Lo[0], ps.Hi[1], -ps.Lo[2]}).Len(); d > 1e-5*H {
		t.Errorf("rest bounds %v–%v, turned %v–%v: want x and z negated", ps.Lo, ps.Hi, ts.Lo, ts.Hi)
	}
	worst := 0.0
	for c, cl := range p.Clips() {
		for f := range int(cl.FrameCount) {
			a, b := p.Palette(c, f), q.Palette(c, f)
			for k := range a {
				want := a[k]
				if row := k % 16 / 4; row == 0 || row == 2 {
					want = -want
				}
				scale := 1.0
				if k%4 == 3 {
					scale = H // translations, in metres
				}
				worst = math.Max(worst, math.Abs(float64(b[k]-want))/scale)
			}
		}
	}
	if worst > 1e-5 {
		t.Errorf("palettes differ from the plain ones turned by up to %.3g (of H for translations)", worst)
	}

	// The mesh, skinned at a frame of the Walk: the turned one lands where the
	// plain one does, turned.
	pm, tm := plain.GLTF.Mesh, turned.GLTF.Mesh
	skin := func(pal []float32, ib []rig.Mat4, v int, pos [3]float32) rig.Vec3 {
		var out rig.Vec3
		for k, j := range pm.Joints[v] {
			w := float64(pm.Weights[v][k])
			if w == 0 {
				continue
			}
			var m rig.Mat4
			for e := range m {
				m[e] = float64(pal[int(j)*16+e])
			}
			out = out.Add(m.Mul(ib[j]).TransformPoint(rig.Vec3{float64(pos[0]), float64(pos[1]), float64(pos[2])}).Scale(w))
		}
		return out
	}
	wi := p.ClipIndex("Walk")
	pp, tp := p.Palette(wi, 7), q.Palette(wi, 7)
	worst = 0
	for v := 0; v < pm.VertexCount(); v += 37 {
		a := skin(pp, plain.GLTF.InverseBind, v, pm.Positions[v])
		b := skin(tp, turned.GLTF.InverseBind, v, tm.Positions[v])
		worst = math.Max(worst, b.Sub(rig.Vec3{-a[0], a[1], -a[2]}).Len()/H)
	}
	if worst > 1e-5 {
		t.Errorf("the turned mesh skins up to %.3g·H from the plain one turned", worst)
	}

	// Moved along +z, its heading 0, the turned Walk's feet stand; the plain
	// one's, walking backwards, slide.
	tr := slipAlong(turned, walk, tf.Clips[walk], [2]float64{0, 1})
	pr := slipAlong(plain, walk, pf.Clips[walk], [2]float64{0, 1})
	t.Logf("Walk along +z: turned %d stances, worst drift %.1f%% (%s); plain %d stances, worst %.1f%%", tr.stances, 100*tr.worst, tr.where, pr.stances, 100*pr.worst)
	if tr.stances == 0 || tr.worst > 0.05 {
		t.Errorf("turned Walk along +z: %d stances, worst drift %.1f%%: want its feet planted within 5 %%", tr.stances, 100*tr.worst)
	}
	if pr.stances > 0 && pr.worst < 0.5 {
		t.Errorf("plain Walk along +z: worst drift %.1f%%: want it sliding (walking backwards)", 100*pr.worst)
	}
}

// TestFaceQuarterTurns: +x and -x turn a quarter about +y, the way each says:
// CesiumMan walks toward +x (the hint says Settings.Face +x), and faced +x it
// walks toward +z; faced -x, toward -z, and the hint names +x again, in place
// of -x: naming -z, which turns the model from where it faces unturned, sent a
// user round (-z walks it toward -x, whose hint named -x).
func TestFaceQuarterTurns(t *testing.T) {
	path := testfiles.Path(t, "gltf", "CesiumMan.gltf")
	for _, c := range []struct{ face, hint string }{{"", "Settings.Face +x"}, {"+x", ""}, {"-X", "the model faces +x, not -X: Settings.Face +x turns it"}} {
		m, err := Load(path, Settings{Face: c.face})
		if err != nil {
			t.Fatal(err)
		}
		if h := FacingHint(m.Gaits("c.bpat"), m.Face); (c.hint == "") != (h == "") || !strings.Contains(h, c.hint) {
			t.Errorf("face %q: hint %q, want one naming %q", c.face, h, c.hint)
		}
	}
	if err := (Settings{Face: "up"}).Check(nil); err == nil || !strings.Contains(err.Error(), "+z, -z, +x or -x") {
		t.Errorf("face up: %v, want refused naming the axes", err)
	}
}

// TestFaceSnapshot: the far-LOD snapshot of a turned model, simplified from
// its own mesh or bound from another model's (read again and turned alike),
// stands where the plain one does turned: every vertex's position and normal
// with x and z negated, at every frame written.
func TestFaceSnapshot(t *testing.T) {
	path := testfiles.Path(t, "gltf", "threejs/Soldier.glb")
	dir := t.TempDir()
	for _, mesh := range []string{"", path} {
		var files [2]*bpsm.File
		for k, face := range []string{"", "-z"} {
			m, err := Load(path, Settings{Face: face})
			if err != nil {
				t.Fatal(err)
			}
			s, err := m.Snapshot(SnapshotSettings{Mesh: mesh, LOD: -1, FPS: 5})
			if err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(dir, fmt.Sprintf("s%d.bpsm", k))
			if _, err := s.Write(out, m.Job); err != nil {
				t.Fatal(err)
			}
			if files[k], err = bpsm.Open(out); err != nil {
				t.Fatal(err)
			}
		}
		p, q := files[0], files[1]
		worst := 0.0
		for c, cl := range p.Clips() {
			for f := range int(cl.FrameCount) {
				for i := range p.VertexCount() {
					a, b := p.Vertex(c, f, i), q.Vertex(c, f, i)
					for _, v := range [][2][3]float32{{a.Position, b.Position}, {a.Normal, b.Normal}} {
						want := [3]float32{-v[0][0], v[0][1], -v[0][2]}
						for k := range 3 {
							worst = math.Max(worst, math.Abs(float64(v[1][k]-want[k])))
						}
					}
				}
			}
		}
		if worst > 1e-4 {
			t.Errorf("snapshot (mesh %q): the turned one differs from the plain one turned by up to %.3g", mesh, worst)
		}
	}
}

// TestFaceManifest: the manifest's face key turns the model as Settings.Face
// does, and an axis that is not one is refused naming the file and the key.
func TestFaceManifest(t *testing.T) {
	dir := t.TempDir()
	good, bad := filepath.Join(dir, "good.yaml"), filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(good, []byte("face: -z\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bad, []byte("face: up\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	mf, err := ReadManifest(good)
	if err != nil {
		t.Fatal(err)
	}
	m, err := Load(testfiles.Path(t, "gltf", "threejs/Soldier.glb"), Settings{Manifest: mf})
	if err != nil {
		t.Fatal(err)
	}
	if c, _ := m.Gaits("s.bpat").Clip("Walk"); c.Direction[2] < 0.99 {
		t.Errorf("face: -z: Walk's direction %v, want +z", c.Direction)
	}
	if _, err := ReadManifest(bad); err == nil || !strings.Contains(err.Error(), "bad.yaml: face") {
		t.Errorf("face: up: %v, want refused naming the file and key", err)
	}
}
