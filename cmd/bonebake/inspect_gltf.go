package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/bonebake/bonebake/source/gltf"
	"github.com/bonebake/bonebake/source/gltf/gltfbake"

	"github.com/spf13/cobra"
)

func inspectGLTF(cmd *cobra.Command, path string, asJSON bool) error {
	info, err := gltf.Inspect(path)
	if err != nil {
		return err
	}
	size := measureModel(path)
	w := cmd.OutOrStdout()
	if asJSON {
		return writeJSON(w, struct {
			*gltf.Info
			sizeReport
		}{info, size})
	}
	fmt.Fprintf(w, "%s: glTF 2.0, %d nodes", path, info.Nodes)
	if info.Generator != "" {
		fmt.Fprintf(w, ", generator %q", info.Generator)
	}
	fmt.Fprintln(w)
	size.print(w)
	if len(info.Extensions) > 0 {
		fmt.Fprintln(w, "\nextensions:")
		for _, e := range info.Extensions {
			req := "used"
			if e.Required {
				req = "required"
			}
			fmt.Fprintf(w, "  %-34s %-8s %-11s %s\n", shown(e.Name), req, e.Support, e.Why)
		}
	}
	for _, s := range info.Skins {
		fmt.Fprintf(w, "\nskin %d %s: %d joints, used by nodes %v\n", s.Index, quotedName(s.Name), s.JointCount, s.MeshNodes)
		for i, j := range s.Joints {
			fmt.Fprintf(w, "  %3d  %s\n", i, shown(j))
		}
		fmt.Fprintf(w, "  the character of skin %d: %s\n", s.Index, plural(len(s.Character), "mesh node"))
		for _, m := range s.Character {
			fmt.Fprintf(w, "    node %d %s (mesh %d): %s\n", m.Node, shown(m.Name), m.Mesh, m.How)
		}
	}
	for _, n := range info.Notes {
		fmt.Fprintln(w, "  note:", flagWords(n))
	}
	for _, m := range info.Meshes {
		skinned := ""
		if m.Skinned {
			skinned = ", skinned"
		}
		fmt.Fprintf(w, "\nmesh %d %s: %d vertices, %d primitives%s\n", m.Index, quotedName(m.Name), m.Vertices, len(m.Primitives), skinned)
		if len(m.MorphTargets) > 0 {
			shownTargets := make([]string, len(m.MorphTargets))
			for i, t := range m.MorphTargets {
				shownTargets[i] = shown(t)
			}
			fmt.Fprintf(w, "  %s (not baked): %s\n", plural(len(m.MorphTargets), "morph target"), strings.Join(shownTargets, ", "))
			if len(m.MorphClips) > 0 {
				clips := make([]string, len(m.MorphClips))
				for i, c := range m.MorphClips {
					clips[i] = shown(c)
				}
				fmt.Fprintf(w, "  weights animated by: %s\n", strings.Join(clips, ", "))
			}
		}
		for i, p := range m.Primitives {
			fmt.Fprintf(w, "  primitive %d: %s, %d vertices, %d indices, %s\n", i, p.Mode, p.Vertices, p.Indices, strings.Join(p.Attributes, " "))
			if mt := p.Material; mt.Index >= 0 {
				c := mt.BaseColor
				fmt.Fprintf(w, "    material %d %s: base colour %.3g %.3g %.3g %.3g", mt.Index, quotedName(mt.Name), c[0], c[1], c[2], c[3])
				if mt.Texture != "" {
					fmt.Fprintf(w, " × %s texture", mt.Texture)
				}
				if mt.Warning != "" {
					fmt.Fprintf(w, " (%s)", mt.Warning)
				}
				fmt.Fprintln(w)
			}
		}
	}
	fmt.Fprintf(w, "\n%3s  %-24s %9s %9s %6s\n", "#", "animation", "seconds", "channels", "keys")
	names := make([]string, len(info.Animations))
	for i, a := range info.Animations {
		names[i] = a.Name
		if a.Name == "" {
			names[i] = fmt.Sprintf("animation_%d", a.Index) // the name bake gives it
		}
	}
	baked := names
	if len(info.Skins) > 0 { // a model: bake names its own animations
		baked = gltfbake.OwnClipNames(path, names)
	}
	for i, a := range info.Animations {
		name := shown(a.Name)
		if a.Name == "" {
			name = names[i] + " (unnamed)"
		}
		if baked[i] != names[i] {
			name += " (bakes as " + shown(baked[i]) + ")"
		}
		fmt.Fprintf(w, "%3d  %-24s %9.4f %9d %6d\n", a.Index, name, a.Duration, len(a.Channels), a.Keys)
	}
	return nil
}

// quotedName is a skin's, mesh's or material's name as inspect prints it
// after its index: quoted, or "(unnamed)", as an unnamed animation is said to
// be, where the file gives none (skin 0 (unnamed), not skin 0 "").
func quotedName(name string) string {
	if name == "" {
		return "(unnamed)"
	}
	return strconv.Quote(name)
}
