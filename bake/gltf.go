package bake

import (
	"bonebake/source/gltf"
)

// FromGLTF returns a glTF model's rig (palette = the skin's joints in joint order,
// model space = the skinned mesh node's space, FACTS §3), the joint names, and one
// motion per animation.
func FromGLTF(m *gltf.Model) (Rig, []string, []Motion) {
	motions := make([]Motion, len(m.Clips))
	for i := range m.Clips {
		motions[i] = FromClip(&m.Clips[i])
	}
	return Rig{Skeleton: m.Skeleton, Bones: m.Joints, ModelBone: m.ModelBone}, m.JointNames, motions
}
