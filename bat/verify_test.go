package bat

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
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

// TestVerifyRefusesSpoiledTexels: for every fixture of TestVerifyAsBefore, one
// rotation texel whose quaternion (or axis-angle axis) decodes to NaN, to zero
// or to half its length fails verification with a *TexelError naming the
// rotation texture, the texel, its layout row and column and the value: before
// checkTexels each verified as the identity (or the rotation it points along),
// as verifyBefore, the old arithmetic, still shows. A NaN position texel in the
// last row (a padding row for ue-png16-padding, which no clip plays) and a NaN
// skin weight fail the same way.
func TestVerifyRefusesSpoiledTexels(t *testing.T) {
	inputs, opts := verifyFixtures(t)
	for _, in := range inputs {
		for _, o := range opts {
			t.Run(in.name+"/"+o.name, func(t *testing.T) {
				out, err := Bake(in.in, o.opt)
				if err != nil {
					t.Fatal(err)
				}
				r := out.Report
				src, err := out.storedValues()
				if err != nil {
					t.Fatal(err)
				}
				if _, err := verify(in.in, r, src, nil); err != nil {
					t.Fatalf("as written: %v", err)
				}
				g, err := newGrid(r.Rows, r.Bones, r.InvertV)
				if err != nil {
					t.Fatal(err)
				}
				n := 4 // the channels that make the unit vector
				if r.Rotation.Mode == AxisAngle {
					n = 3
				}
				row, col := 1, r.Bones-1
				at := g.texel(row, col)
				want := func(what string, err error, file, rule string, x, y int, detail string) {
					t.Helper()
					var te *TexelError
					if !errors.As(err, &te) || te.File != file || te.Rule != rule || te.X != x || te.Y != y ||
						!strings.Contains(err.Error(), detail) {
						t.Errorf("%s: %v; want %s at texel (x %d, y %d) of %s with %q", what, err, rule, x, y, file, detail)
					}
				}
				where := fmt.Sprintf("row %d column %d", row, col)
				for _, sp := range []struct {
					name  string
					scale float64 // the decoded vector times this; NaN: a NaN stored
					rule  string
				}{{"NaN", math.NaN(), RuleTexelFloat}, {"zero", 0, RuleRotationLength}, {"half", 0.5, RuleRotationLength}} {
					s := src
					s.rot = &Texture{Width: src.rot.Width, Height: src.rot.Height, Channels: 4, Data: slices.Clone(src.rot.Data)}
					for c := range n {
						p := &s.rot.Data[at*4+c]
						if math.IsNaN(sp.scale) {
							*p = float32(math.NaN())
							break
						}
						if r.Rotation.Range[c] == 0 {
							t.Fatalf("rotation channel %d has range 0: the fixture cannot scale it", c)
						}
						v := float64(*p)*r.Rotation.Range[c] + r.Rotation.Offset[c]
						*p = float32((v*sp.scale - r.Rotation.Offset[c]) / r.Rotation.Range[c])
					}
					_, err := verify(in.in, r, s, nil)
					want(sp.name+" rotation", err, r.Rotation.File, sp.rule, at%g.w, at/g.w, where)
					if _, err := verifyBefore(in.in, r, s, nil); err != nil {
						t.Errorf("%s rotation: the old arithmetic refuses it too (%v): the fixture does not show the bug", sp.name, err)
					}
				}

				last := g.texel(r.Rows-1, 0)
				s := src
				s.pos = &Texture{Width: src.pos.Width, Height: src.pos.Height, Channels: 3, Data: slices.Clone(src.pos.Data)}
				s.pos.Data[last*3+1] = float32(math.Inf(1))
				_, err = verify(in.in, r, s, nil)
				want("infinite position", err, r.Position.File, RuleTexelFloat, last%g.w, last/g.w, fmt.Sprintf("row %d column 0", r.Rows-1))

				// Vertex 0's weights texel: the one below its TEXCOORD_1 texel
				// (above with invert_v).
				s = src
				s.skin = &Texture{Width: src.skin.Width, Height: src.skin.Height, Channels: 4, Data: slices.Clone(src.skin.Data)}
				x := int(math.Floor(float64(src.uv1[0][0]) * float64(s.skin.Width)))
				y := int(math.Floor(float64(src.uv1[0][1]) * float64(s.skin.Height)))
				wy := y + 1
				if r.InvertV {
					wy = y - 1
				}
				s.skin.Data[(wy*s.skin.Width+x)*4+0] = float32(math.NaN())
				_, err = verify(in.in, r, s, nil)
				want("NaN weight", err, r.Skin.File, RuleTexelFloat, x, wy, "vertex 0 influence 0: weight NaN")
			})
		}
	}
}
