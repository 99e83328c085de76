package viewer

import (
	"slices"
	"testing"

	"github.com/bonebake/bonebake/internal/testfiles"
	"github.com/bonebake/bonebake/source/gltf/gltfbake"
)

// TestLoadBVH: a BVH file given to the viewer bakes on its own skeleton and,
// having no mesh, is drawn as a box per bone (docs/formats/bvh.md §5).
func TestLoadBVH(t *testing.T) {
	as, err := Load([]string{testfiles.Path(t, "bvh", "a_biped_walk.bvh")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	a := as[0]
	if a.Kind != KindBVH || a.MeshKind() != MeshBoxes || a.File().BoneCount() != 18 || len(a.File().Clips()) != 1 || a.Name != "a_biped_walk" {
		t.Fatalf("kind %s, mesh %s, %d bones, %d clips, name %q", a.Kind, a.MeshKind(), a.File().BoneCount(), len(a.File().Clips()), a.Name)
	}
}

// TestLoadBVHClips: view MODEL --clips walk.bvh shows the BVH's clip on the
// model, with the model's own mesh.
func TestLoadBVHClips(t *testing.T) {
	a, err := LoadGLTFWith(testfiles.Path(t, "gltf", "threejs/Soldier.glb"), gltfbake.Settings{ClipFiles: []string{testfiles.Path(t, "bvh", "soldier_walk.bvh")}})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, c := range a.File().Clips() {
		names = append(names, c.Name)
	}
	if a.MeshKind() != MeshGLTF || !slices.Contains(names, "soldier_walk") {
		t.Fatalf("mesh %s, clips %q", a.MeshKind(), names)
	}
}
