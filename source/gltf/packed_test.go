package gltf

import (
	"math"
	"path/filepath"
	"testing"

	"github.com/bonebake/bonebake/anim"
	"github.com/bonebake/bonebake/internal/gltfref"
	"github.com/bonebake/bonebake/rig"
)

// The shared models re-packed by gltfpack with meshopt compression
// (testdata/gltf/meshopt/make.sh). NAME.meshopt.glb keeps every value (-noq
// -af 0): its palettes, read through the meshopt decoder, must equal the
// independent reference evaluator's palettes of the original file. NAME.cc.glb
// and NAME.khr.glb are quantized (KHR_mesh_quantization, filters, codec v0 and
// v1): their meshes, placed by the mesh node (gltfpack moves the dequantization
// there), must be the original's vertices within the quantization step.
func TestMeshoptPalettes(t *testing.T) {
	for _, tc := range realModels {
		base := tc.file[:len(tc.file)-len(filepath.Ext(tc.file))]
		t.Run(base, func(t *testing.T) {
			ref, err := gltfref.Load(modelPath(t, tc.file))
			if err != nil {
				t.Fatal(err)
			}
			m, err := Load(filepath.Join(packedDir, base+".meshopt.glb"), Options{})
			if err != nil {
				t.Fatal(err)
			}
			// gltfpack's uncompressed output of the same processing (it drops
			// keys it can interpolate and re-composes transforms, which moves
			// palettes by up to about 1e-4 of the original's).
			orig, err := Load(filepath.Join(packedDir, base+".plain.glb"), Options{})
			if err != nil {
				t.Fatal(err)
			}
			if len(m.Clips) != len(orig.Clips) || len(m.JointNames) != len(orig.JointNames) {
				t.Fatalf("%d clips, %d joints; the original has %d, %d", len(m.Clips), len(m.JointNames), len(orig.Clips), len(orig.JointNames))
			}
			for j, n := range orig.JointNames {
				if m.JointNames[j] != n {
					t.Fatalf("joint %d is %q, the original's is %q", j, m.JointNames[j], n)
				}
			}
			// Within 1e-5 of the matrix's size of the uncompressed copy's palette
			// baked the same way, and within 1e-3 of the reference evaluator's
			// palette of the original file.
			worst, worstRef := 0.0, 0.0
			compare := func(what string, pose, origPose []rig.Transform, want [][16]float64) {
				t.Helper()
				got, same := palette(t, m, pose), palette(t, orig, origPose)
				for j := range got {
					size := 1.0
					for _, v := range same[j] {
						size = max(size, math.Abs(v))
					}
					for i := range got[j] {
						d := math.Abs(got[j][i]-same[j][i]) / size
						worst = max(worst, d)
						if d > 1e-5 {
							t.Fatalf("%s joint %d element %d: %v, the original's %v", what, j, i, got[j][i], same[j][i])
						}
						dr := math.Abs(got[j][i]-want[j][i]) / size
						worstRef = max(worstRef, dr)
						if dr > 1e-3 {
							t.Fatalf("%s joint %d element %d: %v, reference on the original %v", what, j, i, got[j][i], want[j][i])
						}
					}
				}
			}
			compare("rest pose", m.Skeleton.RestPose(), orig.Skeleton.RestPose(), ref.Palette(0, -1, 0))
			for ci := range m.Clips {
				c := &m.Clips[ci]
				if c.Name != orig.Clips[ci].Name || math.Abs(c.Duration-orig.Clips[ci].Duration) > 1e-6 {
					t.Fatalf("clip %d is %q (%v s), the original's %q (%v s)", ci, c.Name, c.Duration, orig.Clips[ci].Name, orig.Clips[ci].Duration)
				}
				s, so := anim.NewSampler(c), anim.NewSampler(&orig.Clips[ci])
				for k := 0; k <= 24; k++ {
					tm := c.Duration * float64(k) / 24
					pose, origPose := m.Skeleton.RestPose(), orig.Skeleton.RestPose()
					s.Sample(tm, pose)
					so.Sample(tm, origPose)
					compare(c.Name, pose, origPose, ref.Palette(0, ci, tm))
				}
			}
			t.Logf("largest relative palette difference %.2g from the uncompressed copy, %.2g from the original", worst, worstRef)
		})
	}
}

func TestMeshoptMeshes(t *testing.T) {
	for _, tc := range realModels {
		base := tc.file[:len(tc.file)-len(filepath.Ext(tc.file))]
		orig, err := Load(modelPath(t, tc.file), Options{})
		if err != nil {
			t.Fatal(err)
		}
		want := placed(t, orig)
		for _, variant := range []string{"meshopt", "cc", "khr"} {
			t.Run(base+"."+variant, func(t *testing.T) {
				m, err := Load(filepath.Join(packedDir, base+"."+variant+".glb"), Options{})
				if err != nil {
					t.Fatal(err)
				}
				got := placed(t, m)
				// The step: the mesh node's scale (the dequantization) per axis, or
				// float rounding for unquantized positions.
				step := 0.0
				for c := 0; c < 3; c++ {
					a := m.MeshPlacement
					step = max(step, math.Sqrt(a[c]*a[c]+a[4+c]*a[4+c]+a[8+c]*a[8+c]))
				}
				tol := step*0.5*math.Sqrt(3) + 1e-5*extent(want)
				// Every triangle corner of each mesh has a vertex of the other
				// within the tolerance, and both draw as many triangles.
				if len(got.tris)/3 != len(want.tris)/3 {
					t.Errorf("%d triangles, the original has %d", len(got.tris)/3, len(want.tris)/3)
				}
				if d := farthest(got.tris, want.tris); d > tol {
					t.Errorf("a packed corner is %.3g from every original vertex (tolerance %.3g)", d, tol)
				}
				if d := farthest(want.tris, got.tris); d > tol {
					t.Errorf("an original corner is %.3g from every packed vertex (tolerance %.3g)", d, tol)
				}
			})
		}
	}
}

type placedMesh struct{ tris [][3]float64 } // triangle corners, placed by the mesh node (as Load places them)

func placed(t *testing.T, m *Model) placedMesh {
	t.Helper()
	if m.Mesh == nil || m.MeshNode < 0 {
		t.Fatal("no mesh")
	}
	var p placedMesh
	for _, ix := range m.Mesh.Indices {
		v := m.Mesh.Positions[ix]
		p.tris = append(p.tris, [3]float64{float64(v[0]), float64(v[1]), float64(v[2])})
	}
	return p
}

func extent(p placedMesh) float64 {
	e := 0.0
	for _, v := range p.tris {
		e = max(e, math.Abs(v[0]), math.Abs(v[1]), math.Abs(v[2]))
	}
	return e
}

// farthest returns the largest distance from a point of a to its nearest point
// of b (a grid makes it fast enough for a few thousand points).
func farthest(a, b [][3]float64) float64 {
	const cell = 64
	lo, hi := b[0], b[0]
	for _, v := range b {
		for k := range 3 {
			lo[k], hi[k] = min(lo[k], v[k]), max(hi[k], v[k])
		}
	}
	size := 0.0
	for k := range 3 {
		size = max(size, (hi[k]-lo[k])/cell)
	}
	size = max(size, 1e-9)
	key := func(v [3]float64) [3]int {
		return [3]int{int(math.Floor((v[0] - lo[0]) / size)), int(math.Floor((v[1] - lo[1]) / size)), int(math.Floor((v[2] - lo[2]) / size))}
	}
	grid := map[[3]int][][3]float64{}
	for _, v := range b {
		grid[key(v)] = append(grid[key(v)], v)
	}
	worst := 0.0
	for _, v := range a {
		k := key(v)
		best := math.Inf(1)
		for r := 1; math.IsInf(best, 1) || float64(r-1)*size < best; r++ {
			for dx := -r; dx <= r; dx++ {
				for dy := -r; dy <= r; dy++ {
					for dz := -r; dz <= r; dz++ {
						for _, w := range grid[[3]int{k[0] + dx, k[1] + dy, k[2] + dz}] {
							best = min(best, math.Sqrt((v[0]-w[0])*(v[0]-w[0])+(v[1]-w[1])*(v[1]-w[1])+(v[2]-w[2])*(v[2]-w[2])))
						}
					}
				}
			}
			if r > 2*cell {
				break
			}
		}
		worst = max(worst, best)
	}
	return worst
}
