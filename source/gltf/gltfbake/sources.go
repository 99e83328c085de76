package gltfbake

import (
	"fmt"

	"github.com/bonebake/bonebake/source/fbx"
	"github.com/bonebake/bonebake/source/gltf"
)

// readModel reads a glTF or FBX character, telling them apart by their first
// bytes (loadModel, which also reads BVH, is the one way in; the snapshot's
// other mesh comes here), so that bake, view, bat and snapshots take FBX
// characters as they take glTF ones (docs/formats/fbx.md §6).
func readModel(path string, o gltf.Options) (*gltf.Model, error) {
	if fbx.IsFile(path) {
		if o.Skin > 0 {
			return nil, fmt.Errorf("%s: skin %d was asked for, but an FBX character's skins are read together as skin 0", path, o.Skin)
		}
		return fbx.Load(path, o)
	}
	return gltf.Load(path, o)
}

// readClipFile reads a glTF or FBX clip file (§7), as its first bytes say.
func readClipFile(path string, o gltf.Options) (*gltf.ClipFile, error) {
	if fbx.IsFile(path) {
		return fbx.LoadClips(path, o)
	}
	return gltf.LoadClips(path, o)
}
