package viewer

import (
	"testing"

	"github.com/bonebake/bonebake/internal/testfiles"
)

// TestLoadBVH: a BVH file given to the viewer bakes on its own skeleton and,
// having no mesh, is drawn as a box per bone (docs/formats/bvh.md §5).
func TestLoadBVH(t *testing.T) {
	as, err := Load([]string{testfiles.Path(t, "bvh", "a_biped_walk.bvh")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	a := as[0]
	if a.MeshKind() != MeshBoxes || a.File().BoneCount() != 18 || len(a.File().Clips()) != 1 || a.Name != "a_biped_walk" {
		t.Fatalf("mesh %s, %d bones, %d clips, name %q", a.MeshKind(), a.File().BoneCount(), len(a.File().Clips()), a.Name)
	}
}
