package gltfbake

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/bonebake/bonebake/bake"
	"github.com/bonebake/bonebake/formats/bpat"
	"github.com/bonebake/bonebake/internal/words"
	"github.com/bonebake/bonebake/roster"
	bvhsrc "github.com/bonebake/bonebake/source/bvh"
	"github.com/bonebake/bonebake/source/gltf"
	"github.com/bonebake/bonebake/stride"
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
	// FreeSpeciesID, when set, is the id a model takes when neither SpeciesID
	// nor its manifest (or bonebake extras) gives one, instead of
	// roster.FirstFreeID(): several models baked into one folder each take
	// their own.
	FreeSpeciesID *uint32
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
	// KeepLeadIn, Scale (when > 0) and DeformingOnly override the manifest's
	// keys of the same names.
	KeepLeadIn    bool
	Scale         float64
	DeformingOnly bool
	// MaxBones, when not 0, overrides the manifest's max_bones: the most bones
	// the palette may keep (1 to 64; default 64, BPAT's limit). A skin with more
	// joints drops those no vertex is weighted to, then merges leaf joints
	// (docs/formats/gltf.md §1.4).
	MaxBones int
	// FilesRoot is the folder the model's external buffers and images must lie
	// inside (default: the model's folder).
	FilesRoot string
	// Feet and RootBone, when set, override the manifest's feet and root_bone
	// (the bones that measure ground speed, docs/formats/gait.md §2); InPlace
	// removes the root's travel from every clip (§4).
	Feet     []string
	RootBone string
	InPlace  bool
	// PlantFeet locks every clip's feet to the ground while they stand, so
	// that they do not slide at the clip's ground speed (§7): the bake then
	// differs from the source animation.
	PlantFeet bool
	// NoLimits lifts the limits on what the model may make the loader allocate
	// (gltf.MemoryPerFileByte times its size) and on the bake's size
	// (DefaultMaxBytes): the command line's --force.
	NoLimits bool
	// ClipFiles are glTF files whose animations are put on the model's
	// skeleton by joint name, after the manifest's clip_files; Retarget takes
	// their rotations alone when their skeletons differ (docs/formats/gltf.md §7).
	ClipFiles []string
	Retarget  bool
	// Up is a BVH file's up axis, the model's or a clip file's ("+Z", …; ""
	// finds it from the skeleton, docs/formats/bvh.md §4).
	Up string
	// Face, when set, overrides the manifest's face: the horizontal axis the
	// model faces ("+z", "-z", "+x", "-x"), which the bake turns to +z, the
	// runtime's heading 0 (docs/formats/gait.md §8).
	Face string
}

// Check says whether the settings fit, naming the first that does not (a
// *bake.SettingError): bake.CheckSettings with given, which says which were
// given by field name ("FPS"; nil: those not zero, as Load checks them). A
// caller that can tell a zero given from none (the command line's --fps 0)
// checks them first, once for any number of models.
func (s Settings) Check(given func(setting string) bool) error {
	if s.Skin < 0 {
		return &bake.SettingError{Setting: "Skin", Err: fmt.Errorf("%d: skins are numbered from 0", s.Skin)}
	}
	id := func(id *uint32) func() error {
		return func() error {
			if id == nil {
				return nil
			}
			return roster.CheckID(*id)
		}
	}
	return bake.CheckSettings(given,
		bake.Rule{Setting: "FPS", Zero: s.FPS == 0, Check: func() error { return bake.CheckFPS(s.FPS) }},
		bake.Rule{Setting: "Version", Zero: s.Version == 0, Check: func() error { return bake.CheckVersion(s.Version) }},
		bake.Rule{Setting: "Scale", Zero: s.Scale == 0, Check: func() error { return gltf.CheckScale(s.Scale) }},
		bake.Rule{Setting: "MaxBones", Zero: s.MaxBones == 0, Check: func() error { return CheckMaxBones(s.MaxBones) }},
		bake.Rule{Setting: "Up", Zero: s.Up == "", Check: func() error { return bvhsrc.CheckUp(s.Up) }},
		bake.Rule{Setting: "Face", Zero: s.Face == "", Check: func() error { return gltf.CheckFace(s.Face) }},
		bake.Rule{Setting: "SpeciesID", Zero: s.SpeciesID == nil, Check: id(s.SpeciesID)},
		bake.Rule{Setting: "FreeSpeciesID", Zero: s.FreeSpeciesID == nil, Check: id(s.FreeSpeciesID)},
		bake.Rule{Setting: "FilesRoot", Zero: s.FilesRoot == "", Check: func() error { return checkFolder(s.FilesRoot) }},
		bake.Rule{Setting: "Retarget", Zero: !s.Retarget, Check: func() error {
			if s.Retarget && len(s.ClipFiles) == 0 && s.Manifest == nil {
				return errors.New("applies to the clips of Settings.ClipFiles (or a manifest's clip_files)")
			}
			return nil
		}},
	)
}

// checkFolder refuses a path that is not a folder: a files root that does not
// exist would otherwise go unnoticed by a model that needs no external file.
func checkFolder(dir string) error {
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%s: no such folder", dir)
	case err != nil:
		return err
	case !fi.IsDir():
		return fmt.Errorf("%s: a file, not a folder", dir)
	}
	return nil
}

// Model is a skinned glTF model and the job that bakes it.
type Model struct {
	Path string
	GLTF *gltf.Model
	Job  *bake.Job
	// DefaultSpecies says no one chose the species id: it is the first id that
	// is not built in (roster.FirstFreeID), or Settings.FreeSpeciesID.
	DefaultSpecies bool
	// Notes are things the caller should tell the user (an old clip name that
	// was understood, a lead-in dropped, joints dropped).
	Notes []string
	// Reduction, when set, says how a skin with more joints than the bone limit
	// was brought under it, and how far that moves the mesh's vertices.
	Reduction *Reduction

	// gaitRig measures ground speeds; measured holds the clips measured before
	// their travel was removed (in-place clips), by clip index.
	gaitRig   *stride.Rig
	measured  map[int]stride.Result
	plantedAt map[int]stride.Result // the clips whose feet were locked (plantFeet), measured planted
	// loaded holds the clips measured as the model loaded (plantFeet), by
	// clip index, with the motion each played: measured again playing it, a
	// clip measures the same (Gaits measures every clip).
	loaded map[int]measurement
	// unplanted names the clips that asked to be planted but were left as
	// authored: planted, their feet would still slide.
	unplanted map[string]bool
	// seams holds, by clip name, how far (stride.Result.Seam, in the model's
	// units) the looping clips that do not end as they began end from where
	// they began, as Gaits measured them.
	seams map[string]float64
	// Skin, Scale and Face are the skin read, the uniform scale applied (0:
	// none) and the axis turned to +z ("": none), filesRoot the folder its
	// external files may come from, and SnapshotTriangles the manifest's
	// snapshot_triangles: what a far-LOD snapshot of the model
	// (Model.Snapshot) needs to read its meshes alike.
	Skin              int
	Scale             float64
	Face              string
	SnapshotTriangles int
	filesRoot         string
}

// Bytes bakes the model into a BPAT file in memory (bake.Bytes of its job), as
// species.Creature.Bytes does a built-in.
func (m *Model) Bytes() ([]byte, error) { return bake.Bytes(m.Job) }

// Load reads a skinned glTF model and resolves its bake job: the model's own
// manifest (or s.Manifest), then the settings on top. Errors name the model.
func Load(path string, s Settings) (*Model, error) {
	if err := s.Check(nil); err != nil {
		return nil, err
	}
	explicitScale := s.Scale // a BVH file's reader takes it as its unit (docs/formats/bvh.md §4)
	if explicitScale == 0 && s.Manifest != nil {
		explicitScale = s.Manifest.Scale
	}
	if s.Up == "" && s.Manifest != nil {
		s.Up = s.Manifest.Up // the BVH files' up axis, the model's and its clip files'
	}
	m, bvhScaled, err := loadModel(path, s, explicitScale)
	if ge := (*gltf.Error)(nil); s.Skin > 0 && errors.As(err, &ge) && ge.Rule == gltf.RuleSkinIndex {
		return nil, &bake.SettingError{Setting: "Skin", Err: err} // the flag asked for a skin the file lacks
	}
	if err != nil {
		return nil, err
	}
	var bvhFPS float64 // a BVH file's frame rate: its clips' default, not a per-clip fps that --fps could not override
	if bvhScaled {
		bvhFPS, m.ClipMeta[0].FPS = m.ClipMeta[0].FPS, 0
	}
	renamed, clipNotes := nameOwnClips(m, path)
	mf := ManifestOf(m)
	if s.Manifest != nil {
		c := *s.Manifest
		mf = &c
	}
	mf.renamed = renamed
	if s.FPS != 0 {
		mf.FPS = s.FPS
	}
	if mf.FPS == 0 {
		mf.FPS = bvhFPS
	}
	if s.SpeciesID != nil {
		mf.SpeciesID = s.SpeciesID
	}
	if s.Version != 0 {
		mf.BPATVersion = s.Version
	}
	defaulted := mf.SpeciesID == nil
	if defaulted {
		// Id 0 is the humanoid's: a model baked beside the built-ins must not
		// take its slot.
		id := roster.FirstFreeID()
		if s.FreeSpeciesID != nil {
			id = *s.FreeSpeciesID
		}
		mf.SpeciesID = &id
	}
	mf.Sockets = append(slices.Clip(mf.Sockets), s.Sockets...)
	mf.flagSockets = len(s.Sockets)
	mf.KeepLeadIn = mf.KeepLeadIn || s.KeepLeadIn
	mf.DeformingOnly = mf.DeformingOnly || s.DeformingOnly
	if s.Scale != 0 {
		mf.Scale = s.Scale
	}
	if s.Face != "" {
		mf.Face = s.Face
	}
	if len(s.Feet) > 0 {
		mf.Feet = s.Feet
	}
	if s.RootBone != "" {
		mf.RootBone = s.RootBone
	}
	mf.InPlace = mf.InPlace || s.InPlace
	mf.PlantFeet = mf.PlantFeet || s.PlantFeet
	if bvhScaled {
		mf.Scale = 0 // applied by the BVH reader
	}
	scale, face, snapTris := mf.Scale, mf.Face, mf.SnapshotTriangles
	// A built-in's id given, then what the loader changed or left out of the
	// character, come first.
	var notes []string
	if s.SpeciesID != nil {
		if sp, ok := roster.ByID(*s.SpeciesID); ok {
			notes = append(notes, fmt.Sprintf("species id %d is the built-in %s's: readers (the runtime, the viewer, the game) take this file for a %s; ids from %d are free",
				sp.ID, sp.Name, sp.Name, roster.FirstFreeID()))
		}
	}
	if n := m.WeightsNormalized; n > 0 {
		what := fmt.Sprintf("%d vertices", n)
		if n == 1 {
			what = "1 vertex"
		}
		notes = append(notes, fmt.Sprintf("normalized the weights of %s of %d that did not sum to 1, as glTF loaders do (docs/formats/gltf.md §1.3)",
			what, m.Mesh.VertexCount()))
	}
	notes = append(notes, m.Warnings...)
	notes = append(notes, clipNotes...)
	if files := append(mf.clipFiles(), s.ClipFiles...); len(files) > 0 {
		had := len(m.Clips)
		var added []string
		if added, err = AddClipFiles(m, files, ClipFilesSettings{Retarget: mf.Retarget || s.Retarget, FilesRoot: s.FilesRoot, NoLimits: s.NoLimits, Up: s.Up}); err != nil {
			return nil, err
		}
		notes = append(notes, added...)
		if s.Manifest == nil && len(mf.Clips) > 0 {
			// The model's own extras list its clips: the added ones bake too.
			for _, c := range m.Clips[had:] {
				mf.Clips = append(mf.Clips, ManifestClip{Name: c.Name})
			}
		}
	}
	more, err := shape(m, mf)
	if err != nil {
		return nil, err
	}
	notes = append(notes, more...)
	notes = append(notes, morphNotes(m)...)
	r, names, motions := Source(m)
	job, err := mf.Job(r, names, motions)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	limit, flag := mf.MaxBones, "max_bones"
	if s.MaxBones != 0 {
		limit, flag = s.MaxBones, "Settings.MaxBones"
	}
	limitText := fmt.Sprintf("%s %d", flag, limit)
	if limit == 0 {
		limit = bpat.MaxBones // the default: what the file holds
		limitText = fmt.Sprintf("the %d bones a BPAT file holds (Settings.MaxBones)", limit)
	} else if err := CheckMaxBones(limit); err != nil {
		// The manifest's (Check took the setting's). ReadManifest applied the
		// rule to a manifest read from a file; Settings.Manifest may be one
		// built in code, which only this meets.
		return nil, fmt.Errorf("%s: %s: max_bones %w", path, mf.whereTop(), err)
	}
	var red *Reduction
	if len(m.Joints) > limit {
		if s.NoLimits {
			job.MaxBytes = -1
		}
		if red, err = reduce(m, mf, job, limit, limitText); err != nil {
			if s.MaxBones == 0 && mf.MaxBones != 0 {
				return nil, fmt.Errorf("%s: %w", mf.whereTop(), err) // the manifest's limit, not a flag's
			}
			return nil, &bake.SettingError{Setting: "MaxBones", Err: err}
		}
		notes = append(notes, red.notes()...)
		r, names, motions = Source(m)
		if job, err = mf.Job(r, names, motions); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
	}
	if n := leadIns(job); n != "" {
		notes = append(notes, n)
	}
	if s.NoLimits {
		job.MaxBytes = -1
	}
	for _, name := range s.OneShot {
		i := slices.IndexFunc(job.Clips, func(c bake.Clip) bool { return c.Name == name })
		if old := LegacyClipName(name); i < 0 && old != name {
			if i = slices.IndexFunc(job.Clips, func(c bake.Clip) bool { return c.Name == old }); i >= 0 {
				notes = append(notes, fmt.Sprintf("one-shot %s: unnamed animations are now called %s", name, old))
			}
		}
		if i < 0 {
			return nil, &bake.SettingError{Setting: "OneShot", Err: fmt.Errorf("%s: no clip %q (clips: %s)", path, name, clipNames(job.Clips))}
		}
		job.Clips[i].Loops = false
	}
	if s.InPlace {
		for i := range job.Clips {
			job.Clips[i].InPlace = true
		}
	}
	if s.PlantFeet {
		for i := range job.Clips {
			job.Clips[i].PlantFeet = true
		}
	}
	model := &Model{Path: path, GLTF: m, Job: job, DefaultSpecies: defaulted, Notes: notes, Reduction: red,
		Skin: s.Skin, Scale: scale, Face: face, SnapshotTriangles: snapTris, filesRoot: s.FilesRoot}
	model.gaitRig, err = stride.NewRig(m.Skeleton, m.Joints, gaitOptions(m, mf))
	if err != nil {
		return nil, rigError(path, err, s, mf)
	}
	// Reasons give lengths in metres unless the model's size says its unit
	// is other (the summary's "speeds are in the model's units").
	if model.Size().Hint() == "" {
		model.gaitRig.Unit = "m"
	}
	model.gaitRig.Soles = model.soles()
	model.gaitRig.OffMesh = model.offMesh()
	model.Notes = append(model.Notes, model.plantFeet()...)
	if n := model.removeTravel(); n != "" {
		model.Notes = append(model.Notes, n)
	}
	return model, nil
}

// rigError says what stride.NewRig refused: a foot or root bone the model
// lacks, with the bones close to its name (BoneChoices, as for a socket),
// blamed on the setting that named it (Feet, RootBone) or else the manifest.
func rigError(path string, err error, s Settings, mf *Manifest) error {
	var be *stride.BoneError
	if !errors.As(err, &be) {
		return fmt.Errorf("%s: %w", path, err)
	}
	err = fmt.Errorf("%w; %s", be, BoneChoices(be.Name, be.Bones))
	switch {
	case be.Role == "foot" && len(s.Feet) > 0:
		return &bake.SettingError{Setting: "Feet", Err: fmt.Errorf("%s: %w", path, err)}
	case be.Role != "foot" && s.RootBone != "":
		return &bake.SettingError{Setting: "RootBone", Err: fmt.Errorf("%s: %w", path, err)}
	}
	return fmt.Errorf("%s: %s: %w", path, mf.whereTop(), err)
}

// place scales a model and turns it to face +z (gltf.Model.Scale and
// Face): the one place a bake's model, and every other mesh its snapshot
// reads, is put in the bake's space.
func place(m *gltf.Model, scale float64, face string) error {
	if scale != 0 {
		if err := m.Scale(scale); err != nil {
			return err
		}
	}
	if face != "" {
		return m.Face(face)
	}
	return nil
}

// shape applies the manifest's scale, face and deforming-only choice to the
// model, so that everything made from it (palettes, sockets, meshes, the
// gaits measured) agrees. It returns what the user should be told.
func shape(m *gltf.Model, mf *Manifest) (notes []string, err error) {
	if err := place(m, mf.Scale, mf.Face); err != nil {
		// The manifest's values (Load checked the settings that override
		// them): one built in code, as ReadManifest refuses them in a file.
		return nil, fmt.Errorf("%s: %w", mf.whereTop(), err)
	}
	mf.Face = "" // applied
	if mf.Scale != 0 {
		mf.Sockets = slices.Clone(mf.Sockets)
		for i := range mf.Sockets { // offsets are in the model's own units
			for k := range mf.Sockets[i].Offset {
				mf.Sockets[i].Offset[k] = float32(float64(mf.Sockets[i].Offset[k]) * mf.Scale)
			}
		}
		mf.Scale = 0 // applied
	}
	if !mf.DeformingOnly {
		return nil, nil
	}
	if m.Mesh == nil {
		return nil, &bake.SettingError{Setting: "DeformingOnly", Err: fmt.Errorf("%s: the model has no readable skinned mesh to tell deforming joints by", m.Path)}
	}
	dropped, err := dropUnweighted(m, mf)
	if err != nil {
		return nil, &bake.SettingError{Setting: "DeformingOnly", Err: fmt.Errorf("%s: %w", m.Path, err)}
	}
	if len(dropped) > 0 {
		notes = append(notes, fmt.Sprintf("deforming only: dropped %s that no vertex is weighted to and no socket names (%s); %s left",
			words.Plural(len(dropped), "joint"), strings.Join(dropped, ", "), words.Plural(len(m.Joints), "joint")))
	}
	return notes, nil
}

// leadIns says which clips start at their first key after a lead-in that was
// dropped (docs/formats/gltf.md §3), or "".
func leadIns(j *bake.Job) string {
	var which []string
	for _, c := range j.Clips {
		if mo := j.Motions[c.Motion]; c.Start > 0 && c.Start == mo.Start {
			which = append(which, fmt.Sprintf("%s %.4g s", c.Name, c.Start))
		}
	}
	if len(which) == 0 {
		return ""
	}
	return fmt.Sprintf("dropped the lead-in before the first key of %s (%s: every channel holds its first key there); Settings.KeepLeadIn or a manifest start: keeps t = 0",
		words.Plural(len(which), "clip"), strings.Join(which, ", "))
}

func clipNames(cs []bake.Clip) string {
	names := make([]string, len(cs))
	for i, c := range cs {
		names[i] = strconv.Quote(c.Name)
	}
	return strings.Join(names, ", ")
}
