package fbx

import (
	"os"
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
