package viewer

import (
	"encoding/binary"
	"fmt"
	"log"
	"sync"

	"github.com/bonebake/bonebake/crowd"
	"github.com/bonebake/bonebake/roster"
)

// registries are the crowd runtime's view of the server's assets, built once on
// first use:
//
//   - battle holds the assets that are built-in species (docs/species.md §1), each
//     in its species' slot: what crowd/battle plays, with the runtime's intent and
//     clip tables;
//   - play holds every asset, asset k in slot k (its bytes' species_id set to k),
//     with no archetypes: the slots crowd.Batch plays clips from by number.
type registries struct {
	once   sync.Once
	battle *crowd.Registry
	// battleAsset[id] is the asset loaded in battle's slot id, or -1.
	battleAsset [crowd.MaxSpeciesID + 1]int
	// notInBattle names the assets a battle cannot use, with why.
	notInBattle []string
	play        *crowd.Registry
	// playable[k] says asset k is in play's slot k.
	playable []bool
}

// maxPlayable is the number of assets the playback registry can hold: a unit
// names its slot with one byte.
const maxPlayable = crowd.MaxSpeciesID + 1

func (s *Server) runtime() *registries {
	r := &s.regs
	r.once.Do(func() { r.build(s.assets) })
	return r
}

func (r *registries) build(assets []*Asset) {
	for i := range r.battleAsset {
		r.battleAsset[i] = -1
	}
	// Battle: an asset by a species' name first, then by its species id.
	r.battle = crowd.NewRegistry(crowd.Lenient())
	why := map[int]string{}
	claim := func(k int, a *Asset, def roster.Species) {
		if r.battleAsset[def.ID] >= 0 {
			return
		}
		if err := r.battle.LoadBytesGaits(def.Name+".bpat", a.data, a.gaits); err != nil {
			why[k] = err.Error()
			return
		}
		r.battleAsset[def.ID] = k
		if a.snapshot != nil {
			// Far units drawn from it (lod.go); setSnapshot checked that it fits.
			logSnapshot(r.battle.LoadSnapshot(crowd.SpeciesID(def.ID), def.Name+"_minimal.bpsm", a.snapshotBytes(def.ID)))
		}
	}
	for k, a := range assets {
		if def, ok := roster.ByName(a.Name); ok && a.Kind != KindGLTF && a.file.Header().SpeciesID == def.ID {
			claim(k, a, def)
		}
	}
	for k, a := range assets {
		if def, ok := roster.ByID(a.file.Header().SpeciesID); ok && a.Kind != KindGLTF && !r.inBattle(k) && why[k] == "" {
			claim(k, a, def)
		}
	}
	for k, a := range assets {
		if !r.inBattle(k) {
			if why[k] == "" {
				why[k] = "not a built-in species"
			}
			r.notInBattle = append(r.notInBattle, fmt.Sprintf("%s (%s)", a.Name, why[k]))
		}
	}

	// Playback: every asset in a slot of its own, at its species' level-of-detail
	// distances; a built-in species' with its archetypes, so that the clips they
	// play as Die stay off its snapshot mesh as in the battle (docs/runtime.md §6.4).
	var opts []crowd.Option
	for k := range min(len(assets), maxPlayable) {
		def := roster.Species{ID: uint32(k), Name: fmt.Sprintf("asset%d", k)}
		if sp := r.battleSpecies(k); sp != nil {
			def.Archetypes = sp.Archetypes
		}
		opts = append(opts, crowd.WithSpecies(def), crowd.WithLOD(crowd.SpeciesID(k), lodDistances(assets[k])))
	}
	r.play = crowd.NewRegistry(append(opts, crowd.Lenient())...)
	r.playable = make([]bool, len(assets))
	for k, a := range assets {
		if k >= maxPlayable || len(a.data) < 12 {
			continue
		}
		b := append([]byte(nil), a.data...)
		binary.LittleEndian.PutUint32(b[8:12], uint32(k)) // the species_id field (docs/formats/bpat.md §2)
		r.playable[k] = r.play.LoadBytesGaits(fmt.Sprintf("asset%d.bpat", k), b, a.gaits) == nil
		if r.playable[k] && a.snapshot != nil {
			logSnapshot(r.play.LoadSnapshot(crowd.SpeciesID(k), fmt.Sprintf("asset%d_minimal.bpsm", k), a.snapshotBytes(uint32(k))))
		}
	}
}

// logSnapshot logs a snapshot mesh the runtime refused: its units then stay
// at the reduced level when far.
func logSnapshot(err error) {
	if err != nil {
		log.Printf("bonebake view: %v", err)
	}
}

// inBattle reports whether asset k is loaded in the battle registry.
func (r *registries) inBattle(k int) bool {
	for _, a := range r.battleAsset {
		if a == k {
			return true
		}
	}
	return false
}

// battleSpecies returns the battle registry's species that asset k is, or nil.
func (r *registries) battleSpecies(k int) *crowd.Species {
	for id, a := range r.battleAsset {
		if a == k {
			return r.battle.Species(crowd.SpeciesID(id))
		}
	}
	return nil
}

// riderClips maps each clip of a horse asset to the clip its rider plays: the
// horse's clip stands for the first state the horse archetype's table maps to it
// (Idle when none does), and the rider archetype's table gives that state's clip.
// Nil when either species lacks its table.
func riderClips(horse, rider *crowd.Species) []crowd.ClipID {
	if horse == nil || rider == nil {
		return nil
	}
	ht, rt := horse.Table(roster.Horse), rider.Table(roster.Rider)
	if ht == nil || rt == nil {
		return nil
	}
	out := make([]crowd.ClipID, len(horse.Clips))
	for c := range out {
		st := crowd.StateIdle
		for s := crowd.StateID(0); s < crowd.NumStates; s++ {
			if ht.Mapped(s) && int(ht.Clip(s, 0)) == c {
				st = s
				break
			}
		}
		out[c] = rt.Clip(st, 0)
	}
	return out
}

// fades returns the fade table of asset k's battle species and the state each of
// its clips stands for: the first state (over its archetypes in order, then
// states and variants) whose table picks the clip, Idle when none does. Nil, nil
// for an asset that is no built-in species.
func (r *registries) fades(k int) (*crowd.FadeTable, []crowd.StateID) {
	sp := r.battleSpecies(k)
	if sp == nil {
		return nil, nil
	}
	states := make([]crowd.StateID, len(sp.Clips))
	seen := make([]bool, len(sp.Clips))
	for _, a := range sp.Archetypes {
		t := sp.Table(a)
		if t == nil {
			continue
		}
		for s := crowd.StateID(0); s < crowd.NumStates; s++ {
			for v := range t.Variants(s) {
				if c := int(t.Clip(s, uint8(v))); t.Mapped(s) && c < len(states) && !seen[c] {
					states[c], seen[c] = s, true
				}
			}
		}
	}
	ft := r.battle.Fades(sp.ID)
	return &ft, states
}
