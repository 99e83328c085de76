package main

import (
	"fmt"
	"math"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/bonebake/bonebake/formats/bpx"
	"github.com/bonebake/bonebake/pack"

	"github.com/spf13/cobra"
)

type bpxObjectJSON struct {
	Index int    `json:"index"`
	Name  string `json:"name"`
	Size  uint64 `json:"size"`
}

// openPackage opens a container given on the command line as a package.
func openPackage(path string) (*bpx.File, *bpx.Package, error) {
	f, err := openBPX(path)
	if err != nil {
		return nil, nil, err
	}
	p, err := bpx.ReadPackage(f)
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, p, nil
}

func newBPXListCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:     "list FILE",
		Short:   "List a package's objects (files) and their sizes",
		Example: "  bonebake bpx list creatures.bpx\n  bonebake bpx list creatures.bpx --json",
		Args:    args(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, a []string) error {
			f, p, err := openPackage(a[0])
			if err != nil {
				return err
			}
			defer f.Close()
			list := []bpxObjectJSON{}
			for i, o := range p.Objects {
				list = append(list, bpxObjectJSON{i, o.Name, o.Size})
			}
			if asJSON {
				return writeJSON(cmd.OutOrStdout(), list)
			}
			for _, o := range list {
				fmt.Fprintf(cmd.OutOrStdout(), "%12d  %s\n", o.Size, shown(o.Name))
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON: a list of {index, name, size}")
	return cmd
}

func newBPXUnpackCmd() *cobra.Command {
	var out string
	cmd := &cobra.Command{
		Use:   "unpack FILE -o DIR",
		Short: "Write a package's objects as files under DIR",
		Long: `Write every object of a BPX package as a file under DIR (created when
missing), all or nothing. Names that would leave DIR ('..', absolute paths,
drive letters, NUL) or use the names bonebake keeps journals under
(.bonebake-unpack, .bonebake-set.journal) are refused
before anything is written, and symbolic links are not followed. The objects
are written into DIR/.bonebake-unpack first and take their names only when all
are complete and verified; an unpack that fails (a bad checksum) or is stopped
by Ctrl-C or SIGTERM (exit 130, 143) restores what was there: files it replaced
are put back, files and folders it created are removed, no stage is left. After
kill -9 or a power cut, the stage's journal lets the next unpack into the
folder finish or undo the interrupted one first, and say so.`,
		Example: "  bonebake bpx unpack creatures.bpx -o out/",
		Args:    args(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, a []string) error {
			if out == "" {
				return usagef("-o DIR is required: the folder to unpack into")
			}
			f, p, err := openPackage(a[0])
			if err != nil {
				return err
			}
			defer f.Close()
			lowMemory()
			start := time.Now()
			files, err := pack.UnpackWith(p, out, pack.UnpackOptions{Recovered: func(r pack.Recovered) {
				fmt.Fprintln(cmd.ErrOrStderr(), "note:", r)
			}})
			if err != nil {
				return err
			}
			var size uint64
			for _, u := range files {
				size += u.Size
			}
			fmt.Fprintf(cmd.OutOrStdout(), "unpacked %s (%s) into %s in %s\n", plural(len(files), "file"),
				bytesText(int64(size)), out, tookText(time.Since(start)))
			return nil
		},
	}
	cmd.Flags().StringVarP(&out, "out", "o", "", "the folder to unpack into")
	return cmd
}

func newBPXRecoverCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "recover DIR",
		Short: "Finish or undo an interrupted unpack into DIR without unpacking again",
		Long: `Find the stages (.bonebake-unpack folders) that killed unpacks left in DIR,
in the folders above it and in those under it, and finish each (when every
file was in place) or undo it (files it replaced put back, files and folders it
created removed), as the next 'bpx unpack' there would. One line for each, or
one saying there was none.`,
		Example: "  bonebake bpx recover out/",
		Args:    args(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, a []string) error {
			found, err := pack.Recover(a[0])
			for _, r := range found {
				fmt.Fprintln(cmd.OutOrStdout(), r)
			}
			if err != nil {
				return err
			}
			if len(found) == 0 {
				fmt.Fprintf(cmd.OutOrStdout(), "%s: no interrupted unpack found\n", a[0])
			}
			return nil
		},
	}
}

func newBPXPackCmd() *cobra.Command {
	var (
		out, compress, checksum, arch, platform, generator string
		meta                                               []string
		debugNames                                         bool
	)
	cmd := &cobra.Command{
		Use:   "pack DIR -o OUT.bpx",
		Short: "Pack the files under DIR into a BPX package",
		Long: `Pack every regular file under DIR into a BPX package (version 2), named by
its path relative to DIR with '/' separators, in name order. Symbolic links and
other special files are skipped with a warning, as is OUT.bpx itself when it lies
under DIR. Sections over
64 KiB are compressed (--compress); data sections get --checksum, the others the
weak checksum (none with --checksum none). --meta adds metadata: a value that is
a whole number is stored as a u32 (u64 when larger, i64 when negative), any
other as a string.`,
		Example: `  bonebake bpx pack assets/creatures -o creatures.bpx
  bonebake bpx pack site/ -o site.bpx --compress zlib --checksum weak --meta Name=site --meta Version=3`,
		Args: args(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, a []string) error {
			if out == "" {
				return usagef("-o OUT.bpx is required")
			}
			o, err := packOptions(compress, checksum, arch, platform, generator, meta)
			if err != nil {
				return err
			}
			o.DebugNames = debugNames
			if st, err := os.Stat(a[0]); err != nil || !st.IsDir() {
				return fmt.Errorf("%s: not a folder", a[0])
			}
			if err := outputFile("-o", out); err != nil {
				return err
			}
			lowMemory()
			start := time.Now()
			objs, skipped, err := pack.Dir(a[0], out)
			if err != nil {
				return err
			}
			for _, s := range skipped {
				fmt.Fprintln(cmd.ErrOrStderr(), "warning: skipped", s)
			}
			var size uint64
			for _, ob := range objs {
				size += ob.Size
			}
			// xz takes about a second a megabyte on one core: say what the wait
			// is, as bake --package does, where no progress bar shows it
			how, with := "compressing and writing", compress
			if compress == "none" {
				how, with = "writing", "not compressed"
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "bonebake: %s %s into %s (%s)\n", how, bytesText(int64(size)), out, with)
			o.Progress = bytesProgress(progress(cmd, "packing "+a[0]))
			if err := pack.WriteFile(out, objs, o); err != nil {
				return err
			}
			st, _ := os.Stat(out)
			fmt.Fprintf(cmd.OutOrStdout(), "packed %s (%s) into %s: %s, in %s\n", plural(len(objs), "file"), bytesText(int64(size)),
				out, bytesText(st.Size()), tookText(time.Since(start)))
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&out, "out", "o", "", "the package to write")
	fl.StringVar(&compress, "compress", "xz", "compression of sections over 64 KiB: xz, zlib or none")
	fl.StringVar(&checksum, "checksum", "crc32", "checksum of data sections: crc32 (BPX's own), weak or none")
	fl.StringArrayVar(&meta, "meta", nil, "metadata KEY=VALUE (repeatable)")
	fl.StringVar(&arch, "arch", "any", "TypeExt architecture: x86_64, aarch64, x86, armv7hl or any")
	fl.StringVar(&platform, "platform", "any", "TypeExt platform: linux, mac, windows, android or any")
	fl.StringVar(&generator, "generator", string(pack.Generator[:]), "TypeExt generator: two ASCII characters")
	fl.BoolVar(&debugNames, "debug-names", false, "store the metadata's key names (__debug__) so that readers can print them")
	return cmd
}

// lowMemory asks the garbage collector to keep the heap under 48 MiB: packing
// and unpacking stream, and what they hold live (two xz block encoders and
// four blocks, about 41 MiB, or the blocks the reader decodes ahead, at most
// 24 MiB) fits, so the process stays under 64 MiB whatever the size of the data.
func lowMemory() { debug.SetMemoryLimit(48 << 20) }

// packOptions maps pack's flags onto bpx.PackOptions.
func packOptions(compress, checksum, arch, platform, generator string, meta []string) (bpx.PackOptions, error) {
	var o bpx.PackOptions
	switch compress {
	case "xz":
		o.Compression = bpx.XZ
	case "zlib":
		o.Compression = bpx.Zlib
	case "none":
	default:
		return o, usagef("--compress %q: want xz, zlib or none", compress)
	}
	switch checksum {
	case "crc32":
		o.Check = bpx.CRC32
	case "weak":
		o.Check = bpx.WeakCheck
	case "none":
	default:
		return o, usagef("--checksum %q: want crc32, weak or none", checksum)
	}
	var ok bool
	if o.Ext.Arch, ok = bpx.ParseArch(arch); !ok {
		return o, usagef("--arch %q: want x86_64, aarch64, x86, armv7hl or any", arch)
	}
	if o.Ext.Platform, ok = bpx.ParsePlatform(platform); !ok {
		return o, usagef("--platform %q: want linux, mac, windows, android or any", platform)
	}
	if len(generator) != 2 || generator[0] > 127 || generator[1] > 127 {
		return o, usagef("--generator %q: want two ASCII characters", generator)
	}
	o.Ext.Generator = [2]byte{generator[0], generator[1]}
	if len(meta) > 0 {
		o.Metadata = &bpx.Object{}
		for _, m := range meta {
			k, v, ok := strings.Cut(m, "=")
			if !ok || k == "" {
				return o, usagef("--meta %q: want KEY=VALUE", m)
			}
			o.Metadata.Set(k, metaValue(v))
		}
		if len(o.Metadata.Props) > 254 {
			return o, usagef("--meta: %d keys; a BPXSD object holds at most 254 besides its names", len(o.Metadata.Props))
		}
	}
	return o, nil
}

// metaValue types a --meta value: whole numbers as u32, u64 or i64, else a string.
func metaValue(s string) bpx.Value {
	if u, err := strconv.ParseUint(s, 10, 64); err == nil {
		if u <= math.MaxUint32 {
			return bpx.U32Value(uint32(u))
		}
		return bpx.U64Value(u)
	}
	if i, err := strconv.ParseInt(s, 10, 64); err == nil {
		return bpx.I64Value(i)
	}
	return bpx.StringValue(s)
}
