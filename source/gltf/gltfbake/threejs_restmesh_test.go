package gltfbake

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/bonebake/bonebake/source/gltf"
)

// TestThreejsRestMesh: every mesh of a character stands at rest where three.js
// draws it (GLTFLoader, its weights normalized, SkinnedMesh.getVertexPosition
// then matrixWorld; testdata/threejs_restmesh.mjs): gltf.Load's RestPositions,
// member by member, within 1e-4 of the model's size, and its own positions too
// for a skin bound at its rest pose (all but RobotExpressive's hands).
func TestThreejsRestMesh(t *testing.T) {
	peer := threejsPeerWith(t, "threejs_restmesh.mjs")
	for _, c := range []struct {
		name     string
		bindPose bool // a skin bound in another pose: its own positions are not the rest mesh
	}{
		{"threejs/Xbot.glb", false}, {"threejs/RobotExpressive.glb", true}, {"threejs/Soldier.glb", false},
		{"mixamo-clips/ybot.glb", false}, {"CesiumMan.gltf", false}, {"Fox.glb", false}, {"RiggedSimple.gltf", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := sharedModel(t, c.name)
			m, err := gltf.Load(path, gltf.Options{})
			if err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(t.TempDir(), "rest.json")
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, "node", "threejs_restmesh.mjs", path, out)
			cmd.Dir = peer
			if b, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("the three.js script failed: %v\n%s", err, b)
			}
			b, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			var three struct {
				Nodes map[string][]float64 `json:"nodes"`
			}
			if err := json.Unmarshal(b, &three); err != nil {
				t.Fatal(err)
			}
			rest := m.RestPositions()
			lo, hi := math.Inf(1), math.Inf(-1)
			for _, p := range rest {
				lo, hi = min(lo, float64(p[1])), max(hi, float64(p[1]))
			}
			size := max(hi-lo, 1e-3)
			first, worst := 0, 0.0
			for _, mb := range m.Members {
				want := three.Nodes[strconv.Itoa(mb.Node)]
				if len(want) != 3*mb.Vertices {
					t.Fatalf("node %d: %d vertices; three.js draws %d", mb.Node, mb.Vertices, len(want)/3)
				}
				for v := range mb.Vertices {
					for what, ps := range map[string][][3]float32{"rest": rest, "own": m.Mesh.Positions} {
						if what == "own" && c.bindPose {
							continue
						}
						p := ps[first+v]
						d := math.Hypot(math.Hypot(float64(p[0])-want[3*v], float64(p[1])-want[3*v+1]), float64(p[2])-want[3*v+2])
						worst = max(worst, d)
						if d > 1e-4*size {
							t.Fatalf("node %d (%s) vertex %d: %s position %v; three.js draws it at %v", mb.Node, mb.How, v, what, p, want[3*v:3*v+3])
						}
					}
				}
				first += mb.Vertices
			}
			if len(three.Nodes) < len(m.Members) {
				t.Errorf("three.js draws %d mesh nodes, the character has %d", len(three.Nodes), len(m.Members))
			}
			t.Logf("%d mesh nodes; worst %.3g of the size %.3g", len(m.Members), worst, size)
		})
	}
}
