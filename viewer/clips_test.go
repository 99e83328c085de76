package viewer

import (
	"slices"
	"testing"

	"github.com/bonebake/bonebake/internal/testfiles"
	"github.com/bonebake/bonebake/source/gltf/gltfbake"
)

// TestLoadGLTFWithClips: the viewer bakes a model with clip files as bake
// does (view MODEL --clips …): the clip files' animations join the model's own.
func TestLoadGLTFWithClips(t *testing.T) {
	dir := "mixamo-clips/"
	a, err := LoadGLTFWith(testfiles.Path(t, "gltf", dir+"ybot.glb"), gltfbake.Settings{
		ClipFiles: []string{testfiles.Path(t, "gltf", dir+"walking.glb"), testfiles.Path(t, "gltf", dir+"flair.glb")},
	})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, c := range a.File().Clips() {
		names = append(names, c.Name)
	}
	if want := []string{"Armature|mixamo.com|Layer0", "walking", "flair"}; !slices.Equal(names, want) {
		t.Fatalf("clips %q, want %q", names, want)
	}
	if a.MeshKind() != MeshGLTF {
		t.Errorf("drawn with %s, want the model's own mesh", a.MeshKind())
	}
}
