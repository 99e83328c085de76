// Package rig holds skeletons: bone names, parents (a parent always precedes its
// children), rest pose, translation-rotation-scale transforms, 3-vectors,
// quaternions and 4×4 matrices, and the pose → model-space pass that every baker
// runs once per frame.
package rig

// Quat is a rotation quaternion stored as glTF stores it: x, y, z, w.
type Quat [4]float64

// Transform is a bone's local translation, rotation and scale (applied scale first,
// then rotation, then translation, as in glTF).
type Transform struct {
	Translation Vec3
	Rotation    Quat
	Scale       Vec3
}

// Mat4 is a 4×4 matrix stored row-major: element (row r, column c) is at r*4+c and
// the translation is at 3, 7, 11. This is the BPAT on-disk order.
type Mat4 [16]float64

// Skeleton is an ordered set of bones. Parents[i] is -1 for a root, otherwise an index
// smaller than i, so one forward pass computes every model-space matrix.
type Skeleton struct {
	Names   []string
	Parents []int
	Rest    []Transform // the local transform of each bone when nothing animates it
}
