package bat

import (
	"math"
	"testing"

	"github.com/bonebake/bonebake/rig"
)

// ToScene undoes the texture space of every preset: a scene point taken into the
// textures' space and back is itself.
func TestToSceneUndoesTheSpace(t *testing.T) {
	p := rig.Vec3{0.3, 1.7, -0.4}
	for _, opt := range []Options{{Preset: Raw}, {Preset: UE, ZUp: true}, {Preset: GameTools}} {
		if err := opt.Resolve(); err != nil {
			t.Fatal(err)
		}
		sp := newSpace(opt)
		r := &Report{Preset: string(opt.Preset), Up: "y"}
		if opt.ZUp {
			r.Up = "z"
		}
		if g := opt.GameTools; g != nil {
			r.GameTools = &ReportGameTools{UnitScale: g.UnitScale, Invert: [3]bool{g.InvertX, g.InvertY, g.InvertZ}}
		}
		q := sp.point(p)
		m := r.ToScene()
		back := rig.Vec3{m[0]*q[0] + m[1]*q[1] + m[2]*q[2], m[3]*q[0] + m[4]*q[1] + m[5]*q[2], m[6]*q[0] + m[7]*q[1] + m[8]*q[2]}
		if d := back.Sub(p).Len(); d > 1e-12 || (opt.Preset == GameTools && math.Abs(q[2]-170) > 1e-9) {
			t.Errorf("%s: %v → %v → %v", opt.Preset, p, q, back)
		}
	}
}
