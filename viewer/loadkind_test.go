package viewer

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLoadRefusalsSayWhatIsShown: a file the viewer does not show is refused
// naming every kind it does, FBX and BVH models included (it said "BPAT files
// and glTF models", and took FBX and BVH all the same), and a gait sidecar is
// told to be viewed through its BPAT file (issue 45 round 4, item 3).
func TestLoadRefusalsSayWhatIsShown(t *testing.T) {
	dir := t.TempDir()
	write := func(name, data string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, c := range []struct{ path, want string }{
		{write("fox.gait.json", `{"clips": []}`), "fox.gait.json is a gait sidecar, read with the BPAT file beside it: view " + filepath.Join(dir, "fox.bpat")},
		{write("notes.txt", "hello"), "notes.txt is not a file bonebake knows (by its first bytes): the viewer shows BPAT files and models (glTF 2.0 .gltf and .glb, FBX 7 .fbx, BVH .bvh)"},
		{write("fox_minimal.bpsm", "BPSM"+strings.Repeat("\x00", 60)), "fox_minimal.bpsm is a BPSM snapshot mesh: the viewer shows BPAT files and models (glTF 2.0 .gltf and .glb, FBX 7 .fbx, BVH .bvh)"},
	} {
		_, err := Load([]string{c.path}, nil)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Load(%s): %v; want %q", filepath.Base(c.path), err, c.want)
		}
	}
}
