package gltfbake

import (
	"fmt"
	"path/filepath"

	"github.com/bonebake/bonebake/bake"
	"github.com/bonebake/bonebake/formats"
	"github.com/bonebake/bonebake/internal/iopath"
	bvhsrc "github.com/bonebake/bonebake/source/bvh"
	"github.com/bonebake/bonebake/source/fbx"
	"github.com/bonebake/bonebake/source/gltf"
)

// IsModel reports whether a file of kind k is a model Load reads: glTF (binary
// or JSON), FBX or BVH, which it tells apart itself.
func IsModel(k formats.Kind) bool {
	return k == formats.GLB || k == formats.GLTF || k == formats.FBX || k == formats.BVH
}

// CheckModel refuses a model's path that is missing, a folder, or not a model
// Load reads, naming what it is: Bake applies it to every model before it is
// loaded, so that a wrong path gets a plain message instead of a reader's.
func CheckModel(path string) error {
	if err := iopath.Input(path); err != nil {
		return err
	}
	kind, err := formats.SniffFile(path)
	if err != nil || IsModel(kind) {
		return err
	}
	return fmt.Errorf("%s: %s, not a model: bake reads skinned glTF 2.0 models (.gltf, .glb), FBX 7 models (.fbx) and BVH motion capture (.bvh)", path, kind.Words())
}

// sourceKind is the kind of the file at path, by its first bytes, refusing one
// bonebake knows that is not a model (a BPAT, BPSM, BPX or motion file given to
// --clips or --model), naming what it is, where the glTF reader would call it
// bad JSON. A file no format claims goes on to the readers, whose errors say
// why.
func sourceKind(path string) (formats.Kind, error) {
	kind, err := formats.SniffFile(path)
	if err != nil || kind == formats.Unknown || IsModel(kind) {
		return kind, err
	}
	return kind, fmt.Errorf("%s: %s, not a model: glTF 2.0 (.gltf, .glb), FBX 7 (.fbx) and BVH (.bvh) files are read", path, kind.Words())
}

// loadModel reads the model at path: a glTF or FBX file, or a BVH file as a model
// without a mesh (docs/formats/bvh.md §5), its lengths scaled by scale when
// that is > 0 (else by the units its height suggests). applied says the BVH
// reader took the scale, so that the caller does not apply it again.
func loadModel(path string, s Settings, scale float64) (m *gltf.Model, applied bool, err error) {
	kind, err := sourceKind(path)
	if err != nil {
		return nil, false, err
	}
	if kind != formats.BVH {
		m, err = readModel(path, kind, gltf.Options{Skin: s.Skin, Textures: s.Textures, FilesRoot: s.FilesRoot, NoMemoryLimit: s.NoLimits})
		return m, false, err
	}
	if s.Skin > 0 {
		return nil, false, &bake.SettingError{Setting: "Skin", Err: fmt.Errorf("%d: %s is a BVH file, which has no skins", s.Skin, path)}
	}
	m, sp, err := bvhsrc.Load(path, bvhsrc.Options{Up: s.Up, Scale: scale})
	if err != nil {
		return nil, false, err
	}
	how := "given"
	if sp.UpFound {
		how = "found from its skeleton"
	}
	// The height is the joints' and end sites' (the units are guessed from
	// it); the summary's size is the joints' alone.
	note := fmt.Sprintf("%s: BVH, %s up (%s), %.3g units tall at rest to its end sites, taken for %s (×%g to metres; Settings.Up and Settings.Scale say otherwise)",
		filepath.Base(path), sp.Up, how, sp.Height, sp.Units, sp.Scale)
	if sp.Units == "given" {
		note = fmt.Sprintf("%s: BVH, %s up (%s), %.3g units tall at rest to its end sites, ×%g to metres (Settings.Scale)", filepath.Base(path), sp.Up, how, sp.Height, sp.Scale)
	}
	m.Warnings = append([]string{note}, m.Warnings...)
	if fps := m.ClipMeta[0].FPS; bake.CheckFPS(fps) != nil {
		m.ClipMeta[0].FPS = 0
		m.Warnings = append(m.Warnings, fmt.Sprintf("%s: its frame rate %.4g (Frame Time %g s) is outside what a bake takes; its clip bakes at the default rate", filepath.Base(path), fps, sp.File.FrameTime))
	}
	return m, true, nil
}

// readModel reads a glTF or FBX character, told apart by kind, its first
// bytes (loadModel, which also reads BVH, is the one way in; the snapshot's
// other mesh comes here), so that bake, view, bat and snapshots take FBX
// characters as they take glTF ones (docs/formats/fbx.md §6).
func readModel(path string, kind formats.Kind, o gltf.Options) (*gltf.Model, error) {
	if kind == formats.FBX {
		if o.Skin > 0 {
			return nil, fmt.Errorf("%s: skin %d was asked for, but an FBX character's skins are read together as skin 0", path, o.Skin)
		}
		return fbx.Load(path, o)
	}
	return gltf.Load(path, o)
}

// loadClipFile reads a clip file: a glTF or FBX file's animations, or a BVH file's
// motion with its joints oriented as m's (orientLike), so that one binding
// serves both.
func loadClipFile(m *gltf.Model, path string, s ClipFilesSettings) (*gltf.ClipFile, error) {
	kind, err := sourceKind(path)
	if err != nil {
		return nil, err
	}
	if kind != formats.BVH {
		return readClipFile(path, kind, gltf.Options{FilesRoot: s.FilesRoot, NoMemoryLimit: s.NoLimits})
	}
	cf, err := bvhsrc.LoadClips(path, bvhsrc.Options{Up: s.Up})
	if err != nil {
		return nil, err
	}
	cf.Weights = make([]int, len(cf.Animations))
	if note := orientLike(m, cf); note != "" {
		cf.Notes = append(cf.Notes, note)
	}
	return cf, nil
}

// readClipFile reads a glTF or FBX clip file (§7), as its first bytes say.
func readClipFile(path string, kind formats.Kind, o gltf.Options) (*gltf.ClipFile, error) {
	if kind == formats.FBX {
		return fbx.LoadClips(path, o)
	}
	return gltf.LoadClips(path, o)
}
