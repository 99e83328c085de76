// Package gltfbake is the glTF source's adapter: a skinned glTF model and its
// settings (flags, a YAML manifest, the bonebake extras export-gltf writes)
// resolved into a bake.Job, with what a model bake adds around the engine:
// ground speeds for the gait sidecar, the model's size, and its far-LOD
// snapshot mesh.
//
// It is a package of its own rather than part of source/gltf so that the glTF
// reader and writer stay free of the engine and of what only a bake needs
// (manifests, gait measurement, mesh simplification): inspect, bat's glTF
// writer and the viewer's mesh loading use source/gltf alone, and its Model
// stays the parsed file while this package's Model is that file with its job.
package gltfbake

import (
	"github.com/bonebake/bonebake/anim"
	"github.com/bonebake/bonebake/bake"
	"github.com/bonebake/bonebake/source/gltf"
)

// Source returns a glTF model as the baker's source: its rig (palette = the
// skin's joints in joint order, in the scene's space, docs/formats/gltf.md §1),
// the joint names, and one motion per animation.
func Source(m *gltf.Model) (bake.Rig, []string, []bake.Motion) {
	motions := make([]bake.Motion, len(m.Clips))
	keys := new(anim.KeyCache) // a file may point many samplers at one accessor
	for i := range m.Clips {
		motions[i] = bake.FromClip(&m.Clips[i], keys)
	}
	return bake.Rig{Skeleton: m.Skeleton, Bones: m.Joints}, m.JointNames, motions
}

// ManifestOf returns the manifest a glTF model carries in its bonebake extras
// (written by export-gltf): species id, sockets, and per-clip fps, loop flags,
// markers and cycles. For a model without them it is the empty manifest.
func ManifestOf(m *gltf.Model) *Manifest {
	mf := &Manifest{}
	if m.Meta.SpeciesID != nil {
		id := *m.Meta.SpeciesID
		mf.SpeciesID = &id
	}
	for _, s := range m.Meta.Sockets {
		mf.Sockets = append(mf.Sockets, ManifestSocket{Name: s.Name, Bone: s.Bone, Offset: s.Offset})
	}
	any := false
	for _, cm := range m.ClipMeta {
		any = any || cm.FPS != 0 || cm.Loops != nil || cm.Markers != nil || cm.Cycle != 0
	}
	if any {
		for i, c := range m.Clips {
			cm := m.ClipMeta[i]
			mf.Clips = append(mf.Clips, ManifestClip{Name: c.Name, FPS: cm.FPS, Loops: cm.Loops, Markers: cm.Markers, Cycle: cm.Cycle})
		}
	}
	return mf
}
