package main

import (
	"cmp"
	_ "embed"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/bonebake/bonebake/bake"
	"github.com/bonebake/bonebake/pack"
	"github.com/bonebake/bonebake/source/gltf/gltfbake"
	"github.com/bonebake/bonebake/species"
	"github.com/bonebake/bonebake/species/creatures"

	"github.com/spf13/cobra"
)

// bakeHelp is bake --help's text, as it prints: what bake does, then its
// examples under "Examples:". It is a page of prose, edited as prose.
//
//go:embed bake.txt
var bakeHelp string

func newBakeCmd() *cobra.Command {
	var (
		model                  modelFlags
		snapSet                gltfbake.SnapshotSettings
		out, pkg               string
		only                   []string
		verbose, snap, snapBig bool
		motFlags               motBakeFlags
	)
	long, example, _ := strings.Cut(strings.TrimSuffix(bakeHelp, "\n"), "\n\nExamples:\n")
	cmd := &cobra.Command{
		Use:     "bake [MODEL.gltf|MODEL.glb|MODEL.fbx|MOTION.bvh -o OUT.bpat | MODEL... -o DIR] [flags]",
		Short:   "Bake the built-in creatures, or a glTF, FBX or BVH model's animations, into BPAT files",
		Long:    long,
		Example: example,
		Args:    args(cobra.ArbitraryArgs),
		RunE: func(cmd *cobra.Command, a []string) error {
			flags := cmd.Flags()
			a, err := clipArgs(cmd, &model.set, a)
			mot := motFlags.active(flags)
			builtins, models := !mot && len(a) == 0, !mot && len(a) > 0
			switch err := cmp.Or(err, refuseFlags(flags, []flagRule{
				{mot, []string{"clips", "retarget", "up", "plant-feet", "face"}, "applies to a glTF model's bake, not to --mot"},
				{mot, []string{"bpat-version"}, "applies to a glTF model or the built-in creatures"},
				{mot, []string{"species", "one-shot", "socket", "manifest"}, "does not apply to --mot"},
				{builtins, snapshotFlags, "applies to a model: the built-in creatures always get their snapshot meshes"},
				{builtins, bakeModelFlags, "applies to a model; the built-in creatures carry their own settings"},
				{builtins && pkg != "", []string{"out", "verbose"}, "does not apply to --package: the package is the one file written (--package OUT.bpx)"},
				{models && pkg != "", []string{"package"}, "bakes the built-in creatures; it does not apply to a model"},
				{models, []string{"species"}, "picks built-in creatures; it does not apply to a model"},
				{models && !snap, snapshotFlags[1:], "needs --snapshot"},
			})); {
			case err != nil:
				return err
			case mot:
				return motFlags.run(cmd, a, out, &model)
			case builtins:
				return bakeBuiltins(cmd, model.set, out, pkg, only, verbose)
			}
			set, err := model.settings(flags) // the settings as the library checks them (the files they name: BakeAll)
			if err := cmp.Or(err, libError(snapSet.Check(givenSettings(flags)))); err != nil {
				return err
			}
			what := fmt.Sprintf("%d models", len(a)) // what the progress bar says is baking
			if len(a) == 1 {
				what = filepath.Base(a[0])
			}
			o := gltfbake.FolderOutput{Out: out, // its paths checked, and its folders made, by the library
				Output: gltfbake.Output{SnapshotAnySize: snapBig, Tell: tell(cmd.OutOrStdout(), cmd.ErrOrStderr()), Progress: progress(cmd, "baking "+what)}}
			if snap {
				o.Snapshot = &snapSet
			}
			growStack()
			defer paceGC(len(a))()
			return libError(gltfbake.BakeAll(a, set, o))
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&out, "out", "o", "", "output file for a model, ending in .bpat (default: its name with .bpat), folder for several models, or folder for the built-in creatures (default "+species.DefaultDir+")")
	fl.StringSliceVar(&only, "species", nil, "built-in creatures to bake (comma-separated names; default all)")
	fl.BoolVarP(&verbose, "verbose", "v", false, "list every file written")
	model.add(fl, append(bakeModelFlags, "force", "bpat-version")...)
	motFlags.add(fl)
	fl.BoolVar(&snap, "snapshot", false, "also write NAME_minimal.bpsm next to the BPAT: a far-LOD mesh skinned at every frame (docs/formats/bpsm.md §7)")
	fl.IntVar(&snapSet.Triangles, "snapshot-triangles", 0, fmt.Sprintf("triangle budget the model's mesh is simplified to for the snapshot (default: the manifest's snapshot_triangles, else %d)", gltfbake.DefaultSnapshotTriangles))
	fl.StringVar(&snapSet.Mesh, "snapshot-mesh", "", "a glTF model whose skinned mesh is the snapshot's, bound to this model's skeleton by joint names (instead of simplifying)")
	fl.IntVar(&snapSet.LOD, "snapshot-lod", -1, "which MSFT_lod level of the model is the snapshot's mesh: -1 the coarsest, 0 none (simplify the full mesh), k the k-th")
	fl.Float64Var(&snapSet.FPS, "snapshot-fps", 0, "store snapshot clips at this frame rate, at most their own (default: each clip's own)")
	fl.BoolVar(&snapBig, "snapshot-any-size", false, fmt.Sprintf("write a snapshot over %s (as --force does, for the snapshot alone)", bytesText(bake.DefaultMaxBytes)))
	fl.StringVar(&pkg, "package", "", "bake the built-in creatures into one BPX package (OUT.bpx) instead of a folder")
	return cmd
}

// bakeModelFlags are bake's flags of a model's settings that the built-in
// creatures, which carry their own settings, refuse.
var bakeModelFlags = []string{"fps", "species-id", "one-shot", "socket", "manifest", "skin", "keep-lead-in", "scale", "deforming-only",
	"max-bones", "feet", "root-bone", "in-place", "plant-feet", "clips", "retarget", "up", "face", "files-root"}

// snapshotFlags are the flags of a model's far-LOD snapshot.
var snapshotFlags = []string{"snapshot", "snapshot-triangles", "snapshot-mesh", "snapshot-lod", "snapshot-fps", "snapshot-any-size"}

// bakeBuiltins writes the chosen built-in creatures into dir (default
// species.DefaultDir), or into the package pkg when it is given. Of a model's
// settings only the BPAT version applies (set.Version, 2 or none).
func bakeBuiltins(cmd *cobra.Command, set gltfbake.Settings, dir, pkg string, only []string, verbose bool) error {
	if err := cmp.Or(set.Check(givenSettings(cmd.Flags())), species.CheckVersion(set.Version)); err != nil {
		return libError(err) // --bpat-version, the one left
	}
	if strings.EqualFold(filepath.Ext(dir), ".bpat") {
		return usagef("-o %s: with no model, --out is the folder for the built-in creatures; give a model to bake into one .bpat file", dir)
	}
	chosen, err := creatures.Pick(only)
	if err != nil {
		return usagef("--species %v", err)
	}
	t := tell(cmd.OutOrStdout(), cmd.ErrOrStderr())
	if pkg != "" {
		// Any name, as bpx pack's -o: readers tell a package by its first
		// bytes, not its extension, and a game may dictate the name.
		if err := outputFile("--package", pkg); err != nil {
			return err
		}
		_, err := pack.Creatures(pkg, chosen, t, bytesProgress(progressSince(cmd, "compressing "+filepath.Base(pkg), time.Now())))
		return err
	}
	return species.WriteAll(chosen, cmp.Or(dir, species.DefaultDir), func(name string) func(int, int) { return progress(cmd, "baking "+name) }, func(l bake.Line) {
		if verbose || l.Kind != bake.Wrote { // -v lists every file written
			t(l)
		}
	})
}
