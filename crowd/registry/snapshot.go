package registry

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"

	"github.com/bonebake/bonebake/crowd/unit"
	"github.com/bonebake/bonebake/formats/bpat"
	"github.com/bonebake/bonebake/formats/bpsm"
)

// LODDistances are the distances from the camera, in metres, beyond which a unit of
// a species drops to the reduced and to the snapshot level.
type LODDistances struct {
	Reduced, Snapshot float32
}

// LODHysteresis is how far past a boundary a unit must go to change level, as a
// fraction of the boundary's distance: it drops to a farther level beyond
// d·(1+LODHysteresis) and returns below d·(1−LODHysteresis), so that a unit that
// stands at a boundary (or a camera that sways) does not switch every frame.
const LODHysteresis = 0.1

// DefaultLOD returns the distances a species' units use unless WithLOD says
// otherwise: the humanoids drop to reduced at 30 m and to their snapshot at 90 m,
// the horse at 40 and 120 m, the elephant at 55 and 160 m (the larger a creature,
// the farther its detail shows), any other species as the humanoids.
func DefaultLOD(s unit.SpeciesID) LODDistances {
	switch s {
	case unit.SpeciesHorse:
		return LODDistances{40, 120}
	case unit.SpeciesElephant:
		return LODDistances{55, 160}
	}
	return LODDistances{30, 90}
}

// WithLOD sets the level-of-detail distances of one species' units.
func WithLOD(species unit.SpeciesID, d LODDistances) Option {
	return func(c *config) { c.lod[species] = &d }
}

// LOD returns the level-of-detail distances a species' units use.
func (r *Registry) LOD(species unit.SpeciesID) LODDistances {
	if d := r.cfg.lod[species]; d != nil {
		return *d
	}
	return DefaultLOD(species)
}

// SnapshotMap maps a clip's phase to the frames of its species' snapshot mesh
// (docs/runtime.md §6.4): Frame(ph) is the frame a unit at LevelSnapshot shows,
// for a shader that computes it from the phase (the GPU clock mode).
type SnapshotMap struct {
	Offset uint32  // the clip's first frame in the snapshot file
	Scale  float32 // the clip's snapshot frames per phase: N, or N − 1 for a clip that does not loop
	Last   int32   // N − 1
}

// Frame is the snapshot frame phase ph falls on, its floor frame:
// Offset + min(int32(ph·Scale), Last), the product in float64.
func (m SnapshotMap) Frame(ph float32) uint32 {
	return m.Offset + uint32(min(int32(float64(ph)*float64(m.Scale)), m.Last))
}

// SnapshotMap returns how clip cl maps to the frames of the species' snapshot
// mesh, and whether the clip may be drawn from it: not without a snapshot mesh,
// nor for a clip some archetype plays as Die (the game's archetype tables keep
// deaths off their snapshots); such a unit shows LevelReduced. m holds the
// clip's frames wherever the species has a snapshot mesh, ok or not.
func (s *Species) SnapshotMap(cl unit.ClipID) (m SnapshotMap, ok bool) {
	if s.Snapshot == nil || int(cl) >= len(s.Clips) {
		return SnapshotMap{}, false
	}
	c := s.Snapshot.Clips()[cl]
	n := int32(c.FrameCount)
	m = SnapshotMap{Offset: uint32(c.FrameOffset), Scale: float32(n - 1), Last: n - 1}
	if s.Clips[cl].Loops {
		m.Scale = float32(n)
	}
	for _, t := range s.tables {
		if t != nil && slices.Contains(t.clips[unit.StateDie][:], cl) {
			return m, false
		}
	}
	return m, true
}

// AttachSnapshot gives a loaded species its snapshot mesh (a .bpsm file in
// memory, name saying where it came from), so that its far units are drawn from
// it (LevelSnapshot). The file must carry the species' id and its clips, by name
// and in order. Load attaches NAME_minimal.bpsm beside NAME.bpat (or a File's
// Snapshot) by itself.
func (r *Registry) AttachSnapshot(species unit.SpeciesID, name string, data []byte) error {
	return r.attachSnapshot(species, name, func() (*bpsm.File, error) { return bpsm.Parse(data) })
}

// attachSnapshotFile is AttachSnapshot for a file, mapped read-only.
func (r *Registry) attachSnapshotFile(species unit.SpeciesID, path string) error {
	return r.attachSnapshot(species, path, func() (*bpsm.File, error) { return bpsm.Open(path) })
}

func (r *Registry) attachSnapshot(id unit.SpeciesID, name string, open func() (*bpsm.File, error)) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return ErrClosed
	}
	old := r.view.Load()
	k := slices.IndexFunc(old.list, func(s *Species) bool { return s.ID == id })
	if k < 0 {
		return fmt.Errorf("crowd: snapshot %s: species %d (%s) is not loaded", name, id, id)
	}
	f, err := open()
	if err != nil {
		return fmt.Errorf("crowd: snapshot %s: %w", name, err)
	}
	s := old.list[k]
	if err := snapshotFits(f, s.File); err != nil {
		f.Close()
		return fmt.Errorf("crowd: snapshot %s does not fit %s: %w", name, s.Path, err)
	}
	withSnap := *s
	withSnap.Snapshot, withSnap.SnapshotPath = f, name
	list := slices.Clone(old.list)
	list[k] = &withSnap
	if s.Snapshot != nil {
		s.Snapshot.Close()
	}
	r.view.Store(newView(list))
	return nil
}

// snapshotFits checks that a snapshot mesh is of species file sf: its species_id
// (the file's own, which is its slot's unless Into chose another) and its clips.
func snapshotFits(f *bpsm.File, sf *bpat.File) error {
	if got, want := f.Header().SpeciesID, sf.Header().SpeciesID; got != want {
		return fmt.Errorf("species_id %d, the species file's is %d", got, want)
	}
	clips, own := f.Clips(), sf.Clips()
	if len(clips) != len(own) {
		return fmt.Errorf("%d clips, the species has %d", len(clips), len(own))
	}
	for k, c := range clips {
		if c.Name != own[k].Name {
			return fmt.Errorf("clip %d is %q, the species' is %q", k, c.Name, own[k].Name)
		}
	}
	return nil
}

// snapshotBeside is where Load looks for a species file's snapshot mesh.
func snapshotBeside(bpatPath string) string {
	return strings.TrimSuffix(bpatPath, ".bpat") + "_minimal.bpsm"
}

// loadSnapshotsBeside loads the snapshot mesh beside each of the species files
// just loaded, where there is one.
func (r *Registry) loadSnapshotsBeside(loaded []*Species, read func(string) ([]byte, error)) error {
	var errs []error
	for _, s := range loaded {
		sp := snapshotBeside(s.Path)
		var err error
		if read == nil {
			if _, e := os.Stat(sp); e != nil {
				continue
			}
			err = r.attachSnapshotFile(s.ID, sp)
		} else {
			b, e := read(sp)
			if errors.Is(e, fs.ErrNotExist) {
				continue
			}
			if e != nil {
				err = e
			} else {
				err = r.AttachSnapshot(s.ID, sp, b)
			}
		}
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}
