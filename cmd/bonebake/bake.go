package main

import (
	"cmp"
	_ "embed"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/bonebake/bonebake/bake"
	"github.com/bonebake/bonebake/source/gltf/gltfbake"

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
		Short:   "Bake the built-in creatures, or a glTF or FBX model's animations, into BPAT files",
		Long:    long,
		Example: example,
		Args:    args(cobra.ArbitraryArgs),
		RunE: func(cmd *cobra.Command, a []string) error {
			flags := cmd.Flags()
			a, err := clipArgs(cmd, &model.set, a)
			switch {
			case err != nil:
				return err
			case motFlags.active(flags):
				return motFlags.run(cmd, a, out, &model)
			case len(a) == 0:
				return bakeBuiltins(cmd, model.set, out, pkg, only, verbose)
			case pkg != "":
				return usagef("--package bakes the built-in creatures; it does not apply to a model")
			case flags.Changed("species"):
				return usagef("--species picks built-in creatures; it does not apply to a model")
			}
			if f := changed(flags, snapshotFlags[1:]...); f != "" && !snap {
				return usagef("--%s needs --snapshot", f)
			}
			set, err := model.settings(flags)
			if err := cmp.Or(err, libError(snapSet.Check(givenSettings(flags)))); err != nil {
				return err
			}
			for _, f := range slices.Concat([]string{snapSet.Mesh}, set.ClipFiles) {
				if err := inputFile(f); f != "" && err != nil {
					return err
				}
			}
			if err := set.CheckUpUsed(a); err != nil {
				return libError(err)
			}
			o := gltfbake.Output{SnapshotAnySize: snapBig}
			if snap {
				o.Snapshot = &snapSet
			}
			if len(a) > 1 {
				return bakeModels(cmd, a, out, set, o)
			}
			if out == "" {
				out = gltfbake.BPATPath(a[0], "")
			}
			if err := cmp.Or(outputFile("-o", out), bpatOutput(out)); err != nil {
				return err
			}
			defer collectLate()()
			o.Progress, o.Check, o.Tell = progress(cmd, "baking "+filepath.Base(a[0])), checkModel, tell(cmd.OutOrStdout(), cmd.ErrOrStderr(), "")
			return libError(gltfbake.Bake(a[0], out, set, o).Err)
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&out, "out", "o", "", "output file for a model, ending in .bpat (default: its name with .bpat), folder for several models, or folder for the built-in creatures (default assets/creatures)")
	fl.StringSliceVar(&only, "species", nil, "built-in creatures to bake (comma-separated names; default all)")
	fl.BoolVarP(&verbose, "verbose", "v", false, "list every file written")
	model.add(fl, append(bakeModelFlags, "force", "files-root", "bpat-version")...)
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
	"max-bones", "feet", "root-bone", "in-place", "plant-feet", "clips", "retarget", "up", "face"}

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
