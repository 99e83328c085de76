package viewer

import (
	"encoding/json"
	"io/fs"
	"math"
	"strings"
	"testing"

	"github.com/bonebake/bonebake/internal/gltfref"
	"github.com/bonebake/bonebake/internal/testfiles"
)

// TestCharactersWhole: the viewer draws every mesh of a character (Xbot's two
// skinned meshes; RobotExpressive's two skinned hands and twelve rigid parts on
// joints, vertex counts read from the files by a separate script) at its true
// size, standing on the ground at rest and in its first frame, as three.js
// shows them.
func TestCharactersWhole(t *testing.T) {
	for _, c := range []struct {
		file     string
		vertices int
		height   [2]float64
	}{
		{"threejs/RobotExpressive.glb", 7214, [2]float64{4, 5}},
		{"threejs/Xbot.glb", 12473 + 15901, [2]float64{1.7, 1.9}}, // 67 joints: baked into 52 (docs/formats/gltf.md §1.4)
		{"CesiumMan.gltf", 3273, [2]float64{1.4, 1.6}},
	} {
		t.Run(c.file, func(t *testing.T) {
			a, err := LoadGLTF(testfiles.Path(t, "gltf", c.file))
			if err != nil {
				t.Fatal(err)
			}
			if n := a.Mesh().VertexCount(); n != c.vertices {
				t.Fatalf("%d vertices drawn, want %d", n, c.vertices)
			}
			in, err := a.batInput() // the inverse binds as baked
			if err != nil {
				t.Fatal(err)
			}
			skinned, _, err := a.Mesh().SkinPalette(a.File().Palette(0, 0), in.InverseBind)
			if err != nil {
				t.Fatal(err)
			}
			for what, ps := range map[string][][3]float32{"at rest": a.Mesh().Positions, "in frame 0": skinned} {
				lo, hi := math.Inf(1), math.Inf(-1)
				for _, p := range ps {
					lo, hi = min(lo, float64(p[1])), max(hi, float64(p[1]))
				}
				if h := hi - lo; h < c.height[0] || h > c.height[1] || math.Abs(lo) > 0.1*h {
					t.Errorf("%s: y from %.3g to %.3g; want %g to %g tall from y≈0", what, lo, hi, c.height[0], c.height[1])
				}
			}
		})
	}
}

// TestNoDisplayScale: the page draws models at the size the rest mesh has; it
// computes no display scale of its own.
func TestNoDisplayScale(t *testing.T) {
	err := fs.WalkDir(webFS, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(webFS, p)
		if err != nil {
			return err
		}
		if s := string(b); strings.Contains(s, "display scale") || strings.Contains(s, "A.scale") {
			t.Errorf("%s still applies a display scale", p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestRestBounds: /api/assets gives no warning for these models, and a glTF model's box at rest where the glTF
// spec puts its meshes (each mesh node posed at rest by internal/gltfref), which
// the page frames it by. RobotExpressive's hands are skins bound in another
// pose: their stored positions stand in that pose, 0.11 m further forward.
func TestRestBounds(t *testing.T) {
	for _, file := range []string{"threejs/RobotExpressive.glb", "threejs/Xbot.glb", "CesiumMan.gltf"} {
		t.Run(file, func(t *testing.T) {
			path := testfiles.Path(t, "gltf", file)
			a, err := LoadGLTF(path)
			if err != nil {
				t.Fatal(err)
			}
			ref, err := gltfref.Load(path)
			if err != nil {
				t.Fatal(err)
			}
			lo := [3]float64{math.Inf(1), math.Inf(1), math.Inf(1)}
			hi := [3]float64{math.Inf(-1), math.Inf(-1), math.Inf(-1)}
			for n := range ref.NodeCount() {
				if ref.MeshOf(n) < 0 {
					continue
				}
				vs, err := ref.Vertices(n, -1, 0)
				if err != nil {
					t.Fatal(err)
				}
				for _, v := range vs {
					for k := range 3 {
						lo[k], hi[k] = min(lo[k], v[k]), max(hi[k], v[k])
					}
				}
			}
			var list struct {
				Assets []struct {
					RestBounds *[2][3]float64 `json:"rest_bounds"`
					Warning    string         `json:"warning"`
				} `json:"assets"`
			}
			if err := json.Unmarshal(get(t, New([]*Asset{a}), "/api/assets").Body.Bytes(), &list); err != nil {
				t.Fatal(err)
			}
			// RobotExpressive's hands, bound in another pose, skin exactly:
			// the panel has nothing to warn of.
			if w := list.Assets[0].Warning; w != "" {
				t.Errorf("warning %q, want none", w)
			}
			b := list.Assets[0].RestBounds
			if b == nil {
				t.Fatal("no rest_bounds")
			}
			tol := 1e-4 * (hi[1] - lo[1])
			for k := range 3 {
				if math.Abs(b[0][k]-lo[k]) > tol || math.Abs(b[1][k]-hi[k]) > tol {
					t.Errorf("rest_bounds %v, want %v %v within %.2g", *b, lo, hi, tol)
					break
				}
			}
		})
	}
}
