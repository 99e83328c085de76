package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/bonebake/bonebake/bake"
	"github.com/bonebake/bonebake/bat"
	"github.com/bonebake/bonebake/formats"
	"github.com/bonebake/bonebake/formats/bpat"
	"github.com/bonebake/bonebake/internal/iopath"
	"github.com/bonebake/bonebake/source/gltf/gltfbake"
	"github.com/bonebake/bonebake/species/creatures"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

func newBatCmd() *cobra.Command {
	var (
		out, preset, form, bpatOf string
		maxError                  float64
		clips                     []string
		padding                   int
		invertV, zUp, zip, asJSON bool
		force, cm                 bool
		model                     modelFlags
		addon                     = bat.AddonDefaults()
		invertAxes                string
	)
	cmd := &cobra.Command{
		Use:   "bat MODEL.glb|SPECIES|FILE.bpat -o DIR [flags]",
		Short: "Bake bone animation textures (BAT) for Unreal, Unity, Blender shaders or any engine",
		Long: `Bake a skinned glTF model, a built-in creature or a BPAT file (with --model, the
glTF model it was baked from) into bone animation textures (docs/formats/bat.md):

  DIR/<name>.position.(exr|png)  bone positions: row 0 the reference pose, then every frame
  DIR/<name>.rotation.(exr|png)  bone rotations, relative to the reference pose
  DIR/<name>.skin.(exr|png)      each vertex's four bones and weights
  DIR/<name>.glb                 the static mesh, TEXCOORD_1 at each vertex's skin texel
  DIR/<name>.bat.json            how to decode them, and the verification's errors
  DIR/<name>.bat.xml             (gametools) the Blender baker's BakedData report

Presets: raw (quaternions, float EXR), gametools (what the Blender GameTools
add-on's BoneAnimation baker writes by default, for its materials: centimetres in
Blender's axes with y negated, axis and angle in turns, the first frame as the
reference with the mesh posed there, padding rows, the weighted bones as columns;
--unit-scale, --invert-axes, --reference, --ref-padding, --padding-mode, --remap,
--angle-unit, --rotation and --all-joints change the add-on's settings), ue (Unreal
AnimToTexture: bounding-box positions, axis-angle, 16-bit PNG; --format png8 for
8-bit; for Unreal, with --z-up and --cm, and without --invert-v, since glTF's
UVs and Unreal's share their origin). --cm writes raw and ue positions, and the
report's offsets and ranges, in centimetres, Unreal's unit; the mesh stays in
metres, glTF's unit, which Unreal's glTF importer turns into centimetres. A model in
centimetres gets the hint bake gives (--scale 0.01). Every bake is verified: from the values the files hold (bit for bit, kept
in memory: nothing is read back), every vertex of every frame is rebuilt as a
shader would, on every core, and compared with linear blend skinning of the
source; --max-error fails the command
when the worst error (metres) is larger, writing nothing.`,
		Example: `  bonebake bat Fox.glb -o bat/fox --scale 0.01
  bonebake bat Fox.glb -o bat/fox --scale 0.01 --preset ue --z-up --cm
  bonebake bat horse -o bat/horse --preset gametools --padding 1
  bonebake bat hero.glb -o bat/hero --preset gametools --reference bind
  bonebake bat humanoid -o bat/humanoid --clips walk,run --format exr16 --zip
  bonebake bat hero.bpat --model hero.glb -o bat/hero --max-error 0.001`,
		Args: args(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, a []string) error {
			start := time.Now()
			if out == "" {
				return usagef("-o DIR is required: the folder for the textures, mesh and report")
			}
			st, err := os.Stat(out)
			if err == nil && !st.IsDir() {
				return usagef("-o %s: is a file; give the folder to write into", out)
			}
			// A folder not yet made, named as one of the files bat writes
			// (-o fox.glb), is a file name given for the folder.
			if ext := strings.ToLower(filepath.Ext(out)); err != nil && slices.Contains([]string{".glb", ".gltf", ".json", ".exr", ".png", ".xml", ".bpat", ".zip"}, ext) {
				dir := strings.TrimSuffix(out, filepath.Ext(out))
				return usagef("-o %s: bat writes a folder of files (NAME.bat.json, its textures, NAME.glb), and -o names that folder: give -o %s", out, dir)
			}
			flags := cmd.Flags()
			model.set.NoLimits = force // bat's --force, which lifts the verification's limit too
			set, err := model.settings(flags)
			if err != nil {
				return err
			}
			if maxError < 0 {
				return usagef("--max-error %v must not be negative", maxError)
			}
			opt := bat.Options{Preset: bat.Preset(preset), Format: bat.Format(form), Zip: zip, Padding: padding,
				InvertV: invertV, ZUp: zUp, Centimetres: cm, Clips: clips}
			if !flags.Changed("clips") {
				opt.Clips = nil
			}
			if err := refuseFlags(flags, []flagRule{{opt.Preset != bat.GameTools, []string{"unit-scale", "invert-axes", "reference", "ref-padding",
				"padding-mode", "remap", "angle-unit", "rotation", "all-joints"}, "is a setting of --preset gametools (the Blender add-on's)"}}); err != nil {
				return err
			}
			if opt.Preset == bat.GameTools {
				if flags.Changed("invert-axes") {
					if strings.Trim(strings.ToLower(invertAxes), "xyz") != "" && invertAxes != "none" {
						return usagef("--invert-axes %q: want a combination of x, y and z, or none", invertAxes)
					}
					a := strings.ToLower(invertAxes)
					addon.InvertX, addon.InvertY, addon.InvertZ = strings.Contains(a, "x"), strings.Contains(a, "y"), strings.Contains(a, "z")
				}
				opt.GameTools = &addon
			}
			if err := opt.Resolve(); err != nil {
				return usageError{err}
			}
			if h := ueHint(opt); h != "" {
				fmt.Fprintln(cmd.ErrOrStderr(), h)
			}
			opt.NoLimit = force
			opt.Progress = progress(cmd, "verifying")
			if flags.Changed("max-error") { // checked before the files take their names
				opt.Accept = func(r *bat.Report) error {
					if r.MaxError.Vertex > maxError || r.MaxError.Position > maxError {
						return fmt.Errorf("%s: the rebuild is off by up to %.3g m (vertex) and %.3g m (bone position), more than --max-error %g%s; nothing written",
							a[0], r.MaxError.Vertex, r.MaxError.Position, maxError, precisionHint(r))
					}
					return nil
				}
			}
			in, err := batInput(a[0], bpatOf, set, flags, cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			if err := madeDirs.Make(out); err != nil { // recorded, so a failed bat removes it
				return fmt.Errorf("-o %s: %w", out, err)
			}
			res, err := bat.Write(out, in, opt)
			if ce := (*bat.ClipError)(nil); errors.As(err, &ce) {
				return usagef("--clips %s: %s has no clip %q (its clips: %s)", strings.Join(clips, ","), ce.Name, ce.Clip, strings.Join(ce.Have, ", "))
			}
			if err != nil {
				return err
			}
			r := res.Report
			if len(res.Removed) > 0 {
				fmt.Fprintf(cmd.ErrOrStderr(), "note: removed %s: the set baked before under this name (another preset or format), which this one replaces\n", strings.Join(res.Removed, ", "))
			}
			if asJSON {
				if err := writeJSON(cmd.OutOrStdout(), r); err != nil {
					return err
				}
			} else {
				w := cmd.OutOrStdout()
				fmt.Fprintf(w, "wrote %s: %s, %s, %s, %d rows (%s), %s preset, positions in %s, in %s\n",
					filepath.Join(out, in.Name+".bat.json"), plural(r.Bones, "bone"), plural(r.Vertices, "vertex"),
					plural(len(r.Clips), "clip"), r.Rows, stackedText(r), r.Preset, unitsText(r), tookText(time.Since(start)))
				for _, f := range res.Files[1:] {
					fmt.Fprintf(w, "  %s  %s\n", filepath.Join(out, f.Name), bytesText(int64(len(f.Data))))
				}
				fmt.Fprintf(w, "verified from the files: worst vertex %.3g m, worst bone position %.3g m\n", r.MaxError.Vertex, r.MaxError.Position)
				if r.RenormalizedVertices > 0 {
					fmt.Fprintf(cmd.ErrOrStderr(), "note: %s of the source had weights that do not sum to 1; the skin texture renormalizes them\n",
						plural(r.RenormalizedVertices, "vertex"))
				}
			}
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&out, "out", "o", "", "folder to write into (created when missing)")
	fl.StringVar(&preset, "preset", "raw", "raw, gametools or ue")
	fl.StringVar(&form, "format", "", "exr, exr16, png16 or png8 (default exr; png16 for ue)")
	model.add(fl, "fps", "skin", "scale", "deforming-only", "max-bones")
	fl.StringSliceVar(&clips, "clips", nil, "clips to bake, comma-separated (default all)")
	fl.Float64Var(&maxError, "max-error", 0, "fail when a rebuilt vertex or bone is further than this from the source, in metres")
	fl.IntVar(&padding, "padding", 0, "frames added before and after each clip (wrap-around, or held ends)")
	fl.BoolVar(&invertV, "invert-v", false, "store rows bottom up and flip TEXCOORD_1's v, for pipelines that flip images on load and use the UVs as they are (leave it off for a glTF importer, which converts the UVs itself)")
	fl.BoolVar(&zUp, "z-up", false, "turn the output so that z is up (Unreal, Blender): (x, y, z) → (x, −z, y)")
	fl.BoolVar(&cm, "cm", false, "raw and ue: write positions in centimetres, Unreal's unit (the mesh stays in metres, glTF's, which Unreal's importer turns into centimetres)")
	fl.BoolVar(&zip, "zip", false, "ZIP-compress EXR textures")
	fl.StringVar(&bpatOf, "model", "", "with a BPAT file: the glTF model whose mesh and skin it was baked from")
	fl.BoolVar(&force, "force", false, fmt.Sprintf("bake and verify past the size limits (a bake over %s, a verification over 2e9 vertex-rows; a bake's %d frames in all stay its bound)", bytesText(bake.DefaultMaxBytes), bake.MaxFrames))
	fl.BoolVar(&asJSON, "json", false, "print the report (<name>.bat.json) instead of a summary")
	fl.Float64Var(&addon.UnitScale, "unit-scale", addon.UnitScale, "gametools: multiply positions by this (the add-on's unit_scale; 100: centimetres)")
	fl.StringVar(&invertAxes, "invert-axes", "y", "gametools: Blender axes to negate, e.g. y, xz or none (unit_invert_x/y/z)")
	fl.StringVar(&addon.Reference, "reference", addon.Reference, "gametools: reference pose and mesh pose: start, end (frame_ref_mode) or bind")
	fl.BoolVar(&addon.RefPadding, "ref-padding", addon.RefPadding, "gametools: pad the stack with its last frame before and first frame after (frame_ref_padding)")
	fl.StringVar(&addon.PaddingMode, "padding-mode", addon.PaddingMode, "gametools: where --padding goes: both, prefix or suffix (frame_padding_mode)")
	fl.BoolVar(&addon.Remap, "remap", addon.Remap, "gametools: remap each channel to [0, 1] (remapping; needed for png16 and png8)")
	fl.StringVar(&addon.AngleUnit, "angle-unit", addon.AngleUnit, "gametools: axis-angle angle unit: unit (a fraction of a turn), degrees or radians")
	fl.StringVar(&addon.Rotation, "rotation", addon.Rotation, "gametools: axis_angle or quaternion (rot_mode)")
	fl.BoolVar(&addon.AllJoints, "all-joints", false, "gametools: a column for every joint instead of the weighted ones in first-use order")
	return cmd
}

// precisionHint suggests what could lower a bake's error, leaving out the
// settings it already uses: 32-bit floats (exr), then the raw preset's
// quaternions, then a bind-pose reference for gametools.
func precisionHint(r *bat.Report) string {
	var try []string
	switch {
	case r.Preset == string(bat.UE) && r.Position.Encoding == "unorm8":
		try = append(try, "--format png16")
	case r.Preset != string(bat.UE) && r.Position.Encoding != "float32":
		try = append(try, "--format exr")
	}
	if r.Preset == string(bat.GameTools) && r.Reference != "bind" {
		try = append(try, "--reference bind (the add-on's first-frame reference blends vertices approximately)")
	}
	if r.Preset != string(bat.Raw) {
		try = append(try, "--preset raw")
	}
	if len(try) == 0 {
		return ": these are already the most precise settings (float32 quaternions from the bind pose); the error is float32 rounding of the model's own size"
	}
	return ": try " + strings.Join(try, ", or ")
}

func stackedText(r *bat.Report) string {
	if r.Stacked {
		return fmt.Sprintf("stacked into %d × %d texels", r.Position.Width, r.Position.Height)
	}
	return fmt.Sprintf("%d × %d texels", r.Position.Width, r.Position.Height)
}

// batInput resolves the argument of bat: a glTF model, a BPAT file with its
// model, or a built-in creature's name. fl holds the flags given.
func batInput(arg, model string, set gltfbake.Settings, fl *pflag.FlagSet, notes io.Writer) (*bat.Input, error) {
	if _, err := os.Stat(arg); err != nil && !strings.ContainsAny(arg, `/\.`) {
		s := creatures.ByName(arg)
		if s == nil {
			return nil, usagef("%s: no such file, and no built-in creature of that name (there are: %s)", arg, strings.Join(creatures.Names(), ", "))
		}
		if err := refuseFlags(fl, []flagRule{{true, []string{"fps", "skin", "model", "scale", "deforming-only", "max-bones"},
			"applies to files; the built-in creatures carry their own settings"}}); err != nil {
			return nil, err
		}
		return bat.FromSpecies(s)
	}
	if err := iopath.Input(arg); err != nil {
		return nil, err
	}
	kind, err := formats.SniffFile(arg)
	if err != nil {
		return nil, err
	}
	switch kind {
	case formats.GLB, formats.GLTF, formats.FBX:
		if model != "" {
			return nil, usagef("--model goes with a BPAT file; %s is a model already", arg)
		}
		m, err := loadModel(arg, set, notes)
		if err != nil {
			return nil, err
		}
		return bat.FromModel(m)
	case formats.BPAT:
		if model == "" {
			return nil, usagef("%s: a BPAT file holds no mesh: give the glTF model it was baked from with --model", arg)
		}
		if fl.Changed("fps") {
			return nil, usagef("--fps: a BPAT file's clips are baked already")
		}
		if err := iopath.Input(model); err != nil {
			return nil, err
		}
		m, err := loadModel(model, set, notes)
		if err != nil {
			return nil, err
		}
		if m.GLTF.MeshError != nil || m.GLTF.Mesh == nil {
			_, err := bat.FromModel(m) // says why there is no mesh
			return nil, err
		}
		f, err := bpat.Open(arg, formats.Lenient())
		if err != nil {
			return nil, err
		}
		defer f.Close()
		name := strings.TrimSuffix(filepath.Base(arg), filepath.Ext(arg))
		return bat.FromBPAT(name, f, m.GLTF.InverseBind, m.GLTF.Mesh)
	}
	if kind == formats.BVH {
		return nil, fmt.Errorf("%s: %s holds motion and no mesh, and bat bakes a mesh's textures: bake it onto a character (bonebake bake CHARACTER.glb --clips %s -o OUT.bpat) and give bat that BPAT with --model CHARACTER.glb", arg, kind.Words(), filepath.Base(arg))
	}
	return nil, fmt.Errorf("%s: %s: bat reads skinned glTF models, BPAT files (with --model) and built-in creatures", arg, kind.Words())
}

// ueHint is the hint for a ue bake without the flags Unreal's recipe adds
// (README, "Bone animation textures"): without --cm its positions are in
// metres where the imported mesh is in centimetres, without --z-up in glTF's
// axes where Unreal's are z up.
func ueHint(opt bat.Options) string {
	if opt.Preset != bat.UE {
		return ""
	}
	var writes, add []string
	if !opt.Centimetres {
		writes, add = append(writes, "in metres"), append(add, "--cm")
	}
	if !opt.ZUp {
		writes, add = append(writes, "y up"), append(add, "--z-up")
	}
	if len(add) == 0 {
		return ""
	}
	return "hint: --preset ue is for Unreal's AnimToTexture, which reads positions in centimetres, z up; this bake writes them " +
		strings.Join(writes, ", ") + ": add " + strings.Join(add, " ")
}

// loadModel loads a model for bat and tells notes what bake would say of it
// (weights normalized, meshes left out).
func loadModel(path string, set gltfbake.Settings, notes io.Writer) (*gltfbake.Model, error) {
	m, err := gltfbake.Load(path, set)
	if err != nil {
		return nil, libError(err)
	}
	modelNotes(notes, m)
	return m, nil
}

// modelNotes writes what to tell of a loaded model before baking it (its
// notes, and the hint its size gives: gltfbake's Model.Report) as bake's
// lines are (tell).
func modelNotes(w io.Writer, m *gltfbake.Model) {
	for _, l := range m.Report() {
		tell(w, w)(l)
	}
}

// unitsText says which unit the textures' positions are in: the report's
// units, or for gametools its unit_scale (100: centimetres).
func unitsText(r *bat.Report) string {
	switch {
	case r.Units == bat.UnitsCM:
		return "centimetres"
	case r.GameTools != nil && r.GameTools.UnitScale == 100:
		return "centimetres (unit_scale 100)"
	case r.GameTools != nil:
		return fmt.Sprintf("metres × %g (unit_scale)", r.GameTools.UnitScale)
	}
	return "metres"
}
