package main

import (
	"encoding/binary"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bonebake/bonebake/formats"
	"github.com/bonebake/bonebake/formats/bpat"
	"github.com/bonebake/bonebake/species/creatures"
)

// exportBackBound is how far a palette float of a built-in creature exported with
// export-gltf and baked back may differ from the creature's own bake: the glTF
// file holds each key as float32 translation, rotation and scale, which the bake
// composes again; the result is within a few float32 roundings, not bit for bit
// (issue 45 item 8: the help said "the same file"). Measured: 3.0e-6 for the
// humanoids, 6e-7 for the elephant, 3.6e-7 for the horse, in about a third of
// the floats; the help and docs/formats/gltf.md §5 state this bound.
const exportBackBound = 5e-6

func TestExportGLTFBakesBackWithinBound(t *testing.T) {
	dir := t.TempDir()
	if code, so, se := bonebake(t, "bake", "-o", dir); code != 0 {
		t.Fatalf("bake: exit %d: %s%s", code, so, se)
	}
	for _, name := range creatures.Names() {
		glb := filepath.Join(dir, name+".glb")
		back := filepath.Join(dir, name+"_back.bpat")
		if code, so, se := bonebake(t, "export-gltf", name, "-o", glb); code != 0 {
			t.Fatalf("export-gltf %s: exit %d: %s%s", name, code, so, se)
		}
		if code, so, se := bonebake(t, "bake", glb, "-o", back); code != 0 {
			t.Fatalf("bake %s: exit %d: %s%s", glb, code, so, se)
		}
		a, err := bpat.Open(filepath.Join(dir, name+".bpat"))
		if err != nil {
			t.Fatal(err)
		}
		b, err := bpat.Open(back, formats.KnownSpecies(a.Header().SpeciesID))
		if err != nil {
			t.Fatal(err)
		}
		pa, pb := floats(a.PaletteBytes()), floats(b.PaletteBytes())
		if len(pa) != len(pb) || len(a.Clips()) != len(b.Clips()) {
			t.Fatalf("%s: %d floats in %d clips baked back, want %d in %d", name, len(pb), len(b.Clips()), len(pa), len(a.Clips()))
		}
		worst, differ := 0.0, 0
		for i := range pa {
			if d := math.Abs(float64(pa[i] - pb[i])); d > 0 {
				differ++
				worst = max(worst, d)
			}
		}
		t.Logf("%s: %d of %d floats differ, by at most %.3g", name, differ, len(pa), worst)
		if worst > exportBackBound {
			t.Errorf("%s: palettes baked back differ by %.3g, more than %g", name, worst, exportBackBound)
		}
		a.Close()
		b.Close()
	}
}

// floats reads little-endian float32 values (the palette section, bpat.md §4).
func floats(b []byte) []float32 {
	out := make([]float32, len(b)/4)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return out
}

// Both helps that speak of baking an exported creature back state the bound,
// and neither promises the same file (bake --help still did, issue 45 item 8).
func TestExportBackHelpsStateTheBound(t *testing.T) {
	for _, c := range []string{"bake", "export-gltf"} {
		_, so, _ := bonebake(t, c, "--help")
		help := strings.Join(strings.Fields(so), " ")
		if strings.Contains(help, "same file") || !strings.Contains(help, "within 5e-6") {
			t.Errorf("%s --help: want the 5e-6 bound and no 'same file':\n%s", c, so)
		}
	}
}
