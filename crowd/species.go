package crowd

import (
	"fmt"
	"sync"

	"bonebake/format/bpat"
)

// Gait is how a clip plays in the game: one pass lasts Cycle seconds at ground
// speed Speed. A locomotion clip (Speed > 0) advances its phase by
// dt/Cycle · speed/Speed, so its stride matches the unit's actual speed; any other
// clip advances by dt/Cycle. Cycle 0 means the clip's own duration.
type Gait struct {
	Cycle float64 // seconds per pass
	Speed float64 // m/s the cycle matches; 0 for clips played in place
}

// SpeciesDef tells a registry what a species slot holds: its id (the BPAT
// species_id), its file base name (<Name>.bpat), the archetypes its units may use,
// and the gaits of its clips by name.
type SpeciesDef struct {
	ID         uint32
	Name       string
	Archetypes []ArchetypeID
	Gaits      map[string]Gait
}

// Built-in gaits: humanoid walk and run are FACTS §2.1's cycles; horse and elephant
// cycles are FACTS §2.4's gait cycles. The ground speeds are those of the built-in
// species (species/humanoid, species/quadruped), so that a stride covers the ground
// the unit moves over. Every other clip plays once per its own duration.
var (
	humanoidGaits = map[string]Gait{
		"walk": {Cycle: 0.92, Speed: 1.4},
		"run":  {Cycle: 0.56, Speed: 3.8},
	}
	horseGaits = map[string]Gait{
		"idle":   {Cycle: 2.5},
		"walk":   {Cycle: 1.1, Speed: 1.7},
		"trot":   {Cycle: 0.55, Speed: 3.8},
		"canter": {Cycle: 0.48, Speed: 6},
		"gallop": {Cycle: 0.38, Speed: 12},
		"fight":  {Cycle: 1},
	}
	elephantGaits = map[string]Gait{
		"idle":  {Cycle: 2},
		"walk":  {Cycle: 1.2, Speed: 1.6},
		"run":   {Cycle: 0.6, Speed: 4.5},
		"fight": {Cycle: 1.15},
	}
)

// BuiltinSpecies returns the six built-in species of FACTS §2.1 in id order: 0
// humanoid, 1 horse, 2 elephant, 3 humanoid_sword, 4 humanoid_spear,
// 5 humanoid_skeleton. The humanoids support the humanoid and rider archetypes.
func BuiltinSpecies() []SpeciesDef {
	hum := []ArchetypeID{ArchHumanoid, ArchRider}
	return []SpeciesDef{
		{0, "humanoid", hum, copyGaits(humanoidGaits)},
		{1, "horse", []ArchetypeID{ArchHorse}, copyGaits(horseGaits)},
		{2, "elephant", []ArchetypeID{ArchElephant}, copyGaits(elephantGaits)},
		{3, "humanoid_sword", hum, copyGaits(humanoidGaits)},
		{4, "humanoid_spear", hum, copyGaits(humanoidGaits)},
		{5, "humanoid_skeleton", hum, copyGaits(humanoidGaits)},
	}
}

// BuiltinGait returns the built-in gait of a clip of a built-in species.
func BuiltinGait(species uint32, clip string) (Gait, bool) {
	for _, d := range BuiltinSpecies() {
		if d.ID == species {
			g, ok := d.Gaits[clip]
			return g, ok
		}
	}
	return Gait{}, false
}

func copyGaits(m map[string]Gait) map[string]Gait {
	out := make(map[string]Gait, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// DefaultContact is the contact phase of an attack clip without a contact marker:
// the start of the Impact window (FACTS §2.3).
const DefaultContact = 0.52

// ClipInfo is one clip of a loaded species with how it plays.
type ClipInfo struct {
	bpat.Clip
	Duration float64 // seconds (FACTS §1.5)
	Gait     Gait    // Cycle filled in: never 0
}

// Contact is the clip's contact marker, or DefaultContact when it has none.
func (c *ClipInfo) Contact() float32 {
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
	Clips []ClipInfo
	// Archetypes this species' units may use.
	Archetypes []ArchetypeID

	tables [MaxArchetypes]*ClipTable
	live   *sync.RWMutex // the registry's: held for reading while the file is read
	closed *bool
}

// Table returns the species' clip table for archetype a, or nil when the species
// does not support it.
func (s *Species) Table(a ArchetypeID) *ClipTable {
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
// (FACTS §1.5): per-element lerp. It returns the frames used.
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
