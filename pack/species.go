package pack

import (
	"fmt"
	"os"

	"bonebake/bake"
	"bonebake/formats/bpx"
	"bonebake/species"
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

// Creatures bakes creatures (as bake.WriteSpecies does: <name>.bpat, and
// <name>_minimal.bpsm for those with a far-LOD mesh) into a package at path,
// with a metadata object listing each creature's species id, name and clips.
// progress, when not nil, is told of each creature as it is baked.
func Creatures(path string, creatures []*species.Creature, progress func(name string)) ([]Entry, error) {
	tmp, err := os.MkdirTemp("", "bonebake-package-*")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	for _, s := range creatures {
		if progress != nil {
			progress(s.Name)
		}
		if _, err := bake.WriteSpecies(tmp, s, nil); err != nil {
			return nil, err
		}
	}
	objs, _, err := Dir(tmp)
	if err != nil {
		return nil, err
	}
	// Dir's objects read the files when packed, so pack before tmp goes.
	o := CreatureOptions()
	if o.Metadata, err = CreatureMetadata(creatures); err != nil {
		return nil, err
	}
	if err := WriteFile(path, objs, o); err != nil {
		return nil, err
	}
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
