package main

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/bonebake/bonebake/formats"
	"github.com/bonebake/bonebake/formats/mot"
	"github.com/bonebake/bonebake/internal/atomicfile"
	"github.com/bonebake/bonebake/internal/iopath"

	"github.com/spf13/cobra"
)

func newMotCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "mot",
		Short: "Read, convert and encode PlatinumGames motion files (.mot)",
		Long: `Work with the motion files of Bayonetta 1, Bayonetta 2, Nier: Automata and
Transformers: Devastation (docs/formats/mot.md): both families, both byte orders,
every record type. To bake a motion onto a skinned model, see 'bonebake bake --mot'.`,
		Example: `  bonebake mot inspect pl0010_0000.mot
  bonebake mot dump pl0010_0000.mot --json > motion.json
  bonebake mot convert pl0010_0000.mot -o pc.mot --family bayo1 --byte-order little
  bonebake mot encode motion.json -o new.mot --tolerance 1e-4`,
		Args: subcommands,
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	cmd.AddCommand(newMotInspectCmd(), newMotDumpCmd(), newMotConvertCmd(), newMotEncodeCmd())
	return cmd
}

// openMot checks and parses a motion file leniently, as the games read it, and
// tells stderr what a strict reader would refuse.
func openMot(cmd *cobra.Command, path string) (*mot.Motion, error) {
	if err := inputOf(path, formats.Mot); err != nil {
		return nil, err
	}
	m, err := mot.Open(path, formats.Lenient())
	if err != nil {
		return nil, err
	}
	for _, w := range m.Warnings() {
		fmt.Fprintln(cmd.ErrOrStderr(), "warning:", w)
	}
	return m, nil
}

// motInfo is inspect's JSON (keys per docs/json.md where they overlap).
type motInfo struct {
	File       string        `json:"file"`
	Format     string        `json:"format"`
	Size       int64         `json:"size"`
	Family     string        `json:"family"`
	ByteOrder  string        `json:"byte_order"`
	FrameCount int           `json:"frame_count"`
	FPS        int           `json:"fps"`
	Flags      uint16        `json:"flags"`
	Loops      bool          `json:"loops"`
	Camera     bool          `json:"camera"`
	Name       string        `json:"name"`
	Types      []motTypeInfo `json:"types"`
	Records    []motRecInfo  `json:"records"`
}

type motTypeInfo struct {
	Type    int8 `json:"type"`
	Records int  `json:"records"`
	Size    int  `json:"size"`
}

type motRecInfo struct {
	Bone  int16 `json:"bone"`
	Track uint8 `json:"track"`
	Type  int8  `json:"type"`
	Count int   `json:"count"`
	Size  int   `json:"size"`
}

func newMotInspectCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "inspect FILE [--json]",
		Short: "Show a motion's family, byte order, frames, flags, name and records",
		Long: `Show a motion file's header (family, byte order, frames, flags, name), how many
records of each type it holds and their data size, and its records by bone, track
and type.`,
		Example: `  bonebake mot inspect pl0010_0000.mot
  bonebake mot inspect pl0010_0000.mot --json`,
		Args: args(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, a []string) error {
			m, err := openMot(cmd, a[0])
			if err != nil {
				return err
			}
			st, err := os.Stat(a[0])
			if err != nil {
				return err
			}
			info := motInfo{File: a[0], Format: "mot", Size: st.Size(), Family: m.Family.String(),
				ByteOrder: mot.OrderName(m.Order), FrameCount: m.Frames, FPS: 60, Flags: m.Flags,
				Loops: m.Loops(), Camera: m.Flags&mot.FlagCamera != 0, Name: m.Name, Types: []motTypeInfo{}, Records: []motRecInfo{}}
			byType := map[int8]*motTypeInfo{}
			for _, r := range m.Records {
				info.Records = append(info.Records, motRecInfo{r.Bone, r.Track, r.Type, r.Count, len(r.Data)})
				ti := byType[r.Type]
				if ti == nil {
					ti = &motTypeInfo{Type: r.Type}
					byType[r.Type] = ti
				}
				ti.Records++
				ti.Size += len(r.Data)
			}
			for _, ti := range byType {
				info.Types = append(info.Types, *ti)
			}
			slices.SortFunc(info.Types, func(a, b motTypeInfo) int { return int(a.Type) - int(b.Type) })
			if asJSON {
				return writeJSON(cmd.OutOrStdout(), info)
			}
			printMotInfo(cmd.OutOrStdout(), &info, m.Family)
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

// motBone writes a bone id as --camera takes it and docs/formats/mot.md §2 names
// it: a camera "bone" in hex (0x7000, as --camera 0x7000=0xf60 is written), any
// other in decimal, as the skeleton's bone ids are numbered.
func motBone(f mot.Family, bone int16) string {
	if mot.IsCamera(f, bone) {
		return fmt.Sprintf("%#x (camera)", bone)
	}
	return strconv.Itoa(int(bone))
}

func printMotInfo(w io.Writer, in *motInfo, fam mot.Family) {
	fmt.Fprintf(w, "%s: mot, %s, %s-endian, %s\n", in.File, in.Family, in.ByteOrder, bytesText(in.Size))
	name := shown(in.Name)
	if name == "" {
		name = "(none)"
	}
	fmt.Fprintf(w, "  name %s, %s at 60 fps, flags %#x (loops: %v, camera: %v)\n", name, plural(in.FrameCount, "frame"), in.Flags, in.Loops, in.Camera)
	fmt.Fprintf(w, "  %s\n", plural(len(in.Records), "record"))
	for _, t := range in.Types {
		fmt.Fprintf(w, "    type %d: %s, %s of data\n", t.Type, plural(t.Records, "record"), bytesText(int64(t.Size)))
	}
	fmt.Fprintln(w, "  records by bone (track:type):")
	for i := 0; i < len(in.Records); {
		j := i
		var parts []string
		for ; j < len(in.Records) && in.Records[j].Bone == in.Records[i].Bone; j++ {
			parts = append(parts, fmt.Sprintf("%d:%d", in.Records[j].Track, in.Records[j].Type))
		}
		fmt.Fprintf(w, "    bone %s: %s\n", motBone(fam, in.Records[i].Bone), strings.Join(parts, " "))
		i = j
	}
}

func newMotDumpCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "dump FILE --json",
		Short: "Print every track's value at every frame, as JSON",
		Long: `Print a motion's header and, per record in file order (the terminator left out),
its bone, track, record type and its value at each of the motion's frames, as
float64 evaluated exactly as the games' community decoder does. 'bonebake mot
encode' reads this format back.`,
		Example: `  bonebake mot dump pl0010_0000.mot --json > motion.json`,
		Args:    args(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, a []string) error {
			if !asJSON {
				return usagef("mot dump writes JSON only: give --json")
			}
			m, err := openMot(cmd, a[0])
			if err != nil {
				return err
			}
			bw := bufio.NewWriterSize(cmd.OutOrStdout(), 1<<16)
			if err := mot.WriteDump(bw, m); err != nil {
				return fmt.Errorf("%s: %w", a[0], err)
			}
			return bw.Flush()
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON (required)")
	return cmd
}

// familyOrderFlags are --family and --byte-order.
type familyOrderFlags struct{ family, order string }

func (f *familyOrderFlags) add(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.family, "family", "", "bayo1 or bayo2 (default: the input's)")
	cmd.Flags().StringVar(&f.order, "byte-order", "", "little or big (default: the input's)")
}

// resolve returns the flags' family and order, or the defaults given.
func (f *familyOrderFlags) resolve(fam mot.Family, o binary.ByteOrder) (mot.Family, binary.ByteOrder, error) {
	var err error
	if f.family != "" {
		if fam, err = mot.ParseFamily(f.family); err != nil {
			return 0, nil, usagef("--family: %v", err)
		}
	}
	if f.order != "" {
		if o, err = mot.ParseByteOrder(f.order); err != nil {
			return 0, nil, usagef("--byte-order: %v", err)
		}
	}
	return fam, o, nil
}

func newMotConvertCmd() *cobra.Command {
	var out string
	var fo familyOrderFlags
	var cameras []string
	var allTypes bool
	cmd := &cobra.Command{
		Use:   "convert IN -o OUT [--family bayo1|bayo2] [--byte-order little|big] [--bayo1-all-types]",
		Short: "Convert a motion between families and byte orders, keeping its values",
		Long: `Convert a motion between the Bayonetta 1 and Bayonetta 2 families and between
byte orders (Wii U and Xbox 360/PS3 big-endian; Switch, PC, Nier and Transformers
little-endian). Every value the input decodes to, the output decodes to bit for
bit (docs/formats/mot.md §10), with one exception. Bayonetta 1 output uses only
record types 0, 1, 4, 6 and 7, the ones every known reader opens (the modders'
bayonetta_tools opens no others): tracks whose layout only types 2, 3 and 5 have
are re-expressed, per-frame quantized values as keys on every frame with the same
values, float Hermite keys as float32 values per frame where no exact form exists.
The summary lists each such track, the largest difference it made and what it
cost in bytes; --bayo1-all-types writes types 2, 3 and 5 instead, for readers
that have them. Camera records are dropped unless --camera says which camera bone
of the output family each input camera bone becomes.`,
		Example: `  bonebake mot convert pl0010_0000.mot -o switch.mot --byte-order little
  bonebake mot convert bayo2.mot -o bayo1.mot --family bayo1 --camera 0x7000=0xf60
  bonebake mot convert bayo2.mot -o bayo1.mot --family bayo1 --bayo1-all-types`,
		Args: args(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, a []string) error {
			if out == "" {
				return usagef("give the output file with -o")
			}
			camera, err := parseCameraMap(cameras)
			if err != nil {
				return err
			}
			m, err := openMot(cmd, a[0])
			if err != nil {
				return err
			}
			fam, o, err := fo.resolve(m.Family, m.Order)
			if err != nil {
				return err
			}
			types := mot.Readable
			if allTypes {
				types = mot.AllTypes
			}
			cameraNotes(cmd.ErrOrStderr(), m, camera)
			c, re, err := m.Convert(fam, o, camera, types)
			if err != nil {
				return fmt.Errorf("%s: %w", a[0], err)
			}
			b, err := c.Marshal()
			if err != nil {
				return fmt.Errorf("%s: %w", a[0], err)
			}
			if err := writeFile("-o", out, b); err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			dropped := ""
			if n := len(m.Records) - len(c.Records); n > 0 {
				dropped = fmt.Sprintf(" (%s dropped: give --camera FROM=TO to carry them)", plural(n, "camera record"))
			}
			fmt.Fprintf(w, "wrote %s: %s, %s-endian, %s, %s%s\n", out, c.Family,
				mot.OrderName(o), plural(len(c.Records), "record"), bytesText(int64(len(b))), dropped)
			if len(re) == 0 {
				return nil
			}
			// What re-expressing cost: the same conversion with types 2, 3 and 5.
			direct, _, err := m.Convert(fam, o, camera, mot.AllTypes)
			if err != nil {
				return fmt.Errorf("%s: %w", a[0], err)
			}
			db, err := direct.Marshal()
			if err != nil {
				return fmt.Errorf("%s: %w", a[0], err)
			}
			lossy, worst := 0, 0.0
			for _, x := range re {
				diff := "values identical"
				if x.Diff != 0 {
					diff = fmt.Sprintf("largest difference %.3g", x.Diff)
					lossy++
					worst = max(worst, x.Diff)
				}
				fmt.Fprintf(w, "  bone %s track %d: type %d → %d (not %d), %d → %d bytes, %s\n",
					motBone(fam, x.Bone), x.Track, x.From, x.To, x.Direct, x.DirectSize, x.Size, diff)
			}
			fmt.Fprintf(w, "%s re-expressed in types Bayonetta 1 readers open (0, 1, 4, 6, 7): %+d bytes (%d with types 2, 3 and 5: --bayo1-all-types); ",
				plural(len(re), "track"), len(b)-len(db), len(db))
			if lossy == 0 {
				fmt.Fprintln(w, "every value identical")
			} else {
				fmt.Fprintf(w, "values identical except %s of float Hermite keys, largest difference %.3g\n", plural(lossy, "track"), worst)
			}
			return nil
		},
	}
	cmd.Flags().StringVarP(&out, "out", "o", "", "output file")
	fo.add(cmd)
	cmd.Flags().StringSliceVar(&cameras, "camera", nil, "map a camera bone: FROM=TO, ids in hex as mot inspect prints camera bones (0x7000=0xf60; decimal also taken); repeatable")
	cmd.Flags().BoolVar(&allTypes, "bayo1-all-types", false, "Bayonetta 1 output may use types 2, 3 and 5 (lossless; bayonetta_tools cannot open them)")
	return cmd
}

func parseCameraMap(pairs []string) (map[int16]int16, error) {
	if len(pairs) == 0 {
		return nil, nil
	}
	out := map[int16]int16{}
	for _, p := range pairs {
		from, to, ok := strings.Cut(p, "=")
		f, err1 := strconv.ParseInt(strings.TrimSpace(from), 0, 16)
		t, err2 := strconv.ParseInt(strings.TrimSpace(to), 0, 16)
		if !ok || err1 != nil || err2 != nil {
			return nil, usagef("--camera %q: want FROM=TO, two bone ids (hex with 0x, as mot inspect prints camera bones: 0x7000=0xf60)", p)
		}
		out[int16(f)] = int16(t)
	}
	return out, nil
}

// cameraNotes says which --camera FROM ids name no camera bone of m: a mapping
// that carries nothing (7000 is read as decimal, not 0x7000), whose records
// are then dropped all the same.
func cameraNotes(w io.Writer, m *mot.Motion, camera map[int16]int16) {
	var have []int16
	for _, r := range m.Records {
		if mot.IsCamera(m.Family, r.Bone) && !slices.Contains(have, r.Bone) {
			have = append(have, r.Bone)
		}
	}
	slices.Sort(have)
	names := make([]string, len(have))
	for i, b := range have {
		names[i] = fmt.Sprintf("%#x", b)
	}
	from := slices.Sorted(maps.Keys(camera))
	for _, f := range from {
		if slices.Contains(have, f) {
			continue
		}
		its := "it has none"
		if len(names) > 0 {
			its = "its camera bones: " + strings.Join(names, ", ")
		}
		fmt.Fprintf(w, "note: --camera %#x (decimal %d): the motion has no such camera bone, so it maps nothing (%s)\n", f, f, its)
	}
}

func writeMot(path string, m *mot.Motion) error {
	b, err := m.Marshal()
	if err != nil {
		return err
	}
	return writeFile("-o", path, b)
}

// writeFile writes b to path through the one atomic write path, after checking
// the output target.
func writeFile(flag, path string, b []byte) error {
	if err := outputFile(flag, path); err != nil {
		return err
	}
	return atomicfile.Write(path, func(w io.Writer) error { _, err := w.Write(b); return err })
}

func newMotEncodeCmd() *cobra.Command {
	var out string
	var fo familyOrderFlags
	var tol float64
	var quiet, verbose, allTypes bool
	cmd := &cobra.Command{
		Use:   "encode DUMP.json -o OUT.mot [--family] [--byte-order] [--tolerance 1e-4] [--bayo1-all-types] [--verbose]",
		Short: "Encode per-frame values (the dump format) into a compact motion",
		Long: `Encode a motion from per-frame values in the format 'bonebake mot dump --json'
prints (its "type" fields are ignored). Per track the encoder picks the smallest
record whose decoded values stay within --tolerance of the input: a constant, then
quantized per-frame values and quantized Hermite keys (keys placed where the error
is largest, tangents fitted by least squares). It prints one summary line; with
--verbose also per track the type chosen, its size and the largest error reached.
--tolerance 0 asks for the most exact file: a track no record holds exactly is
stored as plain float32 values, and the summary says how far float32 rounding
took it. Family and byte order default to
the dump's. Bayonetta 1 output uses only types 0, 1, 4 and 6, which every known
reader opens; --bayo1-all-types also allows the per-frame quantized types 3 and
5, which bayonetta_tools cannot open.`,
		Example: `  bonebake mot dump pl0010_0000.mot --json > motion.json
  bonebake mot encode motion.json -o smaller.mot --tolerance 1e-3`,
		Args: args(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, a []string) error {
			if out == "" {
				return usagef("give the output file with -o")
			}
			if !(tol >= 0) {
				return usagef("--tolerance %v: want a number ≥ 0", tol)
			}
			if err := iopath.Input(a[0]); err != nil {
				return err
			}
			// A file of a format bonebake knows is not a dump (JSON, which no
			// format claims): say what it is, and for a motion how to dump it.
			if kind, err := formats.SniffFile(a[0]); err == nil && kind != formats.Unknown {
				err := fmt.Errorf("%s: %s, not a motion dump (the JSON mot dump writes)", a[0], kind.Words())
				if kind == formats.Mot {
					err = fmt.Errorf("%w: dump it first (bonebake mot dump %s --json > motion.json)", err, a[0])
				}
				return err
			}
			d, err := mot.OpenDump(a[0])
			if err != nil {
				return err
			}
			fam, _ := mot.ParseFamily(d.Family)
			ord, err := mot.ParseByteOrder(d.ByteOrder)
			if err != nil {
				ord = binary.LittleEndian
			}
			if fam == 0 {
				fam = mot.Bayo2
			}
			fam, ord, err = fo.resolve(fam, ord)
			if err != nil {
				return err
			}
			tracks := make([]mot.Track, len(d.Records))
			for i, r := range d.Records {
				tracks[i] = mot.Track{Bone: r.Bone, Track: r.Track, Values: r.Values}
			}
			types := mot.Readable
			if allTypes {
				types = mot.AllTypes
			}
			m, choices, err := mot.EncodeWithProgress(fam, ord, d.FrameCount, tracks, tol, types, progress(cmd, "encoding "+filepath.Base(a[0])))
			if err != nil {
				return fmt.Errorf("%s: %w", a[0], err)
			}
			m.Flags = d.Flags
			if fam == mot.Bayo2 {
				m.Name = d.Name
			}
			if err := writeMot(out, m); err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			worst, over := 0.0, 0
			for _, c := range choices {
				worst = max(worst, c.Error)
				if c.Error > tol {
					over++
				}
				if verbose && !quiet {
					fmt.Fprintf(w, "bone %d track %d: type %d, %d bytes, error %.3g\n", c.Bone, c.Track, c.Type, c.Size, c.Error)
				}
			}
			st, err := os.Stat(out)
			if err != nil {
				return err
			}
			fmt.Fprintf(w, "wrote %s: %s, %s-endian, %s, %s, %s, largest error %.3g (tolerance %g)\n", out, fam,
				mot.OrderName(ord), plural(m.Frames, "frame"), plural(len(m.Records), "record"), bytesText(st.Size()), worst, tol)
			if over > 0 {
				// Plain float32 values are the most exact record there is: nothing
				// could do better, so this is the answer to the request, not a failure.
				fmt.Fprintf(cmd.ErrOrStderr(), "note: %s stored as plain float32 values, the most exact record, differ from the input by up to %.3g (float32 rounding; --tolerance %g)\n",
					plural(over, "track"), worst, tol)
			}
			return nil
		},
	}
	cmd.Flags().StringVarP(&out, "out", "o", "", "output file")
	fo.add(cmd)
	cmd.Flags().Float64Var(&tol, "tolerance", 1e-4, "largest difference allowed between a decoded value and the input")
	cmd.Flags().BoolVarP(&verbose, "verbose", "v", false, "also print each track's record type, size and error")
	cmd.Flags().BoolVarP(&quiet, "quiet", "q", false, "print only the summary (the default now)")
	cmd.Flags().MarkHidden("quiet")
	cmd.Flags().BoolVar(&allTypes, "bayo1-all-types", false, "Bayonetta 1 output may use types 3 and 5 (bayonetta_tools cannot open them)")
	return cmd
}
