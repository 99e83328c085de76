package bake

import (
	"fmt"

	"github.com/bonebake/bonebake/rig"
)

// Size is a model's extent at rest in the space its palettes are baked in (the
// scene's, whose up is +y in glTF), in metres: what a user needs to catch a
// wrong unit or axis before using the bake. A source's adapter measures it
// (the glTF adapter's Model.Size).
type Size struct {
	Lo, Hi rig.Vec3
}

// Extent is the size along x, y and z.
func (s Size) Extent() rig.Vec3 { return s.Hi.Sub(s.Lo) }

// String says the model's height along +y (glTF's up) and its other two sides.
func (s Size) String() string {
	e := s.Extent()
	return fmt.Sprintf("%s m tall along +y (up) × %s m along x × %s m along z", metres(e[1]), metres(e[0]), metres(e[2]))
}

func metres(v float64) string { return fmt.Sprintf("%.3g", v) }

// Hint says what the size suggests is wrong, or "": a creature tens of metres
// tall was most likely modelled in centimetres (or millimetres), one a few
// millimetres tall in other units; one whose height is its smallest side by far
// is likely lying down (made Z-up).
func (s Size) Hint() string {
	e := s.Extent()
	big := max(e[0], e[1], e[2])
	switch {
	case big >= 2000:
		return fmt.Sprintf("%s m across looks like millimetres: --scale 0.001 bakes it in metres", metres(big))
	case big >= 20:
		return fmt.Sprintf("%s m across looks like centimetres: --scale 0.01 bakes it in metres", metres(big))
	case big > 0 && big < 0.02:
		return fmt.Sprintf("%s m across is very small: if the model is in other units, --scale bakes it in metres", metres(big))
	case e[1] < 0.35*max(e[0], e[2]) && e[1] <= min(e[0], e[2]):
		axis := "z"
		if e[0] > e[2] {
			axis = "x"
		}
		return fmt.Sprintf("its longest side lies along %s and it is flat along +y: it may be lying down (a Z-up model); glTF's up is +y", axis)
	}
	return ""
}
