package rig

import (
	"math"
	"math/rand/v2"
	"testing"
)

// refModelSpace is ModelSpace written from its definition, one operation per
// step and each product rounded to float64 by an explicit conversion, which the
// Go spec says no compiler may fuse: the reference both the AVX passes and (where
// the compiler fuses nothing: amd64 below v3) modelSpaceGo must equal bit for bit.
func refModelSpace(parents []int, local []Transform, out []Mat4) {
	for i, p := range parents {
		t := &local[i]
		x, y, z, w := t.Rotation[0], t.Rotation[1], t.Rotation[2], t.Rotation[3]
		n := float64(float64(float64(float64(x*x)+float64(y*y))+float64(z*z)) + float64(w*w))
		var s float64
		if d := n - 1; d > -1e-9 && d < 1e-9 {
			s = float64(2 * (1 - d))
		} else if n > 0 {
			s = 2 / n
		}
		xs, ys, zs := float64(x*s), float64(y*s), float64(z*s)
		xx, yy, zz := float64(x*xs), float64(y*ys), float64(z*zs)
		xy, xz, yz := float64(x*ys), float64(x*zs), float64(y*zs)
		wx, wy, wz := float64(w*xs), float64(w*ys), float64(w*zs)
		r := [9]float64{1 - (yy + zz), xy - wz, xz + wy, xy + wz, 1 - (xx + zz), yz - wx, xz - wy, yz + wx, 1 - (xx + yy)}
		var l Mat4
		for row := range 3 {
			for c := range 3 {
				l[row*4+c] = float64(r[row*3+c] * t.Scale[c])
			}
			l[row*4+3] = t.Translation[row]
		}
		l[15] = 1
		if p < 0 {
			out[i] = l
			continue
		}
		a := &out[p]
		var m Mat4
		for row := range 3 {
			for c := range 4 {
				v := float64(float64(float64(a[row*4]*l[c])+float64(a[row*4+1]*l[4+c])) + float64(a[row*4+2]*l[8+c]))
				if c == 3 {
					v += a[row*4+3]
				}
				m[row*4+c] = v
			}
		}
		m[15] = 1
		out[i] = m
	}
}

// sameBits says whether a and b hold the same float64 bits, any NaN matching any
// NaN (which NaN an operation on two NaNs returns depends on operand order,
// which Go leaves to the compiler).
func sameBits(a, b *Mat4) bool {
	for k := range a {
		if math.Float64bits(a[k]) != math.Float64bits(b[k]) && !(math.IsNaN(a[k]) && math.IsNaN(b[k])) {
			return false
		}
	}
	return true
}

// edgeFloats are values a pose's numbers can take at the edges of float64 and of
// rotationScale's fast path (|n−1| < 1e-9).
var edgeFloats = []float64{0, math.Copysign(0, -1), 1, -1, 0.5, 2, 1e-9, -1e-9, 1 + 1e-9, 1 - 1e-9, 1 + 5e-10,
	1e-300, 5e-324, -5e-324, 1e300, -1e300, 1e154, math.MaxFloat64, math.SmallestNonzeroFloat64,
	math.Inf(1), math.Inf(-1), math.NaN(), 0.7071067811865476, 3.4e38, 1e-40}

func edgeOrRandom(rng *rand.Rand) float64 {
	if rng.IntN(3) == 0 {
		return edgeFloats[rng.IntN(len(edgeFloats))]
	}
	return rng.NormFloat64() * math.Pow(10, float64(rng.IntN(7)-3))
}

// modelSpaceCase is a random skeleton of n bones (some roots) and a pose: with
// edge, about a third of the numbers are edge values, and some quaternions sit
// on either side of the fast path's bounds.
func modelSpaceCase(rng *rand.Rand, n int, edge bool) ([]int, []Transform) {
	parents := make([]int, n)
	local := make([]Transform, n)
	for i := range n {
		parents[i] = -1
		if i > 0 && rng.IntN(8) != 0 {
			parents[i] = rng.IntN(i)
		}
		local[i] = randTransform(rng)
		if !edge {
			continue
		}
		t := &local[i]
		switch rng.IntN(4) {
		case 0: // a unit quaternion scaled just inside or outside the fast path
			k := math.Sqrt(1 + []float64{9.99e-10, -9.99e-10, 1.01e-9, -1.01e-9, 1e-9, -1e-9}[rng.IntN(6)])
			for c := range t.Rotation {
				t.Rotation[c] *= k
			}
		case 1:
			for c := range t.Rotation {
				t.Rotation[c] = edgeOrRandom(rng)
			}
		}
		for c := range 3 {
			if rng.IntN(4) == 0 {
				t.Translation[c] = edgeOrRandom(rng)
			}
			if rng.IntN(4) == 0 {
				t.Scale[c] = edgeOrRandom(rng)
			}
		}
	}
	return parents, local
}

// The assembly pass gives the reference's bits for every bone, on random poses
// and on poses full of zeros of both signs, subnormals, huge values, infinities
// and NaNs; so does the Go pass (the two agree), where the compiler fuses no
// multiply-add.
func TestModelSpaceBits(t *testing.T) {
	if !goRoundsEachOp {
		t.Skip("the compiler may fuse multiply-adds here: ModelSpace is the Go pass, whose bits the reference does not pin")
	}
	if !useAVX {
		t.Log("no AVX here: ModelSpace runs modelSpaceGo")
	}
	rng := rand.New(rand.NewPCG(23, 2000))
	for k := range 4000 {
		parents, local := modelSpaceCase(rng, 1+rng.IntN(40), k%2 == 1)
		want := make([]Mat4, len(parents))
		refModelSpace(parents, local, want)
		for name, f := range map[string]func([]int, []Transform, []Mat4) int{"modelSpace": modelSpace, "modelSpaceGo": modelSpaceGo} {
			got := make([]Mat4, len(parents))
			for i := range got {
				got[i] = Mat4{9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9} // every element must be written
			}
			if bad := f(parents, local, got); bad != -1 {
				t.Fatalf("case %d: %s reports bone %d's parent bad in %v", k, name, bad, parents)
			}
			for i := range got {
				if !sameBits(&got[i], &want[i]) {
					t.Fatalf("case %d, %s, bone %d (parent %d) of %+v:\n got  %v\n want %v", k, name, i, parents[i], local[i], got[i], want[i])
				}
			}
		}
	}
}

// A parent that is not an earlier bone stops both passes at that bone, the
// bones before it placed (as the reference places them, where it pins the bits).
func TestModelSpaceBadParent(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	parents, local := modelSpaceCase(rng, 10, false)
	for _, p := range []int{6, 7, 9} {
		parents[6] = p
		want := make([]Mat4, 10)
		refModelSpace(parents[:6], local[:6], want)
		for name, f := range map[string]func([]int, []Transform, []Mat4) int{"modelSpace": modelSpace, "modelSpaceGo": modelSpaceGo} {
			got := make([]Mat4, 10)
			if bad := f(parents, local, got); bad != 6 {
				t.Errorf("%s with bone 6's parent %d: bad = %d, want 6", name, p, bad)
			}
			for i := range got {
				if i < 6 && goRoundsEachOp && !sameBits(&got[i], &want[i]) || i >= 6 && got[i] != (Mat4{}) {
					t.Errorf("%s with bone 6's parent %d: bone %d is %v, want %v", name, p, i, got[i], want[i])
				}
			}
		}
	}
}

// BenchmarkModelSpaceFox is ModelSpace on a 24-bone skeleton shaped like
// Fox.glb's (a chain of 4 from the root, then legs, tail and head), by both passes.
func BenchmarkModelSpaceFox(b *testing.B) {
	parents := []int{-1, 0, 1, 2, 3, 4, 5, 6, 4, 8, 9, 10, 4, 12, 13, 14, 2, 16, 17, 18, 2, 20, 21, 22}
	rng := rand.New(rand.NewPCG(7, 8))
	local := make([]Transform, len(parents))
	for i := range local {
		local[i] = randTransform(rng)
	}
	out := make([]Mat4, len(parents))
	for _, pass := range []struct {
		name string
		f    func([]int, []Transform, []Mat4) int
	}{{"dispatch", modelSpace}, {"go", modelSpaceGo}} {
		b.Run(pass.name, func(b *testing.B) {
			for b.Loop() {
				pass.f(parents, local, out)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(parents)), "ns/bone")
		})
	}
}
