// A clip that poses another body than the rest pose's: every threshold in
// terms of H would misjudge it, so nothing in it is measured.

package stride

import (
	"fmt"
	"slices"

	"github.com/bonebake/bonebake/rig"
)

// Resized is how many times further from the root than its bones reach at
// rest and than the body is tall (or, at its furthest, how many times nearer
// than either) a foot must stand for a clip to pose a body of another size
// than the rest pose's. A rigid leg never stands further than it reaches,
// an IK foot never further than a body's height, and a walk, even a crouch,
// stretches a leg over half its reach at some point; Blender's FBX exporter
// writes a character's per-bone actions as takes posing the body at 100
// times its rest's size (docs/formats/gait.md §6).
const Resized = 5

// reach returns, for each foot, the length of the bones between the root and
// it at rest: the furthest the foot can stand from the root in a pose that
// keeps the bones' lengths.
func (r *Rig) reach() []float64 {
	sk := r.Skeleton
	rest := sk.RestModelSpace()
	up := func(b int) []int { // b and its ancestors, b first
		var c []int
		for ; b >= 0; b = sk.Parents[b] {
			c = append(c, b)
		}
		return c
	}
	root := up(r.Root)
	out := make([]float64, len(r.Feet))
	for i, f := range r.Feet {
		for _, b := range up(f) {
			if j := slices.Index(root, b); j >= 0 { // the common ancestor: down to the root
				for _, a := range root[:j] {
					out[i] += rest[a].Translation().Sub(rest[sk.Parents[a]].Translation()).Len()
				}
				break
			}
			if p := sk.Parents[b]; p >= 0 {
				out[i] += rest[b].Translation().Sub(rest[p].Translation()).Len()
			}
		}
	}
	return out
}

// resized says why the clip tracked at pos (root first, then the feet: track's
// order) poses a body of another size than the rest pose's, or "" when it
// poses the rest's.
func (r *Rig) resized(pos [][]rig.Vec3) string {
	if len(r.Feet) == 0 || len(pos) == 0 {
		return ""
	}
	for i, reach := range r.reach() {
		if !(reach > 0) {
			continue
		}
		far := 0.0
		for _, p := range pos {
			far = max(far, p[1+i].Sub(p[0]).Len())
		}
		// A foot the rig moves by its own translation (an IK foot under a
		// root on the ground: the three.js robot's) is bound by the body's
		// size, not by the bones between.
		if far <= Resized*max(reach, r.Height) && far >= min(reach, r.Height)/Resized {
			continue
		}
		return fmt.Sprintf("the clip poses the body at another size than its rest pose: foot %s stands up to %.4g %s from %s, where the bones between them reach %.4g %s at rest and the body is %.4g %s tall, so a speed measured in the rest's lengths would be wrong",
			r.Skeleton.Names[r.Feet[i]], far, r.UnitWord(), r.Skeleton.Names[r.Root], reach, r.UnitWord(), r.Height, r.UnitWord())
	}
	return ""
}
