package crowd

import (
	"fmt"
	"math"
	"math/bits"
	"sync/atomic"

	"github.com/bonebake/bonebake/crowd/registry"
	"github.com/bonebake/bonebake/crowd/unit"
)

// Level is how much detail a unit is drawn with (docs/runtime.md §6.4).
type Level uint8

const (
	// LevelFull: palette skinning with four influences and the frame lerp.
	LevelFull Level = iota
	// LevelReduced: the one or two heaviest influences, renormalized, and the
	// floor frame (Instance.Lerp 0, Next = Frame).
	LevelReduced
	// LevelSnapshot: the species' snapshot mesh (.bpsm) at the floor frame, no
	// skinning: Instance.Frame and Next are frames of the snapshot file.
	LevelSnapshot
	NumLevels
)

var levelNames = [NumLevels]string{"full", "reduced", "snapshot"}

func (l Level) String() string {
	if l < NumLevels {
		return levelNames[l]
	}
	return fmt.Sprintf("Level(%d)", uint8(l))
}

// snapEntry maps a clip's phase to the frames of its species' snapshot mesh, by
// bpat.md §5.2 with the snapshot's own frame count; ok is 0 for a clip that must
// not be drawn from it: a clip some archetype plays as Die (the game's archetype
// tables keep deaths off their snapshots), which shows LevelReduced; all ones
// for one that may. It is 16 bytes, read by the assembly kernel as one vector.
type snapEntry struct {
	scale  float32
	offset uint32
	last   int32
	ok     uint32
}

// frame is the snapshot frame (a row of the snapshot file) phase ph falls on:
// its floor frame, a snapshot not being blended.
func (se *snapEntry) frame(ph float32) uint32 {
	return se.offset + uint32(min(int32(float64(ph)*float64(se.scale)), se.last))
}

// lodBands holds each species' boundaries, widened and narrowed by the
// hysteresis: a unit goes farther past up[l] and nearer below down[l].
type lodBands struct {
	up, down [2]float32
}

// next is the band of a unit in band cur at distance d. The band a unit goes out
// to is the level of the widened boundaries, the one it comes back to that of the
// narrowed ones (never nearer): it stays in its band unless the distance leaves
// both. The sign bit of t − d is d > t, without a branch (distances are in no
// order). stepUnitsLOD's assembly (step4lod) computes the same.
func (bb *lodBands) next(cur Level, d float32) Level {
	up := Level(math.Float32bits(bb.up[0]-d)>>31 + math.Float32bits(bb.up[1]-d)>>31)
	down := Level(math.Float32bits(bb.down[0]-d)>>31 + math.Float32bits(bb.down[1]-d)>>31)
	return min(max(cur, up), down)
}

// chooseLevels runs the level-of-detail pass over units [lo, hi) after their
// phases, Instances and Blends are written: each unit's distance band moves with
// hysteresis, and a unit at a far level shows its floor frame (of its snapshot
// mesh at LevelSnapshot, where its clip has one and it shows that clip alone;
// else LevelReduced, its Blend floored likewise). With LODEvery k > 1 a far unit's
// rows are those of the last of every k frames it was given (by unit, LODFrame
// + i ≡ 0 mod k): its phase still follows time. It returns how many units changed
// distance band.
func (b *Batch) chooseLevels(cat *catalog, lo, hi int, dt float32) uint64 {
	dist, level, band := b.Distance[lo:hi], b.Level[lo:hi], b.lodBand[lo:hi]
	species, clips, phase, out := b.Species[lo:hi], b.Clip[lo:hi], b.Phase[lo:hi], b.Out[lo:hi]
	n := hi - lo
	_, _, _, _, _, _, _ = dist[n-1:], level[n-1:], band[n-1:], species[n-1:], clips[n-1:], phase[n-1:], out[n-1:]
	var blend []Blend
	if b.Blend != nil {
		blend = b.Blend[lo:hi:hi]
	}
	bands, rows := &cat.lod, cat.snapRows
	every := b.LODEvery > 1
	var switches uint64
	for i := range n {
		d := dist[i]
		s := species[i]
		bd := bands[s].next(band[i], d)
		if bd != band[i] {
			switches++
		}
		band[i] = bd
		lv := bd
		switch {
		case bd == LevelFull:
		case every:
			lv = b.far(cat, lo+i, bd, dt)
		default:
			alone := true
			if blend != nil {
				alone = !blended(&blend[i])
				floorBlend(&blend[i])
			}
			lv = farRows(&out[i], alone, &rows[entryKey(len(rows), s, clips[i])], bd, phase[i])
		}
		level[i] = lv
	}
	return switches
}

// levelsInKernel reports whether Step chooses levels in the batch kernel's own
// pass (stepLOD): every frame's rows (LODEvery ≤ 1). With LODEvery > 1 the level
// pass runs after the kernel (chooseLevels), as Animate's does.
func (b *Batch) levelsInKernel() bool { return b.lodOn() && b.LODEvery <= 1 }

// stepUnitsLOD is the batch kernel with the level of detail chosen in the same
// pass, in Go: the whole of it on machines without an assembly one, and the
// reference that the assembly (step4lod) matches bit for bit. Each unit is
// stepped as stepUnits steps it; then its distance band moves with hysteresis
// (the sign bit of t − d is d > t, without a branch: distances are in no order),
// and a unit in a far band shows its floor frame: of its snapshot mesh in the
// snapshot band where its clip has one, else of its clip (LevelReduced). It
// does not look at fades: a unit that fades or blends gaits is brought back from
// LevelSnapshot to LevelReduced afterwards (Batch.unblendLevels), once the fade
// pass has written its Blend. snaps is laid out as entries (catalog.snapRows).
// It returns how many units changed distance band.
func stepUnitsLOD(entries []clipEntry, snaps []snapEntry, bands *[registry.MaxSpeciesID + 1]lodBands, species []unit.SpeciesID, clips []unit.ClipID,
	phase, rate []float32, out []Instance, dist []float32, band, level []Level, dt float32) uint64 {
	stepUnits(entries, species, clips, phase, rate, out, dt)
	n := len(species)
	clips, phase, out, dist, band, level = clips[:n], phase[:n], out[:n], dist[:n], band[:n], level[:n]
	snaps = snaps[:len(entries)]
	var switches uint64
	for i, s := range species {
		bd := bands[s].next(band[i], dist[i])
		if bd != band[i] {
			switches++
		}
		band[i] = bd
		lv := bd
		if bd != LevelFull {
			lv = farRows(&out[i], true, &snaps[entryKey(len(snaps), s, clips[i])], bd, phase[i])
		}
		level[i] = lv
	}
	return switches
}

// unblendLevels finishes the levels stepLOD chose for units [lo, hi), once the
// fade pass has written their Blends: a unit in a far band that fades or blends
// gaits shows LevelReduced (its own rows floored, not its snapshot frame) and its
// Blend's rows floored too, as chooseLevels has it. Only the units the fade pass
// visits can blend; a batch without fades (no NewBatch) is scanned whole.
func (b *Batch) unblendLevels(cat *catalog, lo, hi int) {
	visit := func(i int) {
		if b.lodBand[i] == LevelFull || !blended(&b.Blend[i]) {
			return
		}
		if b.Level[i] == LevelSnapshot {
			b.Level[i] = LevelReduced
			cl := b.Clip[i]
			k := entryKey(len(cat.entries), b.Species[i], cl)
			o := &b.Out[i]
			cat.entries[k].put(o, b.Phase[i])
			o.Next, o.Lerp = o.Frame, 0
		}
		floorBlend(&b.Blend[i])
	}
	if b.fades.unit == nil {
		for i := lo; i < hi; i++ {
			visit(i)
		}
		return
	}
	for w := lo >> 6; w<<6 < hi; w++ {
		for word := atomic.LoadUint64(&b.fades.bits[w]); word != 0; word &= word - 1 {
			if i := w<<6 | bits.TrailingZeros64(word); i >= lo && i < hi {
				visit(i)
			}
		}
	}
}

// blended reports whether a Blend shows more than the unit's own clip: a unit
// that fades or blends gaits stays at LevelReduced in the snapshot band, where
// its palette rows can be blended, so that its pose does not jump.
func blended(bl *Blend) bool { return bl.Weight != 0 || bl.PriorWeight != 0 }

// floorBlend floors a reduced unit's Blend: its rows' floor frames.
func floorBlend(bl *Blend) {
	if blended(bl) {
		bl.Next, bl.Lerp, bl.PriorNext, bl.PriorLerp = bl.Frame, 0, bl.PriorFrame, 0
	}
}

// far gives unit i, in distance band bd (reduced or snapshot), the rows of its
// level when LODEvery > 1 and returns the level (farRows).
func (b *Batch) far(cat *catalog, i int, bd Level, dt float32) Level {
	o := &b.Out[i]
	k := entryKey(len(cat.snapRows), b.Species[i], b.Clip[i])
	ph := b.Phase[i]
	if back := (b.LODFrame + uint32(i)) % uint32(b.LODEvery); back != 0 {
		// The frame this unit was last given, every k-th: its phase then.
		ph -= float32(b.Rate[i] * dt * float32(back))
		if ph < 0 {
			ph = settle(ph, cat.entries[k].loops())
		}
		cat.entries[k].put(o, ph)
	}
	alone := true
	if b.Blend != nil {
		alone = !blended(&b.Blend[i])
		floorBlend(&b.Blend[i])
	}
	return farRows(o, alone, &cat.snapRows[k], bd, ph)
}

// entryKey is the index of species s's clip cl in a table of n entries laid out
// as the catalog's entries and snapRows are: the empty entry, the last, for a
// species not loaded or a clip out of range.
func entryKey(n int, s unit.SpeciesID, cl unit.ClipID) uint {
	k := uint(s)<<clipShift | uint(cl)
	if cl >= registry.MaxClips || k >= uint(n) {
		k = uint(n) - 1
	}
	return k
}

// farRows gives a unit in far band bd (reduced or snapshot) whose clip has
// snapshot entry se, at phase ph, the rows of its level, and returns the level:
// at LevelSnapshot its snapshot mesh's floor frame, where the band is the
// snapshot's, its clip has frames there and it shows that clip alone (no fade
// or speed blend, whose Blend the caller floors); else LevelReduced, its own
// rows floored.
func farRows(o *Instance, alone bool, se *snapEntry, bd Level, ph float32) Level {
	lv := LevelReduced
	if bd == LevelSnapshot && se.ok != 0 && alone {
		o.Frame = se.frame(ph)
		lv = LevelSnapshot
	}
	o.Next, o.Lerp = o.Frame, 0
	return lv
}

// lodOn reports whether the batch chooses levels: it has distances for its units.
func (b *Batch) lodOn() bool { return b.Distance != nil }

// checkLOD checks the level-of-detail slices' lengths and allocates the band
// memory on first use.
func (b *Batch) checkLOD() error {
	n := len(b.Species)
	if len(b.Distance) != n || len(b.Level) != n {
		return fmt.Errorf("crowd: %d distances and %d levels for %d units", len(b.Distance), len(b.Level), n)
	}
	if len(b.lodBand) != n {
		return fmt.Errorf("crowd: Distance set by hand: switch level of detail on with EnableLOD")
	}
	return nil
}

// EnableLOD switches level of detail on: it allocates Distance (every unit at 0 m:
// full detail) and Level. The game then writes each unit's distance from the
// camera into Distance before Step or Animate, which choose its Level in the same
// pass (docs/runtime.md §6.4).
func (b *Batch) EnableLOD() {
	n := len(b.Species)
	b.Distance, b.Level, b.lodBand = make([]float32, n), make([]Level, n), make([]Level, n)
}

func (b *Batch) countSwitches(n uint64) {
	if n > 0 {
		atomic.AddUint64(&b.LODSwitches, n)
	}
}
