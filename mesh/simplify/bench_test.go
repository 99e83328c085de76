package simplify_test

import (
	"testing"

	"github.com/bonebake/bonebake/mesh"
	"github.com/bonebake/bonebake/mesh/simplify"

	"github.com/bonebake/bonebake/species/creatures"
)

type skinned = mesh.Skinned

// BenchmarkSimplify: the humanoid (1980 triangles) to the 300-triangle far-LOD
// default, and a 64×32 UV sphere (3,968 triangles) and a 256×128 one (65,024
// triangles) to 300.
func BenchmarkSimplify(b *testing.B) {
	for _, c := range []struct {
		name string
		in   func() *skinned
	}{
		{"humanoid", func() *skinned { return creatures.ByName("humanoid").Mesh }},
		{"sphere4k", func() *skinned { return sphere(1, 64, 32) }},
		{"sphere65k", func() *skinned { return sphere(1, 256, 128) }},
	} {
		m := c.in()
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				if _, _, err := simplify.Simplify(m, 300, simplify.Options{}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(m.TriangleCount())*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mtri/s")
		})
	}
}
