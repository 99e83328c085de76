package main

import (
	"encoding/hex"
	"fmt"
	"io"
	"os"

	"github.com/bonebake/bonebake/formats"
	"github.com/bonebake/bonebake/formats/bpx"
	"github.com/bonebake/bonebake/internal/atomicfile"
	"github.com/bonebake/bonebake/internal/iopath"

	"github.com/spf13/cobra"
	"golang.org/x/term"
)

func newBPXCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "bpx",
		Short: "Read, write, pack and unpack BPX containers",
		Long: `BPX is the BlockProject 3D container (docs/formats/bpx.md): a header, a table
of sections, each optionally xz- or zlib-compressed and checksummed. Packages
(type P) hold files; 'bonebake bake --package' also puts each creature in its
package as a palette texture (T) and a model (M).`,
		Example: `  bonebake bpx inspect creatures.bpx
  bonebake bpx list creatures.bpx
  bonebake bpx unpack creatures.bpx -o out/
  bonebake bpx recover out/
  bonebake bpx pack assets/creatures -o creatures.bpx --meta title=demo
  bonebake bpx dump creatures.bpx --section 2 --bpxsd`,
		Args: subcommands,
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	var maxObjects int
	var maxTable int64
	pf := cmd.PersistentFlags()
	pf.IntVar(&maxObjects, "max-objects", bpx.DefaultMaxObjects, "read packages of at most this many objects (a limit against hostile files; raise it for bigger packages)")
	pf.Int64Var(&maxTable, "max-table", bpx.DefaultMaxTableBytes>>20, "hold at most this many MiB of a section read whole: object names, metadata, a BPXSD dump (a limit against hostile files)")
	cmd.PersistentPreRunE = func(*cobra.Command, []string) error {
		if maxObjects < 0 || maxTable < 0 || maxTable > 1<<12 {
			return usagef("--max-objects and --max-table (MiB, at most 4096) take whole numbers ≥ 0")
		}
		bpx.MaxObjects, bpx.MaxTableBytes = maxObjects, maxTable<<20
		return nil
	}
	cmd.AddCommand(newBPXInspectCmd(), newBPXDumpCmd(), newBPXListCmd(), newBPXPackCmd(), newBPXUnpackCmd(), newBPXRecoverCmd())
	return cmd
}

// openBPX opens a container given on the command line.
func openBPX(path string) (*bpx.File, error) {
	if err := iopath.Input(path); err != nil {
		return nil, err
	}
	if kind, err := formats.SniffFile(path); err != nil {
		return nil, err
	} else if kind != formats.BPX {
		return nil, fmt.Errorf("%s: %s, not a BPX container", path, kind.Words())
	}
	return bpx.Open(path)
}

// sectionKinds names section types by the container type.
func sectionKind(container byte, typ uint8) string {
	switch typ {
	case bpx.SectionStrings:
		return "strings"
	case bpx.SectionBPXSD:
		return "bpxsd"
	}
	names := map[byte]map[uint8]string{
		bpx.TypePackage: {bpx.SectionData: "data", bpx.SectionObjectTable: "object table"},
		bpx.TypeTexture: {bpx.SectionPixels: "pixels"},
		bpx.TypeModel: {bpx.SectionVertices: "vertices", bpx.SectionIndices: "indices", bpx.SectionBones: "bones",
			bpx.SectionFrames: "frames", bpx.SectionAnimations: "animations"},
	}
	if n, ok := names[container][typ]; ok {
		return n
	}
	return ""
}

type bpxSectionJSON struct {
	Index      int      `json:"index"`
	Type       uint8    `json:"type"`
	Kind       string   `json:"kind,omitempty"`
	Flags      []string `json:"flags"`
	Size       uint32   `json:"size"`
	CSize      uint32   `json:"csize"`
	Offset     uint64   `json:"offset"`
	ChecksumOK *bool    `json:"checksum_ok"`
	Problem    string   `json:"problem,omitempty"`
	flags      bpx.Flags
}

type bpxInspectJSON struct {
	File     string           `json:"file"`
	Format   string           `json:"format"`
	Type     string           `json:"type"`
	Version  uint32           `json:"version"`
	Size     int64            `json:"size"`
	FileSize uint64           `json:"file_size"`
	TypeExt  string           `json:"type_ext"`
	Package  *bpxPackageJSON  `json:"package,omitempty"`
	Sections []bpxSectionJSON `json:"sections"`
}

type bpxPackageJSON struct {
	Architecture string `json:"architecture"`
	Platform     string `json:"platform"`
	Generator    string `json:"generator"`
}

func newBPXInspectCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "inspect FILE",
		Short: "Show a container's header, TypeExt and sections, verifying each",
		Long: `Show a BPX container's header (a package's TypeExt decoded: architecture,
platform, generator) and each section: type, flags by name, sizes, and whether
its checksum is right (each section is read and decompressed to check it).
Exits 1 when a section fails its check.`,
		Example: `  bonebake bpx inspect creatures.bpx
  bonebake bpx inspect creatures.bpx --json`,
		Args: args(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, a []string) error {
			f, err := openBPX(a[0])
			if err != nil {
				return err
			}
			defer f.Close()
			h := f.Header
			j := bpxInspectJSON{File: a[0], Format: "bpx", Type: string(rune(h.Type)), Version: h.Version, Size: f.Size,
				FileSize: h.FileSize, TypeExt: hex.EncodeToString(h.TypeExt[:]), Sections: []bpxSectionJSON{}}
			if h.Type == bpx.TypePackage {
				e := bpx.DecodePackageExt(h.TypeExt)
				j.Package = &bpxPackageJSON{bpx.ArchName(e.Arch), bpx.PlatformName(e.Platform), string(e.Generator[:])}
			}
			bad := 0
			for i, s := range f.Sections {
				sj := bpxSectionJSON{Index: i, Type: s.Type, Kind: sectionKind(h.Type, s.Type), Flags: s.Flags.Names(), flags: s.Flags, Size: s.Size, CSize: s.CSize, Offset: s.Pointer}
				r, err := f.Section(i)
				if err == nil {
					_, err = io.Copy(io.Discard, r)
				}
				if err != nil {
					sj.Problem = err.Error()
					bad++
				}
				if s.Flags&(bpx.FlagCRC32|bpx.FlagWeak) != 0 {
					ok := err == nil
					sj.ChecksumOK = &ok
				}
				j.Sections = append(j.Sections, sj)
			}
			if asJSON {
				if err := writeJSON(cmd.OutOrStdout(), j); err != nil {
					return err
				}
			} else {
				printInspectBPX(cmd.OutOrStdout(), j)
			}
			if bad > 0 {
				fmt.Fprintf(cmd.ErrOrStderr(), "bonebake: %s: %s failed to read or verify\n", a[0], plural(bad, "section"))
				return exitError{exitFailure}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON (keys per docs/json.md)")
	return cmd
}

func printInspectBPX(w io.Writer, j bpxInspectJSON) {
	fmt.Fprintf(w, "%s: BPX container, type %s, version %d, %s, %s", j.File, j.Type, j.Version, plural(len(j.Sections), "section"), bytesText(j.Size))
	if j.FileSize != uint64(j.Size) {
		fmt.Fprintf(w, " (its file_size field says %d)", j.FileSize)
	}
	fmt.Fprintln(w)
	if p := j.Package; p != nil {
		fmt.Fprintf(w, "package: architecture %s, platform %s, generator %q\n", p.Architecture, p.Platform, p.Generator)
	} else {
		fmt.Fprintf(w, "TypeExt: %s\n", j.TypeExt)
	}
	fmt.Fprintf(w, "%5s  %-18s %-10s %10s %10s %10s  %s\n", "index", "type", "flags", "size", "csize", "offset", "checksum")
	for _, s := range j.Sections {
		typ := fmt.Sprintf("0x%02X", s.Type)
		if s.Kind != "" {
			typ += " " + s.Kind
		}
		check := "none"
		if s.ChecksumOK != nil {
			check = map[bool]string{true: "ok", false: "BAD"}[*s.ChecksumOK]
		}
		if s.Problem != "" {
			check += ": " + s.Problem
		}
		fmt.Fprintf(w, "%5d  %-18s %-10s %10d %10d %10d  %s\n", s.Index, typ, s.flags.String(), s.Size, s.CSize, s.Offset, check)
	}
}

func newBPXDumpCmd() *cobra.Command {
	var (
		section int
		out     string
		asHex   bool
		asSD    bool
	)
	cmd := &cobra.Command{
		Use:   "dump FILE --section N [-o OUT | --hex | --bpxsd]",
		Short: "Write one section's uncompressed bytes, as a hex dump, or as a BPXSD tree",
		Long: `Write section N (0-based, as 'bpx inspect' numbers them) of a BPX container,
decompressed and verified: to -o OUT, to standard output when it is not a
terminal, as a hex dump (--hex), or decoded as BPXSD structured data (--bpxsd).
Raw bytes are not written to a terminal.`,
		Example: `  bonebake bpx dump creatures.bpx --section 3 -o data.bin
  bonebake bpx dump creatures.bpx --section 2 --bpxsd
  bonebake bpx dump creatures.bpx --section 0 --hex | head`,
		Args: args(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, a []string) error {
			if !cmd.Flags().Changed("section") {
				return usagef("--section N is required (0-based; see 'bonebake bpx inspect %s')", a[0])
			}
			modes := 0
			for _, on := range []bool{out != "", asHex, asSD} {
				if on {
					modes++
				}
			}
			if modes > 1 {
				return usagef("-o, --hex and --bpxsd are alternatives; give one")
			}
			f, err := openBPX(a[0])
			if err != nil {
				return err
			}
			defer f.Close()
			if section < 0 || section >= len(f.Sections) {
				return usagef("--section %d: %s has %s (0 to %d)", section, a[0], plural(len(f.Sections), "section"), len(f.Sections)-1)
			}
			w := cmd.OutOrStdout()
			switch {
			case asSD:
				b, err := f.ReadSectionMax(section, bpx.MaxTableBytes, "BPXSD decoded whole; raise it with --max-table")
				if err != nil {
					return err
				}
				o, err := bpx.DecodeBPXSD(b)
				if err != nil {
					return fmt.Errorf("%s: section %d: %w", a[0], section, err)
				}
				_, err = io.WriteString(w, o.String())
				return err
			case asHex:
				r, err := f.Section(section)
				if err != nil {
					return err
				}
				d := hex.Dumper(w)
				if _, err := io.Copy(d, r); err != nil {
					return err
				}
				return d.Close()
			case out != "":
				if err := outputFile("-o", out); err != nil {
					return err
				}
				r, err := f.Section(section)
				if err != nil {
					return err
				}
				return atomicfile.Write(out, func(w io.Writer) error { _, err := io.Copy(w, r); return err })
			}
			if fh, ok := w.(*os.File); ok && term.IsTerminal(int(fh.Fd())) {
				return usagef("not writing raw binary to a terminal: give -o OUT, --hex or --bpxsd, or redirect the output")
			}
			r, err := f.Section(section)
			if err != nil {
				return err
			}
			_, err = io.Copy(w, r)
			return err
		},
	}
	fl := cmd.Flags()
	fl.IntVar(&section, "section", 0, "the section's index (0-based)")
	fl.StringVarP(&out, "out", "o", "", "write the bytes to this file")
	fl.BoolVar(&asHex, "hex", false, "print a hex dump")
	fl.BoolVar(&asSD, "bpxsd", false, "decode the section as BPXSD and print it as a tree")
	return cmd
}
