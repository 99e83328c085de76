package fbx

import (
	"os"
	"strings"
	"testing"

	fbxfile "github.com/bonebake/bonebake/formats/fbx"
	"github.com/bonebake/bonebake/source/gltf"
)

// FuzzLoad: any file the reader takes loads as a character and as a clip
// file, or is refused; never a panic.
func FuzzLoad(f *testing.F) {
	for _, text := range []string{writeASCIIText(f), asciiZUp(f)} {
		f.Add([]byte(text))
	}
	// Cubic keys with weights, and a second layer.
	cubic := strings.Replace(writeASCIIText(f), "\t\tKeyValueFloat: *2 {\n\t\t\ta: 0,90\n\t\t}\n", "\t\tKeyValueFloat: *2 {\n\t\t\ta: 0,90\n\t\t}\n"+attrs("50332680", "180,0,327619463,0", 2), 1)
	layered := strings.Replace(cubic, "\tC: \"OO\",21,20\n", "\tC: \"OO\",21,20\n\tC: \"OO\",40,20\n\tC: \"OO\",22,40\n", 1)
	layered = strings.Replace(layered, "\tAnimationStack:", layerObj("40", "Add", prop("Weight", "50"))+"\tAnimationStack:", 1)
	f.Add([]byte(cubic))
	f.Add([]byte(layered))
	f.Fuzz(func(t *testing.T, b []byte) {
		file, err := fbxfile.Parse(b)
		if err != nil {
			return
		}
		if s, err := fromFile(file, "fuzz.fbx"); err == nil {
			s.load(gltf.Options{Textures: true})
		}
		if s, err := fromFile(file, "fuzz.fbx"); err == nil {
			s.loadClips()
		}
	})
}

func asciiZUp(t testing.TB) string {
	b, err := os.ReadFile(writeASCII(t, zUpMetres, true))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
