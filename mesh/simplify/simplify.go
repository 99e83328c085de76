// Package simplify reduces a skinned triangle mesh to a triangle budget by
// quadric-error edge collapse, for far levels of detail (the snapshot meshes of
// docs/formats/bpsm.md). It keeps the silhouette, open borders and UV seams, and
// carries every vertex attribute the mesh has (normals, UVs, skin joints and
// weights, colour roles) unchanged from the vertices it keeps.
//
// The method:
//
//   - Error quadrics, Garland & Heckbert, "Surface Simplification Using Quadric
//     Error Metrics", SIGGRAPH 1997: every vertex accumulates the squared distance
//     to the planes of its triangles (area-weighted), and each collapse is
//     ranked by the error it adds. Borders are kept by the paper's constraint
//     planes: a plane through each border edge, perpendicular to its triangle,
//     with a large weight (§6, "preserving boundaries").
//   - Attributes, Garland & Heckbert, "Simplifying Surfaces with Color and
//     Texture using Quadric Error Metrics", IEEE Visualization 1998: the quadric
//     of a triangle is built in R^(3+n), position plus attributes (here the UV,
//     scaled to the mesh's size), so a collapse that smears a texture costs as
//     much as one that moves the surface. Vertices that share a position but not
//     their attributes (a UV seam) are wedges of one position, in the sense of
//     Hoppe, "New Quadric Metric for Simplifying Meshes with Appearance
//     Attributes", IEEE Visualization 1999: each wedge keeps its own attribute
//     quadric and moves to the wedge of the kept position whose attributes cost
//     it least, so seams survive.
//   - Skin weights are not a vector space worth a quadric (up to four of any
//     number of bones), so a collapse that gives a vertex another vertex's
//     influences pays a penalty proportional to the squared difference of the
//     two dense weight vectors and to the area the vertex carries: a vertex
//     moved onto another bone's skin follows that bone when posed.
//
// Collapses are half-edge collapses: a vertex moves onto a neighbour and takes its
// attributes, so no attribute is ever interpolated or invented (weights still sum
// to 1, joints stay those of the source). A collapse is refused when it would flip
// or fold a triangle (its normal turns by more than about 78°), break the
// manifold (the link condition of Dey et al., "Topology preservation in edge
// contraction", 1999), duplicate a triangle (a tetrahedron stays one), or pull a
// border vertex off its border. Disconnected parts are never merged, so a mesh of
// many closed parts cannot go below four triangles a part.
//
// The result is deterministic: the same mesh and budget give the same bytes.
package simplify

import (
	"container/heap"
	"fmt"
	"math"
	"slices"

	"github.com/bonebake/bonebake/mesh"
)

// Options tune the error measure. The zero value means the defaults.
type Options struct {
	// UVWeight scales texture coordinates into lengths: a UV step of 1 counts as
	// UVWeight × the mesh's bounding-box diagonal. Default 0.25; negative ignores
	// UVs.
	UVWeight float64
	// SkinWeight scales the skin penalty: giving a vertex influences that differ
	// by a unit weight vector costs as much as moving its area by SkinWeight × the
	// bounding-box diagonal. Default 0.1; negative ignores skin weights.
	SkinWeight float64
}

// Stats says what Simplify did.
type Stats struct {
	TrianglesIn, TrianglesOut int
	VerticesIn, VerticesOut   int
	// Reached says the result is within the budget; false when every further
	// collapse was refused (parts at their minimum, borders, flips).
	Reached bool
}

// Simplify returns a copy of m with at most triangles triangles, or as few as the
// collapses it allows leave (Stats.Reached says which). m is not modified. A
// mesh already within budget comes back with its degenerate triangles and
// unreferenced vertices dropped.
func Simplify(m *mesh.Skinned, triangles int, opt Options) (*mesh.Skinned, Stats, error) {
	if triangles < 1 {
		return nil, Stats{}, fmt.Errorf("simplify: a budget of %d triangles; it must be at least 1", triangles)
	}
	if len(m.Indices)%3 != 0 {
		return nil, Stats{}, fmt.Errorf("simplify: %d indices are not a whole number of triangles", len(m.Indices))
	}
	nv := m.VertexCount()
	for i, x := range m.Indices {
		if int(x) >= nv {
			return nil, Stats{}, fmt.Errorf("simplify: index %d is %d; the mesh has %d vertices", i, x, nv)
		}
	}
	for _, a := range []int{len(m.Normals), len(m.UVs), len(m.Joints), len(m.Weights), len(m.Roles)} {
		if a != 0 && a != nv {
			return nil, Stats{}, fmt.Errorf("simplify: an attribute has %d values for %d vertices", a, nv)
		}
	}
	if (len(m.Joints) == 0) != (len(m.Weights) == 0) {
		return nil, Stats{}, fmt.Errorf("simplify: joints and weights must come together")
	}
	s := newState(m, opt)
	s.run(triangles)
	out := s.output()
	st := Stats{TrianglesIn: m.TriangleCount(), TrianglesOut: out.TriangleCount(), VerticesIn: nv, VerticesOut: out.VertexCount()}
	st.Reached = st.TrianglesOut <= triangles
	return out, st, nil
}

type state struct {
	m *mesh.Skinned
	d int // quadric dimension: 3, or 5 with UVs

	x       [][dims]float64 // each wedge's point: position, then scaled UV
	group   []int           // wedge → position group
	wedges  [][]int         // group → its wedges
	pos     [][3]float64    // group → position
	tris    [][3]int        // triangle → wedges (rewritten by collapses)
	alive   []bool          // triangle
	gtris   [][]int         // group → triangles (dead ones dropped lazily)
	gdead   []bool          // group collapsed away
	ver     []uint32        // group version: bumped when its edges' costs change
	q       []quadric       // wedge quadric (attribute-aware)
	qb      []quadric       // group border-constraint quadric
	area    []float64       // wedge area (a third of each incident triangle's)
	n0      [][3]float64    // group's normal in the input (area-weighted, unit)
	skinK   float64         // skin penalty scale (a length squared)
	live    int             // live triangles
	h       edgeHeap
	scratch map[int]int
}

func newState(m *mesh.Skinned, opt Options) *state {
	nv := m.VertexCount()
	s := &state{m: m, d: 3, scratch: map[int]int{}}
	lo, hi := [3]float64{math.Inf(1), math.Inf(1), math.Inf(1)}, [3]float64{math.Inf(-1), math.Inf(-1), math.Inf(-1)}
	for _, p := range m.Positions {
		for k := range 3 {
			lo[k], hi[k] = math.Min(lo[k], float64(p[k])), math.Max(hi[k], float64(p[k]))
		}
	}
	diag := 0.0
	if nv > 0 {
		diag = math.Sqrt(sq(hi[0]-lo[0]) + sq(hi[1]-lo[1]) + sq(hi[2]-lo[2]))
	}
	uvw := opt.UVWeight
	if uvw == 0 {
		uvw = 0.25
	}
	if len(m.UVs) == nv && nv > 0 && uvw > 0 {
		s.d = 5
	}
	skw := opt.SkinWeight
	if skw == 0 {
		skw = 0.1
	}
	if skw > 0 && len(m.Weights) == nv {
		s.skinK = sq(skw * diag)
	}
	// Weld wedges into position groups, in order of first appearance.
	s.x = make([][dims]float64, nv)
	s.group = make([]int, nv)
	ids := make(map[[3]float32]int, nv)
	for w, p := range m.Positions {
		g, ok := ids[p]
		if !ok {
			g = len(s.pos)
			ids[p] = g
			s.pos = append(s.pos, [3]float64{float64(p[0]), float64(p[1]), float64(p[2])})
			s.wedges = append(s.wedges, nil)
		}
		s.group[w] = g
		s.wedges[g] = append(s.wedges[g], w)
		s.x[w] = [dims]float64{float64(p[0]), float64(p[1]), float64(p[2])}
		if s.d == 5 {
			s.x[w][3] = float64(m.UVs[w][0]) * uvw * diag
			s.x[w][4] = float64(m.UVs[w][1]) * uvw * diag
		}
	}
	ng := len(s.pos)
	s.gtris = make([][]int, ng)
	s.gdead = make([]bool, ng)
	s.ver = make([]uint32, ng)
	s.qb = make([]quadric, ng)
	s.q = make([]quadric, nv)
	s.area = make([]float64, nv)
	s.n0 = make([][3]float64, ng)
	for t := 0; t+2 < len(m.Indices); t += 3 {
		w := [3]int{int(m.Indices[t]), int(m.Indices[t+1]), int(m.Indices[t+2])}
		ga, gb, gc := s.group[w[0]], s.group[w[1]], s.group[w[2]]
		if ga == gb || gb == gc || ga == gc {
			continue // degenerate: dropped
		}
		ti := len(s.tris)
		s.tris = append(s.tris, w)
		s.alive = append(s.alive, true)
		s.live++
		for _, g := range []int{ga, gb, gc} {
			s.gtris[g] = append(s.gtris[g], ti)
		}
		n, a := s.normal(w, -1, -1)
		for _, g := range []int{ga, gb, gc} {
			for k := range 3 {
				s.n0[g][k] += a * n[k]
			}
		}
		for _, wi := range w {
			if q, ok := triangleQuadric(&s.x[w[0]], &s.x[w[1]], &s.x[w[2]], s.d, a); ok {
				s.q[wi].add(&q)
			}
			s.area[wi] += a / 3
		}
	}
	for g, n := range s.n0 {
		if l := norm(n); l > 0 {
			s.n0[g] = scale(n, 1/l)
		}
	}
	// Border constraint planes (Garland & Heckbert 1997 §6): through each edge
	// that only one triangle uses, perpendicular to that triangle, weighted
	// heavily so that borders stay where they are.
	const borderWeight = 100
	for _, w := range s.tris {
		n, a := s.normal(w, -1, -1)
		if a == 0 {
			continue
		}
		for k := range 3 {
			g0, g1 := s.group[w[k]], s.group[w[(k+1)%3]]
			if s.edgeTriangles(g0, g1) != 1 {
				continue
			}
			p0, p1 := s.pos[g0], s.pos[g1]
			e := sub(p1, p0)
			l := norm(e)
			if l == 0 {
				continue
			}
			pn := cross(e, n)
			if pl := norm(pn); pl > 0 {
				pn = scale(pn, 1/pl)
				q := planeQuadric(p0, pn, borderWeight*l*l)
				s.qb[g0].add(&q)
				s.qb[g1].add(&q)
			}
		}
	}
	return s
}

// liveTris returns g's live triangles, dropping dead ones from its list.
func (s *state) liveTris(g int) []int {
	ts := s.gtris[g][:0]
	for _, t := range s.gtris[g] {
		if s.alive[t] {
			ts = append(ts, t)
		}
	}
	s.gtris[g] = ts
	return ts
}

func (s *state) has(t, g int) bool {
	w := s.tris[t]
	return s.group[w[0]] == g || s.group[w[1]] == g || s.group[w[2]] == g
}

// edgeTriangles counts the live triangles that use both a and b.
func (s *state) edgeTriangles(a, b int) int {
	n := 0
	for _, t := range s.gtris[a] {
		if s.alive[t] && s.has(t, b) {
			n++
		}
	}
	return n
}

// onlyWith says whether every live triangle at g also uses o.
func (s *state) onlyWith(g, o int) bool {
	for _, t := range s.gtris[g] {
		if s.alive[t] && !s.has(t, o) {
			return false
		}
	}
	return true
}

// neighbours returns the groups that share a live triangle with g, each with how
// many triangles they share.
func (s *state) neighbours(g int, into map[int]int) map[int]int {
	clear(into)
	for _, t := range s.liveTris(g) {
		for _, w := range s.tris[t] {
			if o := s.group[w]; o != g {
				into[o]++
			}
		}
	}
	return into
}

// kind classifies a group: 0 interior, 1 on a border, 2 locked (an edge used by
// three or more triangles: non-manifold, never moved).
func (s *state) kind(g int, nb map[int]int) int {
	k := 0
	for _, c := range nb {
		switch {
		case c == 1:
			k = 1
		case c > 2:
			return 2
		}
	}
	return k
}

// bestWedge returns the wedge of group b that wedge a costs least to move onto,
// and that cost.
func (s *state) bestWedge(a, b int) (int, float64) {
	best, bc := -1, math.Inf(1)
	for _, wb := range s.wedges[b] {
		c := s.q[a].eval(&s.x[wb], s.d)
		if s.skinK > 0 {
			c += s.skinK * s.area[a] * skinDistance(s.m, a, wb)
		}
		if c < bc || best < 0 {
			best, bc = wb, c
		}
	}
	return best, bc
}

// skinDistance is the squared distance between two vertices' weight vectors over
// all bones (each a dense vector with the vertex's weights at its joints).
func skinDistance(m *mesh.Skinned, a, b int) float64 {
	ja, wa, jb, wb := m.Joints[a], m.Weights[a], m.Joints[b], m.Weights[b]
	d := 0.0
	for k := range 4 {
		// a's weight on this joint minus b's, counted once per distinct joint of a
		va := 0.0
		first := true
		for kk := range k {
			if ja[kk] == ja[k] && wa[kk] != 0 {
				first = false
			}
		}
		if wa[k] == 0 || !first {
			continue
		}
		for kk := range 4 {
			if ja[kk] == ja[k] {
				va += float64(wa[kk])
			}
		}
		vb := 0.0
		for kk := range 4 {
			if jb[kk] == ja[k] {
				vb += float64(wb[kk])
			}
		}
		d += sq(va - vb)
	}
	for k := range 4 {
		if wb[k] == 0 {
			continue
		}
		inA, first := false, true
		for kk := range 4 {
			if ja[kk] == jb[k] && wa[kk] != 0 {
				inA = true
			}
		}
		for kk := range k {
			if jb[kk] == jb[k] && wb[kk] != 0 {
				first = false
			}
		}
		if inA || !first {
			continue
		}
		vb := 0.0
		for kk := range 4 {
			if jb[kk] == jb[k] {
				vb += float64(wb[kk])
			}
		}
		d += vb * vb
	}
	return d
}

// cost is the error of collapsing group a onto group b: each of a's wedges moved
// onto its best wedge of b, plus the border planes of both, at b's position.
func (s *state) cost(a, b int) float64 {
	c := 0.0
	for _, wa := range s.wedges[a] {
		_, wc := s.bestWedge(wa, b)
		c += wc
	}
	for _, wb := range s.wedges[b] {
		c += s.q[wb].eval(&s.x[wb], s.d)
	}
	q := s.qb[a]
	q.add(&s.qb[b])
	x := [dims]float64{s.pos[b][0], s.pos[b][1], s.pos[b][2]}
	return c + q.eval(&x, 3)
}

// minFacing is the least cosine between a triangle's normal and the mean input
// normal of its corners (about 84°).
const minFacing = 0.1

// minCos is the cosine of the largest turn a collapse may give a triangle's
// normal (about 78°).
const minCos = 0.2

// valid says whether collapsing a onto b keeps the mesh a manifold without flips
// or duplicate triangles.
func (s *state) valid(a, b int) bool {
	nbA := s.neighbours(a, s.scratch)
	shared, ok := nbA[b]
	if !ok {
		return false
	}
	ka := s.kind(a, nbA)
	if ka == 2 || shared > 2 || (ka == 1 && shared != 1) {
		return false // a locked vertex, a non-manifold edge, or a border vertex leaving its border
	}
	// Link condition: the common neighbours of a and b are exactly the apexes of
	// the triangles on the edge.
	nA := make([]int, 0, len(nbA))
	for g := range nbA {
		nA = append(nA, g)
	}
	common := 0
	bt := s.liveTris(b)
	for _, g := range nA {
		if g == b {
			continue
		}
		for _, t := range bt {
			if s.has(t, g) {
				common++
				break
			}
		}
	}
	if common != shared {
		return false
	}
	if s.onlyWith(b, a) && s.onlyWith(a, b) {
		return false // every triangle at a and b is on the edge: the part would vanish
	}
	for _, t := range s.liveTris(a) {
		if s.has(t, b) {
			continue
		}
		w := s.tris[t]
		n0, a0 := s.normal(w, -1, -1)
		n1, a1 := s.normal(w, a, b)
		if a1 <= 1e-12*a0 || (a0 > 0 && dot(n0, n1) < minCos) {
			return false // folds, flips or degenerates
		}
		var others [2]int
		k := 0
		for _, wi := range w {
			if g := s.group[wi]; g != a {
				others[k] = g
				k++
			}
		}
		// Turns accumulate over collapses: the moved triangle must also face the
		// way the input surface did at its corners, or a tube ends up a flat
		// sheet seen edge-on.
		if c := add3(s.n0[b], add3(s.n0[others[0]], s.n0[others[1]])); dot(n1, c) <= minFacing*norm(c) {
			return false
		}
		// The moved triangle must not duplicate one b already has.
		for _, tb := range bt {
			if s.has(tb, others[0]) && s.has(tb, others[1]) {
				return false
			}
		}
	}
	return true
}

// collapse moves group a onto group b.
func (s *state) collapse(a, b int) {
	moveTo := make(map[int]int, len(s.wedges[a]))
	for _, wa := range s.wedges[a] {
		wb, _ := s.bestWedge(wa, b)
		moveTo[wa] = wb
		s.q[wb].add(&s.q[wa])
		s.area[wb] += s.area[wa]
	}
	s.qb[b].add(&s.qb[a])
	for _, t := range s.liveTris(a) {
		if s.has(t, b) {
			s.alive[t] = false
			s.live--
			continue
		}
		for k, w := range s.tris[t] {
			if s.group[w] == a {
				s.tris[t][k] = moveTo[w]
			}
		}
		s.gtris[b] = append(s.gtris[b], t)
	}
	s.gtris[a] = nil
	s.gdead[a] = true
	s.ver[a]++
	s.ver[b]++ // b's quadrics changed: so did the cost of every edge at b
}

// push queues both directions of the edge a–b.
func (s *state) push(a, b int) {
	heap.Push(&s.h, edge{s.cost(a, b), a, b, s.ver[a], s.ver[b]})
	heap.Push(&s.h, edge{s.cost(b, a), b, a, s.ver[b], s.ver[a]})
}

func (s *state) pushAll() {
	s.h = s.h[:0]
	nb := map[int]int{}
	for g := range s.pos {
		if s.gdead[g] {
			continue
		}
		for o := range s.neighbours(g, nb) {
			if o > g {
				heap.Push(&s.h, edge{s.cost(g, o), g, o, s.ver[g], s.ver[o]})
				heap.Push(&s.h, edge{s.cost(o, g), o, g, s.ver[o], s.ver[g]})
			}
		}
	}
}

func (s *state) run(target int) {
	for s.live > target {
		before := s.live
		s.pushAll()
		for s.live > target && s.h.Len() > 0 {
			e := heap.Pop(&s.h).(edge)
			if s.gdead[e.a] || s.gdead[e.b] || s.ver[e.a] != e.va || s.ver[e.b] != e.vb {
				continue
			}
			if !s.valid(e.a, e.b) {
				continue
			}
			s.collapse(e.a, e.b)
			nb := s.neighbours(e.b, s.scratch)
			ns := make([]int, 0, len(nb))
			for g := range nb {
				ns = append(ns, g)
			}
			sortInts(ns)
			for _, g := range ns {
				s.push(e.b, g)
			}
		}
		if s.live == before {
			return // every remaining collapse is refused
		}
	}
}

func sortInts(xs []int) { slices.Sort(xs) }

// output builds the simplified mesh: live triangles in their original order, the
// wedges they use in their original order, every attribute copied.
func (s *state) output() *mesh.Skinned {
	m := s.m
	remap := make([]int, m.VertexCount())
	for i := range remap {
		remap[i] = -1
	}
	used := make([]bool, m.VertexCount())
	for t, w := range s.tris {
		if s.alive[t] {
			for _, x := range w {
				used[x] = true
			}
		}
	}
	out := &mesh.Skinned{}
	for v, u := range used {
		if !u {
			continue
		}
		remap[v] = len(out.Positions)
		out.Positions = append(out.Positions, m.Positions[v])
		if m.Normals != nil {
			out.Normals = append(out.Normals, m.Normals[v])
		}
		if m.UVs != nil {
			out.UVs = append(out.UVs, m.UVs[v])
		}
		if m.Joints != nil {
			out.Joints = append(out.Joints, m.Joints[v])
			out.Weights = append(out.Weights, m.Weights[v])
		}
		if m.Roles != nil {
			out.Roles = append(out.Roles, m.Roles[v])
		}
	}
	for t, w := range s.tris {
		if s.alive[t] {
			out.Indices = append(out.Indices, uint32(remap[w[0]]), uint32(remap[w[1]]), uint32(remap[w[2]]))
		}
	}
	return out
}
