package rig

import (
	"errors"
	"fmt"
)

// BoneError reports a bone that breaks a skeleton rule; New returns it.
type BoneError struct {
	Index int    // the bone's index
	Name  string // the bone's name (may be empty when that is the problem)
	Rule  string // the rule broken, in plain words
}

func (e *BoneError) Error() string {
	return fmt.Sprintf("rig: bone %d %q: %s", e.Index, e.Name, e.Rule)
}

// New checks and builds a skeleton from per-bone names, parent indices and rest
// (local) transforms, copying the slices. It requires at least one bone, slices of
// equal length, non-empty unique names (palettes are looked up by name), every
// parent -1 or the index of an earlier bone, and finite rest transforms. Rule
// violations are reported as *BoneError.
func New(names []string, parents []int, rest []Transform) (*Skeleton, error) {
	if len(names) != len(parents) || len(names) != len(rest) {
		return nil, fmt.Errorf("rig: %d names, %d parents and %d rest transforms: the counts must match",
			len(names), len(parents), len(rest))
	}
	if len(names) == 0 {
		return nil, errors.New("rig: a skeleton needs at least one bone")
	}
	seen := make(map[string]int, len(names))
	for i, name := range names {
		if name == "" {
			return nil, &BoneError{Index: i, Rule: "the name is empty"}
		}
		if j, dup := seen[name]; dup {
			return nil, &BoneError{Index: i, Name: name, Rule: fmt.Sprintf("the name is already used by bone %d", j)}
		}
		seen[name] = i
		if p := parents[i]; p != -1 && (p < 0 || p >= i) {
			return nil, &BoneError{Index: i, Name: name,
				Rule: fmt.Sprintf("parent %d is neither -1 nor an earlier bone (0..%d)", p, i-1)}
		}
		if !rest[i].IsFinite() {
			return nil, &BoneError{Index: i, Name: name, Rule: "the rest transform has a NaN or infinite number"}
		}
	}
	return &Skeleton{
		Names:   append([]string(nil), names...),
		Parents: append([]int(nil), parents...),
		Rest:    append([]Transform(nil), rest...),
	}, nil
}

// Len returns the number of bones.
func (s *Skeleton) Len() int { return len(s.Names) }

// Index returns the index of the bone called name, or -1 if there is none.
func (s *Skeleton) Index(name string) int {
	for i, n := range s.Names {
		if n == name {
			return i
		}
	}
	return -1
}

// ModelSpace turns local bone transforms into model-space matrices:
// out[i] = out[parent(i)] · local[i].Matrix(), and out[i] = local[i].Matrix() for a
// root. local and out must hold at least Len() elements (only the first Len() are
// read and written). It does not allocate; this is the per-frame pass of a baker,
// and it treats every matrix as affine (bottom row 0 0 0 1).
//
// It panics if a parent index is not that of an earlier bone, which New rules out.
func (s *Skeleton) ModelSpace(local []Transform, out []Mat4) {
	n := len(s.Parents)
	if i := modelSpace(s.Parents[:n], local[:n], out[:n]); i >= 0 {
		panic(fmt.Sprintf("rig: bone %d has parent %d, which is not an earlier bone", i, s.Parents[i]))
	}
}

// modelSpaceGo is ModelSpace's pass in Go, over slices of equal length: it
// places bones in order and stops at the first whose parent is not an earlier
// bone, returning its index (-1 when there is none). On amd64 with AVX,
// localsAVX and childrenAVX do the same float64 operations in the same order.
func modelSpaceGo(parents []int, local []Transform, out []Mat4) int {
	local = local[:len(parents)]
	out = out[:len(parents)]
	for i, p := range parents {
		if p < 0 {
			localMatrix(&out[i], &local[i])
			continue
		}
		if p >= i {
			return i
		}
		childMatrix(&out[i], &out[p], &local[i])
	}
	return -1
}

// Chain returns bones and all their ancestors in skeleton order (parents before
// children): what ModelSpaceOf needs to place them.
func (s *Skeleton) Chain(bones []int) []int {
	need := make([]bool, len(s.Parents))
	for _, b := range bones {
		for ; b >= 0 && !need[b]; b = s.Parents[b] {
			need[b] = true
		}
	}
	var out []int
	for i, n := range need {
		if n {
			out = append(out, i)
		}
	}
	return out
}

// ModelSpaceOf is ModelSpace for the bones of chain alone (a Chain: every bone's
// parent before it): out[b] for b in chain, bit for bit what ModelSpace gives.
// A measurement that follows a few bones skips the rest of the skeleton.
func (s *Skeleton) ModelSpaceOf(local []Transform, out []Mat4, chain []int) {
	for _, i := range chain {
		if p := s.Parents[i]; p >= 0 {
			childMatrix(&out[i], &out[p], &local[i])
		} else {
			localMatrix(&out[i], &local[i])
		}
	}
}

// RestModelSpace returns the model-space matrices of the rest pose in a new slice.
func (s *Skeleton) RestModelSpace() []Mat4 {
	out := make([]Mat4, s.Len())
	s.ModelSpace(s.Rest, out)
	return out
}

// RestPose returns a copy of the rest (local) transforms, the usual starting pose
// that an animation sampler then overwrites.
func (s *Skeleton) RestPose() []Transform {
	return append([]Transform(nil), s.Rest...)
}
