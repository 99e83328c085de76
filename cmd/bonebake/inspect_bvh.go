package main

import (
	"fmt"
	"path/filepath"
	"strings"

	bvhsrc "github.com/bonebake/bonebake/source/bvh"

	"github.com/spf13/cobra"
)

// bvhReport is inspect's view of a BVH file (docs/formats/bvh.md): what the
// file holds, and the space bake would put it in (§4).
type bvhReport struct {
	File      string     `json:"file"`
	Format    string     `json:"format"` // "bvh"
	Joints    []bvhJoint `json:"joints"`
	Channels  int        `json:"channel_count"`
	Frames    int        `json:"frame_count"`
	FrameTime float64    `json:"frame_time_s"`
	FPS       float64    `json:"fps"`
	Duration  float64    `json:"duration_s"`
	Up        string     `json:"up"`
	UpFound   bool       `json:"up_found"`
	Height    float64    `json:"height"` // in the file's units
	Units     string     `json:"units"`
	Scale     float64    `json:"scale"` // the file's units → metres
	Notes     []string   `json:"notes"`
}

type bvhJoint struct {
	Index    int          `json:"index"`
	Name     string       `json:"name"`
	Parent   int          `json:"parent"`
	Offset   [3]float64   `json:"offset"`
	Channels []string     `json:"channels"`
	EndSites [][3]float64 `json:"end_sites"`
}

func inspectBVH(cmd *cobra.Command, path string, asJSON bool) error {
	sp, err := bvhsrc.Read(path, bvhsrc.Options{})
	if err != nil {
		return err
	}
	f := sp.File
	r := bvhReport{File: path, Format: "bvh", Channels: f.Channels, Frames: f.Frames, FrameTime: f.FrameTime, FPS: 1 / f.FrameTime,
		Duration: f.Duration(), Up: sp.Up, UpFound: sp.UpFound, Height: sp.Height, Units: sp.Units, Scale: sp.Scale}
	r.Notes = []string{}
	for _, n := range sp.Notes {
		r.Notes = append(r.Notes, flagWords(n))
	}
	for i, j := range f.Joints {
		bj := bvhJoint{Index: i, Name: j.Name, Parent: j.Parent, Offset: j.Offset, Channels: []string{}, EndSites: j.EndSites}
		if bj.EndSites == nil {
			bj.EndSites = [][3]float64{}
		}
		for _, c := range j.Channels {
			bj.Channels = append(bj.Channels, c.String())
		}
		r.Joints = append(r.Joints, bj)
	}
	w := cmd.OutOrStdout()
	if asJSON {
		return writeJSON(w, r)
	}
	how := "found from its skeleton"
	if !sp.UpFound {
		how = "given"
	}
	fmt.Fprintf(w, "%s: BVH, %s, %s, %s of %g s (%.4g fps), %.4g s\n", path, plural(len(f.Joints), "joint"), plural(f.Channels, "channel"),
		plural(f.Frames, "frame"), f.FrameTime, r.FPS, r.Duration)
	fmt.Fprintf(w, "up %s (%s); %.4g units tall at rest, taken for %s (×%g to metres)\n", sp.Up, how, sp.Height, sp.Units, sp.Scale)
	for _, n := range r.Notes {
		fmt.Fprintln(w, "note:", n)
	}
	fmt.Fprintln(w, "\nhierarchy (offset; channels in the order they apply):")
	depth := make([]int, len(f.Joints))
	for i, j := range f.Joints {
		if j.Parent >= 0 {
			depth[i] = depth[j.Parent] + 1
		}
		pad := strings.Repeat("  ", depth[i])
		fmt.Fprintf(w, "  %3d  %s%s  (%.4g %.4g %.4g)  %s\n", i, pad, shown(j.Name), j.Offset[0], j.Offset[1], j.Offset[2], strings.Join(r.Joints[i].Channels, " "))
		for _, e := range j.EndSites {
			fmt.Fprintf(w, "       %s  end site (%.4g %.4g %.4g)\n", pad, e[0], e[1], e[2])
		}
	}
	fmt.Fprintf(w, "\nbake: bonebake bake %s (on its own skeleton), or bonebake bake CHARACTER.glb --clips %s\n", filepath.Base(path), filepath.Base(path))
	return nil
}
