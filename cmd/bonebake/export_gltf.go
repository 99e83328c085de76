package main

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/bonebake/bonebake/source/gltf"
	"github.com/bonebake/bonebake/species/creatures"

	"github.com/spf13/cobra"
)

func newExportGLTFCmd() *cobra.Command {
	var out string
	cmd := &cobra.Command{
		Use:   "export-gltf SPECIES -o FILE.glb",
		Short: "Write a built-in creature as a standard glTF file: mesh, skin and clips",
		Long: `Write a built-in creature (humanoid, horse, elephant, humanoid_sword,
humanoid_spear, humanoid_skeleton) as glTF 2.0: its skeleton as nodes, its skinned
mesh with inverse bind matrices, and every clip as an animation keyed at the baked
frame times. Any glTF viewer opens it. The clips' fps, loop flags and markers and
the creature's species id and sockets are kept in extras, so 'bonebake bake FILE'
bakes it back into the same clips, sockets and species id, and palettes within
5e-6 of the creature's own bake (not bit for bit: the file holds each key as
float32 translation, rotation and scale, composed again by the bake). A .gltf name writes JSON with an embedded
buffer; anything else binary glTF.`,
		Example: `  bonebake export-gltf horse -o horse.glb`,
		Args:    args(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, a []string) error {
			s := creatures.ByName(a[0])
			if s == nil {
				return usagef("no built-in creature %q (there are: %s)", a[0], strings.Join(creatures.Names(), ", "))
			}
			if out == "" {
				out = s.Name + ".glb"
			}
			if err := outputFile("-o", out); err != nil {
				return err
			}
			if ext := strings.ToLower(filepath.Ext(out)); ext != ".glb" && ext != ".gltf" {
				return usagef("-o %s: export-gltf writes .glb (binary) or .gltf (JSON with an embedded buffer) files; name the output so", out)
			}
			if err := gltf.WriteFile(out, s.ExportGLTF()); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "wrote %s: %s, %s, %s, %s, %s\n",
				out, s.Name, plural(s.Skeleton.Len(), "bone"), plural(s.Mesh.VertexCount(), "vertex"), plural(s.Mesh.TriangleCount(), "triangle"), plural(len(s.Clips), "clip"))
			return nil
		},
	}
	cmd.Flags().StringVarP(&out, "out", "o", "", "output file (default SPECIES.glb)")
	return cmd
}
