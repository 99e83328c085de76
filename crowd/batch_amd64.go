package crowd

import (
	"unsafe"

	"github.com/bonebake/bonebake/crowd/registry"
	"github.com/bonebake/bonebake/crowd/unit"
	"golang.org/x/sys/cpu"
)

// useAVX2 says whether step runs the AVX2 kernel (eight units at a time) before
// the SSE2 one; tests turn it off to check both.
var useAVX2 = cpu.X86.HasAVX2

// step runs the AVX2 kernel over whole groups of eight units where the machine
// has it, the SSE2 kernel over whole groups of four, and the Go kernel over the
// rest: the same bits from each.
func step(entries []clipEntry, species []unit.SpeciesID, clips []unit.ClipID, phase, rate []float32, out []Instance, dt float32) {
	n := len(species)
	clips, phase, rate, out = clips[:n], phase[:n], rate[:n], out[:n]
	t := 0
	if g := n / 8; g > 0 && useAVX2 {
		step8(&entries[0], len(entries)-1, &species[0], &clips[0], &phase[0], &rate[0], &out[0], g, dt)
		t = 8 * g
	}
	if g := (n - t) / 4; g > 0 {
		step4(&entries[0], len(entries)-1, &species[t], &clips[t], &phase[t], &rate[t], &out[t], g, dt)
		t += 4 * g
	}
	stepUnits(entries, species[t:], clips[t:], phase[t:], rate[t:], out[t:], dt)
}

// putRows is putRowsGo with the AVX2 kernel over whole groups of eight units
// where the machine has it: the same bits.
func putRows(entries []clipEntry, species []unit.SpeciesID, clips []unit.ClipID, phase []float32, out []Instance) {
	n := len(species)
	clips, phase, out = clips[:n], phase[:n], out[:n]
	t := 0
	if g := n / 8; g > 0 && useAVX2 {
		rows8(&entries[0], len(entries)-1, &species[0], &clips[0], &phase[0], &out[0], g, useFMA)
		t = 8 * g
	}
	putRowsGo(entries, species[t:], clips[t:], phase[t:], out[t:])
}

// useFMA says whether rows8 may resolve in float32 with fused multiply-adds
// (the same bits, for the phases Animate leaves; tests turn it off to check
// the float64 path too).
var useFMA = cpu.X86.HasFMA

// rows8 is putRowsGo for groups×8 units, eight at a time, with AVX2
// (batch_amd64.s); with fma, groups of phases in [0, 1] in float32 with fused
// multiply-adds.
//
//go:noescape
func rows8(entries *clipEntry, empty int, species *unit.SpeciesID, clips *unit.ClipID, phase *float32, out *Instance, groups int, fma bool)

// step8 is step4 for groups×8 units, eight at a time, with AVX2
// (batch_amd64.s).
//
//go:noescape
func step8(entries *clipEntry, empty int, species *unit.SpeciesID, clips *unit.ClipID, phase, rate *float32, out *Instance, groups int, dt float32)

// step4 is stepUnits for groups×4 units, four at a time (batch_amd64.s). empty is
// the index of the last entry.
//
//go:noescape
func step4(entries *clipEntry, empty int, species *unit.SpeciesID, clips *unit.ClipID, phase, rate *float32, out *Instance, groups int, dt float32)

// stepLOD is stepUnitsLOD: the AVX2 kernel with the level pass folded in over
// whole groups of eight where the machine has it, the SSE2 one over whole groups
// of four, the Go one over the rest. It returns how many units
// changed distance band.
func stepLOD(entries []clipEntry, snaps []snapEntry, bands *[registry.MaxSpeciesID + 1]lodBands, species []unit.SpeciesID, clips []unit.ClipID,
	phase, rate []float32, out []Instance, dist []float32, band, level []Level, dt float32) uint64 {
	n := len(species)
	clips, phase, rate, out, dist, band, level = clips[:n], phase[:n], rate[:n], out[:n], dist[:n], band[:n], level[:n]
	snaps = snaps[:len(entries)] // the same index: the kernel finds both with one
	var switches uint64
	t := 0
	if g := n / 8; g > 0 && useAVX2 {
		switches = uint64(step8lod(&entries[0], len(entries)-1, &species[0], &clips[0], &phase[0], &rate[0], &out[0], g, dt,
			&snaps[0], &bands[0], &dist[0], &band[0], &level[0]))
		t = 8 * g
	}
	if g := (n - t) / 4; g > 0 {
		switches += uint64(step4lod(&entries[0], len(entries)-1, &species[t], &clips[t], &phase[t], &rate[t], &out[t], g, dt,
			&snaps[0], &bands[0], &dist[t], &band[t], &level[t]))
		t += 4 * g
	}
	return switches + stepUnitsLOD(entries, snaps, bands, species[t:], clips[t:], phase[t:], rate[t:], out[t:], dist[t:], band[t:], level[t:], dt)
}

// step8lod is step4lod for groups×8 units, eight at a time, with AVX2
// (batch_amd64.s).
//
//go:noescape
func step8lod(entries *clipEntry, empty int, species *unit.SpeciesID, clips *unit.ClipID, phase, rate *float32, out *Instance, groups int, dt float32,
	snaps *snapEntry, bands *lodBands, dist *float32, band, level *Level) int

// step4lod is stepUnitsLOD for groups×4 units, four at a time (batch_amd64.s):
// step4's pass, then the level of each unit chosen and its rows floored in the
// same registers. It returns how many units changed distance band.
//
//go:noescape
func step4lod(entries *clipEntry, empty int, species *unit.SpeciesID, clips *unit.ClipID, phase, rate *float32, out *Instance, groups int, dt float32,
	snaps *snapEntry, bands *lodBands, dist *float32, band, level *Level) int

// prefetch asks for the cache lines of the elements idx[k] (k < n) of an array
// at base whose elements are 1<<shift bytes, without waiting for them
// (PREFETCHT0): what follows runs while they come.
//
//go:noescape
func prefetch(base unsafe.Pointer, shift uint, idx *int32, n int)

// prefetchLines asks for the cache lines at p's four addresses (PREFETCHT0)
// without waiting for them.
//
//go:noescape
func prefetchLines(p *[4]unsafe.Pointer)
