package bat

import (
	"bytes"
	"math"
	"testing"
)

// TestCentimetres: Options.Centimetres writes the raw and ue presets' positions
// in centimetres, Unreal's unit: every decoded position texel is 100 times the
// metres bake's, the report says "cm" (and "m" without it), the mesh stays in
// metres (glTF's unit, which Unreal's importer turns into centimetres), and
// the verification from the files still finds the rebuild exact, in metres.
func TestCentimetres(t *testing.T) {
	in := synthetic(t, 8, 24, 90)
	for _, base := range []Options{{Preset: UE, ZUp: true}, {Preset: Raw}} {
		m, err := Write(t.TempDir(), in, base)
		if err != nil {
			t.Fatal(err)
		}
		opt := base
		opt.Centimetres = true
		cm, err := Write(t.TempDir(), in, opt)
		if err != nil {
			t.Fatal(err)
		}
		rm, rc := m.Report, cm.Report
		if rm.Units != UnitsM || rc.Units != UnitsCM {
			t.Errorf("%s: units %q and %q, want %q and %q", base.Preset, rm.Units, rc.Units, UnitsM, UnitsCM)
		}
		texels := func(o *Output) []float64 {
			r := o.Report
			tx, err := DecodeTexture(r.Position.File, o.File(r.Position.File), r.Position.Encoding, 3)
			if err != nil {
				t.Fatal(err)
			}
			v := make([]float64, len(tx.Data))
			for i, c := range tx.Data {
				v[i] = float64(c)*r.Position.Range[i%3] + r.Position.Offset[i%3]
			}
			return v
		}
		vm, vc := texels(m), texels(cm)
		if len(vm) != len(vc) || len(vm) == 0 {
			t.Fatalf("%s: %d and %d position values", base.Preset, len(vm), len(vc))
		}
		worst := 0.0
		for i := range vm {
			// One code of a 16-bit channel, or float32's precision.
			tol := 1e-5*math.Abs(vc[i]) + 1e-6
			if rc.Position.Encoding == Unorm16 {
				tol = 1.5 * rc.Position.Range[i%3] / 65535
			}
			if d := math.Abs(vc[i] - 100*vm[i]); d > tol {
				worst = max(worst, d)
				if worst == d {
					t.Errorf("%s: position value %d is %g in cm, %g in m: want 100 times", base.Preset, i, vc[i], vm[i])
				}
			}
		}
		if !bytes.Equal(m.File(rm.Mesh), cm.File(rc.Mesh)) {
			t.Errorf("%s: the mesh differs: want it in metres either way", base.Preset)
		}
		if tol := 2e-3 * diagonal(in); rc.MaxError.Vertex > tol || rc.MaxError.Vertex > rm.MaxError.Vertex+1e-4*diagonal(in) {
			t.Errorf("%s: worst vertex %g m in centimetres, %g m in metres", base.Preset, rc.MaxError.Vertex, rm.MaxError.Vertex)
		}
	}
	if err := (&Options{Preset: GameTools, Centimetres: true}).Resolve(); err == nil {
		t.Error("gametools with Centimetres: want an error naming --unit-scale")
	}
}
