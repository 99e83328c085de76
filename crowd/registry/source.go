package registry

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"

	"github.com/bonebake/bonebake/crowd/unit"
	"github.com/bonebake/bonebake/formats/bpat"
	"github.com/bonebake/bonebake/formats/bpsm"
	"github.com/bonebake/bonebake/formats/gait"
	"github.com/bonebake/bonebake/internal/regfile"
	"github.com/bonebake/bonebake/roster"
)

// ErrUnregistered is in the error of a file that finds no registered species:
// neither its name nor its species_id names one (docs/runtime.md §7).
var ErrUnregistered = errors.New("not registered")

// MatchSpecies is the rule by which a species file finds its species
// (docs/runtime.md §7): among list, the first whose name is the file's stem
// (its base name without extension), else the first whose id is the file's
// species_id. key gives an entry's name and id. named says the stem found it: a
// registry then loads the file only if it carries that species' id.
func MatchSpecies[S any](file string, id uint32, list []S, key func(S) (string, uint32)) (s S, named, ok bool) {
	stem := strings.TrimSuffix(filepath.Base(file), filepath.Ext(file))
	for _, e := range list {
		if n, _ := key(e); n == stem {
			return e, true, true
		}
	}
	for _, e := range list {
		if _, i := key(e); i == id {
			return e, false, true
		}
	}
	return s, false, false
}

// Match returns the registered species a file called file carrying species_id id
// belongs to, by MatchSpecies (WithSlot's slots, which only Into fills, are not
// among them).
func (r *Registry) Match(file string, id uint32) (def roster.Species, named, ok bool) {
	ids := make([]uint32, 0, len(r.cfg.defs))
	for i := range r.cfg.defs {
		if !r.cfg.intoOnly[i] {
			ids = append(ids, i)
		}
	}
	slices.Sort(ids)
	i, named, ok := MatchSpecies(file, id, ids, func(i uint32) (string, uint32) { return r.cfg.defs[i].Name, i })
	if !ok {
		return roster.Species{}, false, false
	}
	return r.cfg.defs[i], named, true
}

// WithSlot registers slot id for Into: a species called name whose units may
// play the tables of archetypes (none: a program plays its clips by number
// only), with no gait table of its own (its files' sidecars give gaits). It is
// the program's own slot: only Into loads a file into it, never the rule of
// Load and LoadEach (a file's name or species_id), so that a program can hold
// files in slots of its own beside those the rule fills in the same registry
// (the viewer: the built-in species where the rule puts them, any other file
// in a slot it gives).
func WithSlot(id unit.SpeciesID, name string, archetypes ...roster.Archetype) Option {
	def := WithSpecies(roster.Species{ID: uint32(id), Name: name, Archetypes: slices.Clone(archetypes)})
	return func(c *config) {
		def(c)
		c.intoOnly[uint32(id)] = true
	}
}

// Registered returns the species registered with id: a built-in one or one
// given by WithSpecies.
func (r *Registry) Registered(id uint32) (roster.Species, bool) {
	d, ok := r.cfg.defs[id]
	return d, ok
}

// File is a species file held in memory with what may lie beside it: what
// Memory and LoadEach take, for a program that holds files of its own (a viewer,
// an editor) rather than a folder.
type File struct {
	// Name plays the part of the file's name: messages give it, and its stem may
	// name a species.
	Name string
	// Data is the BPAT file's bytes. The registry keeps them and reads them in
	// place: they must not change afterwards.
	Data []byte
	// Gaits is its gait sidecar (docs/formats/gait.md), nil when it has none.
	Gaits *gait.File
	// Snapshot is its snapshot mesh (docs/formats/bpsm.md), nil when it has none.
	Snapshot []byte
}

// ReadBeside fills in src's gait sidecar and snapshot mesh from beside the
// species file at path (NAME.gait.json and NAME_minimal.bpsm, where Load
// finds them), where there are. f is the file src holds, the snapshot mesh must
// fit it (FitSnapshot). One that cannot be read or does not fit is left out, and
// gaitErr or snapErr says why.
func (src *File) ReadBeside(path string, f *bpat.File) (gaitErr, snapErr error) {
	if src.Gaits, gaitErr = gait.OpenFor(path); gaitErr != nil {
		src.Gaits = nil
	}
	p := snapshotBeside(path)
	b, err := regfile.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return gaitErr, nil
	}
	if err == nil {
		_, err = FitSnapshot(b, f)
	}
	if err != nil {
		return gaitErr, fmt.Errorf("%s: %w", p, err)
	}
	src.Snapshot = b
	return gaitErr, nil
}

// FitSnapshot parses a snapshot mesh and checks that it is of species file f, as
// a registry does when it attaches one (AttachSnapshot): it carries f's species_id
// and f's clips, by name and in order.
func FitSnapshot(data []byte, f *bpat.File) (*bpsm.File, error) {
	sf, err := bpsm.Parse(data)
	if err != nil {
		return nil, err
	}
	if err := snapshotFits(sf, f); err != nil {
		return nil, err
	}
	return sf, nil
}

// LoadEach loads each file into the slot its name or species_id gives it, by
// the rule of Load, and attaches its snapshot mesh. Unlike Load it loads what
// it can: slots[k] is the slot file k took, and errs[k] says why it was
// refused (slots[k] is then −1). Sources named after a species go
// first (by their names alone: one that carries another species' id is
// refused), so that humanoid.bpat keeps the humanoid's slot from another file
// with its id. An error wraps ErrUnregistered when no registered species fits the
// source.
func (r *Registry) LoadEach(srcs []File) (slots []int, errs []error) {
	slots, errs = make([]int, len(srcs)), make([]error, len(srcs))
	order := make([]int, 0, len(srcs))
	for pass := range 2 {
		for k, src := range srcs {
			if _, named, _ := r.Match(src.Name, noID); named == (pass == 0) {
				order = append(order, k)
			}
		}
	}
	for _, k := range order {
		slots[k] = -1
		src := srcs[k]
		added, err := r.load([]string{src.Name}, [][]byte{src.Data}, []sidecar{src.sidecar()}, -1)
		if errs[k] = err; err != nil {
			continue
		}
		slots[k] = int(added[0].ID)
		errs[k] = r.attachFile(added[0].ID, src)
	}
	return slots, errs
}

// noID is a species_id no species is registered with (ids are at most
// MaxSpeciesID): Match then goes by the name alone.
const noID = 1 << 31

func (src *File) sidecar() sidecar {
	if src.Gaits == nil {
		return sidecar{}
	}
	return sidecar{path: gait.SidecarPath(src.Name), file: src.Gaits}
}

// attachFile attaches src's snapshot mesh, if any, to slot id.
func (r *Registry) attachFile(id unit.SpeciesID, src File) error {
	if src.Snapshot == nil {
		return nil
	}
	return r.AttachSnapshot(id, snapshotBeside(src.Name), src.Snapshot)
}

// State returns the state clip c stands for in the table: the first state whose
// own clips (its variants, not Idle's standing in for an unmapped state) include
// c; Idle and false when none does.
func (t *ClipTable) State(c unit.ClipID) (unit.StateID, bool) {
	for s := unit.StateID(0); s < unit.NumStates; s++ {
		if !t.mapped[s] {
			continue
		}
		for v := range t.count[s] {
			if t.clips[s][v] == c {
				return s, true
			}
		}
	}
	return unit.StateIdle, false
}

// ClipState returns the state clip c of the species stands for: its State in the
// first of the species' archetype tables (in the order of Archetypes) that maps
// it; Idle and false when none does (no archetype plays it).
func (s *Species) ClipState(c unit.ClipID) (unit.StateID, bool) {
	if int(c) < len(s.states) && s.states[c] != noState {
		return s.states[c], true
	}
	return unit.StateIdle, false
}

const noState = unit.StateID(0xff)

func (s *Species) clipStates() []unit.StateID {
	st := make([]unit.StateID, len(s.File.Clips()))
	for c := range st {
		st[c] = noState
		for _, a := range s.Archetypes {
			if x, ok := s.tables[a].State(unit.ClipID(c)); ok {
				st[c] = x
				break
			}
		}
	}
	return st
}

// ClipFade is how long a unit of species s fades when a program changes its clip
// by number (Batch.Play) from clip from to clip to (docs/runtime.md §6.1): the
// species' fade table (Fades) for the states the clips stand for
// (Species.ClipState, Idle for a clip no archetype plays), or FadeLocomotion for
// a species with no archetype table. 0 when either is not one of its clips (a
// unit at NoClip shows nothing to fade from) or the species is not loaded.
func (r *Registry) ClipFade(s unit.SpeciesID, from, to unit.ClipID) float32 {
	sp := r.Species(s)
	if sp == nil || int(from) >= len(sp.states) || int(to) >= len(sp.states) {
		return 0
	}
	if len(sp.Archetypes) == 0 {
		return FadeLocomotion
	}
	a, _ := sp.ClipState(from)
	b, _ := sp.ClipState(to)
	return r.fadeTable(s)[a][b]
}

// RiderClips maps each clip of a horse species to the clip a rider species
// plays on it: the rider's ArchRider table's clip (variant 0) for the state the
// horse's clip stands for in its ArchHorse table (Idle when none). A rider so
// follows a horse played clip by clip, as a parade or a preview plays it. Nil
// when the horse has no ArchHorse table or the rider no ArchRider table.
func RiderClips(horse, rider *Species) []unit.ClipID {
	if horse == nil || rider == nil {
		return nil
	}
	ht, rt := horse.Table(unit.ArchHorse), rider.Table(unit.ArchRider)
	if ht == nil || rt == nil {
		return nil
	}
	out := make([]unit.ClipID, len(horse.Clips))
	for c := range out {
		st, _ := ht.State(unit.ClipID(c))
		out[c] = rt.Clip(st, 0)
	}
	return out
}
