//go:build !amd64

package crowd

import (
	"unsafe"

	"github.com/bonebake/bonebake/crowd/registry"
	"github.com/bonebake/bonebake/crowd/unit"
)

func step(entries []clipEntry, species []unit.SpeciesID, clips []unit.ClipID, phase, rate []float32, out []Instance, dt float32) {
	stepUnits(entries, species, clips, phase, rate, out, dt)
}

func putRows(entries []clipEntry, species []unit.SpeciesID, clips []unit.ClipID, phase []float32, out []Instance) {
	putRowsGo(entries, species, clips, phase, out)
}

func stepLOD(entries []clipEntry, snaps []snapEntry, bands *[registry.MaxSpeciesID + 1]lodBands, species []unit.SpeciesID, clips []unit.ClipID,
	phase, rate []float32, out []Instance, dist []float32, band, level []Level, dt float32) uint64 {
	return stepUnitsLOD(entries, snaps, bands, species, clips, phase, rate, out, dist, band, level, dt)
}

// prefetch does nothing here: the loads it would start early happen when they
// are needed.
func prefetch(base unsafe.Pointer, shift uint, idx *int32, n int) {}

// prefetchLines does nothing here, as prefetch.
func prefetchLines(p *[4]unsafe.Pointer) {}
