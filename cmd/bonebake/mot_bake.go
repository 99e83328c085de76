package main

import (
	"cmp"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/bonebake/bonebake/formats"
	"github.com/bonebake/bonebake/internal/iopath"
	"github.com/bonebake/bonebake/source/gltf/gltfbake"
	motsrc "github.com/bonebake/bonebake/source/mot"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// motBakeFlags are bake's flags for motion files (--mot and the ones that go with it).
type motBakeFlags struct {
	mots          []string
	rig, boneMap  string
	rotationOrder string
	gltfOut       string
}

func (m *motBakeFlags) add(fl *pflag.FlagSet) {
	fl.StringSliceVar(&m.mots, "mot", nil, "PlatinumGames motion files to bake onto --rig (comma-separated), one clip each")
	fl.StringVar(&m.rig, "rig", "", "with --mot: the skinned glTF model whose joints the motions move")
	fl.StringVar(&m.boneMap, "bone-map", "", "with --mot: YAML map of bone name: motion bone id (default: ids from the bone names)")
	fl.StringVar(&m.rotationOrder, "rotation-order", "xyz", "with --mot: Euler order of the motions' rotations, first axis applied first")
	fl.StringVar(&m.gltfOut, "gltf", "", "with --mot: also write the model with the motions as glTF animations")
}

// active says whether the command was asked to bake motion files.
func (m *motBakeFlags) active(fl *pflag.FlagSet) bool {
	return len(m.mots) > 0 || m.rig != "" || fl.Changed("bone-map") || fl.Changed("rotation-order") || fl.Changed("gltf")
}

// run bakes the motions onto the rig into out (bake --mot … --rig … -o OUT.bpat).
func (m *motBakeFlags) run(cmd *cobra.Command, a []string, out string, given *modelFlags) error {
	fl := cmd.Flags()
	switch {
	case len(a) > 1:
		return usagef("--mot bakes one rig; got %d models", len(a))
	case len(a) > 0:
		return usagef("with --mot, give the model with --rig, not as an argument")
	case len(m.mots) == 0 && m.gltfOut != "" && m.rig == "":
		return usagef("--gltf writes the motions that --mot bakes onto --rig as glTF: give --mot and --rig with it")
	case len(m.mots) == 0 || m.rig == "":
		return usagef("--mot and --rig go together: bake --mot A.mot[,B.mot] --rig MODEL.glb -o OUT.bpat")
	case out == "":
		return usagef("give the output file with -o")
	}
	ms := given.set // the model flags --mot takes: --fps, --force, --skin, --species-id
	set := motsrc.Settings{RotationOrder: strings.ToLower(m.rotationOrder), NoLimits: ms.NoLimits, FPS: ms.FPS, Skin: ms.Skin}
	if fl.Changed("species-id") {
		set.SpeciesID = &given.speciesID
	}
	if err := set.Check(givenSettings(fl)); err != nil {
		return libError(err)
	}
	if err := iopath.Inputs(append([]string{m.rig, m.boneMap}, m.mots...)...); err != nil {
		return err
	}
	if kind, err := formats.SniffFile(m.rig); err != nil {
		return err
	} else if kind != formats.GLB && kind != formats.GLTF { // motsrc.Load reads glTF alone
		return fmt.Errorf("%s: %s, not a glTF model: --rig takes the skinned glTF model (.gltf, .glb) whose joints the motions move", m.rig, kind.Words())
	}
	if m.boneMap != "" {
		bm, err := motsrc.ReadBoneMap(m.boneMap)
		if err != nil {
			return err
		}
		set.BoneMap = bm
	}
	if err := cmp.Or(outputFile("-o", out), libError(gltfbake.CheckBPATOut(out))); err != nil {
		return err
	}
	if m.gltfOut != "" {
		if err := outputFile("--gltf", m.gltfOut); err != nil {
			return err
		}
	}
	folder := "" // where its species id was free, when another file there holds the first
	if set.SpeciesID == nil {
		if id, ok := gltfbake.FreeSpeciesIn(out); ok {
			set.FreeSpeciesID, folder = &id, filepath.Dir(out)
		}
	}
	start := time.Now()
	model, err := motsrc.Load(m.rig, m.mots, set)
	if err != nil {
		return libError(err)
	}
	for _, n := range model.Notes {
		fmt.Fprintln(cmd.ErrOrStderr(), "note:", flagWords(n))
	}
	h, size, err := motsrc.WriteFiles(model, out, m.gltfOut)
	if err != nil {
		return err
	}
	w := cmd.OutOrStdout()
	// As a glTF bake's summary says it (gltfbake), with the seconds the
	// motions last, which a modder checks against the game's.
	secs := 0.0
	for i := range model.Job.Clips {
		_, d := model.Job.Span(&model.Job.Clips[i])
		secs += d
	}
	fmt.Fprintf(w, "wrote %s: %s, %s, %s (%.4g s), %s, species %d%s, in %s\n", out, bytesText(size), model.BonesText(int(h.BoneCount)),
		plural(int(h.ClipCount), "clip"), secs, plural(int(h.FrameTotal), "frame"), h.SpeciesID, flagWords(model.SpeciesNote(h.SpeciesID, folder, false)), tookText(time.Since(start)))
	if m.gltfOut != "" {
		fmt.Fprintf(w, "wrote %s: %s as glTF animations\n", m.gltfOut, plural(len(model.Job.Clips), "motion"))
	}
	return nil
}
