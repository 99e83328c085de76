package viewer

import (
	"slices"
	"strings"
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
	if want := []string{"ybot", "walking", "flair"}; !slices.Equal(names, want) {
		t.Fatalf("clips %q, want %q", names, want)
	}
	if a.MeshKind() != MeshGLTF {
		t.Errorf("drawn with %s, want the model's own mesh", a.MeshKind())
	}
}

// TestReducedRigNotes: a model whose rig was brought under the bone limit
// (Xbot: 67 joints, 15 unweighted ones dropped) says so in the asset the panel
// shows, with the lines bake prints.
func TestReducedRigNotes(t *testing.T) {
	a, err := LoadGLTF(testfiles.Path(t, "gltf", "threejs/Xbot.glb"))
	if err != nil {
		t.Fatal(err)
	}
	j := a.describe(0)
	if len(j.Notes) != 1 || !strings.Contains(j.Notes[0], "dropped 15 joints") || !strings.Contains(j.Notes[0], "mixamorig:LeftEye") {
		t.Errorf("notes %q: want the dropped joints named", j.Notes)
	}
	b, err := LoadGLTF(testfiles.Path(t, "gltf", "CesiumMan.gltf"))
	if err != nil {
		t.Fatal(err)
	}
	if n := b.describe(0).Notes; n != nil {
		t.Errorf("a rig under the limit has notes %q", n)
	}
}
