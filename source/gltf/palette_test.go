package gltf

import (
	"math"
	"testing"

	"github.com/bonebake/bonebake/anim"
	"github.com/bonebake/bonebake/internal/gltfref"
	"github.com/bonebake/bonebake/rig"
)

// TestPaletteMatchesReference checks the Model end to end: palettes computed from
// it the way a baker does (sample the clip, G(joint) in the scene's space) equal
// those of the independent reference evaluator in internal/gltfref, at the rest
// pose and at times across every clip, the lead-in before its first key included.
func TestPaletteMatchesReference(t *testing.T) {
	for _, tc := range realModels {
		t.Run(tc.file, func(t *testing.T) {
			path := modelPath(t, tc.file)
			m, err := Load(path, Options{})
			if err != nil {
				t.Fatal(err)
			}
			ref, err := gltfref.Load(path)
			if err != nil {
				t.Fatal(err)
			}
			compare := func(what string, pose []rig.Transform, want [][16]float64) {
				t.Helper()
				got := palette(t, m, pose)
				for j := range got {
					for i := range got[j] {
						if d := math.Abs(got[j][i] - want[j][i]); d > 1e-4*max(1, math.Abs(want[j][i])) {
							t.Fatalf("%s joint %d element %d: %v, reference %v", what, j, i, got[j][i], want[j][i])
						}
					}
				}
			}
			compare("rest pose", m.Skeleton.RestPose(), ref.Palette(0, -1, 0))
			for ci := range m.Clips {
				c := &m.Clips[ci]
				s := anim.NewSampler(c)
				for k := 0; k <= 12; k++ {
					tm := c.Duration * float64(k) / 12 // from 0: the lead-in holds the first keys
					pose := m.Skeleton.RestPose()
					s.Sample(tm, pose)
					compare(c.Name, pose, ref.Palette(0, ci, tm))
				}
			}
		})
	}
}

func palette(t *testing.T, m *Model, pose []rig.Transform) []rig.Mat4 {
	g := make([]rig.Mat4, len(pose))
	m.Skeleton.ModelSpace(pose, g)
	out := make([]rig.Mat4, len(m.Joints))
	for j, b := range m.Joints {
		out[j] = g[b]
	}
	return out
}
