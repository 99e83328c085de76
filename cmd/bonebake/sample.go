package main

import (
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/bonebake/bonebake/formats"
	"github.com/bonebake/bonebake/formats/bpat"
	"github.com/bonebake/bonebake/internal/iopath"
	"github.com/bonebake/bonebake/source/gltf/gltfbake"
	"github.com/bonebake/bonebake/species/creatures"

	"github.com/spf13/cobra"
)

func newSampleCmd() *cobra.Command {
	var (
		clip    string
		phase   string
		to      string
		toPhase string
		weight  string
		model   string
		asJSON  bool
		species speciesFlag
	)
	cmd := &cobra.Command{
		Use:   "sample FILE --clip NAME --phase P [--to NAME --to-phase Q --weight W] [--json]",
		Short: "Sample a clip at a phase, or a cross-fade of two: frames, blend factors, palette and socket matrices",
		Long: `Resolve a clip phase into the two baked frames around it and their blend factor,
then print the interpolated palette (one row-major 4×4 matrix per bone) and socket
transforms (the top three rows of each socket matrix). Looping clips wrap the
phase; one-shot clips clamp it to [0,1].

With --to, the pose is a cross-fade at weight W: (1−W)·(the clip at P) + W·(the --to
clip at Q), each side itself the two-frame interpolation above, palettes and sockets
alike. Skinning is linear, so this is also the blend of the two skinned meshes.`,
		Example: `  bonebake sample assets/creatures/horse.bpat --clip gallop --phase 0.5
  bonebake sample assets/creatures/humanoid.bpat --clip attack_sword_a --phase 0.58 --json
  bonebake sample out/fox.bpat --clip Walk --phase 0.25 --species 6
  bonebake sample assets/creatures/humanoid.bpat --clip walk --phase 0.4 --to run --to-phase 0.1 --weight 0.25`,
		Args: args(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, a []string) error {
			if clip == "" {
				return usagef("--clip is required")
			}
			p, err := strconv.ParseFloat(phase, 64)
			if err != nil || math.IsNaN(p) || math.IsInf(p, 0) {
				return usagef("--phase %q is not a finite number", phase)
			}
			fade := cmd.Flags().Changed("to")
			var q, w float64
			if fade {
				if to == "" {
					return usagef("--to names the clip to fade to; it is empty")
				}
				if q, err = strconv.ParseFloat(toPhase, 64); err != nil || math.IsNaN(q) || math.IsInf(q, 0) {
					return usagef("--to-phase %q is not a finite number", toPhase)
				}
				if !cmd.Flags().Changed("weight") {
					return usagef("--to needs --weight W: 0 shows --clip alone, 1 the --to clip alone")
				}
				if w, err = strconv.ParseFloat(weight, 64); err != nil || !(w >= 0 && w <= 1) {
					return usagef("--weight %q must be a number from 0 to 1", weight)
				}
			} else if cmd.Flags().Changed("to-phase") || cmd.Flags().Changed("weight") {
				return usagef("--to-phase and --weight go with --to CLIP, the clip to fade to")
			}
			if err := inputOf(a[0], formats.BPAT); err != nil {
				return err
			}
			f, err := bpat.Open(a[0], species.option())
			if err != nil {
				return withSpeciesHint(a[0], err)
			}
			defer f.Close()
			c, err := clipIndex(f, a[0], "--clip", clip)
			if err != nil {
				return err
			}
			pal := make([]float32, f.BoneCount()*bpat.FloatsPerBone)
			soc := make([]float32, len(f.Sockets())*bpat.FloatsPerSocket)
			pb := f.Sample(c, p, pal, soc)
			res := sampleResult{File: a[0], Clip: clip, Phase: p, Frame: pb.Frame, Next: pb.Next, Lerp: pb.Lerp,
				Sockets: []socketSample{}}
			if fade {
				d, err := clipIndex(f, a[0], "--to", to)
				if err != nil {
					return err
				}
				pal2, soc2 := make([]float32, len(pal)), make([]float32, len(soc))
				qb := f.Sample(d, q, pal2, soc2)
				blend(pal, pal2, w)
				blend(soc, soc2, w)
				res.To = &sampleSide{Clip: to, Phase: q, Frame: qb.Frame, Next: qb.Next, Lerp: qb.Lerp}
				res.Weight = &w
			}
			res.Palette = chunks(pal, bpat.FloatsPerBone)
			if res.Bones, err = sampleBoneNames(a[0], f, model, cmd.ErrOrStderr()); err != nil {
				return err
			}
			for i, m := range chunks(soc, bpat.FloatsPerSocket) {
				so := f.Sockets()[i]
				res.Sockets = append(res.Sockets, socketSample{Index: i, Name: so.Name, Anchor: so.Anchor, Rows: m})
			}
			if asJSON {
				return writeJSON(cmd.OutOrStdout(), res)
			}
			res.print(cmd.OutOrStdout(), f)
			return nil
		},
	}
	cmd.Flags().StringVar(&clip, "clip", "", "clip name (required)")
	cmd.Flags().StringVar(&model, "model", "", "the glTF model the file was baked from, to name its bones (a built-in creature's are named without it)")
	cmd.Flags().StringVar(&phase, "phase", "0", "clip phase: 0 is the start, 1 the end")
	cmd.Flags().StringVar(&to, "to", "", "a second clip to cross-fade to (default none)")
	cmd.Flags().StringVar(&toPhase, "to-phase", "0", "the --to clip's phase")
	cmd.Flags().StringVar(&weight, "weight", "", "the cross-fade's weight from 0 (--clip alone) to 1 (--to alone); required with --to")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON instead of text")
	species.add(cmd)
	return cmd
}

// clipIndex finds clip name, given by flag, in f, or says which clips there
// are: a usage error, as bat --clips refuses a clip a file lacks.
func clipIndex(f *bpat.File, path, flag, name string) (int, error) {
	if c := f.ClipIndex(name); c >= 0 {
		return c, nil
	}
	names := ""
	for i, cl := range f.Clips() {
		if i > 0 {
			names += ", "
		}
		names += cl.Name
	}
	return -1, usagef("%s %s: %s has no clip %q (clips: %s)", flag, name, path, name, names)
}

// blend writes (1−w)·a + w·b into a, in float64: the cross-fade of two poses.
func blend(a, b []float32, w float64) {
	for i := range a {
		a[i] = float32((1-w)*float64(a[i]) + w*float64(b[i]))
	}
}

// sampleResult is what sample prints; keys follow docs/json.md.
type sampleResult struct {
	File    string      `json:"file"`
	Clip    string      `json:"clip"`
	Phase   float64     `json:"phase"`
	Frame   int         `json:"frame"`
	Next    int         `json:"next"`
	Lerp    float32     `json:"lerp"`
	To      *sampleSide `json:"to,omitempty"`     // the clip faded to, with --to
	Weight  *float64    `json:"weight,omitempty"` // its weight, with --to
	Palette [][]float32 `json:"palette"`          // per bone, 16 floats row-major
	// Bones names the palette's bones, when known: BPAT stores no names, so
	// they come from --model, or from the built-in creature the file is.
	Bones   []string       `json:"bones,omitempty"`
	Sockets []socketSample `json:"sockets"`
}

// sampleSide is the second clip of a cross-fade, resolved as the first.
type sampleSide struct {
	Clip  string  `json:"clip"`
	Phase float64 `json:"phase"`
	Frame int     `json:"frame"`
	Next  int     `json:"next"`
	Lerp  float32 `json:"lerp"`
}

// socketSample is one socket's transform: the top three rows, row-major.
type socketSample struct {
	Index  int       `json:"index"`
	Name   string    `json:"name"`
	Anchor int       `json:"anchor_bone"`
	Rows   []float32 `json:"rows"`
}

func chunks(fs []float32, n int) [][]float32 {
	out := make([][]float32, 0, len(fs)/n)
	for i := 0; i+n <= len(fs); i += n {
		out = append(out, fs[i:i+n])
	}
	return out
}

func (r *sampleResult) print(w io.Writer, f *bpat.File) {
	fmt.Fprintf(w, "clip %q: frame %d, next %d, lerp %.6g\n", r.Clip, r.Frame, r.Next, r.Lerp)
	if r.To != nil {
		fmt.Fprintf(w, "fading to clip %q at phase %g: frame %d, next %d, lerp %.6g; weight %g\n", r.To.Clip, r.To.Phase, r.To.Frame, r.To.Next, r.To.Lerp, *r.Weight)
	}
	for b, m := range r.Palette {
		if b < len(r.Bones) {
			fmt.Fprintf(w, "\nbone %d %s\n", b, shown(r.Bones[b]))
		} else {
			fmt.Fprintf(w, "\nbone %d\n", b)
		}
		printRows(w, m, 4)
	}
	if len(r.Bones) == 0 && len(r.Palette) > 0 {
		fmt.Fprintln(w, "\n(a BPAT file stores no bone names: --model MODEL.glb names them, as baked from it)")
	}
	for _, so := range r.Sockets {
		fmt.Fprintf(w, "\nsocket %d %s (anchor bone %d)\n", so.Index, shown(so.Name), so.Anchor)
		printRows(w, so.Rows, 3)
	}
}

// sampleBoneNames names a file's palette bones: those of --model baked with its
// default settings (refused when their count differs: the file was baked with
// other ones), else those of the built-in creature whose file name and species
// id the file has, else none.
func sampleBoneNames(path string, f *bpat.File, model string, notes io.Writer) ([]string, error) {
	if model != "" {
		if err := iopath.Input(model); err != nil {
			return nil, err
		}
		m, err := loadModel(model, gltfbake.Settings{}, io.Discard)
		if err != nil {
			return nil, err
		}
		names := make([]string, 0, f.BoneCount())
		for _, b := range m.Job.Rig.PaletteBones() {
			names = append(names, m.Job.Rig.Skeleton.Names[b])
		}
		if len(names) != f.BoneCount() {
			return nil, usagef("--model %s: its bake has %d bones, %s has %d: it was baked with other settings (--max-bones, --deforming-only, a manifest), so its bones cannot be named from the model alone", model, len(names), path, f.BoneCount())
		}
		return names, nil
	}
	name := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	if s := creatures.ByName(name); s != nil && s.ID == f.Header().SpeciesID && s.Skeleton.Len() == f.BoneCount() {
		return append([]string(nil), s.Skeleton.Names...), nil
	}
	return nil, nil
}

func printRows(w io.Writer, m []float32, rows int) {
	for r := 0; r < rows; r++ {
		fmt.Fprintf(w, "  % 12.6f % 12.6f % 12.6f % 12.6f\n", m[r*4], m[r*4+1], m[r*4+2], m[r*4+3])
	}
}
