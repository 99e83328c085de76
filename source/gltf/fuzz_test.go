package gltf

import (
	"errors"
	"os"
	"testing"

	"github.com/bonebake/bonebake/internal/testfiles"
)

// FuzzLoad feeds arbitrary .gltf JSON (or GLB) bytes to the loader and to Inspect:
// they may refuse the input but must not panic, and what they accept must hold
// together.
func FuzzLoad(f *testing.F) {
	f.Add([]byte(`{"asset":{"version":"2.0"},"nodes":[{"skin":0,"mesh":0},{"children":[2]},{}],"skins":[{"joints":[1,2]}],` +
		`"meshes":[{"primitives":[{"attributes":{"POSITION":0}}]}],"accessors":[{"count":3,"componentType":5126,"type":"VEC3"}]}`))
	// The small test models seed the corpus. CesiumMan (690 KB) and Fox (160 KB)
	// are left out: the fuzzer spends minutes minimizing inputs grown from seeds that
	// big, and TestLoadRealModels covers them.
	for _, name := range []string{"SimpleSkin.gltf", "RiggedSimple.gltf"} {
		if p, ok := testfiles.Find("gltf", name); ok {
			if data, err := os.ReadFile(p); err == nil {
				f.Add(data)
			}
		}
	}
	if _, ok := testfiles.Find("gltf", "SimpleSkin.gltf"); ok {
		f.Add(makeGLB(f, simpleSkin(f)))
	}
	empty := f.TempDir()
	f.Add([]byte(`{"asset":{"version":"2.0"},"nodes":[{"skin":0,"mesh":0},{}],"skins":[{"joints":[1]}],` +
		`"meshes":[{"primitives":[{"attributes":{"POSITION":0},"material":0}]}],"accessors":[{"count":3,"componentType":5126,"type":"VEC3"}],` +
		`"materials":[{"pbrMetallicRoughness":{"baseColorFactor":[1,0.5,0,1],"baseColorTexture":{"index":0}}}],` +
		`"textures":[{"source":0,"sampler":0}],"samplers":[{"magFilter":9728}],"images":[{"uri":"data:image/png;base64,iVBORw0KGgo="}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := decodeDocument("fuzz.gltf", data, empty, "")
		if err != nil {
			mustBeTyped(t, err)
			return
		}
		if _, err := d.info(); err != nil {
			mustBeTyped(t, err)
		}
		for skin := 0; skin < 2; skin++ {
			m, err := d.model(Options{Skin: skin, Textures: skin == 0})
			if err != nil {
				mustBeTyped(t, err)
				continue
			}
			checkModel(t, m)
		}
	})
}

func mustBeTyped(t *testing.T, err error) {
	var e *Error
	if !errors.As(err, &e) || e.File != "fuzz.gltf" || e.Rule == "" {
		t.Fatalf("untyped error: %v", err)
	}
}

func checkModel(t *testing.T, m *Model) {
	bones := len(m.Skeleton.Names)
	if len(m.Joints) == 0 || len(m.Joints) != len(m.InverseBind) || len(m.Joints) != len(m.JointNames) {
		t.Fatalf("%d joints, %d inverse binds, %d names", len(m.Joints), len(m.InverseBind), len(m.JointNames))
	}
	for _, b := range m.Joints {
		if b < 0 || b >= bones {
			t.Fatalf("joint bone %d of %d", b, bones)
		}
	}
	if m.Mesh != nil && m.MeshNode < 0 {
		t.Fatalf("a mesh without a mesh node")
	}
	for _, c := range m.Clips {
		for _, tr := range c.Tracks {
			if tr.Bone < 0 || tr.Bone >= bones {
				t.Fatalf("track bone %d of %d", tr.Bone, bones)
			}
		}
	}
	if mesh := m.Mesh; mesh != nil {
		n := len(mesh.Positions)
		if len(mesh.Indices)%3 != 0 {
			t.Fatalf("%d indices", len(mesh.Indices))
		}
		for _, ix := range mesh.Indices {
			if int(ix) >= n {
				t.Fatalf("index %d of %d vertices", ix, n)
			}
		}
		for _, j := range mesh.Joints {
			for _, x := range j {
				if int(x) >= len(m.Joints) {
					t.Fatalf("vertex joint %d of %d", x, len(m.Joints))
				}
			}
		}
		if (mesh.Normals != nil && len(mesh.Normals) != n) || (mesh.UVs != nil && len(mesh.UVs) != n) ||
			(mesh.Joints != nil && len(mesh.Joints) != n) || (mesh.Weights != nil && len(mesh.Weights) != n) {
			t.Fatal("attribute lengths differ")
		}
		// The parts tile the indices in order, and colours stay in [0, 1].
		next := 0
		for _, p := range m.Parts {
			if p.First != next || p.Count < 0 {
				t.Fatalf("part [%d, +%d) after %d", p.First, p.Count, next)
			}
			next += p.Count
			for _, c := range p.Material.BaseColor {
				if !(c >= 0 && c <= 1) {
					t.Fatalf("base colour %v", p.Material.BaseColor)
				}
			}
			if tx := p.Material.Texture; tx != nil && (tx.MIME == "" || len(tx.Data) == 0) {
				t.Fatalf("texture %+v", tx)
			}
		}
		if next != len(mesh.Indices) {
			t.Fatalf("parts cover %d of %d indices", next, len(mesh.Indices))
		}
	}
}
