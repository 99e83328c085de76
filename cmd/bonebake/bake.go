package main

import (
	"cmp"
	"fmt"
	"io"
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
	cmd := &cobra.Command{
		Use:   "bake [MODEL.gltf|MODEL.glb|MODEL.fbx|MOTION.bvh -o OUT.bpat | MODEL... -o DIR] [flags]",
		Short: "Bake the built-in creatures, or a glTF or FBX model's animations, into BPAT files",
		Long: `With no model, bake the built-in creatures (humanoid, horse, elephant,
humanoid_sword, humanoid_spear, humanoid_skeleton) into --out DIR (default
assets/creatures): <name>.bpat and <name>_minimal.bpsm (its far-LOD snapshot
mesh) for each. --species picks some of them.

With a model, bake every animation of a skinned glTF 2.0 model (.gltf or .glb), or
of an FBX 7 model (.fbx; docs/formats/fbx.md), into a BPAT file
of model-space bone palettes: one clip per animation, all looping, at 30 fps unless
told otherwise. Bones are the skin's joints in joint order, so a vertex's JOINTS_0
index is its palette index. -o names the file and must end in .bpat (default: the
model's name with .bpat): the runtime and view load .bpat files, and the files
written beside it take its name (-o fox is refused: write -o fox.bpat). A clip
is named as its animation is, except an exporter's take name (Mixamo's
"mixamo.com" on every file, "Take 001"), which gives way to the model's file
name; a name already taken in the file gets _2, _3 (docs/formats/gltf.md §3).

With several models, -o names a folder: each model bakes into DIR/NAME.bpat with
the same flags, or with NAME.yaml beside it as its manifest when there is one and
--manifest is not given. The models bake in parallel across cores (as many at a
time as there are cores, so memory stays that of the largest few); each gets its
lines (notes, hints and warnings prefixed with its path, then its summary or its
error) in the order given, then a total. A model that fails does not stop the
others; the exit status is 1 when any failed. Each file is byte-identical to the
model's single bake.

--clips bakes the animations of other glTF files onto the model's skeleton, by
joint name (docs/formats/gltf.md §7): Mixamo's one file per animation. With
--clips, the model is the first argument and every other argument is a clip
file too, so 'bake hero.glb --clips anims/*.glb' takes them all. A clip file
whose skeleton differs from the model's is refused unless --retarget.

Each clip's ground speed is measured, from root motion or the planted feet, and
written with its cycle to NAME.gait.json beside NAME.bpat, the speed a game moves
the unit at (docs/formats/gait.md); a 'gait:' line per clip says what was found.
With confidence 0.8 or more no planted foot slides over 5 % of the distance
travelled; below it the line names the foot that slides and how far, and
--plant-feet locks the feet to the ground in the bake.

A model written by 'bonebake export-gltf' carries its clips' fps, loop flags and
markers, its species id and its sockets, and bakes back into the same clips,
sockets and species id, with palettes within 5e-6 of the creature's own bake (not
bit for bit: the file holds float32 keys).

A manifest (YAML, --manifest) says what flags cannot: per-clip fps, loop flags,
combat markers, time ranges and renames. --fps, --species-id and --bpat-version
override the manifest's top-level values; --socket adds to its sockets; --one-shot
applies to the clips it names.

A file is BPAT v1 when no clip has a marker and v2 otherwise, unless --bpat-version
(or the manifest's bpat_version) asks. Standard of Iron, the game the format comes
from, reads v2 only and species ids 0-5 only: bake with --bpat-version 2 and
--species-id 0-5 for a file meant for it (bake warns otherwise).

A BVH motion capture file bakes as a model too (docs/formats/bvh.md): on its
own skeleton, without a mesh, at its own frame rate, its up axis and units
found from the skeleton (--up and --scale give them); or as a --clips file onto
a character, by joint name.

With --mot and --rig, bake PlatinumGames motion files onto a skinned glTF model's
joints (docs/formats/mot.md §12–13): one clip per motion, named after it, at 60 fps
unless --fps, looping as its header says; --gltf writes the result as glTF too.`,
		Example: `  bonebake bake
  bonebake bake --out build/creatures --species horse,humanoid_sword
  bonebake bake Fox.glb -o fox.bpat --scale 0.01 --fps 60 --one-shot Survey
  bonebake bake hero.gltf -o hero.bpat --socket hand_r=RightHand@0,0.1,0
  bonebake bake Fox.glb --scale 0.01 --plant-feet -o fox.bpat
  bonebake bake hero.gltf -o hero.bpat --manifest hero.yaml
  bonebake bake characters/*.glb -o baked/ --fps 60
  bonebake bake ybot.glb --clips walking.glb flair.glb -o ybot.bpat
  bonebake bake walk.bvh -o walk.bpat
  bonebake bake Soldier.glb --clips walk.bvh -o soldier.bpat
  bonebake bake --mot pl0010_0000.mot --rig pl0010.glb -o pl0010.bpat --gltf pl0010_anim.glb`,
		Args: args(cobra.ArbitraryArgs),
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
				out = strings.TrimSuffix(filepath.Base(model), filepath.Ext(model)) + ".bpat"
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

// tell prints a bake's report (bake.Line) as the command line words it: what
// was written on outw, the rest on errw, settings named as flags (flagWords);
// in a bake of several models, what was found in one has its path as prefix.
func tell(outw, errw io.Writer, prefix string) func(bake.Line) {
	return func(l bake.Line) {
		switch text := flagWords(l.Text); l.Kind {
		case bake.Wrote, bake.Total:
			fmt.Fprintln(outw, text)
		case bake.Doing:
			fmt.Fprintln(errw, "bonebake:", text)
		default:
			fmt.Fprintln(errw, prefix+text)
		}
	}
}

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
