package gltf

import (
	"slices"
	"strings"
	"testing"

	"github.com/bonebake/bonebake/rig"
)

// TestMergeJoints: a merged joint's vertices take its target's palette index,
// a vertex weighted to both keeps one slot with the summed weight, the palette
// loses the merged joint and renumbers the rest; a target that is itself merged
// is refused before anything changes.
func TestMergeJoints(t *testing.T) {
	ibm := []rig.Mat4{rig.Translate(rig.Vec3{0, -1, 0}), rig.Translate(rig.Vec3{0, -2, 0}), rig.Translate(rig.Vec3{0, -3, 0})}
	newModel := func() *Model {
		return &Model{Joints: []int{0, 1, 2}, JointNames: []string{"hand", "finger", "tip"}, InverseBind: slices.Clone(ibm),
			Mesh: &Mesh{Positions: make([][3]float32, 3),
				Joints:  [][4]uint16{{0, 1, 0, 0}, {2, 1, 0, 0}, {1, 0, 0, 0}},
				Weights: [][4]float32{{0.25, 0.75, 0, 0}, {0.5, 0.5, 0, 0}, {1, 0, 0, 0}}}}
	}
	m := newModel()
	merged, err := m.MergeJoints([]int{0, 0, 2}) // finger into hand
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(merged, []string{"finger"}) || !slices.Equal(m.JointNames, []string{"hand", "tip"}) || m.InverseBind[1] != ibm[2] {
		t.Fatalf("merged %v, joints %v", merged, m.JointNames)
	}
	want := []struct {
		j [4]uint16
		w [4]float32
	}{{[4]uint16{0, 0, 0, 0}, [4]float32{1, 0, 0, 0}}, {[4]uint16{1, 0, 0, 0}, [4]float32{0.5, 0.5, 0, 0}}, {[4]uint16{0, 0, 0, 0}, [4]float32{1, 0, 0, 0}}}
	for v, w := range want {
		if m.Mesh.Joints[v] != w.j || m.Mesh.Weights[v] != w.w {
			t.Errorf("vertex %d: joints %v weights %v, want %v %v", v, m.Mesh.Joints[v], m.Mesh.Weights[v], w.j, w.w)
		}
	}
	m = newModel()
	if _, err := m.MergeJoints([]int{0, 2, 0}); err == nil || !strings.Contains(err.Error(), `"finger" merges into joint 2 "tip", which merges into joint 0`) {
		t.Errorf("chained target: %v", err)
	}
	if m.Mesh.Joints[0] != [4]uint16{0, 1, 0, 0} || len(m.Joints) != 3 {
		t.Errorf("a refused merge changed the model")
	}
}
