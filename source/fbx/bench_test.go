package fbx

import (
	"testing"

	"github.com/bonebake/bonebake/internal/testfiles"
	"github.com/bonebake/bonebake/source/gltf"
)

// BenchmarkLoad: a Mixamo character read whole: skeleton, two skinned meshes
// (69,189 vertices), its 16.8 s clip sampled.
func BenchmarkLoad(b *testing.B) {
	path := testfiles.Path(b, "fbx", "mixamo.fbx")
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Load(path, gltf.Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
