package meshgen_test

import (
	"fmt"

	"github.com/bonebake/bonebake/rig"
	"github.com/bonebake/bonebake/species/meshgen"
)

// A leg around a three-bone chain (pelvis 0, thigh 1, shin 2), and a foot.
func Example() {
	var b meshgen.Builder
	hip, knee, ankle := rig.Vec3{0.09, 0.92, 0}, rig.Vec3{0.09, 0.49, 0.01}, rig.Vec3{0.09, 0.08, 0}
	b.Limb(0, []int{1, 2}, []rig.Vec3{hip, knee, ankle}, []float64{0.08, 0.055, 0.045}, 8, 3, meshgen.RoleCloth)
	b.Box(2, rig.Vec3{0.09, 0.04, 0.05}, rig.Vec3{0.045, 0.04, 0.12}, meshgen.RoleLeather)
	m := b.Mesh()
	fmt.Println(m.VertexCount(), "vertices,", m.TriangleCount(), "triangles")
	fmt.Println("knee weights:", m.Joints[3*9][:2], m.Weights[3*9][:2]) // ring 3 of 8+1 vertices
	// Output:
	// 89 vertices, 124 triangles
	// knee weights: [1 2] [0.5 0.5]
}
