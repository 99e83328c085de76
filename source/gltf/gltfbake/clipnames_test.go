package gltfbake

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/bonebake/bonebake/bake"
	"github.com/bonebake/bonebake/internal/testfiles"
)

// A Mixamo FBX's one clip is named after its file, not "mixamo.com", the take
// name Mixamo gives every file (issue 45, round 3): two Mixamo characters baked
// apart no longer both play "mixamo.com". A manifest naming the take still
// finds it.
func TestTakeNamedAfterFile(t *testing.T) {
	samba := testfiles.Path(t, "fbx", "Samba_Dancing.fbx")
	m, err := Load(samba, Settings{})
	if err != nil {
		t.Fatal(err)
	}
	if names := clipNames(m.Job.Clips); names != `"Samba_Dancing"` {
		t.Errorf("clips %s, want Samba_Dancing", names)
	}
	if !slices.ContainsFunc(m.Notes, func(n string) bool { return strings.Contains(n, `"mixamo.com" bakes as clip Samba_Dancing`) }) {
		t.Errorf("no note says why: %q", m.Notes)
	}
	path := filepath.Join(t.TempDir(), "samba.yaml")
	writeFile(t, path, "clips:\n  - {name: samba, source: mixamo.com}\n")
	mf, err := ReadManifest(path)
	if err != nil {
		t.Fatal(err)
	}
	if m, err = Load(samba, Settings{Manifest: mf}); err != nil {
		t.Fatalf("a manifest giving the take name: %v", err)
	}
	if names := clipNames(m.Job.Clips); names != `"samba"` {
		t.Errorf("manifest's clips %s, want samba", names)
	}
}

// The clips of one bake never share a name, whatever the file's animations are
// called: take names give way to the file's name, a repeated name gets _2, _3, …,
// and a name an animation has is kept by the first of that name. Blender's
// "Armature|<action>" keeps its action's name: one file holds several. Before, a model
// with two animations of one name failed to bake ("the same name as clip 0").
func TestOwnClipNamesUnique(t *testing.T) {
	var doc map[string]any
	if err := json.Unmarshal(readShared(t, "RiggedSimple.gltf"), &doc); err != nil {
		t.Fatal(err)
	}
	one := doc["animations"].([]any)[0].(map[string]any)
	var anims []any
	for _, name := range []string{"mixamo.com", "Walk", "Walk", "Take 001", "hero", "Armature|Run", "Armature|mixamo.com|Layer0"} {
		a := map[string]any{}
		for k, v := range one {
			a[k] = v
		}
		a["name"] = name
		anims = append(anims, a)
	}
	doc["animations"] = anims
	b, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "hero.gltf")
	writeFile(t, path, string(b))
	m, err := Load(path, Settings{})
	if err != nil {
		t.Fatal(err)
	}
	if names, want := clipNames(m.Job.Clips), `"hero_2", "Walk", "Walk_2", "hero_3", "hero", "Armature|Run", "hero_4"`; names != want {
		t.Errorf("clips %s, want %s", names, want)
	}
	if _, err := bake.Bytes(m.Job); err != nil {
		t.Error(err)
	}
}

func readShared(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(sharedModel(t, name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}
