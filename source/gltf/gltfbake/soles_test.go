package gltfbake

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/bonebake/bonebake/internal/testfiles"
	"github.com/bonebake/bonebake/rig"
)

// soles are the parts of a skinned mesh that touch the ground, found from the
// mesh alone (not from the bones any rule calls feet): the vertices in the
// lowest 3 % of its height at rest (the robot's fingers hang at 3.5 %), in
// clusters of 16 or more whose members follow one bone or lie within
// 0.03·H of each other horizontally (a biped's two soles, a fox's four paws).
type soles struct {
	m       *Model
	H       float64 // the rest mesh's height
	regions [][]int // vertex indices, one cluster per sole
}

func findSoles(t *testing.T, m *Model) *soles {
	t.Helper()
	mesh := m.GLTF.Mesh
	if mesh == nil {
		t.Fatalf("%s: no mesh", m.Path)
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, p := range mesh.Positions {
		lo, hi = math.Min(lo, float64(p[1])), math.Max(hi, float64(p[1]))
	}
	s := &soles{m: m, H: hi - lo}
	var low []int
	for v, p := range mesh.Positions {
		if float64(p[1]) <= lo+0.03*s.H {
			low = append(low, v)
		}
	}
	// Single-linkage clusters of the low vertices, through a grid of cells
	// as wide as the linking distance.
	r := 0.03 * s.H
	parent := make([]int, len(low))
	for i := range parent {
		parent[i] = i
	}
	find := func(i int) int {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	cell := func(i int) [2]int {
		p := mesh.Positions[low[i]]
		return [2]int{int(math.Floor(float64(p[0]) / r)), int(math.Floor(float64(p[2]) / r))}
	}
	grid := map[[2]int][]int{}
	for i := range low {
		grid[cell(i)] = append(grid[cell(i)], i)
	}
	for i := range low {
		c, p := cell(i), mesh.Positions[low[i]]
		for dx := -1; dx <= 1; dx++ {
			for dz := -1; dz <= 1; dz++ {
				for _, j := range grid[[2]int{c[0] + dx, c[1] + dz}] {
					q := mesh.Positions[low[j]]
					if math.Hypot(float64(p[0]-q[0]), float64(p[2]-q[2])) <= r {
						parent[find(i)] = find(j)
					}
				}
			}
		}
	}
	// Vertices that follow one bone most are one sole's (a paw's pads
	// may lie further apart than the linking distance).
	first := map[int]int{}
	for i, v := range low {
		b := dominant(mesh.Joints[v], mesh.Weights[v])
		if j, ok := first[b]; ok {
			parent[find(i)] = find(j)
		} else {
			first[b] = i
		}
	}
	byRoot := map[int][]int{}
	for i := range low {
		byRoot[find(i)] = append(byRoot[find(i)], low[i])
	}
	for _, vs := range byRoot {
		if len(vs) >= 16 { // the robot's finger tip, as low at rest, has 10
			slices.Sort(vs)
			s.regions = append(s.regions, vs)
		}
	}
	slices.SortFunc(s.regions, func(a, b []int) int { return a[0] - b[0] })
	return s
}

// dominant returns the joint a vertex follows most.
func dominant(j [4]uint16, w [4]float32) int {
	best := 0
	for k := range w {
		if w[k] > w[best] {
			best = k
		}
	}
	return int(j[best])
}

// tracks skins the soles' vertices at n+1 samples of clip i, with the
// palette from the clip's motion and the mesh's inverse bind matrices:
// pos[r][k][j] is vertex j of sole r at sample k, in model space.
func (s *soles) tracks(i, n int) [][][]rig.Vec3 {
	j := s.m.Job
	cl := &j.Clips[i]
	start, dur := j.Span(cl)
	sk := j.Rig.Skeleton
	bones := j.Rig.PaletteBones()
	g := s.m.GLTF
	smp := j.Motions[cl.Motion].NewSampler()
	pose := sk.RestPose()
	global := make([]rig.Mat4, sk.Len())
	skin := make([]rig.Mat4, len(bones))
	pos := make([][][]rig.Vec3, len(s.regions))
	for r := range pos {
		pos[r] = make([][]rig.Vec3, n+1)
	}
	for k := 0; k <= n; k++ {
		smp.Sample(start+float64(k)*dur/float64(n), pose)
		sk.ModelSpace(pose, global)
		for p, b := range bones {
			skin[p] = global[b].Mul(g.InverseBind[p])
		}
		for r, vs := range s.regions {
			pos[r][k] = make([]rig.Vec3, len(vs))
			for q, v := range vs {
				x := g.Mesh.Positions[v]
				rest := rig.Vec3{float64(x[0]), float64(x[1]), float64(x[2])}
				var at rig.Vec3
				for w := range 4 {
					if wt := float64(g.Mesh.Weights[v][w]); wt > 0 {
						at = at.Add(skin[g.Mesh.Joints[v][w]].TransformPoint(rest).Scale(wt))
					}
				}
				pos[r][k][q] = at
			}
		}
	}
	return pos
}

// soleSlip is what the soles do when clip i plays in place while the unit
// moves at v (per second of the clip) along its heading.
type soleSlip struct {
	stances       int
	agg, worst    float64 // total drift / total travel; the worst stance's
	where         string
	covered       float64 // stance time / contact time
	contact, stay float64 // seconds some sole is on the ground; in a stance
}

// soleMeter holds one clip's sole contacts, ready to be judged at any speed.
//
// A sole is on the ground while its lowest vertex is within max(10 % of that
// height's range over the clip, 0.005·H) of its lowest point: tightly, so that
// a foot rolling onto its heel or off its toe is not yet, or no longer, a
// stance (with 15 % or 20 % CesiumMan's soles drift 4 % or 10 % at their best
// speed, and the Xbot's run 8 %). What touches the
// ground is its contact patch: its vertices within 0.005·H of its lowest at
// that sample; their mean horizontal velocity is the patch's (a rolling foot's
// patch stands still while its ankle moves). At speed v a sole on the ground
// stands unless its patch moves forward over the ground faster than the unit
// (a toe scuffing in mid-swing); runs of standing samples lasting 4 % of the
// clip or more are stances (wrapping when the clip loops), and a stance's
// drift is its patch's travel in the world, against the unit's meanwhile.
// The heading is the one the patches on the ground move back along.
type soleMeter struct {
	names   []string
	n       int
	dt      float64
	loops   bool
	ground  [][]bool     // [sole][k]
	vel     [][]rig.Vec3 // [sole][k]: the patch's horizontal velocity
	heading rig.Vec3     // the unit's direction of travel
}

func (s *soles) meter(i int) *soleMeter {
	cl := &s.m.Job.Clips[i]
	_, dur := s.m.Job.Span(cl)
	n := int(math.Ceil(dur * 240))
	pos := s.tracks(i, n)
	mt := &soleMeter{n: n, dt: dur / float64(n), loops: cl.Loops}
	var back rig.Vec3
	for r := range s.regions {
		low := make([]float64, n+1)
		floor, top := math.Inf(1), math.Inf(-1)
		for k := range low {
			low[k] = math.Inf(1)
			for _, p := range pos[r][k] {
				low[k] = math.Min(low[k], p[1])
			}
			floor, top = math.Min(floor, low[k]), math.Max(top, low[k])
		}
		band := floor + math.Max(0.10*(top-floor), 0.005*s.H)
		g, v := make([]bool, n), make([]rig.Vec3, n)
		for k := range n {
			g[k] = low[k] <= band
			c := 0
			for q, p := range pos[r][k] {
				if p[1] <= low[k]+0.005*s.H {
					v[k] = v[k].Add(pos[r][k+1][q].Sub(p))
					c++
				}
			}
			v[k] = v[k].Scale(1 / (float64(c) * mt.dt))
			v[k][1] = 0
			if g[k] {
				back = back.Add(v[k])
			}
		}
		mt.ground, mt.vel = append(mt.ground, g), append(mt.vel, v)
		mt.names = append(mt.names, fmt.Sprintf("sole %d", r))
	}
	if back.Len() > 0 {
		mt.heading = back.Scale(-1 / back.Len())
	}
	return mt
}

func (mt *soleMeter) at(v float64) soleSlip {
	var r soleSlip
	var drift, travel float64
	n := mt.n
	for s := range mt.ground {
		stand := make([]bool, n)
		for k := range n {
			w := mt.vel[s][k].Add(mt.heading.Scale(v)) // in the world
			stand[k] = mt.ground[s][k] && w.Len() < v
			if mt.ground[s][k] {
				r.contact += mt.dt
			}
		}
		off := 0
		if mt.loops {
			if off = slices.Index(stand, false); off < 0 {
				off = 0
			}
		}
		standingRuns(stand, off, func(q, e int) {
			var w rig.Vec3
			for k := q; k < e; k++ {
				w = w.Add(mt.vel[s][(off+k)%n].Add(mt.heading.Scale(v)).Scale(mt.dt))
			}
			T := float64(e-q) * mt.dt
			d := w.Len()
			r.stances++
			r.stay += T
			drift, travel = drift+d, travel+v*T
			if d/(v*T) > r.worst {
				r.worst = d / (v * T)
				r.where = fmt.Sprintf("%s from %.3f s for %.3f s", mt.names[s], float64((off+q)%n)*mt.dt, T)
			}
		})
	}
	if travel > 0 {
		r.agg = drift / travel
	}
	if r.contact > 0 {
		r.covered = r.stay / r.contact
	}
	return r
}

// TestSolesPlanted measures the sidecar's speeds with the soles (soleMeter,
// which shares no code with package stride and does not ask it which bones
// are feet): every walk and run but those realGaits refuses has a speed;
// every trusted speed (confidence 0.8 or more) keeps every stance of every
// sole within 5 % of the distance travelled, and in all; a speed under that
// confidence slides a stance over 5 % here too, and so does the speed at
// which the soles slide least in all, with stances covering half their time
// on the ground or more (the low confidence is the clip's, not the
// estimator's); a refused clip's soles slide over 5 % at the speed its reason
// names and at their best.
func TestSolesPlanted(t *testing.T) {
	for _, g := range realGaits {
		if g.kind != "" {
			continue // a BVH file has no mesh
		}
		t.Run(strings.ReplaceAll(g.model, "/", "_"), func(t *testing.T) {
			s := Settings{Scale: g.scale}
			for _, c := range g.clips {
				s.ClipFiles = append(s.ClipFiles, sharedModel(t, c))
			}
			m, err := Load(testfiles.Path(t, "gltf", g.model), s)
			if err != nil {
				t.Fatal(err)
			}
			so := findSoles(t, m)
			if len(so.regions) < 2 {
				t.Fatalf("%d soles found, want 2 or more", len(so.regions))
			}
			f := m.Gaits("x.bpat")
			for i, c := range f.Clips {
				if !slices.Contains(g.walking, c.Name) {
					continue
				}
				_, dur := m.Job.Span(&m.Job.Clips[i])
				mt := so.meter(i)
				v := c.Stride / dur
				if c.GroundSpeed == 0 {
					if !slices.Contains(g.refused, c.Name) {
						t.Errorf("%s: %+v: want a speed", c.Name, c)
						continue
					}
					// Refused: the soles slide far at the speed the reason
					// names, and at the speed where they slide least.
					least := leastSlip.FindStringSubmatch(c.Reason)
					if least == nil {
						t.Errorf("%s: %q names no speed", c.Name, c.Reason)
						continue
					}
					v, _ = strconv.ParseFloat(least[1], 64)
				}
				r := mt.at(v)
				t.Logf("%s (%d soles): %.4g m/s, confidence %.2f: %d stances covering %.0f%% of the soles' contact, drift %.1f%% in all, worst %.1f%% (%s)",
					c.Name, len(so.regions), c.GroundSpeed, c.Confidence, r.stances, 100*r.covered, 100*r.agg, 100*r.worst, r.where)
				if c.GroundSpeed > 0 && c.Confidence >= 0.8 {
					if r.stances == 0 || r.worst > 0.05 || r.agg > 0.05 {
						t.Errorf("%s: at %.4g m/s (confidence %.2f) the soles drift %.1f%% in all, %.1f%% in the worst stance (%s): want within 5 %%",
							c.Name, c.GroundSpeed, c.Confidence, 100*r.agg, 100*r.worst, r.where)
					}
					continue
				}
				if r.worst <= 0.05 {
					t.Errorf("%s: confidence %.2f, but at %.4g per s of clip no stance of a sole drifts over 5 %%", c.Name, c.Confidence, v)
				}
				best, bestV := soleSlip{agg: math.Inf(1)}, 0.0
				for q := 0; q <= 200; q++ {
					u := v * math.Pow(16, float64(q)/200-0.5) // v/4 to 4v
					if b := mt.at(u); b.stances > 0 && b.covered >= 0.5 && b.agg < best.agg {
						best, bestV = b, u
					}
				}
				if best.stances == 0 {
					t.Logf("%s: at no speed from a quarter to 4 times its own do stances cover half the soles' time on the ground", c.Name)
					continue
				}
				t.Logf("%s: at %.4g per s of clip, where the soles slide least, they drift %.1f%% in all (%d stances covering %.0f%% of their contact, worst %.1f%%, %s)",
					c.Name, bestV, 100*best.agg, best.stances, 100*best.covered, 100*best.worst, best.where)
				if best.worst <= 0.05 {
					t.Errorf("%s: confidence %.2f, but at %.4g per s of clip no stance of a sole drifts over 5 %%: a speed that keeps them planted was missed",
						c.Name, c.Confidence, bestV)
				}
			}

		})
	}
}
