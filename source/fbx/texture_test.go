package fbx

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/bonebake/bonebake/source/gltf"
)

// texturedFile writes the small skinned character into dir with a material
// whose texture is not embedded: the Texture node's children are texNodes.
func texturedFile(t *testing.T, dir, texNodes string) string {
	t.Helper()
	b, err := os.ReadFile(writeASCII(t, yUp, true))
	if err != nil {
		t.Fatal(err)
	}
	src := strings.Replace(string(b), "\t\tPolygonVertexIndex: *3 {", "\t\tLayerElementMaterial: 0 {\n\t\t\tMappingInformationType: \"AllSame\"\n\t\t\tReferenceInformationType: \"IndexToDirect\"\n\t\t\tMaterials: *1 {\n\t\t\t\ta: 0\n\t\t\t}\n\t\t}\n\t\tPolygonVertexIndex: *3 {", 1)
	src = strings.Replace(src, "\tAnimationStack:", "\tMaterial: 30, \"Material::Skin\", \"\" {\n\t}\n\tTexture: 31, \"Texture::Skin\", \"\" {\n"+texNodes+"\t}\n\tVideo: 32, \"Video::Skin\", \"Clip\" {\n\t}\n\tAnimationStack:", 1)
	src = strings.Replace(src, "Connections:  {\n", "Connections:  {\n\tC: \"OO\",30,11\n\tC: \"OP\",31,30, \"DiffuseColor\"\n\tC: \"OO\",32,31\n", 1)
	p := filepath.Join(dir, "hero.fbx")
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// A texture kept in a file of its own is read from beside the FBX (§10): by
// its RelativeFilename (Windows separators), by its FileName's base name
// beside the FBX or in NAME.fbm; a missing file, one outside the folder and a
// named pipe are each said in a warning naming the texture, and not read.
func TestExternalTexture(t *testing.T) {
	png := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDRexternal")
	for _, c := range []struct {
		name  string
		nodes string
		file  string // where the image is written, relative to the FBX's folder
		warn  string // a warning that must be given instead ("" for none)
	}{
		{"relative", "\t\tRelativeFilename: \"maps\\\\skin.png\"\n\t\tFileName: \"C:\\\\art\\\\maps\\\\skin.png\"\n", "maps/skin.png", ""},
		{"file name beside", "\t\tFileName: \"C:\\\\Users\\\\art\\\\skin.png\"\n", "skin.png", ""},
		{"fbm folder", "\t\tFileName: \"/home/art/skin.png\"\n", "hero.fbm/skin.png", ""},
		{"missing", "\t\tRelativeFilename: \"maps\\\\skin.png\"\n", "", "looked for maps/skin.png, skin.png, hero.fbm/skin.png"},
		{"outside", "\t\tRelativeFilename: \"..\\\\skin.png\"\n", "../skin.png", "outside"},
		{"pipe", "\t\tRelativeFilename: \"skin.png\"\n", "fifo:skin.png", "named pipe"},
		// 300,000,000 bytes (a sparse file) against 256 MiB, said in decimal
		// MB as every limit message is (README, Limits).
		{"over the limit", "\t\tRelativeFilename: \"skin.png\"\n", "sparse:skin.png", "skin.png is 300 MB, more than the 268 MB allowed"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "model")
			os.MkdirAll(dir, 0o755)
			p := texturedFile(t, dir, c.nodes)
			switch {
			case strings.HasPrefix(c.file, "fifo:"):
				if err := syscall.Mkfifo(filepath.Join(dir, strings.TrimPrefix(c.file, "fifo:")), 0o644); err != nil {
					t.Skip(err)
				}
			case strings.HasPrefix(c.file, "sparse:"):
				f, err := os.Create(filepath.Join(dir, strings.TrimPrefix(c.file, "sparse:")))
				if err != nil {
					t.Fatal(err)
				}
				if err := f.Truncate(300_000_000); err != nil {
					t.Fatal(err)
				}
				f.Close()
			case c.file != "":
				f := filepath.Join(dir, filepath.FromSlash(c.file))
				os.MkdirAll(filepath.Dir(f), 0o755)
				if err := os.WriteFile(f, png, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			m, err := Load(p, gltf.Options{Textures: true})
			if err != nil {
				t.Fatal(err)
			}
			tex := m.Parts[0].Material.Texture
			w := strings.Join(m.Warnings, "\n")
			if c.warn == "" {
				if tex == nil || string(tex.Data) != string(png) || tex.MIME != "image/png" {
					t.Errorf("texture %+v, warnings %q", tex, m.Warnings)
				}
				return
			}
			if tex != nil || !strings.Contains(w, `texture "Skin"`) || !strings.Contains(w, c.warn) {
				t.Errorf("texture %v, warnings %q; want one saying %q", tex != nil, m.Warnings, c.warn)
			}
		})
	}
}
