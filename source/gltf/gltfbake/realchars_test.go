package gltfbake

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestMeasureFolder measures the walks and runs of models that are not the
// shared test data: every glTF, FBX and BVH file in the folder that
// BONEBAKE_REALCHARS names (skipped without it), baked as is and with
// PlantFeet (and, where a clip has root motion, both again InPlace), each clip's gait line with what both outside meters find at its
// speed (the palette's lowest leaves, slip; the mesh's soles, soleMeter). It
// asserts nothing: the figures of docs/formats/gait.md §6 for characters
// this repository does not carry come from it.
//
//	BONEBAKE_REALCHARS=/tmp/realchars go test -run TestMeasureFolder -v ./source/gltf/gltfbake/
func TestMeasureFolder(t *testing.T) {
	dir := os.Getenv("BONEBAKE_REALCHARS")
	if dir == "" {
		t.Skip("BONEBAKE_REALCHARS names no folder")
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		ext := strings.ToLower(filepath.Ext(e.Name()))
		if !slices.Contains([]string{".gltf", ".glb", ".fbx", ".bvh"}, ext) {
			continue
		}
		travels := false // a clip has root motion: measured in place too (bake --in-place)
		for _, s := range []Settings{{}, {PlantFeet: true}, {InPlace: true}, {PlantFeet: true, InPlace: true}} {
			if s.InPlace && !travels {
				break
			}
			plant := s.PlantFeet
			m, err := Load(filepath.Join(dir, e.Name()), s)
			if err != nil {
				t.Logf("%s: %v", e.Name(), err)
				break
			}
			var so *soles
			if m.GLTF.Mesh != nil {
				so = findSoles(t, m)
			}
			f := m.Gaits("x.bpat")
			t.Logf("%s, planted %v, in place %v: feet %q (%s), root %s", e.Name(), plant, s.InPlace, f.Feet, f.FeetFrom, f.RootBone)
			for _, n := range m.Notes {
				if strings.HasPrefix(n, "plant feet") {
					t.Logf("  %s", n)
				}
			}
			for i, c := range f.Clips {
				travels = travels || c.Method == "root_motion"
				t.Logf("  %s", m.GaitLine(c))
				if c.GroundSpeed == 0 {
					continue
				}
				_, dur := m.Job.Span(&m.Job.Clips[i])
				r := slip(m, i, c)
				t.Logf("    leaves: %d stances, worst %.1f%% (%s)", r.stances, 100*r.worst, r.where)
				if so != nil {
					sr := so.meter(i).at(c.Stride / dur)
					t.Logf("    soles: %d stances, %.1f%% in all, worst %.1f%% (%s)", sr.stances, 100*sr.agg, 100*sr.worst, sr.where)
				}
			}
		}
	}
}
