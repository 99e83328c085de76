package viewer

import (
	"errors"
	"fmt"
	"log"
	"sync"

	"github.com/bonebake/bonebake/crowd/registry"
	"github.com/bonebake/bonebake/crowd/unit"
	"github.com/bonebake/bonebake/roster"
)

// slots are the crowd runtime's view of the server's assets, built once on
// first use: one registry.Registry holding every asset, which the battle's
// Crowd and the parade's Player both play from.
//
//   - An asset that is a built-in species (docs/species.md §1) is in its
//     species' slot, by the runtime's rule (registry.Registry.LoadEach: by
//     name, then species id), with the runtime's intent and clip tables: what
//     crowd/battle plays, and what its units play when a clip is chosen for
//     them;
//   - any other asset (a glTF, FBX or BVH model, a .bpat file of another
//     species, or a second file of one species) is in a slot of the viewer's
//     own (registry.WithSlot, filled only through Into), at its species' level
//     of detail distances: the parade plays its clips by number.
type slots struct {
	once sync.Once
	reg  *registry.Registry
	// slot[k] is asset k's species id in reg, or −1 when reg could not hold it.
	slot []int
	// asset[id] is the asset in reg's slot id, or −1.
	asset [registry.MaxSpeciesID + 1]int
	// notInBattle says, per asset, why a battle cannot use it ("" when it can).
	notInBattle []string
}

func (s *Server) runtime() *slots {
	r := &s.regs
	r.once.Do(func() { r.build(s.assets) })
	return r
}

func (r *slots) build(assets []*Asset) {
	for i := range r.asset {
		r.asset[i] = -1
	}
	r.slot = make([]int, len(assets))
	// A slot of the viewer's own for every asset, in asset order, from the ids
	// no built-in species has, while there are any: an asset the rule puts in
	// its species' slot leaves its own empty.
	own := make([]int, len(assets))
	var (
		opts  []registry.Option
		taken []uint32
	)
	for k, a := range assets {
		id := roster.FirstFreeID(taken...)
		own[k] = -1
		if id > registry.MaxSpeciesID {
			continue
		}
		taken = append(taken, id)
		own[k] = int(id)
		opts = append(opts, registry.WithSlot(unit.SpeciesID(id), fmt.Sprintf("asset%d", k)), registry.WithLOD(unit.SpeciesID(id), lodDistances(a)))
	}
	r.reg = registry.New(append(opts, registry.Lenient())...)

	// The built-in species, where the runtime's rule puts them, if anywhere.
	why := make([]string, len(assets))
	var (
		srcs  []registry.File
		which []int
	)
	for k, a := range assets {
		r.slot[k] = -1
		if a.isModel() {
			why[k] = "not a built-in species"
			continue
		}
		src := a.src
		src.Name = a.Name + ".bpat"
		srcs, which = append(srcs, src), append(which, k)
	}
	placed, errs := r.reg.LoadEach(srcs)
	for j, k := range which {
		switch {
		case placed[j] >= 0:
			r.slot[k] = placed[j]
			logSnapshot(errs[j]) // far units then stay reduced
		case errors.Is(errs[j], registry.ErrUnregistered):
			why[k] = "not a built-in species"
		default:
			why[k] = errs[j].Error()
		}
	}
	r.notInBattle = why

	// Every other asset in its own slot.
	for k, a := range assets {
		if r.slot[k] >= 0 || own[k] < 0 {
			continue
		}
		src := a.src
		src.Name = fmt.Sprintf("asset%d.bpat", k)
		err := r.reg.Load(registry.Memory(src).Into(unit.SpeciesID(own[k])))
		if r.reg.Species(unit.SpeciesID(own[k])) != nil {
			r.slot[k] = own[k]
			logSnapshot(err)
		}
	}
	for k, id := range r.slot {
		if id >= 0 {
			r.asset[id] = k
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

// playable reports whether asset k is in the registry: its units can play.
func (r *slots) playable(k int) bool { return r.slot[k] >= 0 }

// species is asset k's species id in the registry (asset k must be playable).
func (r *slots) species(k int) unit.SpeciesID { return unit.SpeciesID(r.slot[k]) }

// inBattle reports whether asset k is a built-in species the battle can use.
func (r *slots) inBattle(k int) bool { return r.slot[k] >= 0 && r.notInBattle[k] == "" }

// battleSpecies returns the built-in species asset k is, or nil.
func (r *slots) battleSpecies(k int) *registry.Species {
	if !r.inBattle(k) {
		return nil
	}
	return r.reg.Species(r.species(k))
}

// fades returns the fade table of asset k's clip changes, or nil when they all
// take registry.FadeLocomotion: an asset that is no built-in species (see
// registry.Registry.ClipFade).
func (r *slots) fades(k int) *registry.FadeTable {
	sp := r.battleSpecies(k)
	if sp == nil || len(sp.Archetypes) == 0 {
		return nil
	}
	t := r.reg.Fades(sp.ID)
	return &t
}
