package main

import (
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/bonebake/bonebake/formats"
	"github.com/bonebake/bonebake/formats/bpat"
	"github.com/bonebake/bonebake/formats/bpsm"
	"github.com/bonebake/bonebake/internal/iopath"
	"github.com/bonebake/bonebake/internal/words"
	"github.com/bonebake/bonebake/roster"
	"github.com/bonebake/bonebake/source/gltf/gltfbake"

	"github.com/spf13/cobra"
)

// madeDirs are the folders this command made for its outputs: a command that
// fails removes those it left empty (run), so a failed command does not
// leave behind the -o folder it made. gltfbake.BakeAll keeps its own.
var madeDirs iopath.Dirs

// outputFile makes path ready for writing a file by internal/iopath's rule (no
// folder, a missing parent made, recorded in madeDirs), naming flag in its
// errors: a path refused is a usage error.
func outputFile(flag, path string) error {
	err := madeDirs.Output(path)
	if oe := (*iopath.OutputError)(nil); errors.As(err, &oe) {
		if oe.ReadsOn {
			return usagef("%s %v", flag, oe.Err)
		}
		return usagef("%s: %v", flag, oe.Err)
	}
	if err != nil {
		return fmt.Errorf("%s %w", flag, err)
	}
	return nil
}

// shown is a name read from a file as human output prints it: as it is, or
// quoted Go-style when it holds control characters (a terminal escape) or is not
// valid UTF-8, so that a file cannot drive the user's terminal. JSON output keeps
// names exact.
func shown(name string) string {
	if utf8.ValidString(name) && !strings.ContainsFunc(name, unicode.IsControl) {
		return name
	}
	return strconv.Quote(name)
}

// plural says "1 file", "2 files", "3 vertices" (internal/words).
func plural(n int, word string) string { return words.Plural(n, word) }

// speciesFlag is --species on the commands that read files: ids of species
// beyond the built-in ones that a studio baked and that readers should accept.
type speciesFlag struct{ extra []uint }

func (s *speciesFlag) add(cmd *cobra.Command) {
	cmd.Flags().Var((*speciesIDs)(&s.extra), "species",
		fmt.Sprintf("species ids to accept besides the built-in %s (comma-separated; default none)", idRange(roster.IDs())))
}

// speciesIDs is --species' value: comma-separated ids, each within the range
// every command shares (roster.CheckID), so a reader is not told to accept an
// id no bake writes and no runtime loads; repeated flags add to the list.
type speciesIDs []uint

func (v *speciesIDs) String() string {
	parts := make([]string, len(*v))
	for i, id := range *v {
		parts[i] = strconv.FormatUint(uint64(id), 10)
	}
	return strings.Join(parts, ",")
}

func (v *speciesIDs) Type() string { return "uints" }

func (v *speciesIDs) Set(s string) error {
	for _, f := range strings.Split(s, ",") {
		id, err := strconv.ParseUint(strings.TrimSpace(f), 10, 32)
		if err != nil {
			return err // worded by plainFlagError
		}
		if err := roster.CheckID(uint32(id)); err != nil {
			return err
		}
		*v = append(*v, uint(id))
	}
	return nil
}

// known is every species id a reader should accept: the built-in ones and --species.
func (s *speciesFlag) known() []uint32 {
	ids := roster.IDs()
	for _, id := range s.extra {
		ids = append(ids, uint32(id))
	}
	return ids
}

// option tells a format reader which species ids are known.
func (s *speciesFlag) option() formats.Option { return formats.KnownSpecies(s.known()...) }

// options are a validating reader's: the known species, and lenient when asked.
func (s *speciesFlag) options(lenient bool) []formats.Option {
	opts := []formats.Option{s.option()}
	if lenient {
		opts = append(opts, formats.Lenient())
	}
	return opts
}

// idRange writes ids as "0-5" when they run without a gap.
func idRange(ids []uint32) string {
	if len(ids) > 1 && ids[len(ids)-1]-ids[0] == uint32(len(ids)-1) {
		return fmt.Sprintf("%d-%d", ids[0], ids[len(ids)-1])
	}
	return idList(ids)
}

// idList writes ids as --species takes them: "6,7".
func idList(ids []uint32) string {
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = strconv.Itoa(int(id))
	}
	return strings.Join(parts, ",")
}

// inputOf checks that path is a file to read (iopath.Input) and, when its
// first bytes say it is another format bonebake knows, refuses it naming what
// it is, where the reader would name only the magic it lacks ("starts with
// "glTF", not "BPAT""): a model given where a baked file is read is told to be
// baked first. A file no format claims goes on to the reader, whose error says
// why.
func inputOf(path string, want formats.Kind) error {
	if err := iopath.Input(path); err != nil {
		return err
	}
	kind, err := formats.SniffFile(path)
	if err != nil || kind == want || kind == formats.Unknown {
		return err
	}
	err = fmt.Errorf("%s: %s, not %s", path, kind.Words(), want.Words())
	if gltfbake.IsModel(kind) && (want == formats.BPAT || want == formats.BPSM) {
		name := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path)) + ".bpat"
		err = fmt.Errorf("%w: bake it first (bonebake bake %s -o %s)", err, path, name)
	}
	return err
}

// speciesHint is what a refusal of the file at path by the species rule goes
// on with (roster.AcceptHint, worded with the flag): how to accept its id
// (bonebake bakes ids past the built-in ones itself), or why no flag can (an
// id past the runtime's range).
func speciesHint(path string) string {
	if id, ok := formats.HeaderSpecies(path); ok {
		return flagWords(roster.AcceptHint(id))
	}
	return ""
}

// withSpeciesHint is err with speciesHint when the species rule refused the
// file at path.
func withSpeciesHint(path string, err error) error {
	if fe := (*formats.FormatError)(nil); errors.As(err, &fe) && fe.Rule == formats.RuleSpecies {
		return fmt.Errorf("%w%s", err, speciesHint(path))
	}
	return err
}

// bakedFile is a BPAT or BPSM file as the reading commands see it.
type bakedFile interface {
	Close() error
	Warnings() []*formats.FormatError
}

// openBaked opens a BPAT or BPSM file (kind is formats.SniffFile's) and says
// in a line what it holds; any other kind is an error naming what the file is.
func openBaked(path string, kind formats.Kind, opts []formats.Option) (bakedFile, string, error) {
	switch kind {
	case formats.BPAT:
		f, err := bpat.Open(path, opts...)
		if err != nil {
			return nil, "", err
		}
		h := f.Header()
		return f, fmt.Sprintf("BPAT v%d, species %d, %s, %s, %s, %s", h.Version, h.SpeciesID, plural(int(h.BoneCount), "bone"),
			plural(int(h.ClipCount), "clip"), plural(int(h.FrameTotal), "frame"), plural(int(h.SocketCount), "socket")), nil
	case formats.BPSM:
		f, err := bpsm.Open(path, opts...)
		if err != nil {
			return nil, "", err
		}
		h := f.Header()
		return f, fmt.Sprintf("BPSM v%d, species %d, LOD %d, %s, %s, %s", h.Version, h.SpeciesID, h.LOD,
			plural(int(h.VertexCount), "vertex"), plural(int(h.ClipCount), "clip"), plural(int(h.FrameTotal), "frame")), nil
	}
	return nil, "", fmt.Errorf("%s: %s, not a BPAT or BPSM file", path, kind.Words())
}
