package bake

import (
	"math"
	"path/filepath"
	"testing"

	"bonebake/formats/gait"
	"bonebake/roster"
	"bonebake/source/gltf"
	"bonebake/species/creatures"
)

// TestBuiltinGaitsMeasured exports each built-in creature to glTF (which carries
// no speeds), bakes it back and checks the measured ground speeds against the
// roster's table (docs/species.md §1), the external reference: within 5 % for
// every locomotion clip, and no speed for every clip the table plays in place.
func TestBuiltinGaitsMeasured(t *testing.T) {
	names := []string{"humanoid", "horse", "elephant"}
	if !testing.Short() {
		names = append(names, "humanoid_sword", "humanoid_spear", "humanoid_skeleton")
	}
	dir := t.TempDir()
	for _, name := range names {
		s := creatures.ByName(name)
		path := filepath.Join(dir, name+".glb")
		if err := gltf.WriteFile(path, ExportSpecies(s)); err != nil {
			t.Fatal(err)
		}
		m, err := LoadModel(path, Settings{})
		if err != nil {
			t.Fatal(err)
		}
		f := m.Gaits(filepath.Join(dir, name+".bpat"))
		def, _ := roster.ByName(name)
		for _, c := range f.Clips {
			want := def.Gait(c.Name)
			if want.Cycle > 0 && math.Abs(c.Cycle-want.Cycle) > 1e-4 {
				t.Errorf("%s %s: cycle %v, want the table's %v", name, c.Name, c.Cycle, want.Cycle)
			}
			switch {
			case want.Speed > 0:
				if c.GroundSpeedSource != gait.SourceMeasured || math.Abs(c.GroundSpeed-want.Speed) > 0.05*want.Speed {
					t.Errorf("%s %s: %+v, want %v m/s measured within 5%%", name, c.Name, c, want.Speed)
				}
				t.Logf("%s %s: measured %.4g m/s (table %v) from %s, confidence %.2f", name, c.Name, c.GroundSpeed, want.Speed, c.Method, c.Confidence)
			case c.GroundSpeed != 0:
				t.Errorf("%s %s: %+v: the table plays it in place, want no speed", name, c.Name, c)
			}
		}
	}
}
