// Package anim holds animation clips made of keyframe tracks (one per bone and
// property) and samples them the way glTF 2.0 defines: STEP, LINEAR (spherical linear
// interpolation on the shortest path for rotations) and CUBICSPLINE.
package anim

// Path is the bone property a track animates.
type Path uint8

const (
	Translation Path = iota // 3 floats per key
	Rotation                // 4 floats per key: quaternion x, y, z, w
	Scale                   // 3 floats per key
)

// Interpolation is how a track goes from one key to the next.
type Interpolation uint8

const (
	Step Interpolation = iota
	Linear
	CubicSpline
)

// Track animates one property of one bone. Times are seconds, strictly increasing.
// Values hold one element (3 or 4 floats) per key; for CubicSpline each key holds
// three elements, in-tangent, value, out-tangent, exactly as glTF stores them.
type Track struct {
	Bone          int
	Path          Path
	Interpolation Interpolation
	Times         []float32
	Values        []float32
}

// Animation is a named animation and its tracks. Start and Duration are the times
// (seconds) of its first and last keys: before Start every track holds its first
// key, so the animation's content runs from Start to Duration.
type Animation struct {
	Name     string
	Start    float64
	Duration float64
	Tracks   []Track
}
