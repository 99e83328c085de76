package meshgen

import (
	"math"
	"testing"

	"github.com/bonebake/bonebake/mesh"
	"github.com/bonebake/bonebake/rig"
)

// checkMesh verifies the rules every built mesh follows: consistent attribute
// counts, joint indices below bones, 1–4 influences sorted by weight and summing
// to 1, unit normals and indices in range.
func checkMesh(t *testing.T, m *mesh.Skinned, bones int) {
	t.Helper()
	n := m.VertexCount()
	if len(m.Normals) != n || len(m.UVs) != n || len(m.Joints) != n || len(m.Weights) != n || len(m.Roles) != n {
		t.Fatalf("attribute counts differ: %d positions, %d normals, %d uvs, %d joints, %d weights, %d roles",
			n, len(m.Normals), len(m.UVs), len(m.Joints), len(m.Weights), len(m.Roles))
	}
	if len(m.Indices)%3 != 0 {
		t.Fatalf("%d indices: not whole triangles", len(m.Indices))
	}
	for _, i := range m.Indices {
		if int(i) >= n {
			t.Fatalf("index %d out of %d vertices", i, n)
		}
	}
	for v := 0; v < n; v++ {
		w := m.Weights[v]
		sum := float64(w[0] + w[1] + w[2] + w[3])
		if math.Abs(sum-1) > 1e-6 {
			t.Fatalf("vertex %d: weights %v sum to %v", v, w, sum)
		}
		if w[0] <= 0 {
			t.Fatalf("vertex %d: no influence: %v", v, w)
		}
		for k := 1; k < 4; k++ {
			if w[k] > w[k-1] {
				t.Fatalf("vertex %d: weights not sorted: %v", v, w)
			}
			if w[k] < 0 {
				t.Fatalf("vertex %d: negative weight %v", v, w)
			}
		}
		for k := 0; k < 4; k++ {
			if int(m.Joints[v][k]) >= bones {
				t.Fatalf("vertex %d: joint %d ≥ %d bones", v, m.Joints[v][k], bones)
			}
			if w[k] == 0 && m.Joints[v][k] != 0 {
				t.Fatalf("vertex %d: unused influence %d has joint %d", v, k, m.Joints[v][k])
			}
		}
		nv := f64(m.Normals[v])
		if math.Abs(nv.Len()-1) > 1e-5 {
			t.Fatalf("vertex %d: normal %v has length %v", v, nv, nv.Len())
		}
	}
}

// checkOutward verifies that every triangle's face normal and every vertex normal
// point away from centre (true of a convex part around centre).
func checkOutward(t *testing.T, m *mesh.Skinned, centre rig.Vec3) {
	t.Helper()
	for k := 0; k < len(m.Indices); k += 3 {
		a, b, c := f64(m.Positions[m.Indices[k]]), f64(m.Positions[m.Indices[k+1]]), f64(m.Positions[m.Indices[k+2]])
		n := b.Sub(a).Cross(c.Sub(a))
		g := a.Add(b.Add(c)).Scale(1.0 / 3)
		if n.Dot(g.Sub(centre)) <= 0 {
			t.Fatalf("triangle %d winds inward: normal %v at %v", k/3, n, g)
		}
	}
	for v := range m.Positions {
		p := f64(m.Positions[v])
		if f64(m.Normals[v]).Dot(p.Sub(centre)) <= 0 {
			t.Fatalf("vertex %d at %v: normal %v points inward", v, p, m.Normals[v])
		}
	}
}

func TestTube(t *testing.T) {
	var b Builder
	from, to := rig.Vec3{0, 1, 0}, rig.Vec3{0, 0.5, 0.1}
	const sides, rings = 8, 4
	b.Tube(1, 2, from, to, 0.08, 0.05, sides, rings, RoleCloth)
	m := b.Mesh()
	checkMesh(t, m, 3)
	checkOutward(t, m, from.Add(to).Scale(0.5))
	// (rings+1) rings of sides+1 vertices (the seam is duplicated for UVs), two cap centres.
	if got, want := m.VertexCount(), (rings+1)*(sides+1)+2; got != want {
		t.Errorf("%d vertices, want %d", got, want)
	}
	if got, want := m.TriangleCount(), 2*rings*sides+2*sides; got != want {
		t.Errorf("%d triangles, want %d", got, want)
	}
	for v, p := range m.Positions {
		if m.Roles[v] != RoleCloth {
			t.Fatalf("vertex %d role %d", v, m.Roles[v])
		}
		tt := f64(p).Sub(from).Dot(to.Sub(from)) / to.Sub(from).Dot(to.Sub(from))
		j, w := m.Joints[v], m.Weights[v]
		switch {
		case tt <= 1e-6: // at the joint: half and half
			if math.Abs(float64(w[0])-0.5) > 1e-6 || math.Abs(float64(w[1])-0.5) > 1e-6 {
				t.Errorf("vertex %d at the joint: weights %v", v, w)
			}
		case tt >= DefaultBlend:
			if j[0] != 2 || w[0] != 1 {
				t.Errorf("vertex %d at t=%.2f: joints %v weights %v, want bone 2 only", v, tt, j, w)
			}
		default:
			if j[0] != 2 || j[1] != 1 || !(w[0] > 0.5 && w[0] < 1) {
				t.Errorf("vertex %d at t=%.2f: joints %v weights %v", v, tt, j, w)
			}
		}
	}
}

func TestTubeRigid(t *testing.T) {
	var b Builder
	b.Tube(3, 3, rig.Vec3{0, 0, 0}, rig.Vec3{1, 0, 0}, 0.1, 0.1, 6, 2, RoleMetal)
	m := b.Mesh()
	checkMesh(t, m, 4)
	checkOutward(t, m, rig.Vec3{0.5, 0, 0})
	for v := range m.Weights {
		if m.Joints[v][0] != 3 || m.Weights[v][0] != 1 {
			t.Fatalf("vertex %d: %v %v", v, m.Joints[v], m.Weights[v])
		}
	}
}

func TestLimb(t *testing.T) {
	var b Builder
	pts := []rig.Vec3{{0, 1, 0}, {0, 0.55, 0.05}, {0, 0.1, 0}}
	const sides, rings = 8, 3
	b.Limb(0, []int{1, 2}, pts, []float64{0.09, 0.06, 0.045}, sides, rings, RoleSkin)
	m := b.Mesh()
	checkMesh(t, m, 3)
	if got, want := m.VertexCount(), (2*rings+1)*(sides+1)+2; got != want {
		t.Errorf("%d vertices, want %d", got, want)
	}
	if got, want := m.TriangleCount(), 2*2*rings*sides+2*sides; got != want {
		t.Errorf("%d triangles, want %d", got, want)
	}
	// Knee ring: half thigh, half shin; hip ring: half pelvis, half thigh; ankle: shin.
	for v, p := range m.Positions {
		y := float64(p[1])
		j, w := m.Joints[v], m.Weights[v]
		switch {
		case math.Abs(y-0.55) < 0.01 && math.Abs(float64(p[2])-0.05) < 0.07:
			if math.Abs(float64(w[0])-0.5) > 0.02 || math.Abs(float64(w[1])-0.5) > 0.02 || j[0]+j[1] != 3 {
				t.Errorf("knee vertex %d: %v %v", v, j, w)
			}
		case y < 0.2:
			if j[0] != 2 || w[0] != 1 {
				t.Errorf("ankle vertex %d: %v %v", v, j, w)
			}
		}
	}
	// Every triangle faces away from the segment axis it belongs to.
	for k := 0; k < len(m.Indices); k += 3 {
		a, bb, c := f64(m.Positions[m.Indices[k]]), f64(m.Positions[m.Indices[k+1]]), f64(m.Positions[m.Indices[k+2]])
		g := a.Add(bb.Add(c)).Scale(1.0 / 3)
		n := bb.Sub(a).Cross(c.Sub(a))
		// nearest point on the polyline
		best, bd := rig.Vec3{}, math.Inf(1)
		for i := 0; i+1 < len(pts); i++ {
			ax := pts[i+1].Sub(pts[i])
			tt := g.Sub(pts[i]).Dot(ax) / ax.Dot(ax)
			q := pts[i].Add(ax.Scale(math.Max(-0.2, math.Min(1.2, tt))))
			if d := g.Sub(q).Len(); d < bd {
				best, bd = q, d
			}
		}
		if n.Dot(g.Sub(best)) <= 0 {
			t.Fatalf("triangle %d winds inward", k/3)
		}
	}
}

func TestEllipsoid(t *testing.T) {
	var b Builder
	c := rig.Vec3{0.1, 1.6, 0.02}
	const sides, rings = 10, 6
	b.Ellipsoid(5, c, rig.Vec3{0.09, 0.12, 0.1}, sides, rings, RoleHair)
	m := b.Mesh()
	checkMesh(t, m, 6)
	checkOutward(t, m, c)
	if got, want := m.VertexCount(), (rings-1)*(sides+1)+2; got != want {
		t.Errorf("%d vertices, want %d", got, want)
	}
	if got, want := m.TriangleCount(), 2*sides*(rings-1); got != want {
		t.Errorf("%d triangles, want %d", got, want)
	}
	// Smooth: the normal at the equator on +x is +x.
	for v, p := range m.Positions {
		if math.Abs(float64(p[1])-c[1]) < 1e-6 && float64(p[0]) > c[0]+0.089 {
			if n := m.Normals[v]; n[0] < 0.999 {
				t.Errorf("equator normal %v", n)
			}
		}
	}
}

func TestBox(t *testing.T) {
	var b Builder
	c := rig.Vec3{0, 0.05, 0.05}
	b.Box(2, c, rig.Vec3{0.05, 0.04, 0.12}, RoleLeather)
	m := b.Mesh()
	checkMesh(t, m, 3)
	checkOutward(t, m, c)
	if m.VertexCount() != 24 || m.TriangleCount() != 12 {
		t.Errorf("%d vertices, %d triangles", m.VertexCount(), m.TriangleCount())
	}
}

func TestNormalizeWeights(t *testing.T) {
	tests := []struct {
		in     []Weight
		joints [4]uint16
		w      [4]float32
	}{
		{[]Weight{{3, 2}}, [4]uint16{3}, [4]float32{1}},
		{[]Weight{{1, 0.25}, {2, 0.75}}, [4]uint16{2, 1}, [4]float32{0.75, 0.25}},
		{[]Weight{{1, 1}, {1, 1}, {4, 2}}, [4]uint16{1, 4}, [4]float32{0.5, 0.5}}, // merged; tie by index
		{[]Weight{{1, 5}, {2, 4}, {3, 3}, {4, 2}, {5, 1}}, [4]uint16{1, 2, 3, 4}, [4]float32{5. / 14, 4. / 14, 3. / 14, 2. / 14}},
		{[]Weight{{1, 1}, {2, 0}, {3, -1}, {4, 1e-9}}, [4]uint16{1}, [4]float32{1}},
		{nil, [4]uint16{}, [4]float32{1}},
	}
	for i, tc := range tests {
		j, w := normalizeWeights(tc.in)
		if j != tc.joints {
			t.Errorf("%d: joints %v, want %v", i, j, tc.joints)
		}
		for k := range w {
			if math.Abs(float64(w[k]-tc.w[k])) > 1e-6 {
				t.Errorf("%d: weights %v, want %v", i, w, tc.w)
				break
			}
		}
	}
}

func TestPartsAppend(t *testing.T) {
	var b Builder
	b.Ellipsoid(0, rig.Vec3{}, rig.Vec3{1, 1, 1}, 6, 4, RoleSkin)
	n := b.VertexCount()
	b.Box(1, rig.Vec3{3, 0, 0}, rig.Vec3{1, 1, 1}, RoleMetal)
	m := b.Mesh()
	checkMesh(t, m, 2)
	if m.VertexCount() != n+24 {
		t.Errorf("%d vertices, want %d", m.VertexCount(), n+24)
	}
	// The box's triangles index its own vertices.
	for _, i := range m.Indices[len(m.Indices)-36:] {
		if int(i) < n {
			t.Fatalf("box index %d points into the ellipsoid", i)
		}
	}
	// Mesh returns a copy.
	m.Positions[0][0] = 42
	if b.Mesh().Positions[0][0] == 42 {
		t.Error("Mesh shares memory with the builder")
	}
}
