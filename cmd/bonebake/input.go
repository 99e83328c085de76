package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/bonebake/bonebake/formats"
	"github.com/bonebake/bonebake/formats/bpat"
	"github.com/bonebake/bonebake/formats/bpsm"
	"github.com/bonebake/bonebake/internal/atomicfile"
	"github.com/bonebake/bonebake/internal/words"
	"github.com/bonebake/bonebake/roster"

	"github.com/spf13/cobra"
)

// inputFile checks that path is a file a command can read, so that a directory
// or a missing file gets a plain message instead of the mapping layer's.
func inputFile(path string) error {
	st, err := os.Stat(path)
	if err != nil {
		if os.IsNotExist(err) {
			return fmt.Errorf("%s: no such file", path)
		}
		return err
	}
	if st.IsDir() {
		return fmt.Errorf("%s: is a directory, not a file", path)
	}
	return nil
}

// inputFiles is inputFile of each of paths in turn, the first error; an empty
// path, a flag not given, is skipped.
func inputFiles(paths ...string) error {
	for _, p := range paths {
		if err := inputFile(p); p != "" && err != nil {
			return err
		}
	}
	return nil
}

// outputFile prepares path for writing a file: its folder is created when
// missing, and an existing directory of that name is refused.
func outputFile(flag, path string) error {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return usagef("%s %s: is a directory; give the file name to write", flag, path)
	}
	// "out/" names a folder even before it exists: refused now, not after the
	// work when the write finds it is one.
	if path != "" && os.IsPathSeparator(path[len(path)-1]) {
		return usagef("%s %s: names a folder; give the file name to write", flag, path)
	}
	if err := atomicfile.Check(path); err != nil {
		return usagef("%s: %v", flag, err)
	}
	if dir := parentDir(path); dir != "" {
		if err := makeDirs(dir); err != nil {
			return fmt.Errorf("%s %s: %w", flag, path, err)
		}
	}
	return nil
}

// madeDirs are the folders this command created for its outputs, outermost
// first: a command that fails removes those it left empty (run), so a failed
// bake does not leave behind the -o folder it made.
var madeDirs struct {
	sync.Mutex
	list []string
}

// makeDirs makes dir and any missing folder above it, as os.MkdirAll, and
// records the ones it created.
func makeDirs(dir string) error {
	var missing []string
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		if _, err := os.Lstat(d); err == nil {
			break
		}
		missing = append(missing, d)
		if filepath.Dir(d) == d {
			break
		}
	}
	err := os.MkdirAll(dir, 0o755)
	madeDirs.Lock()
	defer madeDirs.Unlock()
	for i := len(missing) - 1; i >= 0; i-- {
		if st, serr := os.Lstat(missing[i]); serr == nil && st.IsDir() {
			madeDirs.list = append(madeDirs.list, missing[i])
		}
	}
	return err
}

// removeMadeDirs removes the folders makeDirs created that are still empty,
// innermost first (os.Remove leaves a folder that holds anything); forget only
// forgets them, for a command that succeeded.
func removeMadeDirs(forget bool) {
	madeDirs.Lock()
	defer madeDirs.Unlock()
	for i := len(madeDirs.list) - 1; i >= 0 && !forget; i-- {
		os.Remove(madeDirs.list[i])
	}
	madeDirs.list = nil
}

func parentDir(path string) string {
	i := strings.LastIndexAny(path, `/\`)
	if i <= 0 {
		return ""
	}
	return path[:i]
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

// What a file is, in words, by formats.SniffFile's kinds.
const (
	kindBPAT    = "a BPAT bone palette file"
	kindBPSM    = "a BPSM snapshot mesh"
	kindGLB     = "a binary glTF model (.glb)"
	kindGLTF    = "a glTF model (.gltf)"
	kindFBX     = "an FBX model (.fbx)"
	kindBPX     = "a BPX container"
	kindMot     = "a PlatinumGames motion file (.mot)"
	kindBVH     = "a BVH motion capture file (.bvh)"
	kindUnknown = "not a file bonebake knows"
)

var kindWords = map[formats.Kind]string{
	formats.BPAT: kindBPAT, formats.BPSM: kindBPSM, formats.GLB: kindGLB, formats.GLTF: kindGLTF, formats.FBX: kindFBX,
	formats.BPX: kindBPX, formats.Mot: kindMot, formats.BVH: kindBVH, formats.Unknown: kindUnknown,
}

// isModel reports whether a kind is a model that gltfbake.Load reads (it
// tells glTF, FBX and BVH apart itself): what bake and view bake.
func isModel(kind string) bool {
	return kind == kindGLB || kind == kindGLTF || kind == kindFBX || kind == kindBVH
}

// sniff says what the file at path is, in words, by its first bytes.
func sniff(path string) (string, error) {
	k, err := formats.SniffFile(path)
	if err != nil {
		return "", err
	}
	return kindWords[k], nil
}

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
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = strconv.Itoa(int(id))
	}
	return strings.Join(parts, ",")
}

// bakedFile is a BPAT or BPSM file as the reading commands see it.
type bakedFile interface {
	Close() error
	Warnings() []*formats.FormatError
}

// openBaked opens a BPAT or BPSM file (kind is sniff's) and says in a line what it
// holds; any other kind is an error naming what the file is.
func openBaked(path, kind string, opts []formats.Option) (bakedFile, string, error) {
	switch kind {
	case kindBPAT:
		f, err := bpat.Open(path, opts...)
		if err != nil {
			return nil, "", err
		}
		h := f.Header()
		return f, fmt.Sprintf("BPAT v%d, species %d, %s, %s, %s, %s", h.Version, h.SpeciesID, plural(int(h.BoneCount), "bone"),
			plural(int(h.ClipCount), "clip"), plural(int(h.FrameTotal), "frame"), plural(int(h.SocketCount), "socket")), nil
	case kindBPSM:
		f, err := bpsm.Open(path, opts...)
		if err != nil {
			return nil, "", err
		}
		h := f.Header()
		return f, fmt.Sprintf("BPSM v%d, species %d, LOD %d, %s, %s, %s", h.Version, h.SpeciesID, h.LOD,
			plural(int(h.VertexCount), "vertex"), plural(int(h.ClipCount), "clip"), plural(int(h.FrameTotal), "frame")), nil
	}
	return nil, "", fmt.Errorf("%s: %s, not a BPAT or BPSM file", path, kind)
}
