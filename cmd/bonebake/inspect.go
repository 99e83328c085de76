package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/bonebake/bonebake/crowd/registry"
	"github.com/bonebake/bonebake/formats"
	"github.com/bonebake/bonebake/formats/bpat"
	"github.com/bonebake/bonebake/formats/bpsm"
	"github.com/bonebake/bonebake/formats/gait"
	"github.com/bonebake/bonebake/internal/iopath"
	"github.com/bonebake/bonebake/roster"
	"github.com/bonebake/bonebake/stride"

	"github.com/spf13/cobra"
)

func newInspectCmd() *cobra.Command {
	var (
		asJSON  bool
		species speciesFlag
	)
	cmd := &cobra.Command{
		Use:   "inspect FILE [--json]",
		Short: "Describe a BPAT file, a BPSM snapshot mesh, a glTF or FBX model, or a BVH file",
		Long: `Describe a file. For a BPAT file: the header, every section's offset and size,
the clip table (frames, offset, fps, loops, markers) and the sockets; the file is
read leniently and the result of strict validation is reported. Each clip's gait
(cycle, ground speed and where it comes from: the gait sidecar NAME.gait.json
beside the file, measured or from the manifest, else the built-in table) is
shown as the crowd runtime takes it (docs/runtime.md §6). For a BPSM
snapshot mesh: the header, sections and clips. For a glTF or FBX model: its size
at rest as bake takes it (height along +y, the other two sides, in metres), and
bake's hint when the size looks wrong (Fox.glb, 155 m across: centimetres,
--scale 0.01), and beside an exporter's take name the clip name bake gives it
("mixamo.com (bakes as walk)" for walk.fbx).
For a glTF model (.gltf or .glb): its skins and joints, meshes with their
materials, and animations with durations and key counts. For a BVH motion
capture file (.bvh): its hierarchy with offsets,
channels and end sites, its frames, frame time and duration, and the up axis,
height and units bake would take (docs/formats/bvh.md §4). For an FBX file
(.fbx): its version, axes and unit, its bones, meshes and clips (a file without a
skin is animation only, for --clips; docs/formats/fbx.md).`,
		Example: `  bonebake inspect assets/creatures/humanoid.bpat
  bonebake inspect assets/creatures/horse_minimal.bpsm --json
  bonebake inspect testdata/gltf/Fox.glb
  bonebake inspect walk.bvh
  bonebake inspect character.fbx --json`,
		Args: args(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, a []string) error {
			path := a[0]
			if err := iopath.Input(path); err != nil {
				return err
			}
			kind, err := formats.SniffFile(path)
			if err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			switch kind {
			case formats.GLB, formats.GLTF:
				return inspectGLTF(cmd, path, asJSON)
			case formats.BVH:
				return inspectBVH(cmd, path, asJSON)
			case formats.FBX:
				return inspectFBX(cmd, path, asJSON)
			case formats.BPAT, formats.BPSM:
				f, _, err := openBaked(path, kind, []formats.Option{formats.Lenient(), species.option()})
				if err != nil {
					return err
				}
				defer f.Close()
				var r interface{ print(io.Writer) }
				switch f := f.(type) {
				case *bpat.File:
					r = describeBPAT(f, species)
				case *bpsm.File:
					r = describeBPSM(f, species)
				}
				if asJSON {
					return writeJSON(w, r)
				}
				r.print(w)
				return nil
			}
			return fmt.Errorf("%s: %s; inspect reads BPAT, BPSM, glTF, FBX and BVH files", path, kind.Words())
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON instead of text")
	species.add(cmd)
	return cmd
}

type bpatReport struct {
	File        string          `json:"file"`
	Format      string          `json:"format"` // "bpat"
	Size        int64           `json:"size"`
	Version     uint32          `json:"version"`
	SpeciesID   uint32          `json:"species_id"`
	Bones       uint32          `json:"bone_count"`
	SocketCount uint32          `json:"socket_count"`
	ClipCount   uint32          `json:"clip_count"`
	FrameTotal  uint32          `json:"frame_total"`
	StringTable uint32          `json:"string_table_size"`
	Sections    []sectionReport `json:"sections"`
	Clips       []clipReport    `json:"clips"`
	Sockets     []socketReport  `json:"sockets"`
	Strict      string          `json:"strict_validation"` // "ok" or the problems
	// GaitSidecar is the gait sidecar beside the file whose gaits the clips
	// show (docs/formats/gait.md), absent when there is none.
	GaitSidecar string `json:"gait_sidecar,omitempty"`
	// Warnings says which numbers of a leniently accepted file are not finite:
	// JSON has no NaN or infinity, so they are written as null.
	Warnings []string `json:"warnings,omitempty"`
}

// number is a float that JSON writes as null when it is NaN or infinite.
type number float64

func (n number) MarshalJSON() ([]byte, error) {
	if math.IsNaN(float64(n)) || math.IsInf(float64(n), 0) {
		return []byte("null"), nil
	}
	return json.Marshal(float64(n))
}

// numbers converts floats, noting any that JSON cannot hold.
func (r *bpatReport) numbers(what string, xs ...float32) []number {
	out := make([]number, len(xs))
	for i, x := range xs {
		out[i] = number(x)
		if f := float64(x); math.IsNaN(f) || math.IsInf(f, 0) {
			r.Warnings = append(r.Warnings, fmt.Sprintf("%s is %v: written as null", what, x))
		}
	}
	return out
}

type sectionReport struct {
	Name   string `json:"name"`
	Offset uint64 `json:"offset"`
	Size   uint64 `json:"size"`
}

type clipReport struct {
	Index       int               `json:"index"`
	Name        string            `json:"name"`
	Frames      int               `json:"frame_count"`
	FrameOffset int               `json:"frame_offset"`
	FPS         number            `json:"fps"`
	Loops       bool              `json:"loops"`
	Duration    number            `json:"duration_s"`
	Markers     map[string]number `json:"markers,omitempty"`
	// The clip's gait as the crowd runtime plays it (docs/runtime.md §6): Cycle
	// in seconds (the clip's duration when nothing gives one), GroundSpeed in m/s
	// with its source (measured, manifest or table) when it has one.
	Cycle             number `json:"cycle"`
	GroundSpeed       number `json:"ground_speed,omitempty"`
	GroundSpeedSource string `json:"ground_speed_source,omitempty"`
	gaitSource        string
	gaitStatus        string // the sidecar's status of the clip, when it has one
	gaitPlanted       bool   // its feet locked to the ground by bake --plant-feet
	gaitToward        string // the axis it travels along, when not +z, the runtime's forward
}

type socketReport struct {
	Index  int       `json:"index"`
	Name   string    `json:"name"`
	Anchor int       `json:"anchor_bone"`
	Offset [3]number `json:"local_offset"`
}

func describeBPAT(f *bpat.File, species speciesFlag) *bpatReport {
	h := f.Header()
	r := &bpatReport{File: f.Name(), Format: "bpat", Size: f.Size(), Version: h.Version, SpeciesID: h.SpeciesID,
		Bones: h.BoneCount, SocketCount: h.SocketCount, ClipCount: h.ClipCount,
		FrameTotal: h.FrameTotal, StringTable: h.StringTableSize, Strict: "ok",
		Sections: []sectionReport{}, Clips: []clipReport{}, Sockets: []socketReport{}}
	for _, s := range f.Sections() {
		r.Sections = append(r.Sections, sectionReport(s))
	}
	for i, c := range f.Clips() {
		what := fmt.Sprintf("clip %d %q", i, c.Name)
		cr := clipReport{Index: i, Name: c.Name, Frames: c.FrameCount, FrameOffset: c.FrameOffset,
			FPS: r.numbers(what+" fps", c.FPS)[0], Loops: c.Loops, Duration: number(c.Duration())}
		for k, m := range c.Markers {
			if m != bpat.Unset {
				if cr.Markers == nil {
					cr.Markers = map[string]number{}
				}
				cr.Markers[bpat.Marker(k).String()] = r.numbers(what+" marker "+bpat.Marker(k).String(), m)[0]
			}
		}
		r.Clips = append(r.Clips, cr)
	}
	r.gaits(f)
	for i, s := range f.Sockets() {
		o := r.numbers(fmt.Sprintf("socket %d %q offset", i, s.Name), s.Offset[:]...)
		r.Sockets = append(r.Sockets, socketReport{i, s.Name, s.Anchor, [3]number(o)})
	}
	if strict, err := bpat.Open(f.Name(), species.option()); err != nil {
		r.Strict = withSpeciesHint(f.Name(), err).Error()
	} else {
		strict.Close()
	}
	return r
}

// hasGaits reports whether any clip's gait comes from a sidecar or the table.
func (r *bpatReport) hasGaits() bool {
	for _, c := range r.Clips {
		if c.gaitSource != registry.GaitNone {
			return true
		}
	}
	return false
}

// gaits fills in each clip's gait as package crowd resolves it for a registry
// without a game's overrides: the sidecar beside the file, then the table of the
// built-in species the file's name or species id gives (docs/runtime.md §6). A
// sidecar that cannot be read is a warning: crowd would refuse the file.
func (r *bpatReport) gaits(f *bpat.File) {
	side, err := gait.OpenFor(f.Name())
	if err != nil {
		r.Warnings = append(r.Warnings, fmt.Sprintf("gait sidecar: %v (the crowd runtime refuses the file with it)", err))
		side = nil
	}
	if side != nil {
		r.GaitSidecar = gait.SidecarPath(f.Name())
	}
	def, ok := roster.ByName(strings.TrimSuffix(filepath.Base(f.Name()), filepath.Ext(f.Name())))
	if !ok || def.ID != r.SpeciesID {
		def, _ = roster.ByID(r.SpeciesID)
	}
	for i := range r.Clips {
		c := &r.Clips[i]
		g, src := registry.ResolveGait(c.Name, float64(c.Duration), nil, side, def.Gaits)
		c.Cycle, c.gaitSource = number(g.Cycle), src
		if fromSide := src == registry.GaitSidecar || src == registry.GaitMeasured || src == registry.GaitManifest; side != nil && fromSide {
			if sc, ok := side.Clip(c.Name); ok {
				c.gaitStatus, c.gaitPlanted = sc.Status, sc.Planted
				if x, z, ok := sc.Dir(); ok && gait.AxisName(x, z) != "+z" {
					c.gaitToward = gait.AxisName(x, z)
				}
			}
		}
		if g.Speed > 0 {
			c.GroundSpeed, c.GroundSpeedSource = number(g.Speed), src
		}
	}
}

// plainFloat writes a float32 value in plain decimals, never in exponent form
// (an fps of 20000 as "20000", not "2e+04"), with the digits that tell it apart.
func plainFloat(v float64) string { return strconv.FormatFloat(v, 'f', -1, 32) }

func (r *bpatReport) print(w io.Writer) {
	fmt.Fprintf(w, "%s: BPAT v%d, %s\n", r.File, r.Version, bytesText(r.Size))
	fmt.Fprintf(w, "species %d, %s, %s, %s, %s\n", r.SpeciesID, plural(int(r.Bones), "bone"), plural(int(r.SocketCount), "socket"),
		plural(int(r.ClipCount), "clip"), plural(int(r.FrameTotal), "frame"))
	fmt.Fprintf(w, "strict validation: %s\n\n", r.Strict)
	fmt.Fprintf(w, "%-14s %10s %10s\n", "section", "offset", "size")
	for _, s := range r.Sections {
		fmt.Fprintf(w, "%-14s %10d %10d\n", s.Name, s.Offset, s.Size)
	}
	fmt.Fprintf(w, "\n%3s  %-22s %6s %6s %8s %5s %8s  %s\n", "#", "clip", "frames", "offset", "fps", "loops", "seconds", "markers")
	for _, c := range r.Clips {
		var ms []string
		for _, name := range bpat.MarkerNames() {
			if v, ok := c.Markers[name]; ok {
				ms = append(ms, fmt.Sprintf("%s=%.3g", name, v))
			}
		}
		loops := "no"
		if c.Loops {
			loops = "yes"
		}
		fmt.Fprintf(w, "%3d  %-22s %6d %6d %8s %5s %8.3f  %s\n", c.Index, shown(c.Name), c.Frames, c.FrameOffset, plainFloat(float64(c.FPS)), loops, c.Duration, strings.Join(ms, " "))
	}
	if r.hasGaits() {
		from := "the built-in table"
		if r.GaitSidecar != "" {
			from = r.GaitSidecar
		}
		fmt.Fprintf(w, "\ngaits (from %s; docs/runtime.md §6):\n", from)
		fmt.Fprintf(w, "%3s  %-22s %8s %9s  %s\n", "#", "clip", "cycle s", "speed m/s", "source")
		for _, c := range r.Clips {
			if c.gaitSource == registry.GaitNone {
				continue
			}
			speed, src := "-", c.gaitSource
			if c.GroundSpeed > 0 {
				speed = fmt.Sprintf("%.4g", float64(c.GroundSpeed))
			} else if src == registry.GaitSidecar {
				src = "sidecar (no ground speed: plays in place)"
				if c.gaitStatus == string(stride.StatusUntrusted) {
					// A walk the bake would not trust, not a clip without travel.
					src = "sidecar (its measured speed untrusted, see the sidecar's reason: plays in place)"
				}
			}
			if c.gaitPlanted {
				src += ", feet planted (bake --plant-feet)"
			}
			if c.gaitToward != "" { // units face +z: docs/formats/gait.md §8
				src += fmt.Sprintf(", travels toward %s, not +z, the runtime's forward", c.gaitToward)
			}
			fmt.Fprintf(w, "%3d  %-22s %8.4g %9s  %s\n", c.Index, shown(c.Name), c.Cycle, speed, src)
		}
	}
	if len(r.Sockets) > 0 {
		fmt.Fprintf(w, "\n%3s  %-16s %6s  %s\n", "#", "socket", "anchor", "local offset")
		for _, s := range r.Sockets {
			fmt.Fprintf(w, "%3d  %-16s %6d  (%.4g, %.4g, %.4g)\n", s.Index, shown(s.Name), s.Anchor, s.Offset[0], s.Offset[1], s.Offset[2])
		}
	}
}
