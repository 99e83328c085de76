// The texels a shader cannot use (docs/formats/bat.md §4): NaN or infinite
// values and rotations off unit length, refused with a TexelError.

package bat

import (
	"fmt"
	"math"

	"github.com/bonebake/bonebake/rig"
)

// Texel rules: what a texel the verification refuses broke.
const (
	RuleTexelFloat     = "texel-float"     // a stored value is NaN or infinite
	RuleRotationLength = "rotation-length" // a quaternion or axis is not unit length within the encoding's precision
	RuleSkinIndex      = "skin-index"      // a skin texel's bone index is not a column
)

// TexelError is a texel a shader would read garbage from: the texture, the
// texel (x = column, y = row of the image as stored), the rule and the value.
type TexelError struct {
	File   string
	X, Y   int
	Rule   string
	Detail string // what holds the texel (layout row and column, or vertex) and its values
}

func (e *TexelError) Error() string {
	return fmt.Sprintf("%s: texel (x %d, y %d): %s: %s", e.File, e.X, e.Y, e.Rule, e.Detail)
}

// checkTexels refuses a position or rotation texel of the table (every row,
// padding included, every column) that a shader cannot use: a value that
// decodes to NaN or ±Inf, or a rotation whose quaternion (or axis-angle axis)
// is not unit length within rotationTolerance. Normalizing such a texel, as
// decodeRotation does, would turn NaN or zero into the identity and 0.5 into a
// rotation a shader that does not normalize never draws. A table that does not
// fit its textures is left to rebuild, which says so.
func checkTexels(r *Report, pos, rot *Texture) error {
	g, err := newGrid(r.Rows, r.Bones, r.InvertV)
	if err != nil || g.w != pos.Width || g.h != pos.Height || g.w != rot.Width || g.h != rot.Height ||
		pos.Channels != 3 || rot.Channels != 4 || len(r.Position.Range) < 3 || len(r.Rotation.Range) < 4 ||
		len(r.Position.Offset) < 3 || len(r.Rotation.Offset) < 4 {
		return nil
	}
	tol := rotationTolerance(r.Rotation)
	n := 4
	if r.Rotation.Mode == AxisAngle {
		n = 3
	}
	for row := range r.Rows {
		for b := range r.Bones {
			at := g.texel(row, b)
			where := func(f string, t *Texture, ti TextureInfo, rule, what, why string) error {
				v := make([]float64, t.Channels)
				for c := range v {
					v[c] = float64(t.Data[at*t.Channels+c])*ti.Range[c] + ti.Offset[c]
				}
				return &TexelError{File: f, X: at % g.w, Y: at / g.w, Rule: rule,
					Detail: fmt.Sprintf("row %d column %d: %s %v (stored %v) %s", row, b, what, v, t.Data[at*t.Channels:(at+1)*t.Channels], why)}
			}
			for c := range 3 {
				v := float64(pos.Data[at*3+c])*r.Position.Range[c] + r.Position.Offset[c]
				if math.IsNaN(v) || math.IsInf(v, 0) {
					return where(r.Position.File, pos, r.Position, RuleTexelFloat, "position", "is not finite")
				}
			}
			var l2 float64
			for c := range 4 {
				v := float64(rot.Data[at*4+c])*r.Rotation.Range[c] + r.Rotation.Offset[c]
				if math.IsNaN(v) || math.IsInf(v, 0) {
					return where(r.Rotation.File, rot, r.Rotation, RuleTexelFloat, "rotation", "is not finite")
				}
				if c < n {
					l2 += v * v
				}
			}
			if l := math.Sqrt(l2); !(math.Abs(l-1) <= tol) {
				what := "quaternion"
				if n == 3 {
					what = "axis-angle (the axis)"
				}
				return where(r.Rotation.File, rot, r.Rotation, RuleRotationLength, what,
					fmt.Sprintf("has length %.6g, not 1 within %.3g (%s)", l, tol, r.Rotation.Encoding))
			}
		}
	}
	return nil
}

// rotationTolerance is how far from 1 the length of a unit quaternion (or
// axis) can be once stored in ti's encoding and decoded (§4): each channel's
// value c·range + offset is off by at most range·δ, δ being half a unorm step
// (1/(2·65535), 1/(2·255)) or a half-ulp of a float32 or float16 of |c| ≤ 1
// (2⁻²⁴, 2⁻¹¹), so the length is off by at most √Σ(range·δ)². Twice that
// leaves room for the rounding of the bake's own arithmetic; unorm8 with
// range 2 allows 0.014 for an axis, float32 2.4e-7 for a quaternion. NaN,
// zero or a length of 0.5 are far outside any of them.
func rotationTolerance(ti TextureInfo) float64 {
	var d float64
	switch ti.Encoding {
	case Unorm8:
		d = 1.0 / (2 * 255)
	case Unorm16:
		d = 1.0 / (2 * 65535)
	case Float16:
		d = 0x1p-11
	default:
		d = 0x1p-24
	}
	n := 4
	if ti.Mode == AxisAngle {
		n = 3
	}
	var s float64
	for c := range n {
		s += (ti.Range[c] * d) * (ti.Range[c] * d)
	}
	return 2 * math.Sqrt(s)
}

// decodeRotation turns a decoded rotation texel into a quaternion (checkTexels
// has refused one that is not unit length).
func decodeRotation(ti TextureInfo, v [4]float64) rig.Quat {
	if ti.Mode == AxisAngle {
		return rig.QuatFromAxisAngle(rig.Vec3{v[0], v[1], v[2]}.Normalize(), v[3]/angleScale(ti.AngleUnit))
	}
	return rig.Quat(v).Normalize()
}
