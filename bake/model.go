package bake

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"bonebake/roster"
	"bonebake/source/gltf"
)

// DefaultFPS is the frame rate of a model's clips when neither the model, its
// manifest nor the caller says otherwise.
const DefaultFPS = 30

// Settings is what a caller can say about a model bake beyond the model itself:
// the command line maps its flags here, the viewer leaves most of it zero.
type Settings struct {
	// Manifest replaces the manifest the model carries in its bonebake extras
	// (a model exported by bonebake bakes back into the same file without one).
	Manifest *Manifest
	// FPS, when > 0, is the frame rate of every clip the manifest does not give
	// its own (it overrides the manifest's default).
	FPS float64
	// SpeciesID, when set, overrides the manifest's species id.
	SpeciesID *uint32
	// Sockets are added to the manifest's.
	Sockets []ManifestSocket
	// OneShot names clips that play once instead of looping.
	OneShot []string
	// Version, when not 0, is the BPAT version to write (1 or 2); it overrides
	// the manifest's bpat_version.
	Version uint32
	// Skin picks the model's skin; Textures reads its base colour images too.
	Skin     int
	Textures bool
}

// SettingError is a Settings value that does not fit the model. Setting is the
// name the command line gives it ("fps", "one-shot"), so a caller can point at
// the flag.
type SettingError struct {
	Setting string
	Err     error
}

func (e *SettingError) Error() string { return e.Setting + ": " + e.Err.Error() }
func (e *SettingError) Unwrap() error { return e.Err }

// Model is a skinned glTF model and the job that bakes it.
type Model struct {
	Path string
	GLTF *gltf.Model
	Job  *Job
	// DefaultSpecies says no one chose the species id: it is the first id that
	// is not built in (roster.FirstFreeID).
	DefaultSpecies bool
	// Notes are things the caller should tell the user (an old clip name that
	// was understood).
	Notes []string
}

// LoadModel reads a skinned glTF model and resolves its bake job: the model's own
// manifest (or s.Manifest), then the settings on top. Errors name the model.
func LoadModel(path string, s Settings) (*Model, error) {
	m, err := gltf.Load(path, gltf.Options{Skin: s.Skin, Textures: s.Textures})
	if err != nil {
		return nil, err
	}
	mf := GLTFManifest(m)
	if s.Manifest != nil {
		c := *s.Manifest
		mf = &c
	}
	if s.FPS != 0 {
		if !(s.FPS > 0) {
			return nil, &SettingError{"fps", fmt.Errorf("%v must be positive", s.FPS)}
		}
		mf.FPS = s.FPS
	}
	if mf.FPS == 0 {
		mf.FPS = DefaultFPS
	}
	if s.SpeciesID != nil {
		mf.SpeciesID = s.SpeciesID
	}
	if s.Version > 2 {
		return nil, &SettingError{"bpat-version", fmt.Errorf("%d: only 1 and 2 exist", s.Version)}
	}
	if s.Version != 0 {
		mf.BPATVersion = s.Version
	}
	defaulted := mf.SpeciesID == nil
	if defaulted {
		// Id 0 is the humanoid's: a model baked beside the built-ins must not
		// take its slot.
		id := roster.FirstFreeID()
		mf.SpeciesID = &id
	}
	mf.Sockets = append(slices.Clip(mf.Sockets), s.Sockets...)
	r, names, motions := FromGLTF(m)
	job, err := mf.Job(r, names, motions)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var notes []string
	for _, name := range s.OneShot {
		i := slices.IndexFunc(job.Clips, func(c Clip) bool { return c.Name == name })
		if old := LegacyClipName(name); i < 0 && old != name {
			if i = slices.IndexFunc(job.Clips, func(c Clip) bool { return c.Name == old }); i >= 0 {
				notes = append(notes, fmt.Sprintf("one-shot %s: unnamed animations are now called %s", name, old))
			}
		}
		if i < 0 {
			return nil, &SettingError{"one-shot", fmt.Errorf("%s: no clip %q (clips: %s)", path, name, clipNames(job.Clips))}
		}
		job.Clips[i].Loops = false
	}
	return &Model{Path: path, GLTF: m, Job: job, DefaultSpecies: defaulted, Notes: notes}, nil
}

func clipNames(cs []Clip) string {
	names := make([]string, len(cs))
	for i, c := range cs {
		names[i] = strconv.Quote(c.Name)
	}
	return strings.Join(names, ", ")
}
