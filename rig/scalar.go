package rig

import "math"

// Clamp01 is x held to [0, 1]; NaN stays NaN.
func Clamp01(x float64) float64 { return math.Max(0, math.Min(1, x)) }

// Smoothstep eases x from 0 to 1 as 3x² − 2x³, x held to [0, 1] first: its
// slope is 0 at both ends. It is the one ease the offline packages share
// (stride's planted feet, the built-in creatures' poses and meshes); the
// runtime keeps its own, in float32 (crowd's fades): it imports nothing
// offline, rig included.
func Smoothstep(x float64) float64 {
	x = Clamp01(x)
	return x * x * (3 - 2*x)
}
