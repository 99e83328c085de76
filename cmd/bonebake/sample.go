package main

import (
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/bonebake/bonebake/formats/bpat"

	"github.com/spf13/cobra"
)

func newSampleCmd() *cobra.Command {
	var (
		clip    string
		phase   string
		asJSON  bool
		species speciesFlag
	)
	cmd := &cobra.Command{
		Use:   "sample FILE --clip NAME --phase P [--json]",
		Short: "Sample a clip at a phase: frames, blend factor, palette and socket matrices",
		Long: `Resolve a clip phase into the two baked frames around it and their blend factor,
then print the interpolated palette (one row-major 4×4 matrix per bone) and socket
transforms (the top three rows of each socket matrix). Looping clips wrap the
phase; one-shot clips clamp it to [0,1].`,
		Example: `  bonebake sample assets/creatures/horse.bpat --clip gallop --phase 0.5
  bonebake sample assets/creatures/humanoid.bpat --clip attack_sword_a --phase 0.58 --json
  bonebake sample out/fox.bpat --clip Walk --phase 0.25 --species 6`,
		Args: args(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, a []string) error {
			if clip == "" {
				return usagef("--clip is required")
			}
			p, err := strconv.ParseFloat(phase, 64)
			if err != nil || math.IsNaN(p) || math.IsInf(p, 0) {
				return usagef("--phase %q is not a finite number", phase)
			}
			if err := inputFile(a[0]); err != nil {
				return err
			}
			f, err := bpat.Open(a[0], species.option())
			if err != nil {
				return err
			}
			defer f.Close()
			c := f.ClipIndex(clip)
			if c < 0 {
				names := ""
				for i, cl := range f.Clips() {
					if i > 0 {
						names += ", "
					}
					names += cl.Name
				}
				return fmt.Errorf("%s has no clip %q (clips: %s)", a[0], clip, names)
			}
			pal := make([]float32, f.BoneCount()*bpat.FloatsPerBone)
			soc := make([]float32, len(f.Sockets())*bpat.FloatsPerSocket)
			pb := f.Sample(c, p, pal, soc)
			res := sampleResult{File: a[0], Clip: clip, Phase: p, Frame: pb.Frame, Next: pb.Next, Lerp: pb.Lerp,
				Palette: chunks(pal, bpat.FloatsPerBone), Sockets: []socketSample{}}
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
	cmd.Flags().StringVar(&phase, "phase", "0", "clip phase: 0 is the start, 1 the end")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON instead of text")
	species.add(cmd)
	return cmd
}

// sampleResult is what sample prints; keys follow docs/json.md.
type sampleResult struct {
	File    string         `json:"file"`
	Clip    string         `json:"clip"`
	Phase   float64        `json:"phase"`
	Frame   int            `json:"frame"`
	Next    int            `json:"next"`
	Lerp    float32        `json:"lerp"`
	Palette [][]float32    `json:"palette"` // per bone, 16 floats row-major
	Sockets []socketSample `json:"sockets"`
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
	for b, m := range r.Palette {
		fmt.Fprintf(w, "\nbone %d\n", b)
		printRows(w, m, 4)
	}
	for _, so := range r.Sockets {
		fmt.Fprintf(w, "\nsocket %d %s (anchor bone %d)\n", so.Index, shown(so.Name), so.Anchor)
		printRows(w, so.Rows, 3)
	}
}

func printRows(w io.Writer, m []float32, rows int) {
	for r := 0; r < rows; r++ {
		fmt.Fprintf(w, "  % 12.6f % 12.6f % 12.6f % 12.6f\n", m[r*4], m[r*4+1], m[r*4+2], m[r*4+3])
	}
}
