package main

import (
	"fmt"

	"github.com/bonebake/bonebake/bake"
	"github.com/bonebake/bonebake/formats/bpat"
	"github.com/bonebake/bonebake/internal/iopath"
	"github.com/bonebake/bonebake/roster"
	"github.com/bonebake/bonebake/source/gltf"
	"github.com/bonebake/bonebake/source/gltf/gltfbake"
	motsrc "github.com/bonebake/bonebake/source/mot"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// modelFlags are the flags of a model's settings (gltfbake.Settings) on the
// commands that bake models (bake, bat, view): each is declared here once,
// with one help, and the given ones become Settings in one place (settings).
type modelFlags struct {
	set       gltfbake.Settings // the flags that are a field as they are set it
	scale     float64           // Settings.Scale once given: its default, 1, is no scale given
	speciesID uint32            // Settings.SpeciesID once given
	sockets   []string          // Settings.Sockets once parsed
	manifest  string            // Settings.Manifest once read
}

// add declares on fl the model flags named.
func (m *modelFlags) add(fl *pflag.FlagSet, names ...string) {
	all, s := pflag.NewFlagSet("model", pflag.ContinueOnError), &m.set
	all.Float64Var(&s.FPS, "fps", 0, fmt.Sprintf("frames per second for every clip (default: %d for a model; motion files keep their own rate, %d, and the built-in creatures theirs)", gltfbake.DefaultFPS, motsrc.FPS))
	all.Uint32Var(&m.speciesID, "species-id", 0, fmt.Sprintf("species id written in the header (default: the first id not built in; readers accept ids beyond %s with --species)", idRange(roster.IDs())))
	all.StringSliceVar(&s.OneShot, "one-shot", nil, "clips that play once instead of looping (comma-separated names)")
	all.StringArrayVar(&m.sockets, "socket", nil, "a socket as NAME=BONE or NAME=BONE@x,y,z (repeatable)")
	all.StringVar(&m.manifest, "manifest", "", "YAML manifest with per-clip settings")
	all.IntVar(&s.Skin, "skin", 0, "which skin of the model to bake")
	all.BoolVar(&s.NoLimits, "force", false, fmt.Sprintf("write a file larger than %s, and read a model that decodes to more than %d× its size (a bake's %d frames in all stay its bound)", bytesText(bake.DefaultMaxBytes), gltf.MemoryPerFileByte, bake.MaxFrames))
	all.StringVar(&s.FilesRoot, "files-root", "", "the folder a model's external buffers and images may come from (default: the model's own folder)")
	all.BoolVar(&s.KeepLeadIn, "keep-lead-in", false, "start clips at t = 0 instead of at their first key (glTF's time origin; see docs/formats/gltf.md §3)")
	all.Float64Var(&m.scale, "scale", 1, "bake the model uniformly scaled (0.01 for a model in centimetres): palettes, sockets and meshes")
	all.BoolVar(&s.DeformingOnly, "deforming-only", false, "drop joints that no vertex is weighted to and no socket names (IK targets, poles)")
	all.IntVar(&s.MaxBones, "max-bones", 0, fmt.Sprintf("the most bones to keep, 1-%d (default %[1]d, BPAT's limit): a skin with more joints drops those no vertex is weighted to, then merges its least important leaf joints into their parents and prints the worst vertex deviation", bpat.MaxBones))
	all.StringSliceVar(&s.Feet, "feet", nil, "the foot bones that measure an in-place clip's ground speed (comma-separated names; default: found by name, then hierarchy)")
	all.StringVar(&s.RootBone, "root-bone", "", "the bone whose horizontal travel is root motion (default: the feet's common ancestor)")
	all.BoolVar(&s.InPlace, "in-place", false, "remove the root's horizontal travel from every clip, keeping its measured ground speed (docs/formats/gait.md §4)")
	all.BoolVar(&s.PlantFeet, "plant-feet", false, "lock each clip's feet to the ground while they stand, at its ground speed, by bending the legs: the bake then differs from the source animation (docs/formats/gait.md §7)")
	all.StringSliceVar(&s.ClipFiles, "clips", nil, "glTF, FBX or BVH files whose animations bake onto the model's skeleton by joint name (the model's other arguments are clip files too)")
	all.StringVar(&s.Up, "up", "", "a BVH file's up axis, +Y, -Y, +Z, -Z, +X or -X (default: found from its skeleton, docs/formats/bvh.md §4)")
	all.StringVar(&s.Face, "face", "", "the horizontal axis the model faces, +z, -z, +x or -x (default +z, glTF's forward): the bake turns it about +y to face +z, the runtime's heading 0 (docs/formats/gait.md §8); the summary says which to give")
	all.BoolVar(&s.Retarget, "retarget", false, "take only rotations from --clips files whose skeleton differs: offsets stay the model's, hips travel scaled by hip height")
	all.Uint32Var(&s.Version, "bpat-version", 0, "BPAT version to write, 1 or 2 (default: 1 when no clip has a marker, else 2; Standard of Iron reads 2 only)")
	for _, name := range names {
		fl.AddFlag(all.Lookup(name))
	}
}

// settings is the Settings the command line gives, checked as the library
// checks them (Settings.Check: a flag given is checked, zero or not), with
// the manifest read and the sockets parsed.
func (m *modelFlags) settings(fl *pflag.FlagSet) (gltfbake.Settings, error) {
	set := m.set
	if fl.Changed("species-id") {
		id := m.speciesID
		set.SpeciesID = &id
	}
	if fl.Changed("scale") {
		set.Scale = m.scale
	}
	if err := set.Check(givenSettings(fl)); err != nil {
		return set, libError(err)
	}
	if m.manifest != "" {
		if err := iopath.Input(m.manifest); err != nil {
			return set, err
		}
		mf, err := gltfbake.ReadManifest(m.manifest)
		if err != nil {
			return set, err
		}
		set.Manifest = mf
	}
	for _, s := range m.sockets {
		ms, err := gltfbake.ParseSocket(s)
		if err != nil {
			return set, libError(err)
		}
		set.Sockets = append(set.Sockets, ms)
	}
	return set, nil
}

// clipArgs moves the arguments after a model given --clips into set's clip
// files, leaving the model: the shell's expansion of --clips anims/*.glb
// leaves the other files as arguments.
func clipArgs(cmd *cobra.Command, set *gltfbake.Settings, a []string) ([]string, error) {
	if !cmd.Flags().Changed("clips") {
		return a, nil
	}
	if len(a) == 0 {
		return nil, usagef("--clips puts clips on a model: give the model first (%s MODEL.glb --clips A.glb B.glb)", cmd.Name())
	}
	set.ClipFiles = append(set.ClipFiles, a[1:]...)
	return a[:1], nil
}
