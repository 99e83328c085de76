package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"bonebake/bake"
	"bonebake/format"
	"bonebake/format/bpat"
	"bonebake/source/gltf"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
	"golang.org/x/term"
)

func newBakeCmd() *cobra.Command {
	var (
		out       string
		fps       float64
		speciesID uint32
		oneShot   []string
		sockets   []string
		manifest  string
		skin      int
		only      []string
	)
	cmd := &cobra.Command{
		Use:   "bake [MODEL.gltf|MODEL.glb -o OUT.bpat] [flags]",
		Short: "Bake the built-in creatures, or a glTF model's animations, into BPAT files",
		Long: `With no model, bake the built-in creatures (humanoid, horse, elephant,
humanoid_sword, humanoid_spear, humanoid_skeleton) into --out DIR (default
assets/creatures): <name>.bpat for each, and <name>_minimal.bpsm snapshot meshes
for the horse and the elephant. --species picks some of them.

With a model, bake every animation of a skinned glTF 2.0 model (.gltf or .glb) into a BPAT file
of model-space bone palettes: one clip per animation, all looping, at 30 fps unless
told otherwise. Bones are the skin's joints in joint order, so a vertex's JOINTS_0
index is its palette index.

A model written by 'bonebake export-gltf' carries its clips' fps, loop flags and
markers, its species id and its sockets, and bakes back into the same file.

A manifest (YAML, --manifest) says what flags cannot: per-clip fps, loop flags,
combat markers, time ranges and renames. --fps and --species-id override the
manifest's top-level values; --socket adds to its sockets; --one-shot applies to
the clips it names.`,
		Example: `  bonebake bake
  bonebake bake --out build/creatures --species horse,humanoid_sword
  bonebake bake Fox.glb -o fox.bpat --fps 60 --one-shot Survey
  bonebake bake hero.gltf -o hero.bpat --socket hand_r=RightHand@0,0.1,0
  bonebake bake hero.gltf -o hero.bpat --manifest hero.yaml`,
		Args: args(cobra.MaximumNArgs(1)),
		RunE: func(cmd *cobra.Command, a []string) error {
			if len(a) == 0 {
				for _, f := range []string{"fps", "species-id", "one-shot", "socket", "manifest", "skin"} {
					if cmd.Flags().Changed(f) {
						return usagef("--%s applies to a model; the built-in creatures carry their own settings", f)
					}
				}
				if out == "" {
					out = filepath.Join("assets", "creatures")
				}
				return bakeBuiltins(cmd, out, only)
			}
			if cmd.Flags().Changed("species") {
				return usagef("--species picks built-in creatures; it does not apply to a model")
			}
			model := a[0]
			start := time.Now()
			m, err := gltf.Load(model, gltf.Options{Skin: skin})
			if err != nil {
				return err
			}
			// A model exported by bonebake carries its own manifest in its extras.
			mf := bake.GLTFManifest(m)
			if manifest != "" {
				if mf, err = bake.ReadManifest(manifest); err != nil {
					return err
				}
			}
			flags := cmd.Flags()
			if flags.Changed("fps") || mf.FPS == 0 {
				mf.FPS = fps // the default; clips with their own fps in the manifest keep it
			}
			if !(mf.FPS > 0) {
				return usagef("--fps %v must be positive", mf.FPS)
			}
			if flags.Changed("species-id") {
				mf.SpeciesID = speciesID
			}
			for _, s := range sockets {
				ms, err := parseSocket(s)
				if err != nil {
					return err
				}
				mf.Sockets = append(mf.Sockets, ms)
			}
			if out == "" {
				out = strings.TrimSuffix(filepath.Base(model), filepath.Ext(model)) + ".bpat"
			}

			r, names, motions := bake.FromGLTF(m)
			job, err := mf.Job(r, names, motions)
			if err != nil {
				return fmt.Errorf("%s: %w", model, err)
			}
			for _, name := range oneShot {
				i := slices.IndexFunc(job.Clips, func(c bake.Clip) bool { return c.Name == name })
				if i < 0 {
					return usagef("--one-shot %q: no such clip (clips: %s)", name, clipNames(job.Clips))
				}
				job.Clips[i].Loops = false
			}
			job.Progress = progress(cmd, "baking "+filepath.Base(model))
			if err := bake.BakeFile(out, job); err != nil {
				return fmt.Errorf("%s: %w", model, err)
			}
			f, err := bpat.Open(out, knownSpecies, format.KnownSpecies(mf.SpeciesID))
			if err != nil {
				return fmt.Errorf("baked file does not validate: %w", err)
			}
			defer f.Close()
			h := f.Header()
			fmt.Fprintf(cmd.OutOrStdout(), "wrote %s: BPAT v%d, %d bones, %d clips, %d frames, %d sockets, %d bytes in %.0f ms\n",
				out, h.Version, h.BoneCount, h.ClipCount, h.FrameTotal, h.SocketCount, f.Size(), float64(time.Since(start).Microseconds())/1000)
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&out, "out", "o", "", "output file for a model (default: its name with .bpat), or directory for the built-in creatures (default assets/creatures)")
	fl.StringSliceVar(&only, "species", nil, "built-in creatures to bake (comma-separated names; default all)")
	fl.Float64Var(&fps, "fps", 30, "frames per second for every clip")
	fl.Uint32Var(&speciesID, "species-id", 0, "species id written in the header (ids beyond 0-5 must be registered by readers)")
	fl.StringSliceVar(&oneShot, "one-shot", nil, "clips that play once instead of looping (comma-separated names)")
	fl.StringArrayVar(&sockets, "socket", nil, "a socket as NAME=BONE or NAME=BONE@x,y,z (repeatable)")
	fl.StringVar(&manifest, "manifest", "", "YAML manifest with per-clip settings")
	fl.IntVar(&skin, "skin", 0, "which skin of the model to bake")
	return cmd
}

// parseSocket reads NAME=BONE[@x,y,z].
func parseSocket(s string) (bake.ManifestSocket, error) {
	name, rest, ok := strings.Cut(s, "=")
	if !ok || name == "" || rest == "" {
		return bake.ManifestSocket{}, usagef("--socket %q: want NAME=BONE or NAME=BONE@x,y,z", s)
	}
	bone, offset, hasOffset := strings.Cut(rest, "@")
	ms := bake.ManifestSocket{Name: name, Bone: bone}
	if hasOffset {
		parts := strings.Split(offset, ",")
		if len(parts) != 3 {
			return ms, usagef("--socket %q: the offset needs three numbers x,y,z", s)
		}
		for i, p := range parts {
			v, err := strconv.ParseFloat(strings.TrimSpace(p), 32)
			if err != nil {
				return ms, usagef("--socket %q: offset %q is not a number", s, p)
			}
			ms.Offset[i] = float32(v)
		}
	}
	return ms, nil
}

func clipNames(cs []bake.Clip) string {
	names := make([]string, len(cs))
	for i, c := range cs {
		names[i] = strconv.Quote(c.Name)
	}
	return strings.Join(names, ", ")
}

// progress returns a progress callback drawing a bar on stderr, or nil when stderr
// is not a terminal.
func progress(cmd *cobra.Command, what string) func(done, total int) {
	f, ok := cmd.ErrOrStderr().(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return nil
	}
	var (
		mu  sync.Mutex
		bar *progressbar.ProgressBar
	)
	return func(done, total int) {
		mu.Lock()
		defer mu.Unlock()
		if bar == nil {
			bar = progressbar.NewOptions(total, progressbar.OptionSetWriter(f), progressbar.OptionSetDescription(what),
				progressbar.OptionClearOnFinish(), progressbar.OptionThrottle(50*time.Millisecond))
		}
		bar.Set(done)
	}
}
