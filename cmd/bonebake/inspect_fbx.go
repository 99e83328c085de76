package main

import (
	"fmt"
	"strings"

	"github.com/bonebake/bonebake/source/fbx"
	"github.com/bonebake/bonebake/source/gltf/gltfbake"

	"github.com/spf13/cobra"
)

func inspectFBX(cmd *cobra.Command, path string, asJSON bool) error {
	info, err := fbx.Inspect(path)
	if err != nil {
		return err
	}
	size := measureModel(path)
	w := cmd.OutOrStdout()
	if asJSON {
		return writeJSON(w, struct {
			*fbx.Info
			sizeReport
		}{info, size})
	}
	enc := "ASCII"
	if info.Binary {
		enc = "binary"
	}
	fmt.Fprintf(w, "%s: FBX %d (%s), %s up, %g m per unit, %s\n", path, info.Version, enc, info.UpAxis, info.UnitScale, plural(info.Models, "model"))
	what := "a character"
	if !info.Skinned {
		what = "animation only (no skin): give it to a character with --clips"
	}
	fmt.Fprintf(w, "%s; %s: %s\n", what, plural(len(info.Bones), "bone"), strings.Join(info.Bones[:min(len(info.Bones), 8)], ", ")+map[bool]string{true: ", …", false: ""}[len(info.Bones) > 8])
	size.print(w)
	for _, m := range info.Meshes {
		fmt.Fprintf(w, "  mesh %s: %d vertices, %s\n", shown(m.Name), m.Vertices, m.How)
	}
	fmt.Fprintf(w, "%s:\n", plural(len(info.Clips), "clip"))
	names := make([]string, len(info.Clips))
	for i, c := range info.Clips {
		names[i] = c.Name
	}
	baked := names
	if info.Skinned { // a character: bake names its own clips
		baked = gltfbake.OwnClipNames(path, names)
	}
	for i, c := range info.Clips {
		name := shown(c.Name)
		if baked[i] != c.Name {
			name += " (bakes as " + shown(baked[i]) + ")"
		}
		fmt.Fprintf(w, "  %s  %.3f s to %.3f s, moves %s\n", name, c.Start, c.End, plural(c.Bones, "bone"))
	}
	for _, s := range info.Warnings {
		fmt.Fprintf(w, "note: %s\n", s)
	}
	return nil
}
