package bat

import (
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/bonebake/bonebake/internal/atomicfile"
	"github.com/bonebake/bonebake/source/gltf/gltfbake"
)

func writeFile(path string, b []byte) error {
	return atomicfile.Write(path, func(w io.Writer) error {
		_, err := w.Write(b)
		return err
	})
}

// benchWrite measures Write (bake, write to disk and verify from memory) and,
// as "files", the same job verifying by reading the files back from disk and
// decoding them (Write before issue 23); the bytes are those of the three
// textures, so MB/s is texture bytes per second of the whole job.
func benchWrite(b *testing.B, in *Input, opt Options) {
	b.Run("verify=memory", func(b *testing.B) { benchWriteWith(b, in, opt, Write) })
	b.Run("verify=files", func(b *testing.B) { benchWriteWith(b, in, opt, writeFromFiles) })
}

// writeFromFiles is Write verifying from the files read back from disk.
func writeFromFiles(dir string, in *Input, opt Options) (*Output, error) {
	out, err := Bake(in, opt)
	if err != nil {
		return nil, err
	}
	for _, f := range out.Files {
		if err := writeFile(filepath.Join(dir, f.Name), f.Data); err != nil {
			return nil, err
		}
	}
	e, err := Verify(in, out.Report, func(name string) ([]byte, error) { return os.ReadFile(filepath.Join(dir, name)) })
	if err != nil {
		return nil, err
	}
	out.Report.MaxError = e
	return out, writeFile(filepath.Join(dir, in.Name+".bat.json"), out.Report.JSON())
}

func benchWriteWith(b *testing.B, in *Input, opt Options, write func(string, *Input, Options) (*Output, error)) {
	out, err := Bake(in, opt)
	if err != nil {
		b.Fatal(err)
	}
	r := out.Report
	b.SetBytes(int64(len(out.File(r.Position.File)) + len(out.File(r.Rotation.File)) + len(out.File(r.Skin.File))))
	dir := b.TempDir()
	b.ResetTimer()
	for b.Loop() {
		if _, err := write(dir, in, opt); err != nil {
			b.Fatal(err)
		}
	}
}

// benchEncode measures the texture writers alone: the position and rotation
// textures encoded in memory.
func benchEncode(b *testing.B, in *Input, opt Options) {
	out, err := Bake(in, opt)
	if err != nil {
		b.Fatal(err)
	}
	pos, _ := decodeTexture("", out.File(out.Report.Position.File), out.Report.Position.Encoding, 3)
	rot, _ := decodeTexture("", out.File(out.Report.Rotation.File), out.Report.Rotation.Encoding, 4)
	n := len(out.File(out.Report.Position.File)) + len(out.File(out.Report.Rotation.File))
	b.SetBytes(int64(n))
	for b.Loop() {
		if _, err := encodeTexture(pos, out.Report.Position.Encoding, opt.Zip); err != nil {
			b.Fatal(err)
		}
		if _, err := encodeTexture(rot, out.Report.Rotation.Encoding, opt.Zip); err != nil {
			b.Fatal(err)
		}
	}
}

func foxInput(b *testing.B) *Input {
	m, err := gltfbake.Load(filepath.Join("..", "testdata", "gltf", "Fox.glb"), gltfbake.Settings{FPS: 30})
	if err != nil {
		b.Fatal(err)
	}
	in, err := FromModel(m)
	if err != nil {
		b.Fatal(err)
	}
	return in
}

func BenchmarkWriteFox(b *testing.B) {
	in := foxInput(b)
	b.Run("raw-exr", func(b *testing.B) { benchWrite(b, in, Options{}) })
	b.Run("ue-png16", func(b *testing.B) { benchWrite(b, in, Options{Preset: UE}) })
}

func BenchmarkWriteSynthetic(b *testing.B) {
	in := synthetic(b, 100, 5000, 2000)
	b.Run("raw-exr", func(b *testing.B) { benchWrite(b, in, Options{}) })
	b.Run("ue-png16", func(b *testing.B) { benchWrite(b, in, Options{Preset: UE}) })
}

func BenchmarkEncodeSynthetic(b *testing.B) {
	in := synthetic(b, 100, 5000, 10)
	for _, c := range []struct {
		name string
		opt  Options
	}{
		{"exr", Options{}},
		{"exr-zip", Options{Zip: true}},
		{"exr16", Options{Format: EXR16}},
		{"png16", Options{Preset: UE}},
		{"png8", Options{Preset: UE, Format: PNG8}},
	} {
		b.Run(c.name, func(b *testing.B) { benchEncode(b, in, c.opt) })
	}
}

// BenchmarkVerify measures verification alone, from the values in memory: Fox
// at 200 fps (1,728 vertices of which 290 are distinct) and the synthetic rig
// (100 bones, 300 frames, 2,000 vertices all distinct, four influences each);
// "before" is the same with verifyBefore. The figure that counts is ns per
// vertex-frame.
func BenchmarkVerify(b *testing.B) {
	m, err := gltfbake.Load(filepath.Join("..", "testdata", "gltf", "Fox.glb"), gltfbake.Settings{FPS: 200})
	if err != nil {
		b.Fatal(err)
	}
	fox, err := FromModel(m)
	if err != nil {
		b.Fatal(err)
	}
	for _, in := range []struct {
		name string
		in   *Input
	}{{"fox", fox}, {"synthetic", synthetic(b, 100, 300, 2000)}} {
		for _, c := range []struct {
			name   string
			verify func(*Input, *Report, verifySource, func(int, int)) (MaxError, error)
		}{{"now", verify}, {"before", verifyBefore}} {
			b.Run(in.name+"/"+c.name, func(b *testing.B) {
				out, err := Bake(in.in, Options{})
				if err != nil {
					b.Fatal(err)
				}
				src, err := out.storedValues()
				if err != nil {
					b.Fatal(err)
				}
				work := 0
				for _, rc := range out.Report.Clips {
					work += rc.Frames * out.Report.Vertices
				}
				b.ResetTimer()
				for b.Loop() {
					if _, err := c.verify(in.in, out.Report, src, nil); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(work), "ns/vertex-frame")
			})
		}
	}
}
