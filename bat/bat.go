// Package bat bakes bone animation textures (docs/formats/bat.md): a position and a
// rotation texture with one texel per bone per frame, relative to the bind pose, a
// skin texture with each vertex's four bones and weights, a static mesh whose
// TEXCOORD_1 points at each vertex's skin texel, and a report that says how to
// decode them. Write also proves the result: from the values the files hold (bit
// for bit, kept in memory), it rebuilds every vertex of every frame as a shader
// would and compares it with linear blend skinning of the source; Verify does the
// same from files.
package bat

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/bonebake/bonebake/formats/bpat"
	"github.com/bonebake/bonebake/mesh"
	"github.com/bonebake/bonebake/rig"
	"github.com/bonebake/bonebake/source/gltf"

	"github.com/bonebake/bonebake/formats/exr"
)

// Input is what a bake needs: the baked palettes of a clip stack, the inverse bind
// matrices and the skinned mesh they move. FromModel, FromSpecies and FromBPAT
// make one.
type Input struct {
	Name  string
	Bones int
	Clips []bpat.Clip // their rows stacked in this order (FrameOffset is not read)
	// Palettes holds every clip's frames, clip after clip, Bones·16 floats per
	// frame: each bone's model-space matrix, row-major (docs/formats/bpat.md §1).
	Palettes    []float32
	InverseBind []rig.Mat4 // per bone, row-major
	Mesh        *mesh.Skinned
}

// Preset picks the texture layout and encoding (docs/formats/bat.md §7).
type Preset string

// The presets.
const (
	Raw       Preset = "raw"
	GameTools Preset = "gametools"
	UE        Preset = "ue"
)

// Format is the file format of the textures.
type Format string

// The formats.
const (
	EXR   Format = "exr"   // 32-bit float OpenEXR
	EXR16 Format = "exr16" // 16-bit half OpenEXR (the position texture stays 32-bit, §4)
	PNG16 Format = "png16" // 16-bit unorm PNG
	PNG8  Format = "png8"  // 8-bit unorm PNG
)

// Options are a bake's choices; the zero value is the raw preset in 32-bit EXR.
type Options struct {
	Preset Preset
	Format Format // "" is the preset's default: exr, or png16 for ue
	Zip    bool   // ZIP-compress EXR files
	// Padding is the number of frames added before and after each clip: the clip's
	// wrap-around for a looping clip, its first or last frame for a one-shot.
	Padding int
	InvertV bool // store rows bottom up and write TEXCOORD_1 as 1 − v
	ZUp     bool // rotate the output +90° about x: y up becomes z up (Blender, Unreal)
	// Centimetres stores positions (and the report's offsets and ranges) in
	// centimetres, Unreal's unit, for raw and ue; the mesh stays in metres,
	// glTF's unit, which Unreal's glTF importer turns into centimetres.
	// Gametools sets its unit with AddonSettings.UnitScale.
	Centimetres bool
	// Clips keeps only the clips named, in the stack's order; nil keeps all.
	Clips []string
	// GameTools holds the gametools preset's settings; Resolve fills in the
	// add-on's defaults (AddonDefaults) when it is nil. Other presets ignore it.
	GameTools *AddonSettings
	// NoLimit lifts MaxVerifyWork: Write then verifies a bake of any size.
	NoLimit bool
	// Progress, when set, is called from Write's verification with (frames done,
	// frames total); it must be safe for concurrent use.
	Progress func(done, total int)
	// Accept, when set, is given the verified report before any file takes its
	// name: an error it returns fails Write and leaves the previous set whole
	// (bat --max-error).
	Accept func(*Report) error
}

// MaxVerifyWork bounds Write's verification, which rebuilds every vertex of every
// row: about 20 s on two cores. An absurd fps asks for hours; Options.NoLimit
// (the command line's --force) lifts it.
const MaxVerifyWork = 2_000_000_000

// AddonSettings are the settings of the Blender GameTools add-on's BoneAnimation baker
// that bonebake reproduces (docs/formats/bat.md §7.1), each named after the add-on's
// property. AddonDefaults returns the add-on's defaults.
type AddonSettings struct {
	UnitScale float64 // unit_scale: positions are multiplied by it (100: metres to centimetres)
	// unit_invert_x, _y, _z: the texture space is Blender's (Z up) with these
	// axes negated; the add-on negates Y by default (Unreal's left-handed axes).
	InvertX, InvertY, InvertZ bool
	// Reference is frame_ref_mode: RefStart (the stack's first frame), RefEnd (its
	// last) or RefBind (the bind pose, as the add-on's CUSTOM frame on a T-pose).
	// The mesh is written posed at it.
	Reference string
	// RefPadding is frame_ref_padding: a row holding the stack's last frame after
	// the reference row, and one holding its first frame after the last clip.
	RefPadding bool
	// PaddingMode is frame_padding_mode, for Options.Padding (frame_padding):
	// PadBoth (PREFIX_SUFFIX), PadPrefix or PadSuffix.
	PaddingMode string
	Remap       bool   // remapping: store (value − min)/(max − min) with offset and range in the reports
	AngleUnit   string // quat_angle_unit_mode: AngleTurns (a fraction of a turn), AngleDegrees or AngleRadians
	Rotation    string // rot_mode: AxisAngle (AXIS_ANGLE) or Quaternion (QUAT, one component per channel)
	// AllJoints writes a column for every joint in palette order instead of the
	// add-on's columns (the joints that carry weight, in first-use order).
	AllJoints bool
}

// The GameTools choices.
const (
	RefStart     = "start"
	RefEnd       = "end"
	RefBind      = "bind"
	PadBoth      = "both"
	PadPrefix    = "prefix"
	PadSuffix    = "suffix"
	AngleTurns   = "unit"
	AngleDegrees = "degrees"
	AngleRadians = "radians"
)

// AddonDefaults returns the add-on's defaults (BoneAnimation/Properties.py).
func AddonDefaults() AddonSettings {
	return AddonSettings{UnitScale: 100, InvertY: true, Reference: RefStart, RefPadding: true,
		PaddingMode: PadBoth, AngleUnit: AngleTurns, Rotation: AxisAngle}
}

func (g *AddonSettings) check(f Format) error {
	if err := gltf.CheckScale(g.UnitScale); err != nil { // the one rule for a scale factor
		return fmt.Errorf("unit scale %w", err)
	}
	if !slices.Contains([]string{RefStart, RefEnd, RefBind}, g.Reference) {
		return fmt.Errorf("reference %q: want start, end or bind", g.Reference)
	}
	if !slices.Contains([]string{PadBoth, PadPrefix, PadSuffix}, g.PaddingMode) {
		return fmt.Errorf("padding mode %q: want both, prefix or suffix", g.PaddingMode)
	}
	if !slices.Contains([]string{AngleTurns, AngleDegrees, AngleRadians}, g.AngleUnit) {
		return fmt.Errorf("angle unit %q: want unit, degrees or radians", g.AngleUnit)
	}
	if g.Rotation != AxisAngle && g.Rotation != Quaternion {
		return fmt.Errorf("rotation %q: want axis_angle or quaternion", g.Rotation)
	}
	if !g.Remap && (f == PNG16 || f == PNG8) {
		return fmt.Errorf("format %s stores values in [0, 1]: add --remap (the add-on's Remap) or use exr", f)
	}
	return nil
}

// MaxSide is the largest texture width or height written (§8).
const maxSide = exr.MaxSide

// Resolve fills in the defaults and checks that the choices go together.
func (o *Options) Resolve() error {
	if o.Preset == "" {
		o.Preset = Raw
	}
	if o.Format == "" {
		o.Format = EXR
		if o.Preset == UE {
			o.Format = PNG16
		}
	}
	if !slices.Contains([]Format{EXR, EXR16, PNG16, PNG8}, o.Format) {
		return fmt.Errorf("unknown format %q: want exr, exr16, png16 or png8", o.Format)
	}
	switch o.Preset {
	case Raw:
		if o.Format != EXR && o.Format != EXR16 {
			return fmt.Errorf("preset raw stores unnormalized floats: format %s cannot hold them; use exr or exr16", o.Format)
		}
	case GameTools:
		if o.GameTools == nil {
			d := AddonDefaults()
			o.GameTools = &d
		}
		if o.ZUp {
			return fmt.Errorf("preset gametools stores Blender's axes (z up) already; its axes are set by the add-on's unit_invert_x/y/z (--invert-axes)")
		}
		if o.Centimetres {
			return fmt.Errorf("preset gametools sets its unit with the add-on's unit_scale (--unit-scale; its default, 100, is centimetres)")
		}
		if err := o.GameTools.check(o.Format); err != nil {
			return err
		}
	case UE:
		if o.Format != PNG16 && o.Format != PNG8 {
			return fmt.Errorf("preset ue stores unorm textures: format %s does not; use png16 or png8", o.Format)
		}
	default:
		return fmt.Errorf("unknown preset %q: want raw, gametools or ue", o.Preset)
	}
	if o.Zip && o.Format != EXR && o.Format != EXR16 {
		return fmt.Errorf("ZIP compression applies to EXR files, not %s", o.Format)
	}
	if o.Padding < 0 || o.Padding > 1024 {
		return fmt.Errorf("padding %d: want 0 to 1024 frames", o.Padding)
	}
	return nil
}

// Encodings of stored channels (§4).
const (
	Float32 = "float32"
	Float16 = "float16"
	Unorm16 = "unorm16"
	Unorm8  = "unorm8"
)

// encodings returns the encoding of the position, rotation and skin textures.
func (o *Options) encodings() (pos, rot, skin string) {
	switch o.Format {
	case EXR16:
		return Float32, Float16, Float16
	case PNG16:
		return Unorm16, Unorm16, Unorm16
	case PNG8:
		return Unorm8, Unorm8, Unorm8
	}
	return Float32, Float32, Float32
}

// check says what is wrong with an input before anything is baked.
func (in *Input) check() error {
	if in.Bones < 1 {
		return fmt.Errorf("bat: %s: no bones", in.Name)
	}
	if in.Mesh == nil || in.Mesh.VertexCount() == 0 {
		return fmt.Errorf("bat: %s: no skinned mesh to bake", in.Name)
	}
	if len(in.InverseBind) != in.Bones {
		return fmt.Errorf("bat: %s: %d inverse bind matrices for %d bones", in.Name, len(in.InverseBind), in.Bones)
	}
	frames := 0
	for _, c := range in.Clips {
		if c.FrameCount < 1 {
			return fmt.Errorf("bat: %s: clip %q has no frames", in.Name, c.Name)
		}
		frames += c.FrameCount
	}
	if frames == 0 {
		return fmt.Errorf("bat: %s: no clips", in.Name)
	}
	if len(in.Palettes) != frames*in.Bones*16 {
		return fmt.Errorf("bat: %s: %d palette floats for %d frames of %d bones", in.Name, len(in.Palettes), frames, in.Bones)
	}
	m := in.Mesh
	nv := m.VertexCount()
	if len(m.Joints) < nv || len(m.Weights) < nv {
		return fmt.Errorf("bat: %s: %d vertices but %d joint and %d weight sets", in.Name, nv, len(m.Joints), len(m.Weights))
	}
	for v := range nv {
		for k, w := range m.Weights[v] {
			if w != 0 && int(m.Joints[v][k]) >= in.Bones {
				return fmt.Errorf("bat: %s: vertex %d influence %d names bone %d of %d", in.Name, v, k, m.Joints[v][k], in.Bones)
			}
		}
	}
	return nil
}

// ClipError is a clip asked for (Options.Clips) that the input does not have.
type ClipError struct {
	Name, Clip string
	Have       []string // the input's clips
}

func (e *ClipError) Error() string {
	return fmt.Sprintf("bat: %s: no clip %q (its clips: %s)", e.Name, e.Clip, strings.Join(e.Have, ", "))
}

// selectClips returns the input limited to the clips named, in stack order.
func (in *Input) selectClips(names []string) (*Input, error) {
	if names == nil {
		return in, nil
	}
	out := *in
	out.Clips, out.Palettes = nil, nil
	frame := in.Bones * 16
	for _, n := range names {
		if !slices.ContainsFunc(in.Clips, func(c bpat.Clip) bool { return c.Name == n }) {
			have := make([]string, len(in.Clips))
			for i, c := range in.Clips {
				have[i] = c.Name
			}
			return nil, &ClipError{Name: in.Name, Clip: n, Have: have}
		}
	}
	first := 0
	for _, c := range in.Clips {
		if slices.Contains(names, c.Name) {
			out.Clips = append(out.Clips, c)
			out.Palettes = append(out.Palettes, in.Palettes[first*frame:(first+c.FrameCount)*frame]...)
		}
		first += c.FrameCount
	}
	return &out, nil
}

// bone is one bone at one row: its position and rotation as the texture holds
// them before encoding (row 0 absolute, later rows relative, §2).
type bone struct {
	p rig.Vec3
	q rig.Quat
}

// upRotation is the rotation ZUp applies: +90° about x, (x, y, z) → (x, −z, y).
var upRotation = rig.QuatFromAxisAngle(rig.Vec3{1, 0, 0}, math.Pi/2)

// paletteMatrix reads entry b of a palette frame.
func paletteMatrix(frame []float32, b int) rig.Mat4 {
	var m rig.Mat4
	for k, v := range frame[b*16 : b*16+16] {
		m[k] = float64(v)
	}
	return m
}

// canonical returns q or −q, whichever has w ≥ 0.
func canonical(q rig.Quat) rig.Quat {
	if q[3] < 0 {
		return rig.Quat{-q[0], -q[1], -q[2], -q[3]}
	}
	return q
}

// axisAngle returns q's rotation as a unit axis and an angle in [0, π]; the axis of
// no rotation is +z.
func axisAngle(q rig.Quat) (rig.Vec3, float64) {
	q = canonical(q.Normalize())
	v := rig.Vec3{q[0], q[1], q[2]}
	s := v.Len()
	if s < 1e-12 {
		return rig.Vec3{0, 0, 1}, 0
	}
	return v.Scale(1 / s), 2 * math.Atan2(s, q[3])
}
