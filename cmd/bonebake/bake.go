package main

import (
	"cmp"
	_ "embed"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/bonebake/bonebake/bake"
	"github.com/bonebake/bonebake/formats/bpat"
	"github.com/bonebake/bonebake/roster"
	"github.com/bonebake/bonebake/source/gltf"
	"github.com/bonebake/bonebake/source/gltf/gltfbake"
	motsrc "github.com/bonebake/bonebake/source/mot"

	"github.com/spf13/cobra"
)

// bakeHelp is bake --help's text, as it prints: what bake does, then its
// examples under "Examples:". It is a page of prose, edited as prose.
//
//go:embed bake.txt
var bakeHelp string

func newBakeCmd() *cobra.Command {
	var (
		set                    gltfbake.Settings // the flags of a model's settings set it
		snapSet                gltfbake.SnapshotSettings
		out, manifest, pkg     string
		speciesID              uint32
		scale                  float64
		sockets, only          []string
		verbose, snap, snapBig bool
		motFlags               motBakeFlags
	)
	long, example, _ := strings.Cut(strings.TrimSuffix(bakeHelp, "\n"), "\n\nExamples:\n")
	cmd := &cobra.Command{
		Use:     "bake [MODEL.gltf|MODEL.glb|MODEL.fbx|MOTION.bvh -o OUT.bpat | MODEL... -o DIR] [flags]",
		Short:   "Bake the built-in creatures, or a glTF or FBX model's animations, into BPAT files",
		Long:    long,
		Example: example,
		Args:    args(cobra.ArbitraryArgs),
		RunE: func(cmd *cobra.Command, a []string) error {
			flags := cmd.Flags()
			if flags.Changed("clips") {
				if len(a) == 0 {
					return usagef("--clips puts clips on a model: give the model first (bake MODEL.glb --clips A.glb B.glb)")
				}
				// The model is the first argument; the shell's expansion of
				// --clips anims/*.glb leaves the other files as arguments.
				set.ClipFiles, a = append(set.ClipFiles, a[1:]...), a[:1]
			}
			if motFlags.active(flags) {
				return motFlags.run(cmd, a, out, set.FPS)
			}
			if len(a) == 0 {
				return bakeBuiltins(cmd, set, out, pkg, only, verbose)
			}
			if pkg != "" {
				return usagef("--package bakes the built-in creatures; it does not apply to a model")
			}
			if flags.Changed("species") {
				return usagef("--species picks built-in creatures; it does not apply to a model")
			}
			if f := changed(flags, snapshotFlags[1:]...); f != "" && !snap {
				return usagef("--%s needs --snapshot", f)
			}
			if flags.Changed("species-id") {
				set.SpeciesID = &speciesID
			}
			if flags.Changed("scale") { // its default, 1, is no scale given
				set.Scale = scale
			}
			if err := cmp.Or(set.Check(givenSettings(flags)), snapSet.Check(givenSettings(flags))); err != nil {
				return libError(err)
			}
			for _, f := range slices.Concat([]string{snapSet.Mesh}, set.ClipFiles) {
				if f == "" {
					continue
				}
				if err := inputFile(f); err != nil {
					return err
				}
			}
			if manifest != "" {
				mf, err := gltfbake.ReadManifest(manifest)
				if err != nil {
					return err
				}
				set.Manifest = mf
			}
			if err := set.CheckUpUsed(a); err != nil {
				return libError(err)
			}
			for _, s := range sockets {
				ms, err := gltfbake.ParseSocket(s)
				if err != nil {
					return libError(err)
				}
				set.Sockets = append(set.Sockets, ms)
			}
			o := gltfbake.Output{SnapshotAnySize: snapBig}
			if snap {
				o.Snapshot = &snapSet
			}
			if len(a) > 1 {
				return bakeModels(cmd, a, out, set, o)
			}
			model := a[0]
			if out == "" {
				out = gltfbake.BPATPath(model, "")
			}
			if err := cmp.Or(outputFile("-o", out), bpatOutput(out)); err != nil {
				return err
			}
			defer collectLate()()
			o.Progress, o.Check, o.Tell = progress(cmd, "baking "+filepath.Base(model)), checkModel, tell(cmd.OutOrStdout(), cmd.ErrOrStderr(), "")
			return libError(gltfbake.Bake(model, out, set, o).Err)
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&out, "out", "o", "", "output file for a model, ending in .bpat (default: its name with .bpat), folder for several models, or folder for the built-in creatures (default assets/creatures)")
	fl.StringSliceVar(&only, "species", nil, "built-in creatures to bake (comma-separated names; default all)")
	fl.Float64Var(&set.FPS, "fps", 0, fmt.Sprintf("frames per second for every clip (default: %d for a model, %d for --mot, the motions' own rate)", gltfbake.DefaultFPS, motsrc.FPS))
	fl.Uint32Var(&speciesID, "species-id", 0, fmt.Sprintf("species id written in the header (default: the first id not built in; readers accept ids beyond %s with --species)", idRange(roster.IDs())))
	fl.StringSliceVar(&set.OneShot, "one-shot", nil, "clips that play once instead of looping (comma-separated names)")
	fl.StringArrayVar(&sockets, "socket", nil, "a socket as NAME=BONE or NAME=BONE@x,y,z (repeatable)")
	fl.StringVar(&manifest, "manifest", "", "YAML manifest with per-clip settings")
	fl.IntVar(&set.Skin, "skin", 0, "which skin of the model to bake")
	fl.BoolVar(&set.NoLimits, "force", false, fmt.Sprintf("write a file larger than %s, and read a model that decodes to more than %d× its size (a bake's %d frames in all stay its bound)", bytesText(bake.DefaultMaxBytes), gltf.MemoryPerFileByte, bake.MaxFrames))
	fl.StringVar(&set.FilesRoot, "files-root", "", "the folder a model's external buffers and images may come from (default: the model's own folder)")
	fl.BoolVarP(&verbose, "verbose", "v", false, "list every file written")
	fl.BoolVar(&set.KeepLeadIn, "keep-lead-in", false, "start clips at t = 0 instead of at their first key (glTF's time origin; see docs/formats/gltf.md §3)")
	fl.Float64Var(&scale, "scale", 1, "bake the model uniformly scaled (0.01 for a model in centimetres): palettes, sockets and meshes")
	fl.BoolVar(&set.DeformingOnly, "deforming-only", false, "drop joints that no vertex is weighted to and no socket names (IK targets, poles)")
	fl.IntVar(&set.MaxBones, "max-bones", 0, fmt.Sprintf("the most bones to keep, 1-%d (default %[1]d, BPAT's limit): a skin with more joints drops those no vertex is weighted to, then merges its least important leaf joints into their parents and prints the worst vertex deviation", bpat.MaxBones))
	fl.StringSliceVar(&set.Feet, "feet", nil, "the foot bones that measure an in-place clip's ground speed (comma-separated names; default: found by name, then hierarchy)")
	fl.StringVar(&set.RootBone, "root-bone", "", "the bone whose horizontal travel is root motion (default: the feet's common ancestor)")
	fl.BoolVar(&set.InPlace, "in-place", false, "remove the root's horizontal travel from every clip, keeping its measured ground speed (docs/formats/gait.md §4)")
	fl.BoolVar(&set.PlantFeet, "plant-feet", false, "lock each clip's feet to the ground while they stand, at its ground speed, by bending the legs: the bake then differs from the source animation (docs/formats/gait.md §7)")
	fl.StringSliceVar(&set.ClipFiles, "clips", nil, "glTF or BVH files whose animations bake onto the model's skeleton by joint name (the model's other arguments are clip files too)")
	fl.StringVar(&set.Up, "up", "", "a BVH file's up axis, +Y, -Y, +Z, -Z, +X or -X (default: found from its skeleton, docs/formats/bvh.md §4)")
	fl.StringVar(&set.Face, "face", "", "the horizontal axis the model faces, +z, -z, +x or -x (default +z, glTF's forward): the bake turns it about +y to face +z, the runtime's heading 0 (docs/formats/gait.md §8); the summary says which to give")
	fl.BoolVar(&set.Retarget, "retarget", false, "take only rotations from --clips files whose skeleton differs: offsets stay the model's, hips travel scaled by hip height")
	motFlags.add(fl)
	fl.Uint32Var(&set.Version, "bpat-version", 0, "BPAT version to write, 1 or 2 (default: 1 when no clip has a marker, else 2; Standard of Iron reads 2 only)")
	fl.BoolVar(&snap, "snapshot", false, "also write NAME_minimal.bpsm next to the BPAT: a far-LOD mesh skinned at every frame (docs/formats/bpsm.md §7)")
	fl.IntVar(&snapSet.Triangles, "snapshot-triangles", 0, fmt.Sprintf("triangle budget the model's mesh is simplified to for the snapshot (default: the manifest's snapshot_triangles, else %d)", gltfbake.DefaultSnapshotTriangles))
	fl.StringVar(&snapSet.Mesh, "snapshot-mesh", "", "a glTF model whose skinned mesh is the snapshot's, bound to this model's skeleton by joint names (instead of simplifying)")
	fl.IntVar(&snapSet.LOD, "snapshot-lod", -1, "which MSFT_lod level of the model is the snapshot's mesh: -1 the coarsest, 0 none (simplify the full mesh), k the k-th")
	fl.Float64Var(&snapSet.FPS, "snapshot-fps", 0, "store snapshot clips at this frame rate, at most their own (default: each clip's own)")
	fl.BoolVar(&snapBig, "snapshot-any-size", false, fmt.Sprintf("write a snapshot over %s (as --force does, for the snapshot alone)", bytesText(bake.DefaultMaxBytes)))
	fl.StringVar(&pkg, "package", "", "bake the built-in creatures into one BPX package (OUT.bpx) instead of a folder")
	return cmd
}

// snapshotFlags are the flags of a model's far-LOD snapshot.
var snapshotFlags = []string{"snapshot", "snapshot-triangles", "snapshot-mesh", "snapshot-lod", "snapshot-fps", "snapshot-any-size"}

// checkModel refuses a file that is missing, a folder, or not a model, naming
// what it is.
func checkModel(model string) error {
	if err := inputFile(model); err != nil {
		return err
	}
	if kind, err := sniff(model); err != nil {
		return err
	} else if !isModel(kind) {
		return fmt.Errorf("%s: %s, not a model: bake reads skinned glTF 2.0 models (.gltf, .glb), FBX 7 models (.fbx) and BVH motion capture (.bvh)", model, kind)
	}
	return nil
}

// bpatOutput refuses a model's -o that does not end in .bpat, as export-gltf
// and --package refuse theirs: the runtime and view load a folder's .bpat
// files, and the gait sidecar and snapshot are named after the part before
// the extension, so "-o fox" would write files nothing finds.
func bpatOutput(out string) error {
	if strings.EqualFold(filepath.Ext(out), ".bpat") {
		return nil
	}
	return usagef("-o %s: bake writes a .bpat file, the name the runtime and view load (its gait sidecar and snapshot are named after it): write -o %s",
		out, strings.TrimSuffix(out, filepath.Ext(out))+".bpat")
}
