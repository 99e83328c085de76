package bat

import (
	"math"
	"strings"
	"testing"
)

// TestUnitScaleRule: the add-on's unit scale is held to the one rule for a
// scale factor (gltf.CheckScale: positive and finite), and the message names
// the setting.
func TestUnitScaleRule(t *testing.T) {
	for _, v := range []float64{0, -1, math.NaN(), math.Inf(1), math.Inf(-1)} {
		g := AddonDefaults()
		g.UnitScale = v
		err := g.check("")
		if err == nil || !strings.HasPrefix(err.Error(), "unit scale ") || !strings.Contains(err.Error(), "positive") {
			t.Errorf("unit scale %v: %v", v, err)
		}
	}
	for _, v := range []float64{1e-9, 1, 100} {
		g := AddonDefaults()
		g.UnitScale = v
		if err := g.check(""); err != nil && strings.Contains(err.Error(), "unit scale") {
			t.Errorf("unit scale %v refused: %v", v, err)
		}
	}
}
