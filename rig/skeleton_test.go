package rig

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

func TestModelSpaceChain(t *testing.T) {
	// Root at the origin turned 90° about z and scaled 2; bone 1 one unit along its
	// parent's x, turned another 90°; bone 2 one unit along bone 1's x.
	// Bone 1: 2·R90·(1,0,0) = (0,2,0), facing 180°.
	// Bone 2: (0,2,0) + 2·R180·(1,0,0) = (-2,2,0).
	local := []Transform{
		{Rotation: rot90z, Scale: Vec3{2, 2, 2}},
		{Translation: Vec3{1, 0, 0}, Rotation: rot90z, Scale: Vec3{1, 1, 1}},
		{Translation: Vec3{1, 0, 0}, Rotation: IdentityQuat(), Scale: Vec3{1, 1, 1}},
	}
	s, err := New([]string{"root", "mid", "tip"}, []int{-1, 0, 1}, local)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]Mat4, 3)
	s.ModelSpace(local, out)
	vecNear(t, "root", out[0].Translation(), Vec3{0, 0, 0}, eps)
	vecNear(t, "mid", out[1].Translation(), Vec3{0, 2, 0}, eps)
	vecNear(t, "tip", out[2].Translation(), Vec3{-2, 2, 0}, eps)
	matNear(t, "tip matrix", out[2], Mat4{
		-2, 0, 0, -2,
		0, -2, 0, 2,
		0, 0, 2, 0,
		0, 0, 0, 1,
	}, eps)
	rest := s.RestModelSpace()
	matNear(t, "RestModelSpace", rest[2], out[2], 0)

	// Siblings and two roots: each bone only sees its own chain.
	s2, err := New([]string{"a", "b", "c", "d"}, []int{-1, -1, 0, 0}, []Transform{
		{Translation: Vec3{1, 0, 0}, Rotation: IdentityQuat(), Scale: Vec3{1, 1, 1}},
		{Translation: Vec3{0, 5, 0}, Rotation: IdentityQuat(), Scale: Vec3{1, 1, 1}},
		{Translation: Vec3{0, 0, 1}, Rotation: IdentityQuat(), Scale: Vec3{1, 1, 1}},
		{Translation: Vec3{0, 0, -1}, Rotation: rot90z, Scale: Vec3{1, 1, 1}},
	})
	if err != nil {
		t.Fatal(err)
	}
	out = s2.RestModelSpace()
	for i, want := range []Vec3{{1, 0, 0}, {0, 5, 0}, {1, 0, 1}, {1, 0, -1}} {
		vecNear(t, s2.Names[i], out[i].Translation(), want, eps)
	}
}

func randomSkeleton(rng *rand.Rand, n int) *Skeleton {
	names := make([]string, n)
	parents := make([]int, n)
	rest := make([]Transform, n)
	for i := range n {
		names[i] = string(rune('A'+i%26)) + strings.Repeat("x", i/26)
		parents[i] = -1
		if i > 0 {
			parents[i] = rng.IntN(i)
		}
		rest[i] = randTransform(rng)
	}
	s, err := New(names, parents, rest)
	if err != nil {
		panic(err)
	}
	return s
}

func TestModelSpaceMatchesGeneralProduct(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	s := randomSkeleton(rng, 40)
	out := s.RestModelSpace()
	for i := range s.Len() {
		// Walk to the root multiplying general 4×4 matrices.
		want := s.Rest[i].Matrix()
		for p := s.Parents[i]; p >= 0; p = s.Parents[p] {
			want = s.Rest[p].Matrix().Mul(want)
		}
		matNear(t, s.Names[i], out[i], want, 1e-11)
	}
}

func TestModelSpaceNoAllocs(t *testing.T) {
	s := randomSkeleton(rand.New(rand.NewPCG(1, 1)), 20)
	out := make([]Mat4, 20)
	if n := testing.AllocsPerRun(100, func() { s.ModelSpace(s.Rest, out) }); n != 0 {
		t.Errorf("ModelSpace allocates %v times per run", n)
	}
}

func TestModelSpaceBadParentPanics(t *testing.T) {
	s := &Skeleton{Names: []string{"a", "b"}, Parents: []int{1, -1}, Rest: []Transform{IdentityTransform(), IdentityTransform()}}
	defer func() {
		if recover() == nil {
			t.Error("no panic for a parent after its child")
		}
	}()
	s.ModelSpace(s.Rest, make([]Mat4, 2))
}

func TestNewRejects(t *testing.T) {
	id := IdentityTransform()
	nan := id
	nan.Translation[1] = math.NaN()
	infRot, nanScale := id, id
	infRot.Rotation[2] = math.Inf(-1)
	nanScale.Scale[0] = math.NaN()
	tests := []struct {
		name    string
		names   []string
		parents []int
		rest    []Transform
		bone    int // -1: not a BoneError
		words   string
	}{
		{"no bones", nil, nil, nil, -1, "at least one bone"},
		{"length mismatch", []string{"a", "b"}, []int{-1}, []Transform{id, id}, -1, "must match"},
		{"empty name", []string{"a", ""}, []int{-1, 0}, []Transform{id, id}, 1, "empty"},
		{"duplicate", []string{"a", "b", "a"}, []int{-1, 0, 0}, []Transform{id, id, id}, 2, "already used by bone 0"},
		{"self parent", []string{"a", "b"}, []int{-1, 1}, []Transform{id, id}, 1, "parent 1"},
		{"later parent", []string{"a", "b", "c"}, []int{-1, 2, 0}, []Transform{id, id, id}, 1, "parent 2"},
		{"root parent -2", []string{"a"}, []int{-2}, []Transform{id}, 0, "parent -2"},
		{"NaN rest", []string{"a", "b"}, []int{-1, 0}, []Transform{id, nan}, 1, "NaN"},
		{"infinite rotation", []string{"a", "b"}, []int{-1, 0}, []Transform{id, infRot}, 1, "infinite"},
		{"NaN scale", []string{"a"}, []int{-1}, []Transform{nanScale}, 0, "NaN"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := New(tc.names, tc.parents, tc.rest)
			if err == nil {
				t.Fatalf("New accepted it: %+v", s)
			}
			if !strings.Contains(err.Error(), tc.words) {
				t.Errorf("error %q does not say %q", err, tc.words)
			}
			var be *BoneError
			if errors.As(err, &be) != (tc.bone >= 0) {
				t.Fatalf("error %T %v, BoneError wanted: %v", err, err, tc.bone >= 0)
			}
			if be != nil && be.Index != tc.bone {
				t.Errorf("BoneError.Index = %d, want %d", be.Index, tc.bone)
			}
		})
	}
}

func TestNewCopiesAndIndex(t *testing.T) {
	names := []string{"root", "arm"}
	parents := []int{-1, 0}
	rest := []Transform{IdentityTransform(), IdentityTransform()}
	s, err := New(names, parents, rest)
	if err != nil {
		t.Fatal(err)
	}
	names[1], parents[1], rest[1].Translation[0] = "leg", -1, 7
	if s.Names[1] != "arm" || s.Parents[1] != 0 || s.Rest[1].Translation[0] != 0 {
		t.Error("New kept the caller's slices")
	}
	if s.Len() != 2 || s.Index("arm") != 1 || s.Index("root") != 0 || s.Index("leg") != -1 {
		t.Errorf("Len/Index wrong: %d %d %d %d", s.Len(), s.Index("arm"), s.Index("root"), s.Index("leg"))
	}
	pose := s.RestPose()
	pose[0].Translation[0] = 3
	if s.Rest[0].Translation[0] != 0 {
		t.Error("RestPose is not a copy")
	}
}

// humanoid is the 20-bone humanoid of docs/species.md.
var humanoidParents = []int{-1, 0, 1, 2, 3, 4, 3, 6, 7, 8, 3, 10, 11, 12, 1, 14, 15, 1, 17, 18}

func BenchmarkModelSpace20(b *testing.B) {
	rng := rand.New(rand.NewPCG(15, 16))
	names := make([]string, len(humanoidParents))
	rest := make([]Transform, len(humanoidParents))
	for i := range names {
		names[i] = string(rune('a' + i))
		rest[i] = randTransform(rng)
	}
	s, err := New(names, humanoidParents, rest)
	if err != nil {
		b.Fatal(err)
	}
	out := make([]Mat4, s.Len())
	b.ReportAllocs()
	for b.Loop() {
		s.ModelSpace(rest, out)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(s.Len()), "ns/bone")
}

// ModelSpaceOf places exactly the chain of the bones asked for (each bone with
// all its ancestors, parents first), each bit for bit as ModelSpace does, and
// leaves the others alone.
func TestModelSpaceOfChain(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	s := randomSkeleton(rng, 40)
	pose := make([]Transform, s.Len())
	for i := range pose {
		pose[i] = randTransform(rng)
	}
	all := make([]Mat4, s.Len())
	s.ModelSpace(pose, all)
	asked := []int{39, 17, 5}
	chain := s.Chain(asked)
	inChain := map[int]bool{}
	for k, b := range chain {
		if k > 0 && chain[k-1] >= b {
			t.Fatalf("chain %v is not in skeleton order", chain)
		}
		inChain[b] = true
	}
	for _, b := range asked {
		for ; b >= 0; b = s.Parents[b] {
			if !inChain[b] {
				t.Fatalf("chain %v lacks bone %d, an ancestor of a bone asked for", chain, b)
			}
		}
	}
	some := make([]Mat4, s.Len())
	s.ModelSpaceOf(pose, some, chain)
	for i := range some {
		switch {
		case inChain[i] && some[i] != all[i]:
			t.Errorf("bone %d: %v, ModelSpace gives %v", i, some[i], all[i])
		case !inChain[i] && some[i] != (Mat4{}):
			t.Errorf("bone %d outside the chain was written", i)
		}
	}
	if len(chain) >= s.Len() {
		t.Errorf("the chain of 3 bones holds all %d", len(chain))
	}
}
