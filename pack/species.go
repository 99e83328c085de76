package pack

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/bonebake/bonebake/bake"
	"github.com/bonebake/bonebake/formats"
	"github.com/bonebake/bonebake/formats/bpat"
	"github.com/bonebake/bonebake/formats/bpx"
	"github.com/bonebake/bonebake/internal/words"
	"github.com/bonebake/bonebake/species"
)

// Generator is the TypeExt generator code of packages bonebake writes
// (docs/formats/bpx.md §9).
var Generator = [2]byte{'B', 'K'}

// CreatureOptions are how Creatures writes its package: any architecture and
// platform, bonebake's generator code, xz and the BPX CRC.
func CreatureOptions() bpx.PackOptions {
	return bpx.PackOptions{
		Ext:         bpx.PackageExt{Arch: bpx.ArchAny, Platform: bpx.PlatformAny, Generator: Generator},
		Compression: bpx.XZ, Check: bpx.CRC32, DebugNames: true,
	}
}

// Creatures bakes creatures in memory into a package at path, with a metadata
// object listing each creature's species id, name and clips. Per creature it
// holds <name>.bpat, <name>_minimal.bpsm for those with a far-LOD mesh (the files
// species.Creature.WriteFiles writes), and the same bake as BPX containers an
// engine that reads BPX loads directly: <name>.palette.bpx, the palettes as a Float32
// texture (type T), and <name>.model.bpx, the mesh, bones and frames as a model
// (type M). tell, when not nil, is told its report as it comes, each Doing line
// with the time since the call, since baking and compressing take seconds to a
// minute: a Doing line as each creature is baked ("1.2 s: baking horse (2 of
// 6)"), one as the package is compressed and written, then the Total (the
// creatures, the objects, the package's size, the time); stored, when not nil,
// is told the bytes compressed and written so far, of their total
// (bpx.PackOptions.Progress).
func Creatures(path string, creatures []*species.Creature, tell func(bake.Line), stored func(done, total uint64)) ([]Entry, error) {
	start := time.Now()
	say := func(kind bake.LineKind, format string, a ...any) {
		if tell != nil {
			tell(bake.Line{Kind: kind, Text: fmt.Sprintf(format, a...)})
		}
	}
	var objs []bpx.PackInput
	add := func(name string, b []byte) {
		objs = append(objs, bpx.PackInput{Name: name, Size: uint64(len(b)),
			Open: func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(b)), nil }})
	}
	for i, s := range creatures {
		say(bake.Doing, "%s: baking %s (%d of %d)", words.Took(time.Since(start)), s.Name, i+1, len(creatures))
		b, err := s.Bytes()
		if err != nil {
			return nil, err
		}
		f, err := bpat.Parse(b, formats.Name(s.Name+".bpat"), formats.KnownSpecies(s.ID))
		if err != nil {
			return nil, fmt.Errorf("baked file does not validate: %w", err)
		}
		add(s.Name+".bpat", b)
		if s.Minimal != nil {
			b, err := s.SnapshotBytes(f)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", s.Name, err)
			}
			add(s.Name+"_minimal.bpsm", b)
		}
		tex, err := bpx.EncodeTexture(PaletteTexture(f), bpx.XZ)
		if err != nil {
			return nil, fmt.Errorf("%s: palette texture: %w", s.Name, err)
		}
		add(s.Name+".palette.bpx", tex)
		m, err := CreatureModel(s, f)
		if err == nil {
			var mb []byte
			if mb, err = bpx.EncodeModel(m, bpx.XZ); err == nil {
				add(s.Name+".model.bpx", mb)
			}
		}
		if err != nil {
			return nil, fmt.Errorf("%s: model: %w", s.Name, err)
		}
	}
	slices.SortFunc(objs, func(a, b bpx.PackInput) int { return strings.Compare(a.Name, b.Name) })
	var size uint64
	for _, o := range objs {
		size += o.Size
	}
	say(bake.Doing, "%s: compressing and writing %s into %s (xz)", words.Took(time.Since(start)), words.Bytes(int64(size)), path)
	o := CreatureOptions()
	o.Progress = stored
	var err error
	if o.Metadata, err = CreatureMetadata(creatures); err != nil {
		return nil, err
	}
	if err := WriteFile(path, objs, o); err != nil {
		return nil, err
	}
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	say(bake.Total, "baked %s into %s: %s, %s, in %s", words.Plural(len(creatures), "creature"), path,
		words.Plural(len(objs), "object"), words.Bytes(st.Size()), words.Took(time.Since(start)))
	out := make([]Entry, len(objs))
	for i, ob := range objs {
		out[i] = Entry{ob.Name, ob.Size}
	}
	return out, nil
}

// Entry is an object packed: its name and size.
type Entry struct {
	Name string
	Size uint64
}

// CreatureMetadata is the metadata object of a creature package:
// {generator: "bonebake", species: [{id, name, clips: [name…]}…]}.
func CreatureMetadata(creatures []*species.Creature) (*bpx.Object, error) {
	if len(creatures) > 255 {
		return nil, fmt.Errorf("%d creatures: a BPXSD array holds at most 255", len(creatures))
	}
	list := make([]bpx.Value, len(creatures))
	for i, s := range creatures {
		if len(s.Clips) > 255 {
			return nil, fmt.Errorf("%s: %d clips: a BPXSD array holds at most 255", s.Name, len(s.Clips))
		}
		clips := make([]bpx.Value, len(s.Clips))
		for j, c := range s.Clips {
			clips[j] = bpx.StringValue(c.Name)
		}
		o := (&bpx.Object{}).Set("id", bpx.U32Value(s.ID)).Set("name", bpx.StringValue(s.Name)).Set("clips", bpx.ArrayValue(clips...))
		list[i] = bpx.ObjectValue(o)
	}
	return (&bpx.Object{}).Set("generator", bpx.StringValue("bonebake")).Set("species", bpx.ArrayValue(list...)), nil
}
