package bake

import (
	"github.com/bonebake/bonebake/anim"
	"github.com/bonebake/bonebake/source/gltf"
)

// FromGLTF returns a glTF model's rig (palette = the skin's joints in joint order,
// in the scene's space, docs/formats/gltf.md §1), the joint names, and one motion
// per animation.
func FromGLTF(m *gltf.Model) (Rig, []string, []Motion) {
	motions := make([]Motion, len(m.Clips))
	keys := new(anim.KeyCache) // a file may point many samplers at one accessor
	for i := range m.Clips {
		motions[i] = FromClip(&m.Clips[i], keys)
	}
	return Rig{Skeleton: m.Skeleton, Bones: m.Joints}, m.JointNames, motions
}

// GLTFManifest returns the manifest a glTF model carries in its bonebake extras
// (written by export-gltf): species id, sockets, and per-clip fps, loop flags,
// markers and cycles. For a model without them it is the empty manifest.
func GLTFManifest(m *gltf.Model) *Manifest {
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
