package mesh

import (
	"math"
	"testing"
)

// TestNormalizeWeights: the rule three.js's normalizeSkinWeights applies, with
// expected rows worked out by hand.
func TestNormalizeWeights(t *testing.T) {
	nan := float32(math.NaN())
	joints := [][4]uint16{{1, 2, 0, 0}, {3, 4, 5, 6}, {1, 2, 0, 0}, {7, 0, 0, 0}, {1, 2, 3, 0}, {2, 0, 0, 0}}
	weights := [][4]float32{
		{0.5, 0.25, 0, 0},               // sums to 0.75: ×4/3
		{0, 0, 0, 0},                    // none: bound to the root
		{0.6, -0.2, 0, 0},               // a negative weight counts as 0
		{1 - 1e-7, 0, 0, 0},             // within the slack: left alone
		{nan, 0.5, 0.5, 0},              // NaN counts as 0 (the rest sums to 1, but the row changed)
		{float32(math.Inf(1)), 0, 0, 0}, // nothing finite and positive: the root
	}
	n := NormalizeWeights(joints, weights, 9)
	wantW := [][4]float32{{2 / 3.0, 1 / 3.0, 0, 0}, {1, 0, 0, 0}, {1, 0, 0, 0}, {1 - 1e-7, 0, 0, 0}, {0, 0.5, 0.5, 0}, {1, 0, 0, 0}}
	wantJ := [][4]uint16{{1, 2, 0, 0}, {9, 0, 0, 0}, {1, 2, 0, 0}, {7, 0, 0, 0}, {1, 2, 3, 0}, {9, 0, 0, 0}}
	if n != 5 {
		t.Errorf("%d vertices changed, want 5", n)
	}
	for v := range weights {
		for k := range 4 {
			if math.Abs(float64(weights[v][k]-wantW[v][k])) > 1e-7 || joints[v][k] != wantJ[v][k] {
				t.Errorf("vertex %d: joints %v weights %v, want %v %v", v, joints[v], weights[v], wantJ[v], wantW[v])
				break
			}
		}
	}
}
