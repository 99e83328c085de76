package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"bonebake/bake"
	"bonebake/format/bpat"
	"bonebake/species"
	"bonebake/species/builtin"

	"github.com/spf13/cobra"
)

// bakeBuiltins writes the chosen built-in creatures into dir.
func bakeBuiltins(cmd *cobra.Command, dir string, only []string) error {
	chosen, err := pickSpecies(only)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	start := time.Now()
	w := cmd.OutOrStdout()
	for _, s := range chosen {
		path := filepath.Join(dir, s.Name+".bpat")
		j, err := bake.FromSpecies(s)
		if err != nil {
			return err
		}
		j.Progress = progress(cmd, "baking "+s.Name)
		if err := bake.BakeFile(path, j); err != nil {
			return fmt.Errorf("%s: %w", s.Name, err)
		}
		f, err := bpat.Open(path, knownSpecies)
		if err != nil {
			return fmt.Errorf("baked file does not validate: %w", err)
		}
		h := f.Header()
		fmt.Fprintf(w, "wrote %s: BPAT v%d, species %d, %d bones, %d clips, %d frames, %d sockets, %d bytes\n",
			path, h.Version, h.SpeciesID, h.BoneCount, h.ClipCount, h.FrameTotal, h.SocketCount, f.Size())
		if s.Minimal != nil {
			snap := filepath.Join(dir, s.Name+"_minimal.bpsm")
			n, err := bake.SnapshotFile(snap, s, f)
			if err != nil {
				f.Close()
				return fmt.Errorf("%s: %w", s.Name, err)
			}
			fmt.Fprintf(w, "wrote %s: BPSM minimal LOD, %d vertices, %d triangles, %d frames, %d bytes\n",
				snap, s.Minimal.VertexCount(), s.Minimal.TriangleCount(), h.FrameTotal, n)
		}
		f.Close()
	}
	fmt.Fprintf(w, "baked %d creatures in %.0f ms\n", len(chosen), float64(time.Since(start).Microseconds())/1000)
	return nil
}

// pickSpecies resolves --species names (all when empty).
func pickSpecies(only []string) ([]*species.Species, error) {
	if len(only) == 0 {
		return builtin.All(), nil
	}
	var out []*species.Species
	for _, name := range only {
		s := builtin.ByName(strings.TrimSpace(name))
		if s == nil {
			return nil, usagef("--species %q: no such built-in creature (there are: %s)", name, strings.Join(builtin.Names(), ", "))
		}
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out, nil
}
