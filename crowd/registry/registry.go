package registry

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/bonebake/bonebake/crowd/unit"
	"github.com/bonebake/bonebake/formats"
	"github.com/bonebake/bonebake/formats/bpat"
	"github.com/bonebake/bonebake/formats/gait"
	"github.com/bonebake/bonebake/internal/regfile"
	"github.com/bonebake/bonebake/roster"
)

// MaxSpeciesID is the largest species id a registry holds: units name their species
// with one byte. It is roster.MaxID, the one limit bake and validate apply too.
const MaxSpeciesID = roster.MaxID

// MaxClips is the most clips a species file may have for the registry to load it:
// the hot loops find a clip at a fixed stride (the built-in species have 6 to 25).
const MaxClips = 1 << clipShift

const clipShift = 8

// MaxClipFrames is the most frames a clip may have for the registry to load it: up
// to 2²⁴ a frame count is exact in float32, which the playback kernel computes in.
const MaxClipFrames = 1 << 24

// Registry holds the loaded species, one slot per species id. Files are mapped
// read-only and validated when loaded; a file is refused, with its path and the
// reason, when it fails validation, when its species_id differs from the slot its
// name gives it, or when an archetype of its species names a clip it lacks.
//
// Its methods are safe for concurrent use: readers (Species, Crowd.Animate,
// Batch.Step, socket sampling) never wait for one another, and a load publishes its
// species all at once. Close unmaps every file; the *Species and bpat.File values
// must not be read after it (their methods then return ErrClosed).
type Registry struct {
	mu     sync.Mutex // serializes loads and Close
	live   sync.RWMutex
	closed bool
	cfg    config
	view   atomic.Pointer[View]
}

// Option configures a registry.
type Option func(*config)

type config struct {
	defs       map[uint32]roster.Species
	intoOnly   map[uint32]bool // WithSlot's slots: loaded only through Into
	archetypes [MaxArchetypes]*Archetype
	gaits      map[uint32]map[string]roster.Gait
	fades      [MaxSpeciesID + 1]*FadeTable    // nil: DefaultFades
	lod        [MaxSpeciesID + 1]*LODDistances // nil: DefaultLOD
	lenient    bool
}

// WithSpecies registers a species slot beyond (or instead of) the built-in ones: a
// file named <def.Name>.bpat, or any file whose species_id is def.ID, loads into it.
// def.ID must be at most MaxSpeciesID.
func WithSpecies(def roster.Species) Option {
	return func(c *config) { c.defs[def.ID] = def; delete(c.intoOnly, def.ID) }
}

// WithArchetype registers (or replaces) the table of archetype id.
func WithArchetype(id roster.Archetype, a Archetype) Option {
	return func(c *config) {
		if int(id) < MaxArchetypes {
			a = clone(a)
			c.archetypes[id] = &a
		}
	}
}

// WithGait overrides the gait of one clip of one species: for example the cycle
// and ground speed a built-in species' data gives (species.Clip.Cycle and .GroundSpeed).
func WithGait(species unit.SpeciesID, clip string, g roster.Gait) Option {
	return func(c *config) {
		id := uint32(species)
		if c.gaits[id] == nil {
			c.gaits[id] = map[string]roster.Gait{}
		}
		c.gaits[id][clip] = g
	}
}

// WithFades sets the cross-fade times of one species' state changes (DefaultFades
// for the others). A time that does not fade (0, negative, NaN, infinite, or
// too short to invert) switches at once, and the table keeps 0 for it.
func WithFades(species unit.SpeciesID, t FadeTable) Option {
	for i := range t {
		for j, d := range t[i] {
			if !IsFade(d) {
				t[i][j] = 0
			}
		}
	}
	return func(c *config) { c.fades[species] = &t }
}

// Fades returns the cross-fade times a species' units use.
func (r *Registry) Fades(species unit.SpeciesID) FadeTable { return *r.fadeTable(species) }

func (r *Registry) fadeTable(species unit.SpeciesID) *FadeTable {
	if t := r.cfg.fades[species]; t != nil {
		return t
	}
	return &defaultFades
}

// Lenient accepts files the game's own reader accepts (bpat.Lenient).
func Lenient() Option { return func(c *config) { c.lenient = true } }

// New returns an empty registry that knows the built-in species and
// archetypes, adjusted by opts: Load loads species files into it.
func New(opts ...Option) *Registry {
	r := &Registry{cfg: config{defs: map[uint32]roster.Species{}, intoOnly: map[uint32]bool{}, gaits: map[uint32]map[string]roster.Gait{}}}
	for _, d := range roster.Builtin() {
		r.cfg.defs[d.ID] = d
	}
	for id := roster.Archetype(0); id < roster.NumArchetypes; id++ {
		a, _ := BuiltinArchetype(id)
		r.cfg.archetypes[id] = &a
	}
	for _, o := range opts {
		o(&r.cfg)
	}
	r.view.Store(&View{})
	return r
}

// Open returns a registry with opts holding the species files of src: New,
// then Load.
func Open(src Source, opts ...Option) (*Registry, error) {
	r := New(opts...)
	if err := r.Load(src); err != nil {
		r.Close()
		return nil, err
	}
	return r, nil
}

// Source is where a registry's species files come from (Load): a folder (Dir),
// a folder of an fs.FS (FS), files on disk (Files), or files a program holds
// in memory (Memory). Into loads them all into one slot.
type Source struct {
	dir   string   // Dir and FS: the folder
	fsys  fs.FS    // FS
	paths []string // Files
	files []File   // Memory
	mem   bool
	slot  int // Into's slot, or −1
}

// Dir is every *.bpat file of folder path (not its subfolders), with the gait
// sidecar (NAME.gait.json) and snapshot mesh (NAME_minimal.bpsm) beside each,
// where there are: the folder 'bonebake bake' writes.
func Dir(path string) Source { return Source{dir: path, slot: -1} }

// FS is Dir for folder dir of fsys (an embed.FS, os.DirFS, a zip reader...;
// "." is its root). The files are read into memory, which the registry keeps.
func FS(fsys fs.FS, dir string) Source { return Source{fsys: fsys, dir: dir, slot: -1} }

// Files is species files on disk, each with what lies beside it (as Dir).
func Files(paths ...string) Source { return Source{paths: paths, slot: -1} }

// Memory is species files a program holds (for example one baked a moment
// ago), each with the sidecar and snapshot mesh it gives. The registry keeps
// their bytes and reads them in place: they must not change afterwards.
func Memory(files ...File) Source { return Source{files: files, mem: true, slot: -1} }

// Into loads every file of src into slot id, whatever species_id it carries: a
// program that shows files of any species, two of one species included, gives
// each a slot of its own. The slot must be registered (a built-in one, or
// WithSpecies; WithSlot registers one), and its species' archetypes and gaits
// apply; a file's snapshot mesh must still carry the file's species_id.
func (src Source) Into(id unit.SpeciesID) Source {
	src.slot = int(id)
	return src
}

// Load loads the species files of src, all or nothing: when any file is
// refused, none is loaded and the error names every refused file. A file named
// after a species (humanoid.bpat, horse.bpat, ...; see roster.Species.Name)
// loads into that species' slot and must carry its id; any other file loads
// into the slot of the species_id it carries (or Into's slot).
//
// A file's gait sidecar, when there is one, gives its clips' cycles and ground
// speeds ahead of the built-in table (see Clip.GaitSource); a sidecar that fails
// its checks, or names a clip the file lacks, refuses the file. Its snapshot
// mesh is attached once the files are loaded; one that cannot be read or does
// not fit its file is reported, the files staying loaded.
func (r *Registry) Load(src Source) error {
	switch {
	case src.mem:
		names, data, sides := make([]string, len(src.files)), make([][]byte, len(src.files)), make([]sidecar, len(src.files))
		for k, f := range src.files {
			names[k], data[k], sides[k] = f.Name, f.Data, f.sidecar()
		}
		added, err := r.load(names, data, sides, src.slot)
		if err != nil {
			return err
		}
		var errs []error
		for k, s := range added {
			errs = append(errs, r.attachFile(s.ID, src.files[k]))
		}
		return errors.Join(errs...)
	case src.fsys != nil:
		return r.loadFS(src.fsys, src.dir, src.slot)
	case src.paths != nil:
		added, err := r.load(src.paths, nil, nil, src.slot)
		if err != nil {
			return err
		}
		return r.loadSnapshotsBeside(added, nil)
	}
	ents, err := os.ReadDir(src.dir)
	if err != nil {
		return fmt.Errorf("crowd: %w", err)
	}
	var paths []string
	for _, e := range ents {
		if !e.IsDir() && strings.EqualFold(filepath.Ext(e.Name()), ".bpat") {
			paths = append(paths, filepath.Join(src.dir, e.Name()))
		}
	}
	if len(paths) == 0 {
		return fmt.Errorf("crowd: %s holds no .bpat files", src.dir)
	}
	added, err := r.load(paths, nil, nil, src.slot)
	if err != nil {
		return err
	}
	return r.loadSnapshotsBeside(added, nil)
}

// loadFS is Load of folder dir of fsys.
func (r *Registry) loadFS(fsys fs.FS, dir string, slot int) error {
	ents, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return fmt.Errorf("crowd: %w", err)
	}
	var (
		names []string
		data  [][]byte
		sides []sidecar
	)
	for _, e := range ents {
		if e.IsDir() || !strings.EqualFold(path.Ext(e.Name()), ".bpat") {
			continue
		}
		name := path.Join(dir, e.Name())
		b, err := readFS(fsys, name)
		if err != nil {
			return fmt.Errorf("crowd: %w", err)
		}
		side := sidecar{path: gait.SidecarPath(name)}
		sb, err := readFS(fsys, side.path)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			side.path = ""
		case err != nil:
			return fmt.Errorf("crowd: %w", err)
		case len(sb) > gait.MaxSize:
			side.err = fmt.Errorf("%s: more than %d bytes: not a gait sidecar", side.path, gait.MaxSize)
		default:
			if side.file, side.err = gait.Parse(sb); side.err != nil {
				side.err = fmt.Errorf("%s: %w", side.path, side.err)
			}
		}
		names, data, sides = append(names, name), append(data, b), append(sides, side)
	}
	if len(names) == 0 {
		return fmt.Errorf("crowd: %s holds no .bpat files", dir)
	}
	added, err := r.load(names, data, sides, slot)
	if err != nil {
		return err
	}
	return r.loadSnapshotsBeside(added, func(name string) ([]byte, error) { return readFS(fsys, name) })
}

// readFS reads name from fsys if it is a regular file: a named pipe (os.DirFS
// over a folder holding one) would block the read for ever, a device never end.
func readFS(fsys fs.FS, name string) ([]byte, error) {
	st, err := fs.Stat(fsys, name)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, &regfile.Error{Path: name, Mode: st.Mode().Type()}
	}
	return fs.ReadFile(fsys, name)
}

// sidecar is a file's gait sidecar as found when it was loaded: nothing (path
// ""), a file, or why it could not be read.
type sidecar struct {
	path string
	file *gait.File
	err  error
}

// load loads files from disk (data nil), reading each one's sidecar from beside
// it, or from memory with the sidecars given (sides nil: none), into the slots
// their names or species ids give them, or all into slot as when it is not −1.
func (r *Registry) load(paths []string, data [][]byte, sides []sidecar, as int) ([]*Species, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return nil, ErrClosed
	}
	old := r.view.Load()
	var (
		added []*Species
		errs  []error
	)
	taken := map[unit.SpeciesID]string{}
	for _, s := range old.list {
		taken[s.ID] = s.Path
	}
	for i, p := range paths {
		var (
			b    []byte
			side sidecar
		)
		if data != nil {
			b = data[i]
			if sides != nil {
				side = sides[i]
			}
		} else {
			side.path = gait.SidecarPath(p)
			side.file, side.err = gait.OpenFor(p)
			if side.file == nil && side.err == nil {
				side.path = ""
			}
		}
		s, err := r.open(p, b, side, as)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if prev, ok := taken[s.ID]; ok {
			name := "" // a species no one named (a game's own id, WithSpecies or KnownSpecies) has none
			if s.Name != "" {
				name = " (" + s.Name + ")"
			}
			errs = append(errs, fmt.Errorf("%s: species slot %d%s is already held by %s: one file per species id; bake one of them again with another id", p, s.ID, name, prev))
			s.File.Close()
			continue
		}
		taken[s.ID] = p
		added = append(added, s)
	}
	if len(errs) > 0 {
		for _, s := range added {
			s.File.Close()
		}
		return nil, errors.Join(errs...)
	}
	list := append(slices.Clone(old.list), added...)
	r.view.Store(newView(list))
	return added, nil
}

// open parses one file and resolves its species' tables and gaits. as is the
// slot the caller chose (Into), or −1: the slot its name or species_id gives it.
func (r *Registry) open(path string, data []byte, side sidecar, as int) (*Species, error) {
	if side.err != nil {
		return nil, fmt.Errorf("crowd: refusing %s: its gait sidecar: %w", path, side.err)
	}
	var known []uint32
	for id := range r.cfg.defs {
		if !r.cfg.intoOnly[id] {
			known = append(known, id)
		}
	}
	slices.Sort(known) // messages list them in order
	var opts []bpat.Option
	if as < 0 { // a chosen slot takes a file of any species_id
		opts = append(opts, formats.KnownSpecies(known...))
	}
	if r.cfg.lenient {
		opts = append(opts, formats.Lenient())
	}
	var (
		f   *bpat.File
		err error
	)
	if data != nil {
		f, err = bpat.Parse(data, append(opts, formats.Name(path))...)
	} else {
		f, err = bpat.Open(path, opts...)
	}
	if err != nil {
		hint := ""
		if fe := (*formats.FormatError)(nil); errors.As(err, &fe) && fe.Rule == formats.RuleSpecies {
			// a file the game baked itself (bake gives id 6 and up), not registered
			// (bonebake simulate words it as its --species flag)
			hint = " (a species of the game's own: register its id with WithSpecies)"
		}
		if strings.HasPrefix(err.Error(), path+": ") { // the reader's error names the file already
			return nil, fmt.Errorf("crowd: refusing %w%s", err, hint)
		}
		return nil, fmt.Errorf("crowd: refusing %s: %w%s", path, err, hint)
	}
	s, err := r.species(path, f, as, side)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("crowd: refusing %s: %w", path, err)
	}
	return s, nil
}

func (r *Registry) species(path string, f *bpat.File, as int, side sidecar) (*Species, error) {
	id := f.Header().SpeciesID
	def, named, ok := r.Match(path, id)
	if as >= 0 {
		id = uint32(as)
		if def, ok = r.cfg.defs[id]; !ok {
			return nil, fmt.Errorf("slot %d is %w", id, ErrUnregistered)
		}
	} else if named && def.ID != id {
		return nil, fmt.Errorf("its species_id is %d, but the file is named for slot %d (%s)", id, def.ID, def.Name)
	} else if !ok {
		return nil, fmt.Errorf("species_id %d is %w", id, ErrUnregistered)
	}
	if id > MaxSpeciesID {
		return nil, roster.CheckID(id)
	}
	if n := len(f.Clips()); n > MaxClips {
		return nil, fmt.Errorf("%d clips; the runtime plays at most %d per species", n, MaxClips)
	}
	for _, c := range f.Clips() {
		if c.FrameCount > MaxClipFrames {
			return nil, fmt.Errorf("clip %s has %d frames; the runtime plays at most %d per clip", c.Name, c.FrameCount, MaxClipFrames)
		}
	}
	if side.file != nil {
		for _, c := range side.file.Clips {
			if f.ClipIndex(c.Name) < 0 {
				return nil, fmt.Errorf("its gait sidecar %s describes clip %q, which the file lacks: a sidecar of another bake (bake the model again, or remove it)", side.path, c.Name)
			}
		}
	}
	s := &Species{ID: unit.SpeciesID(id), Name: def.Name, Path: path, GaitFile: side.path, File: f, live: &r.live, closed: &r.closed}
	for _, a := range def.Archetypes {
		if int(a) >= MaxArchetypes || r.cfg.archetypes[a] == nil {
			return nil, fmt.Errorf("species %s uses %s, which is not registered", def.Name, a)
		}
		t, err := r.cfg.archetypes[a].Resolve(f)
		if err != nil {
			return nil, err
		}
		s.tables[a] = &t
		s.Archetypes = append(s.Archetypes, a)
	}
	s.states = s.clipStates()
	for _, c := range f.Clips() {
		ci := Clip{Clip: c, Duration: c.Duration()}
		ci.Gait, ci.GaitSource = ResolveGait(c.Name, ci.Duration, r.cfg.gaits[id], side.file, def.Gaits)
		if side.file != nil {
			if sc, ok := side.file.Clip(c.Name); ok {
				ci.Direction = [2]float64{sc.Direction[0], sc.Direction[2]}
			}
		}
		s.Clips = append(s.Clips, ci)
	}
	return s, nil
}

// Where a clip's gait came from (Clip.GaitSource; docs/runtime.md §6), first
// found first.
const (
	GaitGame     = "game"     // the game's WithGait
	GaitMeasured = "measured" // the gait sidecar: a ground speed measured at bake time
	GaitManifest = "manifest" // the gait sidecar: a ground speed the bake's manifest gave
	GaitSidecar  = "sidecar"  // the gait sidecar: a cycle, and no ground speed (the clip plays in place)
	GaitTable    = "table"    // the built-in table: roster.Species.Gaits
	GaitNone     = ""         // none: one pass per the clip's own duration, no ground speed
)

// ResolveGait returns a clip's gait and where it came from, first found first:
// the game's override (game, WithGait's entries for the species), the file's gait
// sidecar (side, nil when it has none: GaitMeasured or GaitManifest by its
// ground_speed_source, GaitSidecar for a clip it plays in place), the built-in
// table (table, roster.Species.Gaits), else none. The sidecar describes the very
// file it lies beside, so a clip it lists takes its entry whole, also when the
// entry has no ground speed. It is the one place a gait's
// numbers are made sound: a cycle that is not a positive finite number of
// seconds is the clip's duration (one pass per duration), a ground speed that
// is not positive and finite is none.
func ResolveGait(clip string, duration float64, game map[string]roster.Gait, side *gait.File, table map[string]roster.Gait) (roster.Gait, string) {
	g, src := findGait(clip, game, side, table)
	if !(g.Cycle > 0) || math.IsInf(g.Cycle, 0) {
		g.Cycle = duration
	}
	if !(g.Speed > 0) || math.IsInf(g.Speed, 0) {
		g.Speed = 0
	}
	return g, src
}

// findGait is ResolveGait's search, the numbers as found.
func findGait(clip string, game map[string]roster.Gait, side *gait.File, table map[string]roster.Gait) (roster.Gait, string) {
	if g, ok := game[clip]; ok {
		return g, GaitGame
	}
	if side != nil {
		if c, ok := side.Clip(clip); ok {
			switch {
			case c.GroundSpeed > 0 && c.GroundSpeedSource == gait.SourceManifest:
				return roster.Gait{Cycle: c.Cycle, Speed: c.GroundSpeed}, GaitManifest
			case c.GroundSpeed > 0:
				return roster.Gait{Cycle: c.Cycle, Speed: c.GroundSpeed}, GaitMeasured
			}
			return roster.Gait{Cycle: c.Cycle}, GaitSidecar
		}
	}
	if g, ok := table[clip]; ok {
		return g, GaitTable
	}
	return roster.Gait{}, GaitNone
}

// Species returns the species in slot id, or nil when the slot is empty.
func (r *Registry) Species(id unit.SpeciesID) *Species {
	return r.view.Load().Species(id)
}

// Lookup returns the loaded species called name, or nil.
func (r *Registry) Lookup(name string) *Species {
	for _, s := range r.view.Load().list {
		if s.Name == name {
			return s
		}
	}
	return nil
}

// All returns the loaded species in id order.
func (r *Registry) All() []*Species {
	var out []*Species
	for _, s := range r.view.Load().byID {
		if s != nil {
			out = append(out, s)
		}
	}
	return out
}

// Close unmaps every file. It waits for socket and palette reads in progress; later
// calls return ErrClosed, and Species finds nothing. Close is idempotent.
func (r *Registry) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return nil
	}
	r.live.Lock()
	r.closed = true
	list := r.view.Load().list
	r.view.Store(&View{closed: true})
	var errs []error
	for _, s := range list {
		if err := s.File.Close(); err != nil {
			errs = append(errs, fmt.Errorf("crowd: closing %s: %w", s.Path, err))
		}
		if s.Snapshot != nil {
			if err := s.Snapshot.Close(); err != nil {
				errs = append(errs, fmt.Errorf("crowd: closing %s: %w", s.SnapshotPath, err))
			}
		}
	}
	r.live.Unlock()
	return errors.Join(errs...)
}

// View is the species a registry holds at one moment: each load, snapshot and
// Close publishes a new one, and a View never changes. Readers that need
// several things of the registry at once (a crowd's step) take one View and
// read them all from it.
type View struct {
	closed bool
	list   []*Species // in load order
	byID   []*Species
	// compiled is what Compiled built of the view.
	compiled atomic.Value
}

func newView(list []*Species) *View {
	v := &View{list: list}
	for _, s := range list {
		if int(s.ID) >= len(v.byID) {
			v.byID = append(v.byID, make([]*Species, int(s.ID)+1-len(v.byID))...)
		}
		v.byID[s.ID] = s
	}
	return v
}

// View returns the registry's species as they stand now.
func (r *Registry) View() *View { return r.view.Load() }

// Closed reports whether the view is of a closed registry: it holds nothing.
func (v *View) Closed() bool { return v.closed }

// Species returns the species in slot id, or nil when the slot is empty.
func (v *View) Species(id unit.SpeciesID) *Species {
	if int(id) >= len(v.byID) {
		return nil
	}
	return v.byID[id]
}

// Loaded returns the view's species in load order. The slice is the view's:
// it must not be changed.
func (v *View) Loaded() []*Species { return v.list }

// Compiled returns what build makes of the view, calling build on the view's
// first use only: how the runtime keeps the tables its hot loops read beside
// the species they were built from (package crowd's). build must depend on
// nothing but the view and the registry's options, which do not change.
func (v *View) Compiled(build func() any) any {
	if c := v.compiled.Load(); c != nil {
		return c
	}
	v.compiled.CompareAndSwap(nil, build())
	return v.compiled.Load()
}
