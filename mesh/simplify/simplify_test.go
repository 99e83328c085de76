package simplify_test

import (
	"math"
	"reflect"
	"testing"

	"github.com/bonebake/bonebake/mesh"
	"github.com/bonebake/bonebake/mesh/simplify"
	"github.com/bonebake/bonebake/species/creatures"
)

// sphere is a UV sphere of radius r: rings × sides quads, the seam at u = 0/1 and
// the poles duplicated per column as a glTF exporter writes them, skinned to two
// bones blended by height, UVs on the sphere's angles.
func sphere(r float64, sides, rings int) *mesh.Skinned {
	m := &mesh.Skinned{}
	for i := 0; i <= rings; i++ {
		th := math.Pi * float64(i) / float64(rings)
		for j := 0; j <= sides; j++ {
			ph := 2 * math.Pi * float64(j) / float64(sides)
			n := [3]float64{math.Sin(th) * math.Cos(ph), math.Cos(th), math.Sin(th) * math.Sin(ph)}
			switch {
			case i == 0 || i == rings: // exactly the pole
				n = [3]float64{0, math.Cos(th), 0}
			case j == sides: // exactly the seam's first column again
				n = [3]float64{math.Sin(th), math.Cos(th), 0}
			}
			m.Positions = append(m.Positions, [3]float32{float32(r * n[0]), float32(r * n[1]), float32(r * n[2])})
			m.Normals = append(m.Normals, [3]float32{float32(n[0]), float32(n[1]), float32(n[2])})
			m.UVs = append(m.UVs, [2]float32{float32(j) / float32(sides), float32(i) / float32(rings)})
			w := float32((n[1] + 1) / 2)
			m.Joints = append(m.Joints, [4]uint16{0, 1, 0, 0})
			m.Weights = append(m.Weights, [4]float32{w, 1 - w, 0, 0})
			m.Roles = append(m.Roles, uint8(i%3))
		}
	}
	row := sides + 1
	for i := range rings {
		for j := range sides {
			a, b, c, d := i*row+j, i*row+j+1, (i+1)*row+j, (i+1)*row+j+1
			if i > 0 {
				m.Indices = append(m.Indices, uint32(a), uint32(b), uint32(c))
			}
			if i < rings-1 {
				m.Indices = append(m.Indices, uint32(b), uint32(d), uint32(c))
			}
		}
	}
	return m
}

// grid is a flat n×n square of side 1 in the xz plane, open on its four sides.
func grid(n int) *mesh.Skinned {
	m := &mesh.Skinned{}
	for i := 0; i <= n; i++ {
		for j := 0; j <= n; j++ {
			m.Positions = append(m.Positions, [3]float32{float32(j) / float32(n), 0, float32(i) / float32(n)})
			m.UVs = append(m.UVs, [2]float32{float32(j) / float32(n), float32(i) / float32(n)})
			m.Normals = append(m.Normals, [3]float32{0, 1, 0})
			m.Joints = append(m.Joints, [4]uint16{})
			m.Weights = append(m.Weights, [4]float32{1, 0, 0, 0})
		}
	}
	for i := range n {
		for j := range n {
			a, b, c, d := uint32(i*(n+1)+j), uint32(i*(n+1)+j+1), uint32((i+1)*(n+1)+j), uint32((i+1)*(n+1)+j+1)
			m.Indices = append(m.Indices, a, c, b, b, c, d)
		}
	}
	return m
}

type vec = [3]float64

func p64(p [3]float32) vec { return vec{float64(p[0]), float64(p[1]), float64(p[2])} }

func tri(m *mesh.Skinned, t int) [3]vec {
	return [3]vec{p64(m.Positions[m.Indices[3*t]]), p64(m.Positions[m.Indices[3*t+1]]), p64(m.Positions[m.Indices[3*t+2]])}
}

// pointTriangle is the distance from p to the triangle abc (Ericson, Real-Time
// Collision Detection §5.1.5, closest point by Voronoi regions).
func pointTriangle(p vec, t [3]vec) float64 {
	a, b, c := t[0], t[1], t[2]
	ab, ac, ap := sub(b, a), sub(c, a), sub(p, a)
	d1, d2 := dot(ab, ap), dot(ac, ap)
	closest := func(q vec) float64 { return norm(sub(p, q)) }
	if d1 <= 0 && d2 <= 0 {
		return closest(a)
	}
	bp := sub(p, b)
	d3, d4 := dot(ab, bp), dot(ac, bp)
	if d3 >= 0 && d4 <= d3 {
		return closest(b)
	}
	vc := d1*d4 - d3*d2
	if vc <= 0 && d1 >= 0 && d3 <= 0 {
		v := d1 / (d1 - d3)
		return closest(vec{a[0] + v*ab[0], a[1] + v*ab[1], a[2] + v*ab[2]})
	}
	cp := sub(p, c)
	d5, d6 := dot(ab, cp), dot(ac, cp)
	if d6 >= 0 && d5 <= d6 {
		return closest(c)
	}
	vb := d5*d2 - d1*d6
	if vb <= 0 && d2 >= 0 && d6 <= 0 {
		w := d2 / (d2 - d6)
		return closest(vec{a[0] + w*ac[0], a[1] + w*ac[1], a[2] + w*ac[2]})
	}
	va := d3*d6 - d5*d4
	if va <= 0 && d4-d3 >= 0 && d5-d6 >= 0 {
		w := (d4 - d3) / ((d4 - d3) + (d5 - d6))
		return closest(vec{b[0] + w*(c[0]-b[0]), b[1] + w*(c[1]-b[1]), b[2] + w*(c[2]-b[2])})
	}
	den := 1 / (va + vb + vc)
	v, w := vb*den, vc*den
	return closest(vec{a[0] + ab[0]*v + ac[0]*w, a[1] + ab[1]*v + ac[1]*w, a[2] + ab[2]*v + ac[2]*w})
}

// oneSided is the largest distance from points sampled on from's triangles (a
// barycentric grid of 15 points each, corners and edges included) to the
// surface of to. A point matters only when it lies farther from to than the
// largest distance so far: its search stops at the first triangle within that,
// starting from the triangle nearest the previous point (usually near it too).
// The result is the brute-force maximum of minima, only found sooner.
func oneSided(from, to *mesh.Skinned) float64 {
	worst := 0.0
	const k = 4
	tris := make([][3]vec, to.TriangleCount())
	for u := range tris {
		tris[u] = tri(to, u)
	}
	last := 0
	for t := range from.TriangleCount() {
		v := tri(from, t)
		for i := 0; i <= k; i++ {
			for j := 0; i+j <= k; j++ {
				a, b := float64(i)/k, float64(j)/k
				c := 1 - a - b
				p := vec{a*v[0][0] + b*v[1][0] + c*v[2][0], a*v[0][1] + b*v[1][1] + c*v[2][1], a*v[0][2] + b*v[1][2] + c*v[2][2]}
				d := pointTriangle(p, tris[last])
				for u := 0; u < len(tris) && d > worst; u++ {
					if e := pointTriangle(p, tris[u]); e < d {
						d, last = e, u
					}
				}
				worst = math.Max(worst, d)
			}
		}
	}
	return worst
}

// hausdorff is the symmetric Hausdorff distance between two surfaces, sampled.
func hausdorff(a, b *mesh.Skinned) float64 { return math.Max(oneSided(a, b), oneSided(b, a)) }

// checkCarried checks what every simplification must keep: each output vertex is
// an input vertex with all its attributes (none invented or blended), weights
// summing to 1, indices in range.
func checkCarried(t *testing.T, in, out *mesh.Skinned) {
	t.Helper()
	type attrs struct {
		p    [3]float32
		n    [3]float32
		uv   [2]float32
		j    [4]uint16
		w    [4]float32
		role uint8
	}
	get := func(m *mesh.Skinned, v int) attrs {
		a := attrs{p: m.Positions[v], j: m.Joints[v], w: m.Weights[v]}
		if m.Normals != nil {
			a.n = m.Normals[v]
		}
		if m.UVs != nil {
			a.uv = m.UVs[v]
		}
		if m.Roles != nil {
			a.role = m.Roles[v]
		}
		return a
	}
	have := map[attrs]bool{}
	for v := range in.VertexCount() {
		have[get(in, v)] = true
	}
	for v := range out.VertexCount() {
		if !have[get(out, v)] {
			t.Fatalf("output vertex %d %+v is no input vertex", v, get(out, v))
		}
		sum := float32(0)
		for _, w := range out.Weights[v] {
			sum += w
		}
		if math.Abs(float64(sum)-1) > 1e-6 {
			t.Fatalf("vertex %d weights sum to %v", v, sum)
		}
	}
	for i, x := range out.Indices {
		if int(x) >= out.VertexCount() {
			t.Fatalf("index %d is %d of %d vertices", i, x, out.VertexCount())
		}
	}
}

// checkNoFlips checks every output triangle faces the way the input surface does
// at its corners: its normal points the way of the sum of its corners' vertex
// normals (the input's, carried unchanged).
func checkNoFlips(t *testing.T, out *mesh.Skinned) {
	t.Helper()
	for o := range out.TriangleCount() {
		v := tri(out, o)
		n := cross(sub(v[1], v[0]), sub(v[2], v[0]))
		var s vec
		for k := range 3 {
			c := p64(out.Normals[out.Indices[3*o+k]])
			s = vec{s[0] + c[0], s[1] + c[1], s[2] + c[2]}
		}
		if dot(n, s) <= 0 {
			t.Fatalf("triangle %d faces away from its corners' normals", o)
		}
	}
}

// A sphere of radius 1 simplified to N triangles. The best N-triangle
// approximation, N equilateral triangles inscribed in the sphere, misses it by
// about R²/2 at each triangle's centre, R the circumradius of a triangle of area
// 4π/N: 0.024 for N = 200. Collapses keep input vertices (no optimal placement)
// and triangles come out unequal, so the bound is 3× that: 0.073 (7% of the
// radius).
func TestSphere(t *testing.T) {
	in := sphere(1, 32, 16)
	const budget = 200
	out, st, err := simplify.Simplify(in, budget, simplify.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !st.Reached || out.TriangleCount() > budget || out.TriangleCount() < budget-2 {
		t.Fatalf("%d triangles (stats %+v), want at most %d and no fewer than %d", out.TriangleCount(), st, budget, budget-2)
	}
	checkCarried(t, in, out)
	checkNoFlips(t, out)
	area := 4 * math.Pi / budget
	rc2 := 4 * area / (3 * math.Sqrt(3))
	bound := 3 * rc2 / 2
	h := hausdorff(in, out)
	t.Logf("%d → %d triangles, %d → %d vertices, Hausdorff %.4f (bound %.4f)", st.TrianglesIn, st.TrianglesOut, st.VerticesIn, st.VerticesOut, h, bound)
	if h > bound {
		t.Fatalf("Hausdorff distance %.4f > %.4f", h, bound)
	}
	// The seam stays a seam: some output vertices share a position with
	// different UVs.
	seen := map[[3]float32][2]float32{}
	split := 0
	for v, p := range out.Positions {
		if uv, ok := seen[p]; ok && uv != out.UVs[v] {
			split++
		}
		seen[p] = out.UVs[v]
	}
	if split == 0 {
		t.Fatal("the UV seam was lost")
	}
}

// A flat open square simplifies to two triangles with no error: the border
// planes keep its corners and edges, the plane quadrics let the inside go.
func TestFlatSquare(t *testing.T) {
	in := grid(12)
	out, st, err := simplify.Simplify(in, 2, simplify.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if out.TriangleCount() != 2 || !st.Reached {
		t.Fatalf("%d triangles, want 2", out.TriangleCount())
	}
	checkCarried(t, in, out)
	checkNoFlips(t, out)
	area := 0.0
	for o := range out.TriangleCount() {
		v := tri(out, o)
		area += norm(cross(sub(v[1], v[0]), sub(v[2], v[0]))) / 2
	}
	if math.Abs(area-1) > 1e-6 {
		t.Fatalf("area %v, want 1", area)
	}
	if h := hausdorff(in, out); h > 1e-6 {
		t.Fatalf("Hausdorff %v", h)
	}
}

// A tetrahedron is as far as a closed part goes; separate parts stay separate.
func TestFloor(t *testing.T) {
	a := sphere(1, 8, 4)
	b := sphere(0.5, 8, 4)
	m := &mesh.Skinned{}
	for _, p := range []*mesh.Skinned{a, b} {
		off := uint32(m.VertexCount())
		for v := range p.VertexCount() {
			q := p.Positions[v]
			if p == b {
				q[0] += 3
			}
			m.Positions = append(m.Positions, q)
			m.Normals = append(m.Normals, p.Normals[v])
			m.UVs = append(m.UVs, p.UVs[v])
			m.Joints = append(m.Joints, p.Joints[v])
			m.Weights = append(m.Weights, p.Weights[v])
			m.Roles = append(m.Roles, p.Roles[v])
		}
		for _, x := range p.Indices {
			m.Indices = append(m.Indices, x+off)
		}
	}
	out, st, err := simplify.Simplify(m, 1, simplify.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if st.Reached || out.TriangleCount() != 8 {
		t.Fatalf("%d triangles (reached %v), want two tetrahedra", out.TriangleCount(), st.Reached)
	}
	checkCarried(t, m, out)
	left, right := 0, 0
	for _, p := range out.Positions {
		if p[0] > 2 {
			right++
		} else {
			left++
		}
	}
	if left == 0 || right == 0 {
		t.Fatalf("a part vanished: %d and %d vertices", left, right)
	}
}

// The built-in humanoids' meshes at 300 triangles (the far-LOD default). The
// bound: a far unit is drawn from about 50 m, where one pixel of a 1080-line
// screen with a 60° field of view spans 2·50·tan 30°/1080 = 5.3 cm; the
// simplified surface must stay within 2 pixels there. The horse is checked
// against its hand-built minimal mesh: at the same triangle count, the
// simplified full mesh must be no farther from the full mesh than it.
func TestCreatures(t *testing.T) {
	if testing.Short() {
		t.Skip("brute-force Hausdorff distances take a few seconds")
	}
	for _, name := range []string{"humanoid", "humanoid_sword", "humanoid_spear", "humanoid_skeleton", "horse"} {
		s := creatures.ByName(name)
		budget, bound := 300, 0.106
		if s.Minimal != nil {
			budget, bound = s.Minimal.TriangleCount(), hausdorff(s.Mesh, s.Minimal)
		}
		out, st, err := simplify.Simplify(s.Mesh, budget, simplify.Options{})
		if err != nil {
			t.Fatal(err)
		}
		checkCarried(t, s.Mesh, out)
		checkNoFlips(t, out)
		h := hausdorff(s.Mesh, out)
		t.Logf("%s: %d → %d triangles, %d → %d vertices, Hausdorff %.4f m (bound %.4f)", name, st.TrianglesIn, st.TrianglesOut, st.VerticesIn, st.VerticesOut, h, bound)
		if !st.Reached {
			t.Errorf("%s: %d triangles, over the budget", name, out.TriangleCount())
		}
		if h > bound {
			t.Errorf("%s: Hausdorff distance %.3f m > %.3f", name, h, bound)
		}
	}
}

func TestDeterministic(t *testing.T) {
	s := creatures.ByName("humanoid")
	a, _, err := simplify.Simplify(s.Mesh, 300, simplify.Options{})
	if err != nil {
		t.Fatal(err)
	}
	b, _, _ := simplify.Simplify(s.Mesh, 300, simplify.Options{})
	if !reflect.DeepEqual(a, b) {
		t.Fatal("two runs differ")
	}
}

func TestRefuses(t *testing.T) {
	m := grid(2)
	if _, _, err := simplify.Simplify(m, 0, simplify.Options{}); err == nil {
		t.Error("a budget of 0 accepted")
	}
	bad := *m
	bad.Indices = append([]uint32{}, m.Indices...)
	bad.Indices[4] = 99
	if _, _, err := simplify.Simplify(&bad, 2, simplify.Options{}); err == nil {
		t.Error("an index out of range accepted")
	}
	bad = *m
	bad.UVs = bad.UVs[:3]
	if _, _, err := simplify.Simplify(&bad, 2, simplify.Options{}); err == nil {
		t.Error("a short attribute accepted")
	}
	// Within budget: unchanged.
	out, st, err := simplify.Simplify(m, 100, simplify.Options{})
	if err != nil || !reflect.DeepEqual(out.Indices, m.Indices) || st.TrianglesOut != 8 {
		t.Fatalf("within budget: %v %+v", err, st)
	}
}

func sub(a, b vec) vec { return vec{a[0] - b[0], a[1] - b[1], a[2] - b[2]} }
func cross(a, b vec) vec {
	return vec{a[1]*b[2] - a[2]*b[1], a[2]*b[0] - a[0]*b[2], a[0]*b[1] - a[1]*b[0]}
}
func dot(a, b vec) float64 { return a[0]*b[0] + a[1]*b[1] + a[2]*b[2] }
func norm(a vec) float64   { return math.Sqrt(dot(a, a)) }
