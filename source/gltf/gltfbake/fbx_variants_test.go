package gltfbake

import (
	"math"
	"strings"
	"testing"

	"github.com/bonebake/bonebake/internal/testfiles"
)

// blenderAgreement is what compareBlender measured: the largest differences,
// over the character's height.
type blenderAgreement struct {
	clips, frames, joints, vertices int
	joint, vertex                   float64
}

// compareBlender bakes an FBX file and the glTF Blender made of it (its FBX
// importer, then its glTF exporter) and compares them clip by clip (matched
// by name: Blender names an action OBJECT|STACK) and frame by frame, within
// 1e-4 of the character's height: every palette joint's world position (by
// name) and every vertex skinned by palette · inverse bind. Vertices are
// matched at the first clip's first frame, where both skins must already
// agree.
func compareBlender(t *testing.T, fbxPath, glbPath string) blenderAgreement {
	t.Helper()
	fm, ff := bakeModel(t, fbxPath, Settings{FPS: 24})
	gm, gf := bakeModel(t, glbPath, Settings{FPS: 24})
	var a blenderAgreement
	// Blender's rest pose is the FBX's bind pose, where bonebake's mesh
	// stands too (its skeleton's rest is the bones' Lcl, the pose the file
	// was written in).
	height := gm.Size().Extent()[1]
	if fh, gh := meshHeight(fm.GLTF.Mesh.Positions), meshHeight(gm.GLTF.Mesh.Positions); math.Abs(fh-gh) > 1e-4*height {
		t.Errorf("the mesh in the bind pose: %.6g m tall from the FBX, %.6g m from Blender's glTF", fh, gh)
	}
	tol := 1e-4 * height

	gClip := map[string]int{}
	for i, c := range gf.Clips() {
		name := c.Name
		if k := strings.LastIndex(name, "|"); k >= 0 {
			name = name[k+1:]
		}
		gClip[name] = i
	}
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
		if gp, ok := gByName[name]; ok {
			joints = append(joints, pair{name, p, gp})
		}
	}
	if len(joints) == 0 {
		t.Fatalf("no palette joint in common")
	}
	a.joints = len(joints)

	var near [][]int
	for fc, c := range ff.Clips() {
		name := c.Name
		if k := strings.LastIndex(name, "|"); k >= 0 {
			name = name[k+1:]
		}
		gc, ok := gClip[name]
		if !ok {
			t.Errorf("Blender's glTF has no clip %q", c.Name)
			continue
		}
		g := gf.Clips()[gc]
		if g.FrameCount != c.FrameCount || math.Abs(float64(g.FPS-c.FPS)) > 1e-5*float64(c.FPS) {
			t.Errorf("clip %q: FBX %d frames at %v fps; Blender's %d at %v", c.Name, c.FrameCount, c.FPS, g.FrameCount, g.FPS)
			continue
		}
		a.clips++
		for f := 0; f < int(c.FrameCount); f++ {
			a.frames++
			fpal, gpal := ff.Palette(fc, f), gf.Palette(gc, f)
			for _, j := range joints {
				x, y := translation(fpal, j.fp), translation(gpal, j.gp)
				d := x.Sub(y).Len()
				a.joint = max(a.joint, d/height)
				if d > tol {
					t.Fatalf("clip %q frame %d: joint %s at %.5f from the FBX, %.5f from Blender's glTF", c.Name, f, j.name, x, y)
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
			if near == nil {
				near = nearSets(t, fs, gs, tol)
				a.vertices = len(gs)
			}
			for i, p := range gs {
				best := math.Inf(1)
				for _, j := range near[i] {
					best = min(best, dist(fs[j], p))
				}
				a.vertex = max(a.vertex, best/height)
				if best > tol {
					t.Fatalf("clip %q frame %d: Blender's vertex %d skinned to %v, %.3g m from the FBX's", c.Name, f, i, p, best)
				}
			}
		}
	}
	if a.clips != len(gf.Clips()) || a.clips != len(ff.Clips()) {
		t.Errorf("clips compared: %d of the FBX's %d and Blender's %d", a.clips, len(ff.Clips()), len(gf.Clips()))
	}
	return a
}

// meshHeight is the extent of the positions along +y.
func meshHeight(ps [][3]float32) float64 {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, p := range ps {
		lo, hi = min(lo, float64(p[1])), max(hi, float64(p[1]))
	}
	return hi - lo
}

// nearSets lists, for each of Blender's vertices, the FBX vertices within tol
// of it (the FBX gives one vertex per control point, normal and UV, Blender
// one per its own split), through a grid of cells of size tol.
func nearSets(t *testing.T, fv, gv [][3]float32, tol float64) [][]int {
	t.Helper()
	cell := func(p [3]float32) [3]int64 {
		return [3]int64{int64(math.Floor(float64(p[0]) / tol)), int64(math.Floor(float64(p[1]) / tol)), int64(math.Floor(float64(p[2]) / tol))}
	}
	grid := map[[3]int64][]int{}
	for i, p := range fv {
		grid[cell(p)] = append(grid[cell(p)], i)
	}
	near := make([][]int, len(gv))
	for i, p := range gv {
		c := cell(p)
		for dx := int64(-1); dx <= 1; dx++ {
			for dy := int64(-1); dy <= 1; dy++ {
				for dz := int64(-1); dz <= 1; dz++ {
					for _, j := range grid[[3]int64{c[0] + dx, c[1] + dy, c[2] + dz}] {
						if dist(fv[j], p) <= tol {
							near[i] = append(near[i], j)
						}
					}
				}
			}
		}
		if len(near[i]) == 0 {
			t.Fatalf("Blender's vertex %d at %v: no FBX vertex within %.3g m", i, p, tol)
		}
	}
	return near
}

// The FBX files Blender's exporter writes from the shared glTF characters,
// in the settings real files come in, and Blender's reading of each
// (testdata/fbx/README.md; docs/formats/fbx.md §15). Blender is the reference
// here as FBX's rule is: it skins by the clusters' bind matrices, and so
// must bonebake (three.js's FBXLoader takes the bones' Lcl as the bind pose,
// which these files break: their bones stand in the scene's current frame).
var blenderVariants = []struct{ name, what string }{
	{"fox.default", "the exporter's defaults: -Z forward, Y up, objects scaled 100 in a centimetre file, leaf bones, three stacks, bones posed at frame 1 (not the bind pose)"},
	{"fox.zup", "Z up, Y forward, UnitScaleFactor 100, Apply Transform, no leaf bones"},
	{"cesiumman.xbones", "bones along X, only deform bones, scale 0.01, the armature a LimbNode root"},
}

// TestFBXBlenderVariantsAgree bakes each variant and Blender's glTF of it at
// 24 fps (the files' rate: no frame count rounds a half) and compares every
// joint and skinned vertex at every frame of every clip (compareBlender).
func TestFBXBlenderVariantsAgree(t *testing.T) {
	for _, v := range blenderVariants {
		t.Run(v.name, func(t *testing.T) {
			fbxPath := testfiles.Path(t, "fbx", v.name+".fbx")
			glbPath := testfiles.Path(t, "fbx", v.name+".blender.glb")
			a := compareBlender(t, fbxPath, glbPath)
			t.Logf("%s: %d clips, %d frames, %d joints, %d of Blender's vertices: joints within %.2g, vertices within %.2g of the height",
				v.what, a.clips, a.frames, a.joints, a.vertices, a.joint, a.vertex)
		})
	}
}
