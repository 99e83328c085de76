package main

import (
	"path/filepath"
	"strings"

	"github.com/bonebake/bonebake/bake"
	"github.com/bonebake/bonebake/source/gltf/gltfbake"
	"github.com/bonebake/bonebake/species"
	"github.com/bonebake/bonebake/species/creatures"

	"github.com/spf13/cobra"
)

// bakeBuiltins writes the chosen built-in creatures into dir (default
// assets/creatures), or into the package pkg when it is given. Of a model's
// settings only the BPAT version applies (set.Version, 2 or none).
func bakeBuiltins(cmd *cobra.Command, set gltfbake.Settings, dir, pkg string, only []string, verbose bool) error {
	flags := cmd.Flags()
	if f := changed(flags, snapshotFlags...); f != "" {
		return usagef("--%s applies to a model: the built-in creatures always get their snapshot meshes", f)
	}
	if f := changed(flags, bakeModelFlags...); f != "" {
		return usagef("--%s applies to a model; the built-in creatures carry their own settings", f)
	}
	if err := set.Check(givenSettings(flags)); err != nil { // --bpat-version, the one left
		return libError(err)
	}
	if set.Version == 1 {
		return usagef("--bpat-version 1: the built-in creatures have combat markers, which only v2 stores")
	}
	if f := changed(flags, "out", "verbose"); pkg != "" && f != "" {
		return usagef("--%s does not apply to --package: the package is the one file written (--package OUT.bpx)", f)
	}
	if dir == "" {
		dir = filepath.Join("assets", "creatures")
	} else if strings.EqualFold(filepath.Ext(dir), ".bpat") {
		return usagef("-o %s: with no model, --out is the folder for the built-in creatures; give a model to bake into one .bpat file", dir)
	}
	chosen, err := creatures.Pick(only)
	if err != nil {
		return usagef("--species %v", err)
	}
	if pkg != "" {
		return bakePackage(cmd, pkg, chosen)
	}
	t := tell(cmd.OutOrStdout(), cmd.ErrOrStderr(), "")
	bar := func(name string) func(int, int) { return progress(cmd, "baking "+name) }
	return species.WriteAll(chosen, dir, bar, func(l bake.Line) {
		if verbose || l.Kind != bake.Wrote { // -v lists every file written
			t(l)
		}
	})
}
