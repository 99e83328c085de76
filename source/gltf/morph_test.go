package gltf

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/bonebake/bonebake/internal/testfiles"
)

// morphModel writes a triangle "Body" with one morph target ("Smile", named in
// the mesh's extras.targetNames) skinned to joint "Hips", and two animations:
// "Wave" turns the hips and animates the weights, "Blink" animates the
// weights only. With skinned false the file has no skin at all (three.js's
// Horse.glb is such a model: animated by morph targets only).
func morphModel(t *testing.T, skinned bool) string {
	t.Helper()
	var gb testfiles.GLTFBuffer
	add, floats := gb.Add, testfiles.Float32s
	pos := add(floats(0, 0, 0, 1, 0, 0, 0, 1, 0), 3, "VEC3", 5126, map[string]any{"min": []float64{0, 0, 0}, "max": []float64{1, 1, 0}})
	smile := add(floats(0, 0.1, 0, 0, 0.1, 0, 0, 0, 0), 3, "VEC3", 5126, map[string]any{"min": []float64{0, 0, 0}, "max": []float64{0, 0.1, 0}})
	attrs := map[string]any{"POSITION": pos}
	if skinned {
		attrs["JOINTS_0"] = add(make([]byte, 12), 3, "VEC4", 5121, nil)
		attrs["WEIGHTS_0"] = add(floats(1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0), 3, "VEC4", 5126, nil)
	}
	times := add(floats(0, 1), 2, "SCALAR", 5126, map[string]any{"min": []float64{0}, "max": []float64{1}})
	weights := add(floats(0, 1), 2, "SCALAR", 5126, nil)
	turn := add(floats(0, 0, 0, 1, 0, 0.7071068, 0, 0.7071068), 2, "VEC4", 5126, nil)
	body := map[string]any{"name": "Body", "mesh": 0}
	if skinned {
		body["skin"] = 0
	}
	doc := map[string]any{
		"asset":  map[string]any{"version": "2.0"},
		"scene":  0,
		"scenes": []any{map[string]any{"nodes": []int{0, 1}}},
		"nodes":  []any{map[string]any{"name": "Hips"}, body},
		"meshes": []any{map[string]any{"name": "BodyMesh", "extras": map[string]any{"targetNames": []string{"Smile"}},
			"primitives": []any{map[string]any{"attributes": attrs, "targets": []any{map[string]any{"POSITION": smile}}}}}},
		"animations": []any{
			map[string]any{"name": "Wave", "samplers": []any{map[string]any{"input": times, "output": turn}, map[string]any{"input": times, "output": weights}},
				"channels": []any{map[string]any{"sampler": 0, "target": map[string]any{"node": 0, "path": "rotation"}},
					map[string]any{"sampler": 1, "target": map[string]any{"node": 1, "path": "weights"}}}},
			map[string]any{"name": "Blink", "samplers": []any{map[string]any{"input": times, "output": weights}},
				"channels": []any{map[string]any{"sampler": 0, "target": map[string]any{"node": 1, "path": "weights"}}}},
		},
	}
	if skinned {
		doc["skins"] = []any{map[string]any{"joints": []int{0}}}
	}
	b, err := json.Marshal(gb.Finish(doc))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "morph.gltf")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestMorphTargetsSaid: Load lists the character's meshes with morph targets
// (names from extras.targetNames) and the animations that animate their
// weights, and the animations that animate nothing else; Inspect lists them
// per mesh.
func TestMorphTargetsSaid(t *testing.T) {
	path := morphModel(t, true)
	m, err := Load(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Morphs) != 1 || m.Morphs[0].Name != "Body" || !slices.Equal(m.Morphs[0].Targets, []string{"Smile"}) ||
		!slices.Equal(m.Morphs[0].Clips, []string{"Wave", "Blink"}) {
		t.Errorf("Morphs = %+v", m.Morphs)
	}
	if !slices.Equal(m.MorphOnly, []string{"Blink"}) {
		t.Errorf("MorphOnly = %v, want [Blink]", m.MorphOnly)
	}
	info, err := Inspect(path)
	if err != nil {
		t.Fatal(err)
	}
	if mi := info.Meshes[0]; !slices.Equal(mi.MorphTargets, []string{"Smile"}) || !slices.Equal(mi.MorphClips, []string{"Wave", "Blink"}) {
		t.Errorf("inspect: targets %v, clips %v", mi.MorphTargets, mi.MorphClips)
	}
}

// TestMorphOnlyModelRefused: a model with no skin whose animations animate
// morph target weights is refused saying so, not only that it has no skins.
func TestMorphOnlyModelRefused(t *testing.T) {
	path := morphModel(t, false)
	_, err := Load(path, Options{})
	var ge *Error
	if !errors.As(err, &ge) || ge.Rule != RuleSkinIndex {
		t.Fatalf("error %v, want rule %s", err, RuleSkinIndex)
	}
	for _, w := range []string{path, "no skins", "animated by morph targets only", "node 1 (Body): 1 morph target (Smile)", `"Wave", "Blink"`, "bone palettes"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("%q does not say %q", err, w)
		}
	}
}
