// The rig a measurement reads: a skeleton's feet and root, found by name or by
// shape (NewRig).

package stride

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/bonebake/bonebake/rig"
)

// Rig is a skeleton prepared for measuring: its feet and root found.
type Rig struct {
	Skeleton *rig.Skeleton
	Feet     []int // skeleton bones of the feet, in skeleton order
	// FeetFrom says how the feet were found: "given" (Options.Feet), "name" or
	// "hierarchy"; "" when none were.
	FeetFrom string
	Root     int     // the bone whose travel is root motion
	Height   float64 // H: the rest pose's extent along y
	// Soles, when set, are each foot's sole: points of the mesh that touch
	// the ground, which Plan pins instead of the foot's joint.
	Soles [][]Point
	// Unit names the model's lengths in Result.Reason: "m" when they are
	// known to be metres; "" says "units".
	Unit string
	// OffMesh, when set, says why the joints do not stand in the model's
	// mesh (a foot's sole far from its joint at rest, which the adapter that
	// reads the mesh finds): no clip is measured, each untrusted with it as
	// its Reason, and none is planted.
	OffMesh string
	// Stand is each bone's model-space matrix in the pose the body stands
	// in, where its feet were found: Options.Stand, else the rest pose.
	Stand []rig.Mat4
	// skinned is Options.Skinned: the bones a vertex follows (nil: all).
	skinned []bool
}

// UnitWord is the word Reason texts give lengths in: Unit, or "units"
// when it is not set.
func (r *Rig) UnitWord() string {
	if r.Unit == "" {
		return "units"
	}
	return r.Unit
}

// hIs says what H is where a note gives lengths in H, as people read it
// beside the figures: "H, the skeleton's height at rest (0.607 m)".
func (r *Rig) hIs() string {
	return fmt.Sprintf("H, the skeleton's height at rest (%.3g %s)", r.Height, r.UnitWord())
}

// Options are what a user may say about a rig.
type Options struct {
	Feet     []string // foot bones by name; empty: found by name, then hierarchy
	RootBone string   // the bone whose travel is root motion; empty: see NewRig
	// Stand, when set, is each bone's model-space matrix in the pose the
	// model stands in where its rest pose is another (a file whose rest is
	// a frame of a walk, a foot lifted): feet are found there.
	Stand []rig.Mat4
	// Skinned, when set, says which bones a vertex of the model's mesh
	// follows: a foot found by name or hierarchy is one of them, the most
	// distal of its chain. A bone no vertex follows at a chain's tip marks
	// no point of the body: Blender's FBX exporter adds one to every chain
	// (NAME_end, along the last bone wherever its length puts it: the
	// Fox's under its front paws, 0.05·H below the ground).
	Skinned []bool
}

// footWords are the words a foot bone's name holds, in any case.
var footWords = []string{"foot", "feet", "toe", "hoof", "paw", "ankle", "heel"}

// FootName says whether name holds a foot word, case folded as strings.EqualFold
// folds (the KELVIN SIGN is a k): what the regular expression
// (?i)foot|feet|toe|hoof|paw|ankle|heel matches, without compiling it and
// running its backtracker at start-up (a tenth of a millisecond of a bake).
func FootName(name string) bool {
	for i := range name { // every rune boundary
		for _, w := range footWords {
			end := i
			for range w { // as many runes as w has (all ASCII)
				if end == len(name) {
					end = -1
					break
				}
				_, n := utf8.DecodeRuneInString(name[end:])
				end += n
			}
			if end >= 0 && strings.EqualFold(name[i:end], w) {
				return true
			}
		}
	}
	return false
}

// BoneError is NewRig's refusal of a bone Options names that the skeleton
// lacks: its caller, which knows where the name came from, says which bones
// were meant.
type BoneError struct {
	Role  string   // "foot" or "root bone"
	Name  string   // the name given
	Bones []string // the names of the bones it was looked for among
}

func (e *BoneError) Error() string { return fmt.Sprintf("%s %q: no such bone", e.Role, e.Name) }

// NewRig finds a skeleton's feet and root among bones (skeleton indices: a skin's
// joints; nil means every bone).
//
// Feet: the bones o.Feet names; else the bones whose name says foot, feet, toe,
// hoof, paw, ankle or heel (the most distal of each chain of such bones, of
// those a vertex follows when o.Skinned says which) and that
// lie in the lowest FootZone of the body at rest (o.Stand's pose, when given);
// else, by hierarchy, the leaf bones lying there. Root: the bone o.RootBone names; else the lowest common
// ancestor of the feet (the pelvis of a biped: it carries root motion whether the
// rig puts it on a root bone or on the hips); else the topmost of bones.
func NewRig(sk *rig.Skeleton, bones []int, o Options) (*Rig, error) {
	if bones == nil {
		bones = make([]int, sk.Len())
		for i := range bones {
			bones[i] = i
		}
	}
	in := make([]bool, sk.Len())
	for _, b := range bones {
		in[b] = true
	}
	rest := sk.RestModelSpace()
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, b := range bones {
		y := rest[b][7]
		lo, hi = math.Min(lo, y), math.Max(hi, y)
	}
	r := &Rig{Skeleton: sk, Height: hi - lo, skinned: o.Skinned}
	// body: a bone that may be a foot found by name or hierarchy.
	body := func(b int) bool { return in[b] && r.body(b) }
	if !(r.Height > 0) {
		r.Height = 1
	}
	// Feet are told by where the bones stand: at rest, or in o.Stand's pose.
	stand, slo := rest, lo
	if o.Stand != nil {
		stand, slo = o.Stand, math.Inf(1)
		for _, b := range bones {
			slo = math.Min(slo, stand[b][7])
		}
	}
	r.Stand = stand
	low := func(b int) bool { return stand[b][7] <= slo+FootZone*r.Height }
	// hasDesc[b]: b has a descendant among bones that satisfies pick.
	below := func(pick func(int) bool) []bool {
		has := make([]bool, sk.Len())
		for i := sk.Len() - 1; i >= 0; i-- {
			if p := sk.Parents[i]; p >= 0 && in[i] && (pick(i) || has[i]) {
				has[p] = true
			}
		}
		return has
	}
	switch {
	case len(o.Feet) > 0:
		for _, n := range o.Feet {
			b := sk.Index(n)
			if b < 0 || !in[b] {
				return nil, &BoneError{Role: "foot", Name: n, Bones: names(sk, bones)}
			}
			if !slices.Contains(r.Feet, b) {
				r.Feet = append(r.Feet, b)
			}
		}
		slices.Sort(r.Feet)
		r.FeetFrom = "given"
	default:
		named := func(b int) bool { return body(b) && FootName(sk.Names[b]) }
		desc := below(named)
		for _, b := range bones {
			if named(b) && !desc[b] && low(b) {
				r.Feet = append(r.Feet, b)
			}
		}
		r.FeetFrom = "name"
		if len(r.Feet) > 0 {
			// A quadruped's front feet may go by another name (the Fox's
			// are hands): a leaf on a limb that holds no named foot, standing
			// as low at rest as the named feet do, is a foot too.
			top := math.Inf(-1)
			for _, f := range r.Feet {
				top = math.Max(top, stand[f][7])
			}
			all := below(body)
			for _, b := range bones {
				if !body(b) || all[b] || named(b) || desc[b] || !low(b) || stand[b][7] > top+SameLevel*r.Height {
					continue
				}
				limb := false // an ancestor named a foot: b is a toe's stub
				for p := sk.Parents[b]; p >= 0; p = sk.Parents[p] {
					limb = limb || named(p)
				}
				if !limb {
					r.Feet = append(r.Feet, b)
				}
			}
		}
		if len(r.Feet) == 0 {
			desc := below(body)
			for _, b := range bones {
				if body(b) && !desc[b] && low(b) {
					r.Feet = append(r.Feet, b)
				}
			}
			r.FeetFrom = "hierarchy"
		}
		slices.Sort(r.Feet)
		if len(r.Feet) == 0 {
			r.FeetFrom = ""
		}
	}
	switch {
	case o.RootBone != "":
		r.Root = sk.Index(o.RootBone)
		if r.Root < 0 {
			return nil, &BoneError{Role: "root bone", Name: o.RootBone, Bones: names(sk, bones)}
		}
	case len(r.Feet) >= 2:
		r.Root = r.Feet[0]
		for _, f := range r.Feet[1:] {
			r.Root = ancestor(sk, r.Root, f)
		}
	default:
		r.Root = slices.Min(bones)
		for r.Root >= 0 && sk.Parents[r.Root] >= 0 && in[sk.Parents[r.Root]] {
			r.Root = sk.Parents[r.Root]
		}
	}
	if r.Root < 0 {
		r.Root = 0
	}
	return r, nil
}

// ancestor returns the lowest common ancestor of a and b (a or b itself when one
// holds the other), or the first of them when they share none.
func ancestor(sk *rig.Skeleton, a, b int) int {
	seen := map[int]bool{}
	for x := a; x >= 0; x = sk.Parents[x] {
		seen[x] = true
	}
	for x := b; x >= 0; x = sk.Parents[x] {
		if seen[x] {
			return x
		}
	}
	return a
}

// names returns the names of bones.
func names(sk *rig.Skeleton, bones []int) []string {
	n := make([]string, len(bones))
	for i, b := range bones {
		n[i] = sk.Names[b]
	}
	return n
}

// body says whether bone b is of the body: a vertex follows it, or the rig
// knows of no mesh.
func (r *Rig) body(b int) bool { return r.skinned == nil || r.skinned[b] }

// FootNames returns the names of the rig's feet.
func (r *Rig) FootNames() []string {
	var n []string
	for _, f := range r.Feet {
		n = append(n, r.Skeleton.Names[f])
	}
	return n
}
