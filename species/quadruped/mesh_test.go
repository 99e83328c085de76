package quadruped

import (
	"math"
	"testing"

	"github.com/bonebake/bonebake/rig"
)

func TestRestPoseSkinsToBind(t *testing.T) {
	for _, c := range creatures() {
		rest := c.s.Skeleton.RestModelSpace()
		inv := c.s.InverseBind()
		for b := range rest {
			m := rest[b].Mul(inv[b])
			id := rig.IdentityMat4()
			for k := range m {
				if math.Abs(m[k]-id[k]) > 1e-12 {
					t.Fatalf("%s bone %d: rest × inverse bind is not the identity: %v", c.s.Name, b, m)
				}
			}
		}
		// Every clip's rest-relative skinning keeps vertices finite, and the
		// rest pose puts each vertex where the mesh has it.
		for _, m := range []*struct {
			name string
			n    int
		}{{"full", 0}, {"minimal", 1}} {
			msh := c.s.Mesh
			if m.n == 1 {
				msh = c.s.Minimal
			}
			for v, p := range msh.Positions {
				var q rig.Vec3
				for k := range 4 {
					w := float64(msh.Weights[v][k])
					r := rest[msh.Joints[v][k]].Mul(inv[msh.Joints[v][k]]).TransformPoint(rig.Vec3{float64(p[0]), float64(p[1]), float64(p[2])})
					q = q.Add(r.Scale(w))
				}
				if dist(q, rig.Vec3{float64(p[0]), float64(p[1]), float64(p[2])}) > 1e-5 {
					t.Fatalf("%s %s mesh: vertex %d moves at rest", c.s.Name, m.name, v)
				}
			}
		}
	}
}

func TestMeshes(t *testing.T) {
	for _, c := range creatures() {
		for _, m := range []struct {
			name   string
			lo, hi int
		}{{"full", 500, 6000}, {"minimal", 100, 300}} {
			msh := c.s.Mesh
			if m.name == "minimal" {
				msh = c.s.Minimal
			}
			if msh == nil {
				t.Fatalf("%s: no %s mesh", c.s.Name, m.name)
			}
			tris := msh.TriangleCount()
			t.Logf("%s %s mesh: %d vertices, %d triangles", c.s.Name, m.name, msh.VertexCount(), tris)
			if tris < m.lo || tris > m.hi {
				t.Errorf("%s %s mesh: %d triangles, want %d–%d", c.s.Name, m.name, tris, m.lo, m.hi)
			}
			n := msh.VertexCount()
			if len(msh.Normals) != n || len(msh.UVs) != n || len(msh.Joints) != n || len(msh.Weights) != n || len(msh.Roles) != n {
				t.Fatalf("%s %s mesh: attribute counts differ", c.s.Name, m.name)
			}
			roles := map[uint8]bool{}
			for v := range n {
				sum := float32(0)
				for k := range 4 {
					sum += msh.Weights[v][k]
					if int(msh.Joints[v][k]) >= c.s.Skeleton.Len() {
						t.Fatalf("%s %s mesh: vertex %d joint %d", c.s.Name, m.name, v, msh.Joints[v][k])
					}
				}
				if math.Abs(float64(sum)-1) > 1e-5 {
					t.Fatalf("%s %s mesh: vertex %d weights sum to %v", c.s.Name, m.name, v, sum)
				}
				roles[msh.Roles[v]] = true
			}
			for _, idx := range msh.Indices {
				if int(idx) >= n {
					t.Fatalf("%s %s mesh: index %d out of range", c.s.Name, m.name, idx)
				}
			}
			if !roles[0] || !roles[2] && c.s.Name == "horse" || !roles[5] {
				t.Errorf("%s %s mesh: roles %v, want hide, bone (hooves, tusks) and, for the horse, hair", c.s.Name, m.name, roles)
			}
		}
	}
}

// TestMeshStaysAboveGround skins the full mesh in every frame and checks that it
// does not sink into the ground (a few centimetres of squash are allowed).
func TestMeshStaysAboveGround(t *testing.T) {
	for _, c := range creatures() {
		inv := c.s.InverseBind()
		msh := c.s.Mesh
		for i := range c.s.Clips {
			cl := &c.s.Clips[i]
			low := math.Inf(1)
			for _, ph := range phases(cl) {
				pal := palette(c.s, cl, ph)
				skin := make([]rig.Mat4, len(pal))
				for b := range pal {
					skin[b] = pal[b].Mul(inv[b])
				}
				for v, p := range msh.Positions {
					y := 0.0
					for k := range 4 {
						m := &skin[msh.Joints[v][k]]
						y += float64(msh.Weights[v][k]) * (m[4]*float64(p[0]) + m[5]*float64(p[1]) + m[6]*float64(p[2]) + m[7])
					}
					low = math.Min(low, y)
				}
			}
			t.Logf("%s %s: lowest vertex %.3f m", c.s.Name, cl.Name, low)
			if low < -0.06 {
				t.Errorf("%s %s: the mesh sinks %.3f m into the ground", c.s.Name, cl.Name, -low)
			}
		}
	}
}
