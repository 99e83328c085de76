package bat

import (
	"math"
	"os"
	"path/filepath"
	"testing"
)

// TestStoredValuesAreTheFiles proves that verifying from memory verifies the
// files: for every preset, format, ZIP, inverted V, z up and a stacked table,
// each texture file decodes bit for bit to storedTexture of the texture in
// memory, the mesh file to the positions and TEXCOORD_1 storedValues gives, and
// Write's errors (from memory) equal Verify's from the files on disk.
func TestStoredValuesAreTheFiles(t *testing.T) {
	small, stacked := synthetic(t, 7, 30, 50), synthetic(t, 3, 5000, 20)
	cases := []struct {
		name string
		in   *Input
		opt  Options
	}{
		{"raw-exr", small, Options{}},
		{"raw-exr-zip", small, Options{Zip: true}},
		{"raw-exr16", small, Options{Format: EXR16}},
		{"raw-exr16-zip-zup", small, Options{Format: EXR16, Zip: true, ZUp: true}},
		{"gametools-exr", small, Options{Preset: GameTools}},
		{"gametools-exr16", small, Options{Preset: GameTools, Format: EXR16}},
		{"gametools-png16", small, Options{Preset: GameTools, Format: PNG16, GameTools: remapped()}},
		{"gametools-png8-invertv", small, Options{Preset: GameTools, Format: PNG8, InvertV: true, GameTools: remapped()}},
		{"ue-png16-padding", small, Options{Preset: UE, Padding: 2}},
		{"ue-png8-zup-invertv", small, Options{Preset: UE, Format: PNG8, ZUp: true, InvertV: true}},
		{"raw-exr-stacked", stacked, Options{}},
		{"ue-png16-stacked", stacked, Options{Preset: UE}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			out, err := Write(dir, c.in, c.opt)
			if err != nil {
				t.Fatal(err)
			}
			r := out.Report
			mem, err := out.storedValues()
			if err != nil {
				t.Fatal(err)
			}
			for _, tx := range []struct {
				file, encoding string
				channels       int
				mem            *Texture
			}{
				{r.Position.File, r.Position.Encoding, 3, mem.pos},
				{r.Rotation.File, r.Rotation.Encoding, 4, mem.rot},
				{r.Skin.File, r.Skin.Encoding, 4, mem.skin},
			} {
				b, err := os.ReadFile(filepath.Join(dir, tx.file))
				if err != nil {
					t.Fatal(err)
				}
				file, err := decodeTexture(tx.file, b, tx.encoding, tx.channels)
				if err != nil {
					t.Fatal(err)
				}
				if file.Width != tx.mem.Width || file.Height != tx.mem.Height || file.Channels != tx.mem.Channels {
					t.Fatalf("%s: the file is %d × %d × %d, memory %d × %d × %d", tx.file, file.Width, file.Height, file.Channels, tx.mem.Width, tx.mem.Height, tx.mem.Channels)
				}
				for i, v := range file.Data {
					if math.Float32bits(v) != math.Float32bits(tx.mem.Data[i]) {
						t.Fatalf("%s (%s): value %d is %v (%#08x) in the file, %v (%#08x) in memory", tx.file, tx.encoding, i, v, math.Float32bits(v), tx.mem.Data[i], math.Float32bits(tx.mem.Data[i]))
					}
				}
			}
			b, err := os.ReadFile(filepath.Join(dir, r.Mesh))
			if err != nil {
				t.Fatal(err)
			}
			vpos, uv1, err := readMeshGLB(r.Mesh, b)
			if err != nil {
				t.Fatal(err)
			}
			if len(vpos) != len(mem.vpos) || len(uv1) != len(mem.uv1) {
				t.Fatalf("mesh: %d positions, %d TEXCOORD_1 in the file; %d, %d in memory", len(vpos), len(uv1), len(mem.vpos), len(mem.uv1))
			}
			for k := range vpos {
				for i := range 3 {
					if math.Float32bits(vpos[k][i]) != math.Float32bits(mem.vpos[k][i]) {
						t.Fatalf("vertex %d: position %v in the file, %v in memory", k, vpos[k], mem.vpos[k])
					}
				}
				for i := range 2 {
					if math.Float32bits(uv1[k][i]) != math.Float32bits(mem.uv1[k][i]) {
						t.Fatalf("vertex %d: TEXCOORD_1 %v in the file, %v in memory", k, uv1[k], mem.uv1[k])
					}
				}
			}
			fromFiles, err := Verify(c.in, r, func(name string) ([]byte, error) { return os.ReadFile(filepath.Join(dir, name)) })
			if err != nil {
				t.Fatal(err)
			}
			if fromFiles != r.MaxError {
				t.Errorf("errors from the files %+v, from memory %+v", fromFiles, r.MaxError)
			}
		})
	}
}

// remapped is the add-on's defaults with Remap on, which 16- and 8-bit PNG need.
func remapped() *AddonSettings {
	g := AddonDefaults()
	g.Remap = true
	return &g
}
