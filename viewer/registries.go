package viewer

import (
	"errors"
	"fmt"
	"log"
	"sync"

	"github.com/bonebake/bonebake/crowd/registry"
	"github.com/bonebake/bonebake/crowd/unit"
)

// registries are the crowd runtime's view of the server's assets, built once on
// first use:
//
//   - battle holds the assets that are built-in species (docs/species.md §1), each
//     in its species' slot by the runtime's rule (registry.Registry.LoadEach: by name,
//     then species id): what crowd/battle plays, with the runtime's intent and
//     clip tables;
//   - play holds every asset, asset k in slot k (registry.Memory(file).Into(k)), with its
//     battle species' archetypes: the slots crowd.Batch plays clips from by number.
type registries struct {
	once   sync.Once
	battle *registry.Registry
	// battleAsset[id] is the asset loaded in battle's slot id, or -1.
	battleAsset [registry.MaxSpeciesID + 1]int
	// notInBattle says, per asset, why a battle cannot use it ("" when it can).
	notInBattle []string
	play        *registry.Registry
	// playable[k] says asset k is in play's slot k.
	playable []bool
}

// maxPlayable is the number of assets the playback registry can hold: a unit
// names its slot with one byte.
const maxPlayable = registry.MaxSpeciesID + 1

func (s *Server) runtime() *registries {
	r := &s.regs
	r.once.Do(func() { r.build(s.assets) })
	return r
}

func (r *registries) build(assets []*Asset) {
	for i := range r.battleAsset {
		r.battleAsset[i] = -1
	}
	// Battle: the assets that are not glTF models, each where the runtime's rule
	// puts it, if anywhere.
	r.battle = registry.New(registry.Lenient())
	why := make([]string, len(assets))
	var (
		srcs  []registry.File
		which []int
	)
	for k, a := range assets {
		if a.isModel() {
			why[k] = "not a built-in species"
			continue
		}
		src := a.src
		src.Name = a.Name + ".bpat"
		srcs, which = append(srcs, src), append(which, k)
	}
	slots, errs := r.battle.LoadEach(srcs)
	for j, k := range which {
		switch {
		case slots[j] >= 0:
			r.battleAsset[slots[j]] = k
			logSnapshot(errs[j]) // far units then stay reduced
		case errors.Is(errs[j], registry.ErrUnregistered):
			why[k] = "not a built-in species"
		default:
			why[k] = errs[j].Error()
		}
	}
	r.notInBattle = why

	// Playback: every asset in a slot of its own, at its species' level-of-detail
	// distances; a built-in species' with its archetypes, so that the clips they
	// play as Die stay off its snapshot mesh as in the battle (docs/runtime.md §6.4),
	// and its clip changes fade by its states (registry.Registry.ClipFade).
	var opts []registry.Option
	for k := range min(len(assets), maxPlayable) {
		name := fmt.Sprintf("asset%d", k)
		if sp := r.battleSpecies(k); sp != nil {
			opts = append(opts, registry.WithSlot(unit.SpeciesID(k), name, sp.Archetypes...))
		} else {
			opts = append(opts, registry.WithSlot(unit.SpeciesID(k), name))
		}
		opts = append(opts, registry.WithLOD(unit.SpeciesID(k), lodDistances(assets[k])))
	}
	r.play = registry.New(append(opts, registry.Lenient())...)
	r.playable = make([]bool, len(assets))
	for k, a := range assets {
		if k >= maxPlayable {
			continue
		}
		src := a.src
		src.Name = fmt.Sprintf("asset%d.bpat", k)
		err := r.play.Load(registry.Memory(src).Into(unit.SpeciesID(k)))
		r.playable[k] = r.play.Species(unit.SpeciesID(k)) != nil
		if r.playable[k] {
			logSnapshot(err)
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
func (r *registries) battleSpecies(k int) *registry.Species {
	for id, a := range r.battleAsset {
		if a == k {
			return r.battle.Species(unit.SpeciesID(id))
		}
	}
	return nil
}

// fades returns the fade table of asset k's clip changes, or nil when they all
// take registry.FadeLocomotion: an asset that is no built-in species (see
// registry.Registry.ClipFade).
func (r *registries) fades(k int) *registry.FadeTable {
	if k >= maxPlayable {
		return nil
	}
	sp := r.play.Species(unit.SpeciesID(k))
	if sp == nil || len(sp.Archetypes) == 0 {
		return nil
	}
	t := r.play.Fades(sp.ID)
	return &t
}
