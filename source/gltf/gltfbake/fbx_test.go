package gltfbake

import (
	"testing"

	"github.com/bonebake/bonebake/internal/testfiles"
)

// An FBX character loads through the same Load as a glTF one (its >64 joints
// brought under BPAT's limit as a glTF's are), and an FBX animation file is a
// clip file: Mixamo's way of working, one character and its animations.
func TestFBXCharacterAndClipFile(t *testing.T) {
	char := testfiles.Path(t, "fbx", "mixamo.fbx")
	anim := testfiles.Path(t, "fbx", "Samba_Dancing.fbx")
	m, err := Load(char, Settings{})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(m.Job.Rig.Bones); n > 64 || n < 40 {
		t.Errorf("the job's palette has %d bones; the 65 joints should come under 64", n)
	}
	if len(m.GLTF.Clips) != 1 {
		t.Fatalf("%d clips", len(m.GLTF.Clips))
	}
	if _, err := AddClipFiles(m.GLTF, []string{anim}, ClipFilesSettings{}); err != nil {
		t.Fatal(err)
	}
	if len(m.GLTF.Clips) != 2 {
		t.Fatalf("%d clips after the clip file", len(m.GLTF.Clips))
	}
	c := m.GLTF.Clips[1]
	// Its stack is Mixamo's generic "mixamo.com": named after the file. Its
	// 595 keys at 30 fps run 19.8 s.
	if c.Name != "Samba_Dancing" || c.Duration < 19.79 || c.Duration > 19.81 || len(c.Tracks) < 3*50 {
		t.Errorf("clip %q, %v s, %d tracks", c.Name, c.Duration, len(c.Tracks))
	}
}
