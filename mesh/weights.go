package mesh

import "math"

// WeightSlack is how far a vertex's weights may sum from 1 and still count as
// summing to 1: float32 weights written by exporters land within 1e-6; anything
// further was not normalized.
const WeightSlack = 1e-5

// NormalizeWeights is the one rule for weights that do not sum to 1, the rule
// glTF loaders apply (three.js's SkinnedMesh.normalizeSkinWeights): a vertex's
// weights are divided by their sum; a vertex with no positive weight is bound
// wholly to joint root (weights (1, 0, 0, 0)). A negative or non-finite weight
// counts as 0. It returns how many vertices it changed (sums within WeightSlack
// of 1 are left alone). joints and weights are one row per vertex.
func NormalizeWeights(joints [][4]uint16, weights [][4]float32, root uint16) (changed int) {
	for v := range weights {
		w := &weights[v]
		bad := false
		sum := 0.0
		for k, x := range w {
			if !(x >= 0) || math.IsInf(float64(x), 0) {
				w[k], bad = 0, true
				continue
			}
			sum += float64(x)
		}
		switch {
		case sum == 0:
			joints[v] = [4]uint16{root}
			*w = [4]float32{1}
		case bad || math.Abs(sum-1) > WeightSlack:
			for k := range w {
				w[k] = float32(float64(w[k]) / sum)
			}
		default:
			continue
		}
		changed++
	}
	return changed
}
