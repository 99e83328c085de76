package gltf

import (
	"math"
	"testing"

	"github.com/bonebake/bonebake/internal/testfiles"
	"github.com/bonebake/bonebake/rig"
)

func modelPath(t testing.TB, name string) string { return testfiles.Path(t, "gltf", name) }

type wantClip struct {
	name     string
	duration float64
}

// Expectations come from the test data README and from reading the files with a
// separate script, not from this package's output.
var realModels = []struct {
	file       string
	joints     int
	bones      int // nodes the palette depends on: the joints and their ancestors
	vertices   int
	triangles  int
	clips      []wantClip
	hasNormals bool
	hasUVs     bool
	badWeights int // vertices whose weights do not sum to 1 (the asset's own inconsistency)
	// restMatches: G(joint)·IBM = identity at the rest pose once Load has put
	// the mesh at rest: the skin is bound at its rest pose up to one transform
	// (RiggedSimple's is Z_UP·Armature·Bone's offset, not its mesh node's).
	restMatches bool
}{
	{"Fox.glb", 24, 25, 1728, 576, []wantClip{{"Survey", 3.42}, {"Walk", 0.71}, {"Run", 1.16}}, false, true, 0, true},
	{"CesiumMan.gltf", 19, 21, 3273, 4672, []wantClip{{"animation_0", 2}}, true, true, 210, true},
	{"RiggedSimple.gltf", 2, 4, 160, 188, []wantClip{{"animation_0", 2.08}}, true, false, 0, true},
	{"SimpleSkin.gltf", 2, 2, 10, 8, []wantClip{{"animation_0", 5.5}}, false, false, 0, true},
}

func TestLoadRealModels(t *testing.T) {
	for _, tc := range realModels {
		t.Run(tc.file, func(t *testing.T) {
			m, err := Load(modelPath(t, tc.file), Options{})
			if err != nil {
				t.Fatal(err)
			}
			if len(m.Joints) != tc.joints || len(m.JointNames) != tc.joints || len(m.InverseBind) != tc.joints {
				t.Errorf("joints %d, names %d, inverse binds %d; want %d", len(m.Joints), len(m.JointNames), len(m.InverseBind), tc.joints)
			}
			if got := len(m.Skeleton.Names); got != tc.bones {
				t.Errorf("skeleton has %d bones, want %d", got, tc.bones)
			}
			for b, p := range m.Skeleton.Parents {
				if p >= b {
					t.Errorf("bone %d has parent %d: not parent-first", b, p)
				}
			}
			if m.MeshNode < 0 {
				t.Fatalf("MeshNode = %d", m.MeshNode)
			}
			if m.Mesh == nil {
				t.Fatal("no mesh")
			}
			mesh := m.Mesh
			if len(mesh.Positions) != tc.vertices {
				t.Errorf("%d vertices, want %d", len(mesh.Positions), tc.vertices)
			}
			if len(mesh.Indices) != 3*tc.triangles {
				t.Errorf("%d indices, want %d", len(mesh.Indices), 3*tc.triangles)
			}
			if (mesh.Normals != nil) != tc.hasNormals || (mesh.UVs != nil) != tc.hasUVs {
				t.Errorf("normals %v, uvs %v; want %v, %v", mesh.Normals != nil, mesh.UVs != nil, tc.hasNormals, tc.hasUVs)
			}
			if len(mesh.Joints) != tc.vertices || len(mesh.Weights) != tc.vertices {
				t.Fatalf("%d joint and %d weight rows for %d vertices", len(mesh.Joints), len(mesh.Weights), tc.vertices)
			}
			for _, ix := range mesh.Indices {
				if int(ix) >= tc.vertices {
					t.Fatalf("index %d out of range", ix)
				}
			}
			bad := 0
			for v, w := range mesh.Weights {
				sum := float64(w[0]) + float64(w[1]) + float64(w[2]) + float64(w[3])
				if math.Abs(sum-1) > 1e-3 {
					bad++
				}
				for k := range w {
					if w[k] < 0 || w[k] > 1 || int(mesh.Joints[v][k]) >= tc.joints {
						t.Fatalf("vertex %d: joint %d weight %v", v, mesh.Joints[v][k], w[k])
					}
				}
			}
			if bad != 0 || m.WeightsNormalized != tc.badWeights {
				t.Errorf("%d vertices have weights not summing to 1 and %d were normalized; want 0 and %d", bad, m.WeightsNormalized, tc.badWeights)
			}
			if len(m.Clips) != len(tc.clips) {
				t.Fatalf("%d clips, want %d", len(m.Clips), len(tc.clips))
			}
			for i, c := range tc.clips {
				got := m.Clips[i]
				if got.Name != c.name || math.Abs(got.Duration-c.duration) > 0.01 {
					t.Errorf("clip %d is %q %.4f s, want %q %.2f s", i, got.Name, got.Duration, c.name, c.duration)
				}
				if len(got.Tracks) == 0 {
					t.Errorf("clip %q has no tracks", got.Name)
				}
				for _, tr := range got.Tracks {
					if tr.Bone < 0 || tr.Bone >= tc.bones || len(tr.Times) == 0 {
						t.Errorf("clip %q: track on bone %d with %d keys", got.Name, tr.Bone, len(tr.Times))
					}
				}
			}

			dev := restDeviation(t, m)
			if tc.restMatches && dev > 1e-4 {
				t.Errorf("rest pose × inverse bind differs from identity by %g", dev)
			}
			if !tc.restMatches && dev < 0.1 {
				t.Errorf("rest pose × inverse bind is identity within %g; this asset is known not to be", dev)
			}
		})
	}
}

// restDeviation returns the largest element of G(joint)·IBM − I over all joints, at
// the rest pose (IBM as Load returns it, for the mesh placed in the scene).
func restDeviation(t *testing.T, m *Model) float64 {
	g := m.Skeleton.RestModelSpace()
	id := rig.IdentityMat4()
	worst := 0.0
	for j, b := range m.Joints {
		p := g[b].Mul(m.InverseBind[j])
		for i := range p {
			worst = max(worst, math.Abs(p[i]-id[i]))
		}
	}
	return worst
}

func TestLoadStructure(t *testing.T) {
	// Fox: node 1 "fox" holds the mesh and is a root; the joints hang under node 0
	// "root", which is not a joint but is in the skeleton.
	m, err := Load(modelPath(t, "Fox.glb"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if m.MeshNode != 1 || m.Skeleton.Index("fox") >= 0 {
		t.Errorf("MeshNode is %d, want 1 (fox), outside the skeleton (%v)", m.MeshNode, m.Skeleton.Names)
	}
	if m.JointNames[0] != "_rootJoint" || m.JointNames[23] != "b_RightFoot02_022" {
		t.Errorf("joint names %q ... %q", m.JointNames[0], m.JointNames[23])
	}
	root := m.Skeleton.Parents[m.Joints[0]]
	if root < 0 || m.Skeleton.Names[root] != "root" {
		t.Errorf("joint 0's parent is bone %d, want node \"root\"", root)
	}
	for j, b := range m.Joints {
		if m.Skeleton.Names[b] != m.JointNames[j] {
			t.Errorf("joint %d: bone name %q, joint name %q", j, m.Skeleton.Names[b], m.JointNames[j])
		}
	}

	// CesiumMan has no node names.
	m, err = Load(modelPath(t, "CesiumMan.gltf"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if m.JointNames[0] != "node2" {
		t.Errorf("CesiumMan joint 0 is %q, want node2", m.JointNames[0])
	}

	// RiggedSimple's nodes are matrices: Z_UP is a rotation of -90° about x
	// (rows 1 0 0 / 0 0 1 / 0 -1 0).
	m, err = Load(modelPath(t, "RiggedSimple.gltf"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	zup := m.Skeleton.Index("Z_UP")
	if zup < 0 {
		t.Fatal("no Z_UP bone")
	}
	got := m.Skeleton.Rest[zup].Matrix()
	want := rig.Mat4{1, 0, 0, 0, 0, 0, 1, 0, 0, -1, 0, 0, 0, 0, 0, 1}
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-9 {
			t.Fatalf("Z_UP rest matrix %v, want %v", got, want)
		}
	}
	if m.MeshNode != 2 || m.Skeleton.Index("Cylinder") >= 0 {
		t.Errorf("MeshNode is %d, want 2 (Cylinder), outside the skeleton", m.MeshNode)
	}
}

func TestInspect(t *testing.T) {
	info, err := Inspect(modelPath(t, "Fox.glb"))
	if err != nil {
		t.Fatal(err)
	}
	if len(info.Skins) != 1 || info.Skins[0].JointCount != 24 || len(info.Skins[0].Joints) != 24 {
		t.Errorf("skins %+v", info.Skins)
	}
	if len(info.Meshes) != 1 || info.Meshes[0].Vertices != 1728 || !info.Meshes[0].Skinned || len(info.Meshes[0].Primitives) != 1 {
		t.Fatalf("meshes %+v", info.Meshes)
	}
	if m := info.Meshes[0].Primitives[0].Material; m != (MaterialInfo{Index: 0, Name: "fox_material", BaseColor: [4]float32{1, 1, 1, 1}, Texture: "image/png"}) {
		t.Errorf("material %+v", m)
	}
	want := []wantClip{{"Survey", 3.42}, {"Walk", 0.71}, {"Run", 1.16}}
	if len(info.Animations) != len(want) {
		t.Fatalf("%d animations", len(info.Animations))
	}
	for i, w := range want {
		a := info.Animations[i]
		if a.Name != w.name || math.Abs(a.Duration-w.duration) > 0.01 || len(a.Channels) == 0 {
			t.Errorf("animation %d: %q %.3f s %d channels", i, a.Name, a.Duration, len(a.Channels))
		}
		keys := 0
		for _, c := range a.Channels {
			keys += c.Keys
			if c.Interpolation != "LINEAR" || (c.Path != "translation" && c.Path != "rotation") || c.NodeName == "" {
				t.Errorf("channel %+v", c)
			}
		}
		if keys != a.Keys {
			t.Errorf("animation %d: %d keys in channels, %d in total", i, keys, a.Keys)
		}
	}
}

func BenchmarkLoad(b *testing.B) {
	for _, name := range []string{"CesiumMan.gltf", "Fox.glb"} {
		b.Run(name, func(b *testing.B) {
			path := modelPath(b, name)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Load(path, Options{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
