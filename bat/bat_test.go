package bat

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/bonebake/bonebake/source/gltf/gltfbake"
	"github.com/bonebake/bonebake/species/creatures"
)

// inputs returns every model in ../shared/testdata/gltf and every built-in
// species, by name.
func inputs(t testing.TB) map[string]*Input {
	t.Helper()
	out := map[string]*Input{}
	models, _ := filepath.Glob("../../shared/testdata/gltf/*.gl*")
	if len(models) == 0 {
		models, _ = filepath.Glob("../testdata/gltf/*.glb")
	}
	for _, p := range models {
		m, err := gltfbake.Load(p, gltfbake.Settings{})
		if err != nil {
			t.Fatal(err)
		}
		in, err := FromModel(m)
		if err != nil {
			t.Fatal(err)
		}
		out[filepath.Base(p)] = in
	}
	for _, s := range creatures.All() {
		in, err := FromSpecies(s)
		if err != nil {
			t.Fatal(err)
		}
		out[s.Name] = in
	}
	return out
}

func diagonal(in *Input) float64 {
	lo, hi := bounds(in.Mesh.Positions, false)
	return hi.Sub(lo).Len()
}

// TestRebuildWithinTolerance is the acceptance of docs/formats/bat.md: the
// raw/EXR rebuild within 1e-4 of the mesh's bounding-box diagonal, ue/png16 within
// 2e-3, and what 8-bit costs, for every test model and built-in species.
func TestRebuildWithinTolerance(t *testing.T) {
	bindRef := AddonDefaults()
	bindRef.Reference = RefBind
	for name, in := range inputs(t) {
		t.Run(name, func(t *testing.T) {
			if testing.Short() && strings.HasPrefix(name, "humanoid_") {
				t.Skip("the humanoid's bones and clips on another body; not with -short")
			}
			d := diagonal(in)
			for _, c := range []struct {
				opt Options
				tol float64 // relative to the diagonal; 0: report only
			}{
				{Options{Preset: Raw, Format: EXR}, 1e-4},
				{Options{Preset: Raw, Format: EXR, Zip: true, ZUp: true, InvertV: true, Padding: 2}, 1e-4},
				{Options{Preset: GameTools, Format: EXR, GameTools: &bindRef}, 1e-4},
				// The add-on's default reference (the first frame, the mesh posed
				// there) rebuilds blended vertices only approximately (§3).
				{Options{Preset: GameTools, Format: EXR}, 0},
				{Options{Preset: UE, Format: PNG16}, 2e-3},
				{Options{Preset: UE, Format: PNG16, ZUp: true, InvertV: true}, 2e-3},
				{Options{Preset: Raw, Format: EXR16}, 0},
				{Options{Preset: UE, Format: PNG8}, 0},
			} {
				if c.tol == 0 && testing.Short() {
					continue // a report, no check: not with -short
				}
				out, err := Write(t.TempDir(), in, c.opt)
				if err != nil {
					t.Fatalf("%+v: %v", c.opt, err)
				}
				e := out.Report.MaxError
				rel := e.Vertex / d
				t.Logf("%-9s %-5s zip=%-5v zup=%-5v: vertex %.3g (%.2g of %.3g diagonal), bone position %.3g",
					c.opt.Preset, c.opt.Format, c.opt.Zip, c.opt.ZUp, e.Vertex, rel, d, e.Position)
				if c.tol > 0 && !(rel <= c.tol) {
					t.Errorf("%+v: worst vertex %.3g is %.3g of the %.3g diagonal, more than %g", c.opt, e.Vertex, rel, d, c.tol)
				}
			}
		})
	}
}
