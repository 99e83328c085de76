package main

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

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
	if f := changed(flags, "fps", "species-id", "one-shot", "socket", "manifest", "skin", "keep-lead-in", "scale", "deforming-only", "max-bones", "feet", "root-bone", "in-place", "plant-feet", "clips", "retarget", "up"); f != "" {
		return usagef("--%s applies to a model; the built-in creatures carry their own settings", f)
	}
	if err := set.Check(givenSettings(flags)); err != nil { // --bpat-version, the one left
		return libError(err)
	}
	if set.Version == 1 {
		return usagef("--bpat-version 1: the built-in creatures have combat markers, which only v2 stores")
	}
	if pkg != "" {
		if f := changed(cmd.Flags(), "out", "verbose"); f != "" {
			return usagef("--%s does not apply to --package: the package is the one file written (--package OUT.bpx)", f)
		}
		return bakePackage(cmd, pkg, only)
	}
	if dir == "" {
		dir = filepath.Join("assets", "creatures")
	} else if strings.EqualFold(filepath.Ext(dir), ".bpat") {
		return usagef("-o %s: with no model, --out is the folder for the built-in creatures; give a model to bake into one .bpat file", dir)
	}
	chosen, err := pickSpecies(only)
	if err != nil {
		return err
	}
	start := time.Now()
	w := cmd.OutOrStdout()
	var files int
	var size int64
	for _, s := range chosen {
		written, err := s.WriteFiles(dir, progress(cmd, "baking "+s.Name))
		if err != nil {
			return err
		}
		for _, f := range written {
			files++
			size += f.Size
			if verbose {
				fmt.Fprintf(w, "wrote %s: %s, %s\n", f.Path, f.Holds, bytesText(f.Size))
			}
		}
	}
	fmt.Fprintf(w, "baked %s into %s: %s, %s, %s, in %s\n", plural(len(chosen), "creature"), dir,
		plural(files, "file"), bytesText(size), builtinVersionText(chosen), tookText(time.Since(start)))
	return nil
}

// pickSpecies resolves --species names (all when empty).
func pickSpecies(only []string) ([]*species.Creature, error) {
	if len(only) == 0 {
		return creatures.All(), nil
	}
	var out []*species.Creature
	for _, name := range only {
		s := creatures.ByName(strings.TrimSpace(name))
		if s == nil {
			return nil, usagef("--species %q: no such built-in creature (there are: %s)", name, strings.Join(creatures.Names(), ", "))
		}
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out, nil
}

// builtinVersionText names the BPAT version of the built-in files and why: v2,
// the version their combat markers need (docs/formats/bpat.md §2), unless none of
// the chosen creatures has a marker.
func builtinVersionText(chosen []*species.Creature) string {
	for _, s := range chosen {
		for _, c := range s.Clips {
			if c.Markers.Any() {
				return "BPAT v2 (their clips have combat markers)"
			}
		}
	}
	return "BPAT v1 (no clip has a marker)"
}
