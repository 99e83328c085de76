package crowd

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"unsafe"

	"github.com/bonebake/bonebake/crowd/registry"
	"github.com/bonebake/bonebake/crowd/unit"
	"github.com/bonebake/bonebake/roster"
)

// Animate's kernel (assembly on amd64, leaving some units to Go) gives the Go
// pass's bits for every unit: random kinds whose inputs change under them
// (flags, speeds between and beyond the gaits, variants, species and archetypes
// that are not loaded), swings, odd phases, speeds and steps (NaN, infinities,
// signed zeros, negative), fades on and off, lengths that are not whole groups.
func TestAnimateKernelMatchesGo(t *testing.T) {
	defer setWideKernel(true)
	r := testRegistry(t)
	rng := rand.New(rand.NewPCG(1, 2))
	odd := []float32{0, float32(math.Copysign(0, -1)), 1, -1, .5, .99999994, 1.0000001, 3e9, float32(math.Inf(1)), float32(math.NaN())}
	for _, n := range []int{1, 7, 8, 9, 100, 1000, 5000} {
		for _, nofade := range []bool{false, true} {
			a, b := New(n), New(n)
			sa, sb := make([]float32, n), make([]float32, n)
			a.Swing, b.Swing = sa, sb
			a.NoFade, b.NoFade = nofade, nofade
			for i := range n {
				k := unit.Kind(rng.IntN(int(unit.NumKinds)))
				a.Spawn(i, k)
				b.Spawn(i, k)
			}
			for f := range 300 {
				for i := range n {
					if rng.IntN(10) == 0 {
						a.Flags[i] = unit.Flags(rng.IntN(1 << 12))
						a.Speed[i] = []float32{0, 0.01, 0.5, 1.4, 2, 3, 3.8, 5, 8}[rng.IntN(9)]
						if rng.IntN(50) == 0 {
							a.Speed[i] = odd[rng.IntN(len(odd))]
						}
						a.Variant[i] = uint8(rng.IntN(10))
						if rng.IntN(100) == 0 {
							a.Species[i] = unit.SpeciesID(rng.IntN(9))
							a.Archetype[i] = roster.Archetype(rng.IntN(10))
							a.Weapon[i] = unit.Weapon(rng.IntN(4))
						}
					}
					if rng.IntN(5) == 0 {
						sa[i] = -1
						if rng.IntN(2) == 0 {
							sa[i] = rng.Float32()
						}
						if rng.IntN(100) == 0 {
							sa[i] = odd[rng.IntN(len(odd))]
						}
					}
					if rng.IntN(200) == 0 {
						a.Phase[i] = odd[rng.IntN(len(odd))]
						b.Phase[i] = a.Phase[i]
					}
					b.Flags[i], b.Speed[i], b.Variant[i], b.Species[i], b.Archetype[i], b.Weapon[i], sb[i] = a.Flags[i], a.Speed[i], a.Variant[i], a.Species[i], a.Archetype[i], a.Weapon[i], sa[i]
				}
				dt := float32(1.0 / 60)
				if f%50 == 49 {
					dt = []float32{0, 1, -.1, 7}[f/50%4]
				}
				setWideKernel(true)
				ea := a.Animate(r, dt)
				setWideKernel(false)
				eb := b.Animate(r, dt)
				if (ea == nil) != (eb == nil) || (ea != nil && ea.Error() != eb.Error()) {
					t.Fatalf("n %d frame %d: errors %v, Go %v", n, f, ea, eb)
				}
				sameUnits(t, fmt.Sprintf("n %d frame %d", n, f), a, b)
			}
		}
	}
}

// sameUnits fails the test where a Crowd animated by the kernel, a, differs
// from one animated in Go, b: any unit's phase, rate, clip, state, Instance,
// Blend or speed blend, the fade bits, the counts.
func sameUnits(t *testing.T, at string, a, b *Crowd) {
	t.Helper()
	for i := range a.Species {
		if !sameBits(&a.Phase[i], &b.Phase[i]) || !sameBits(&a.Rate[i], &b.Rate[i]) || a.Clip[i] != b.Clip[i] ||
			a.State[i] != b.State[i] || !sameBits(&a.Out[i], &b.Out[i]) || !sameBits(&a.Blend[i], &b.Blend[i]) ||
			!sameBits(&a.fades.gaitW[i], &b.fades.gaitW[i]) || a.fades.gaitClip[i] != b.fades.gaitClip[i] {
			t.Fatalf("%s unit %d: phase %v rate %v clip %v state %v out %+v blend %+v; Go %v %v %v %v %+v %+v",
				at, i, a.Phase[i], a.Rate[i], a.Clip[i], a.State[i], a.Out[i], a.Blend[i],
				b.Phase[i], b.Rate[i], b.Clip[i], b.State[i], b.Out[i], b.Blend[i])
		}
	}
	for w := range a.fades.bits {
		if a.fades.bits[w] != b.fades.bits[w] || a.fades.live[w] != b.fades.live[w] {
			t.Fatalf("%s: fade bits of units %d–%d differ", at, 64*w, 64*w+63)
		}
	}
	if a.Transitions != b.Transitions || a.Fades != b.Fades {
		t.Fatalf("%s: %d transitions, %d fades; Go %d, %d", at, a.Transitions, a.Fades, b.Transitions, b.Fades)
	}
}

// sameBits reports whether *a and *b hold the same bytes (NaNs included).
func sameBits[T any](a, b *T) bool {
	n := unsafe.Sizeof(*a)
	return string(unsafe.Slice((*byte)(unsafe.Pointer(a)), n)) == string(unsafe.Slice((*byte)(unsafe.Pointer(b)), n))
}

// The kernel's memo (animate_amd64.go) changes no bit: the Go pass's units
// and the kernel's agree while the game changes what the memo holds no key
// for. The registry changes under the units (other gaits, species not
// loaded), a frame's halves are animated with two registries, and the next
// frame with one; AnimateParallel; units' clips are changed by Play and Set
// with their inputs unchanged; walking and running units blend their gaits.
func TestAnimateMemo(t *testing.T) {
	defer setWideKernel(true)
	walk := registry.WithGait(unit.SpeciesHumanoid, "walk", roster.Gait{Cycle: 1, Speed: 1.4})
	run := registry.WithGait(unit.SpeciesHumanoid, "run", roster.Gait{Cycle: .7, Speed: 3.8})
	regs := []*registry.Registry{
		testRegistry(t, walk, run),
		testRegistry(t, walk, registry.WithGait(unit.SpeciesHumanoid, "run", roster.Gait{Cycle: .5, Speed: 4.5}), registry.WithGait(unit.SpeciesHumanoid, "idle", roster.Gait{Cycle: .37})),
		testRegistry(t),
	}
	// A registry of the first three species only: the others are not loaded.
	dir := t.TempDir()
	writeSpecies(t, dir, builtinSpecs[:3]...)
	few, err := registry.Open(registry.Dir(dir), walk, run)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { few.Close() })
	regs = append(regs, few)
	rng := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{9, 1000, 8300} {
		a, b := New(n), New(n)
		sa, sb := make([]float32, n), make([]float32, n)
		a.Swing, b.Swing = sa, sb
		for i := range n {
			k := unit.Kind(rng.IntN(int(unit.NumKinds)))
			a.Spawn(i, k)
			b.Spawn(i, k)
			a.Speed[i] = []float32{0, 1.4, 2, 3.8}[rng.IntN(4)]
			b.Speed[i] = a.Speed[i]
		}
		for f := range 200 {
			for i := range n {
				switch rng.IntN(400) {
				case 0:
					a.Flags[i] ^= unit.Running
					a.Speed[i] = []float32{0, 1.4, 2, 3.8}[rng.IntN(4)]
				case 1:
					cl, ph, fade := unit.ClipID(rng.IntN(8)), rng.Float32(), []float32{0, .2}[rng.IntN(2)]
					a.Play(i, cl, ph, 1, fade)
					b.Play(i, cl, ph, 1, fade)
				case 2:
					k := unit.Kind(rng.IntN(int(unit.NumKinds)))
					a.Spawn(i, k)
					b.Spawn(i, k)
				case 3:
					sa[i] = -1
					if rng.IntN(2) == 0 {
						sa[i] = rng.Float32()
					}
				}
				b.Flags[i], b.Speed[i], b.Variant[i], b.Species[i], b.Archetype[i], b.Weapon[i], sb[i] = a.Flags[i], a.Speed[i], a.Variant[i], a.Species[i], a.Archetype[i], a.Weapon[i], sa[i]
			}
			r, other := regs[f/5%len(regs)], regs[(f/5+1)%len(regs)]
			animate := func(c *Crowd) error {
				switch f % 11 {
				case 3: // the halves with two registries
					h := n/2 + 3
					err1 := c.AnimateRange(other, 1.0/60, 0, h)
					err2 := c.AnimateRange(r, 1.0/60, h, n)
					return cmp.Or(err1, err2)
				case 7:
					return c.AnimateParallel(r, 1.0/60, 2)
				}
				return c.Animate(r, 1.0/60)
			}
			setWideKernel(true)
			ea := animate(a)
			setWideKernel(false)
			eb := animate(b)
			if (ea == nil) != (eb == nil) || (ea != nil && ea.Error() != eb.Error()) {
				t.Fatalf("n %d frame %d: errors %v, Go %v", n, f, ea, eb)
			}
			sameUnits(t, fmt.Sprintf("n %d frame %d", n, f), a, b)
		}
	}
}
