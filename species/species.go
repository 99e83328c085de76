// Package species describes creatures as the baker sees them: a skeleton with its
// bind pose, a skinned mesh, sockets, and procedural clips with their frame counts,
// loop flags and combat markers (the seed's SpeciesManifest). The built-in
// creatures live in subpackages (species/humanoid, species/quadruped) and are
// listed by species/creatures. A Creature's methods bake it (Job, Bake, Bytes,
// WriteFiles, Snapshot, ExportGLTF): this package is the species source's
// adapter onto the engine, bake.
package species

import (
	"github.com/bonebake/bonebake/bake"
	"strings"

	"github.com/bonebake/bonebake/formats/bpat"
	"github.com/bonebake/bonebake/mesh"
	"github.com/bonebake/bonebake/rig"
)

// Creature is one creature: everything needed to bake its BPAT file and its
// snapshot meshes, with no asset files.
type Creature struct {
	ID   uint32 // the BPAT species_id
	Name string // the file base name: <Name>.bpat, <Name>_minimal.bpsm
	// Skeleton holds the bones in file order (parents first); its Rest pose is the
	// bind pose. Metres, y up, the creature facing +z.
	Skeleton *rig.Skeleton
	Mesh     *mesh.Skinned // the full mesh, bound at the bind pose
	// Minimal is the far-LOD mesh baked into <Name>_minimal.bpsm; nil for species
	// without a snapshot mesh.
	Minimal *mesh.Skinned
	Sockets []Socket
	Clips   []Clip // in file order
}

// Socket is an attachment point: a bone (Anchor, a skeleton index, which is
// the palette index of a built-in's files) and an offset in that bone's space.
type Socket = bpat.Socket

// Clip is one procedural clip: a clip to bake (bake.Clip: its name, fps, loop
// flag, markers and gait) whose motion is Pose over Frames frames. Pose writes
// the local transform of every bone at a normalized phase in [0,1] (for a
// looping clip phase 1 is phase 0 again): the baker calls it at the frame
// times of docs/formats/bpat.md §5, so Frames, FPS and Loops fix the duration:
// Frames/FPS seconds when looping, (Frames−1)/FPS for a one-shot. Creature.Job
// gives each its motion; the embedded clip's Motion, Start, End and InPlace
// are the job's, not set here. GroundSpeed and Cycle are its gait (walk 1.4
// m/s and .92 s), which the runtime reads from here (a baked model's comes
// from its gait sidecar, which bake.Clip's feed).
type Clip struct {
	bake.Clip
	Frames int
	// Pose must be safe for concurrent use: the baker calls it from several
	// goroutines at once, each with its own pose slice.
	Pose func(phase float64, pose []rig.Transform)
}

// Duration is the clip's length in seconds.
func (c *Clip) Duration() float64 {
	n := float64(c.Frames)
	if !c.Loops {
		n--
	}
	return n / c.FPS
}

// ClipIndex returns the index of the clip named name, or -1.
func (s *Creature) ClipIndex(name string) int {
	for i := range s.Clips {
		if s.Clips[i].Name == name {
			return i
		}
	}
	return -1
}

// InverseBind returns each bone's inverse bind matrix: the inverse of its
// model-space rest transform, so that palette × inverse bind is the identity at
// the bind pose.
func (s *Creature) InverseBind() []rig.Mat4 {
	rest := s.Skeleton.RestModelSpace()
	inv := make([]rig.Mat4, len(rest))
	for i, m := range rest {
		inv[i], _ = m.Inverse()
	}
	return inv
}

// AuthoredMarkers returns the combat markers the game's own baker gives a clip of
// that name (docs/species.md §6): it matches clip-name substrings, first rule wins,
// so every clip whose name contains "idle" (idle_squat, riding_idle, …) gets
// idle's exit_safe and hold_bow gets hold's markers.
//
//	attack_sword, attack_spear, riding_sword → .10 .54 .58 .72 .90
//	attack_bow, bow_shot                     → .18 .56 .56 .66 .86
//	hold                                     → anticipation_start 0, exit_safe .98
//	walk, run, idle, riding_charge           → exit_safe .98
//	anything else                            → all unset
//
// The built-in creatures use it for every clip, so their marker tables are the
// game's.
func AuthoredMarkers(name string) bpat.Markers {
	has := func(needles ...string) bool {
		for _, n := range needles {
			if strings.Contains(name, n) {
				return true
			}
		}
		return false
	}
	u := bpat.Unset
	switch {
	case has("attack_sword", "attack_spear", "riding_sword"):
		return bpat.Markers{0.10, 0.54, 0.58, 0.72, 0.90}
	case has("attack_bow", "bow_shot"):
		return bpat.Markers{0.18, 0.56, 0.56, 0.66, 0.86}
	case has("hold"):
		return bpat.Markers{0, u, u, u, 0.98}
	case has("walk", "run", "idle", "riding_charge"):
		return bpat.Markers{u, u, u, u, 0.98}
	}
	return bpat.NoMarkers()
}
