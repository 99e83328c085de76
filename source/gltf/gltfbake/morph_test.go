package gltfbake

import (
	"strings"
	"testing"

	"github.com/bonebake/bonebake/source/gltf"
)

// TestMorphNotes: a bake says which of the character's meshes have morph
// targets it does not bake and which clips animate them (RobotExpressive's
// head: Angry, Surprised, Sad), and which animations animate only weights and
// so bake as a still pose.
func TestMorphNotes(t *testing.T) {
	m, err := Load(sharedModel(t, "threejs/RobotExpressive.glb"), Settings{})
	if err != nil {
		t.Fatal(err)
	}
	all := strings.Join(m.Notes, "\n")
	for _, w := range []string{"morph targets are not baked", "Head has 3 morph targets (Angry, Surprised, Sad), weights animated by \"Dance\""} {
		if !strings.Contains(all, w) {
			t.Errorf("notes %q do not say %q", all, w)
		}
	}
	if strings.Contains(all, "only morph target weights") {
		t.Errorf("notes %q call a clip morph-only; every RobotExpressive clip moves bones", all)
	}
	notes := morphNotes(&gltf.Model{MorphOnly: []string{"Blink"}})
	if len(notes) != 1 || !strings.Contains(notes[0], `1 animation animates only morph target weights ("Blink")`) || !strings.Contains(notes[0], "its clip bakes as a still pose") {
		t.Errorf("morph-only note %q", notes)
	}
}
