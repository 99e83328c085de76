package viewer

import (
	"testing"

	"github.com/bonebake/bonebake/internal/testfiles"
)

// view takes an FBX character as it takes a glTF one: told by its first bytes,
// baked through gltfbake, its mesh drawn skinned.
func TestLoadFBX(t *testing.T) {
	path := testfiles.Path(t, "fbx", "mixamo.fbx")
	as, err := Load([]string{path}, nil)
	if err != nil {
		t.Fatal(err)
	}
	a := as[0]
	if a.Kind != KindFBX || a.Mesh() == nil || a.Mesh().VertexCount() != 69189 || a.MeshKind() != MeshGLTF {
		t.Errorf("asset %s: kind %s, mesh kind %s", a.Name, a.Kind, a.MeshKind())
	}
}
