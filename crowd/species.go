package crowd

import (
	"fmt"
	"sync"

	"bonebake/formats/bpat"
	"bonebake/roster"
)

// DefaultContact is the contact phase of an attack clip without a contact marker:
// the start of the Impact window (docs/runtime.md §9).
const DefaultContact = 0.52

// Clip is one clip of a loaded species with how it plays.
type Clip struct {
	bpat.Clip
	Duration float64     // seconds (docs/formats/bpat.md §5)
	Gait     roster.Gait // Cycle filled in: never 0
}

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
	ID   uint32
	Name string
	Path string // the file it was loaded from, or the name given to LoadBytes
	File *bpat.File
	// Clips in file order, with their gaits.
	Clips []Clip
	// Archetypes this species' units may use.
	Archetypes []roster.Archetype

	tables [MaxArchetypes]*ClipTable
	live   *sync.RWMutex // the registry's: held for reading while the file is read
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

// ClipIndex returns the index of the clip named name, or -1. It is for use off the
// hot path.
func (s *Species) ClipIndex(name string) int { return s.File.ClipIndex(name) }

// SocketIndex returns the index of the socket named name, or -1.
func (s *Species) SocketIndex(name string) int { return s.File.SocketIndex(name) }

// SocketCount is the number of sockets of the species.
func (s *Species) SocketCount() int { return len(s.File.Sockets()) }

// Contact returns the contact phase of clip clip (DefaultContact when unset).
func (s *Species) Contact(clip int) float32 {
	if uint(clip) >= uint(len(s.Clips)) {
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
func (s *Species) Sockets(clip int, phase float64, dst []float32) (bpat.Playback, error) {
	if uint(clip) >= uint(len(s.Clips)) {
		return bpat.Playback{}, fmt.Errorf("crowd: species %s has no clip %d", s.Name, clip)
	}
	p := bpat.Resolve(phase, s.Clips[clip].FrameCount, s.Clips[clip].Loops)
	return p, s.SocketsAt(clip, p, dst)
}

// SocketsAt is Sockets for frames already resolved.
func (s *Species) SocketsAt(clip int, p bpat.Playback, dst []float32) error {
	if err := s.read(); err != nil {
		return err
	}
	defer s.live.RUnlock()
	n := s.SocketCount() * bpat.FloatsPerSocket
	if len(dst) < n {
		return fmt.Errorf("crowd: socket buffer of %d floats; species %s needs %d", len(dst), s.Name, n)
	}
	if n > 0 {
		bpat.Lerp(dst[:n], s.File.SocketData(clip, p.Frame), s.File.SocketData(clip, p.Next), p.Lerp)
	}
	return nil
}

// Socket returns one socket's transform (top three rows, row-major) at clip clip
// and phase.
func (s *Species) Socket(clip int, phase float64, socket int) ([12]float32, error) {
	var out [12]float32
	if uint(socket) >= uint(s.SocketCount()) {
		return out, fmt.Errorf("crowd: species %s has no socket %d", s.Name, socket)
	}
	if uint(clip) >= uint(len(s.Clips)) {
		return out, fmt.Errorf("crowd: species %s has no clip %d", s.Name, clip)
	}
	if err := s.read(); err != nil {
		return out, err
	}
	defer s.live.RUnlock()
	p := bpat.Resolve(phase, s.Clips[clip].FrameCount, s.Clips[clip].Loops)
	o := socket * bpat.FloatsPerSocket
	a := s.File.SocketData(clip, p.Frame)[o : o+bpat.FloatsPerSocket]
	b := s.File.SocketData(clip, p.Next)[o : o+bpat.FloatsPerSocket]
	bpat.Lerp(out[:], a, b, p.Lerp)
	return out, nil
}

// Palette writes the bone palette at clip clip and phase into dst (BoneCount·16
// floats), as bpat.File.Sample does.
func (s *Species) Palette(clip int, phase float64, dst []float32) (bpat.Playback, error) {
	if uint(clip) >= uint(len(s.Clips)) {
		return bpat.Playback{}, fmt.Errorf("crowd: species %s has no clip %d", s.Name, clip)
	}
	if n := s.File.BoneCount() * bpat.FloatsPerBone; len(dst) < n {
		return bpat.Playback{}, fmt.Errorf("crowd: palette buffer of %d floats; species %s needs %d", len(dst), s.Name, n)
	}
	if err := s.read(); err != nil {
		return bpat.Playback{}, err
	}
	defer s.live.RUnlock()
	return s.File.Sample(clip, phase, dst, nil), nil
}
