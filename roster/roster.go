// Package roster is the one table of bonebake's built-in species (docs/species.md
// §1): their ids, file names, the archetypes their units play, whether they ship a
// far-LOD snapshot mesh, and how their clips move over the ground.
//
// Everything else reads it: the procedural species build their clips from its
// gaits, the crowd runtime fills its slots and phase rates from it, and the
// command line tells the format validators which species ids are known. It
// imports nothing, so the online and offline halves can both depend on it.
package roster

import "fmt"

// Archetype says how a unit is animated: which state → clip table it plays. A
// species supports one or more (a humanoid file serves foot soldiers and riders).
type Archetype uint8

const (
	Humanoid Archetype = iota
	Horse
	Elephant
	// Rider is a humanoid on horseback: it plays the humanoid file's riding clips.
	Rider
	// NumArchetypes counts the built-in archetypes.
	NumArchetypes
)

func (a Archetype) String() string {
	switch a {
	case Humanoid:
		return "humanoid"
	case Horse:
		return "horse"
	case Elephant:
		return "elephant"
	case Rider:
		return "rider"
	}
	return fmt.Sprintf("archetype %d", uint8(a))
}

// Gait is how a clip plays in a game: one pass lasts Cycle seconds at ground speed
// Speed (m/s). A clip with Speed > 0 is locomotion: its stride covers the ground
// the unit moves over, so its phase follows the unit's speed. Speed 0 means the
// clip plays in place; Cycle 0 means one pass per the clip's own duration.
type Gait struct {
	Cycle float64
	Speed float64
}

// Species is one row of the roster.
type Species struct {
	ID   uint32 // the species_id field of its files
	Name string // file base name: <Name>.bpat, <Name>_minimal.bpsm
	// Archetypes its units may play; the first is what a plain unit plays.
	Archetypes []Archetype
	// Gaits of the clips that need one, by clip name.
	Gaits map[string]Gait
}

// Gait returns the gait of the named clip (the zero Gait when it has none).
func (s Species) Gait(clip string) Gait { return s.Gaits[clip] }

// The gaits. Humanoid cycles are the walk and run clips' (docs/species.md §3);
// quadruped cycles are those of the gait model (docs/species.md §5). Ground
// speeds are the built-in creatures' own: a stride of the baked walk covers
// exactly Speed·Cycle metres, so the feet do not slide at that speed.
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

var table = []Species{
	{0, "humanoid", []Archetype{Humanoid, Rider}, humanoidGaits},
	{1, "horse", []Archetype{Horse}, horseGaits},
	{2, "elephant", []Archetype{Elephant}, elephantGaits},
	{3, "humanoid_sword", []Archetype{Humanoid, Rider}, humanoidGaits},
	{4, "humanoid_spear", []Archetype{Humanoid, Rider}, humanoidGaits},
	{5, "humanoid_skeleton", []Archetype{Humanoid, Rider}, humanoidGaits},
}

// MountSeat is where the built-in rider clips (riding_*, die_mounted,
// dead_mounted) put the rider's seat, in the rider's model space (metres, y up,
// facing +z): the seat_position of the game's mount frame, in which the game bakes
// its riding clips and its own tests measure them: compute_mount_frame of
// make_horse_profile(0) after tune_mounted_knight_frame (render/horse/horse_motion.cpp,
// render/entity/mounted_knight_pose.h; its forward is +z, up +y). A runtime seats a
// rider on a horse by putting this point on the horse's saddle socket
// (docs/species.md §3): the game's own horse profile puts it 2.68 m up, the built-in
// horse's saddle is 1.45 m up, so the rider is drawn 1.23 m lower than its palettes
// say.
var MountSeat = [3]float64{0, 2.679032, 0.178199}

// Builtin returns the built-in species in id order: 0 humanoid, 1 horse,
// 2 elephant, 3 humanoid_sword, 4 humanoid_spear, 5 humanoid_skeleton. The
// result is a copy the caller may change.
func Builtin() []Species {
	out := make([]Species, len(table))
	for i, s := range table {
		out[i] = s.clone()
	}
	return out
}

// ByID returns the built-in species with that id.
func ByID(id uint32) (Species, bool) {
	for _, s := range table {
		if s.ID == id {
			return s.clone(), true
		}
	}
	return Species{}, false
}

// ByName returns the built-in species with that file name.
func ByName(name string) (Species, bool) {
	for _, s := range table {
		if s.Name == name {
			return s.clone(), true
		}
	}
	return Species{}, false
}

// IDs lists the built-in species ids in order.
func IDs() []uint32 {
	ids := make([]uint32, len(table))
	for i, s := range table {
		ids[i] = s.ID
	}
	return ids
}

// Names lists the built-in species names in id order.
func Names() []string {
	names := make([]string, len(table))
	for i, s := range table {
		names[i] = s.Name
	}
	return names
}

// MaxID is the largest species id bonebake bakes, validates and runs: the
// runtime's units name their species with one byte (crowd.MaxSpeciesID is this
// constant), so a file with a larger id could be baked but never played. The
// file formats store a uint32; this is the one rule narrower than the formats.
const MaxID = 255

// CheckID refuses a species id above MaxID. Its error starts with the id, so
// that it reads on from whatever names it ("--species-id 300 is above 255",
// "species_id: 300 is above 255").
func CheckID(id uint32) error {
	if id > MaxID {
		return fmt.Errorf("%d is above %d, the largest species id the runtime holds (units name their species with one byte)", id, MaxID)
	}
	return nil
}

// AcceptHint is what a reader's refusal of a file for its species id, one it
// was not told of, goes on with: how to accept it (an id past the built-in
// ones, given to the reader: formats.KnownSpecies, which a command words as
// its --species), or why nothing can (CheckID's reason). One sentence for
// every reader that says so: the commands', the viewer's.
func AcceptHint(id uint32) string {
	if err := CheckID(id); err != nil {
		return "; " + err.Error()
	}
	return fmt.Sprintf(" (a species baked outside the built-in ones: pass formats.KnownSpecies %d to accept it)", id)
}

// FirstFreeID returns the smallest species id that is neither built in nor in
// taken: the safe id for a newly baked creature.
func FirstFreeID(taken ...uint32) uint32 {
	used := map[uint32]bool{}
	for _, s := range table {
		used[s.ID] = true
	}
	for _, id := range taken {
		used[id] = true
	}
	id := uint32(0)
	for used[id] {
		id++
	}
	return id
}

func (s Species) clone() Species {
	s.Archetypes = append([]Archetype(nil), s.Archetypes...)
	g := make(map[string]Gait, len(s.Gaits))
	for k, v := range s.Gaits {
		g[k] = v
	}
	s.Gaits = g
	return s
}
