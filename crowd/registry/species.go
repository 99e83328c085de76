package registry

import (
	"fmt"
	"sync"

	"github.com/bonebake/bonebake/crowd/unit"
	"github.com/bonebake/bonebake/formats/bpat"
	"github.com/bonebake/bonebake/formats/bpsm"
	"github.com/bonebake/bonebake/formats/gait"
	"github.com/bonebake/bonebake/roster"
)

// DefaultContact is the contact phase of an attack clip without a contact marker:
// the start of the Impact window (docs/runtime.md §9).
const DefaultContact = 0.52

// Clip is one clip of a loaded species with how it plays: the file's table entry
// (bpat.Clip) and what the runtime works out for it, its duration and gait.
type Clip struct {
	bpat.Clip
	Duration float64     // seconds (docs/formats/bpat.md §5)
	Gait     roster.Gait // Cycle filled in: never 0
	// GaitSource says where Gait came from: GaitGame, GaitMeasured, GaitManifest,
	// GaitSidecar, GaitTable or GaitNone (see ResolveGait).
	GaitSource string
	// Direction is the model-space direction (x, z) its gait sidecar measured
	// the clip to travel along (docs/formats/gait.md §1); zero where it gives
	// none, which a runtime reads as +z, heading 0's.
	Direction [2]float64
}

// Facing returns the horizontal axis (x, z) in model space the species'
// clips travel along: the one nearest the sum of their Directions (gait.Axis,
// the rule of bake's hint, docs/formats/gait.md §8); +z, heading 0's, when
// none is given.
func (s *Species) Facing() (x, z float64) {
	var sx, sz float64
	for _, c := range s.Clips {
		sx, sz = sx+c.Direction[0], sz+c.Direction[1]
	}
	return gait.Axis(sx, sz)
}

// Axis returns the horizontal axis (x, z) in model space nearest the clip's
// Direction (gait.Axis, as Facing takes it for the species); +z when it has
// none. A strafe's is across its species' Facing, a walk backwards' opposite it.
func (c *Clip) Axis() (x, z float64) { return gait.Axis(c.Direction[0], c.Direction[1]) }

// Contact is the clip's contact marker, or DefaultContact when it has none.
func (c *Clip) Contact() float32 {
	if m := c.Markers[bpat.Contact]; m >= 0 {
		return m
	}
	return DefaultContact
}

// Species is one loaded species file. Its methods are safe for concurrent use until
// the registry is closed.
type Species struct {
	ID   unit.SpeciesID
	Name string
	Path string // the file it was loaded from, or the name of the File it was given
	// GaitFile is the gait sidecar its clips' gaits were read from (beside Path),
	// or "" when it had none.
	GaitFile string
	File     *bpat.File
	// Clips in file order, with their gaits: Clips[id] is the clip of ClipID id.
	Clips []Clip
	// Archetypes this species' units may use.
	Archetypes []roster.Archetype
	// Snapshot is the species' snapshot mesh, its far level of detail
	// (LevelSnapshot), from SnapshotPath; nil without one (AttachSnapshot).
	Snapshot     *bpsm.File
	SnapshotPath string

	tables [MaxArchetypes]*ClipTable
	states []unit.StateID // per clip: the state it stands for (ClipState), noState for none
	live   *sync.RWMutex  // the registry's: held for reading while the file is read
	closed *bool
}

// Table returns the species' clip table for archetype a, or nil when the species
// does not support it.
func (s *Species) Table(a roster.Archetype) *ClipTable {
	if int(a) >= MaxArchetypes {
		return nil
	}
	return s.tables[a]
}

// ClipIndex returns the id of the clip named name, and false when the species has
// no such clip. It is for use off the hot path.
func (s *Species) ClipIndex(name string) (unit.ClipID, bool) {
	i := s.File.ClipIndex(name)
	if i < 0 {
		return 0, false
	}
	return unit.ClipID(i), true
}

// SocketIndex returns the index of the socket named name, or -1.
func (s *Species) SocketIndex(name string) int { return s.File.SocketIndex(name) }

// SocketCount is the number of sockets of the species.
func (s *Species) SocketCount() int { return len(s.File.Sockets()) }

// Contact returns the contact phase of clip clip (DefaultContact when unset).
func (s *Species) Contact(clip unit.ClipID) float32 {
	if int(clip) >= len(s.Clips) {
		return DefaultContact
	}
	return s.Clips[clip].Contact()
}

// ErrClosed is returned by anything that needs a registry after Close.
var ErrClosed = fmt.Errorf("crowd: registry closed")

func (s *Species) read() error {
	s.live.RLock()
	if *s.closed {
		s.live.RUnlock()
		return ErrClosed
	}
	return nil
}

// Sockets writes the transforms of every socket at clip clip and phase into dst
// (SocketCount·12 floats, the top three rows of each socket matrix), blended
// between the two baked frames the phase falls between exactly as the palette is
// (docs/formats/bpat.md §5): per-element lerp. It returns the frames used.
func (s *Species) Sockets(clip unit.ClipID, phase float32, dst []float32) (bpat.Playback, error) {
	if int(clip) >= len(s.Clips) {
		return bpat.Playback{}, fmt.Errorf("crowd: species %s has no clip %d", s.Name, clip)
	}
	p := bpat.Resolve(float64(phase), s.Clips[clip].FrameCount, s.Clips[clip].Loops)
	return p, s.socketsAt(clip, p, dst)
}

// socketsAt is Sockets for frames already resolved.
func (s *Species) socketsAt(clip unit.ClipID, p bpat.Playback, dst []float32) error {
	if int(clip) >= len(s.Clips) {
		return fmt.Errorf("crowd: species %s has no clip %d", s.Name, clip)
	}
	if err := s.read(); err != nil {
		return err
	}
	defer s.live.RUnlock()
	n := s.SocketCount() * bpat.FloatsPerSocket
	if len(dst) < n {
		return fmt.Errorf("crowd: socket buffer of %d floats; species %s needs %d", len(dst), s.Name, n)
	}
	if n > 0 {
		bpat.Lerp(dst[:n], s.File.SocketData(int(clip), p.Frame), s.File.SocketData(int(clip), p.Next), p.Lerp)
	}
	return nil
}

// Socket returns one socket's transform in model space (metres, y up, facing +z)
// at clip clip and phase. Place(x, y, z, heading).Mul of it puts it in the world.
func (s *Species) Socket(clip unit.ClipID, phase float32, socket int) (Mat34, error) {
	var out Mat34
	if uint(socket) >= uint(s.SocketCount()) {
		return out, fmt.Errorf("crowd: species %s has no socket %d", s.Name, socket)
	}
	if int(clip) >= len(s.Clips) {
		return out, fmt.Errorf("crowd: species %s has no clip %d", s.Name, clip)
	}
	if err := s.read(); err != nil {
		return out, err
	}
	defer s.live.RUnlock()
	p := bpat.Resolve(float64(phase), s.Clips[clip].FrameCount, s.Clips[clip].Loops)
	o := socket * bpat.FloatsPerSocket
	a := s.File.SocketData(int(clip), p.Frame)[o : o+bpat.FloatsPerSocket]
	b := s.File.SocketData(int(clip), p.Next)[o : o+bpat.FloatsPerSocket]
	bpat.Lerp(out[:], a, b, p.Lerp)
	return out, nil
}

// Palette writes the bone palette at clip clip and phase into dst (BoneCount·16
// floats), as bpat.File.Sample does.
func (s *Species) Palette(clip unit.ClipID, phase float32, dst []float32) (bpat.Playback, error) {
	if int(clip) >= len(s.Clips) {
		return bpat.Playback{}, fmt.Errorf("crowd: species %s has no clip %d", s.Name, clip)
	}
	if n := s.File.BoneCount() * bpat.FloatsPerBone; len(dst) < n {
		return bpat.Playback{}, fmt.Errorf("crowd: palette buffer of %d floats; species %s needs %d", len(dst), s.Name, n)
	}
	if err := s.read(); err != nil {
		return bpat.Playback{}, err
	}
	defer s.live.RUnlock()
	return s.File.Sample(int(clip), float64(phase), dst, nil), nil
}
