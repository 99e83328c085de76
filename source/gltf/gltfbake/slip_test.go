package gltfbake

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/bonebake/bonebake/formats/gait"
	"github.com/bonebake/bonebake/internal/testfiles"
	"github.com/bonebake/bonebake/rig"
)

// slipReport is what playing a clip at a ground speed shows: for each stance
// of each contact bone, how far the bone drifts in the world against how far
// the unit travels meanwhile.
type slipReport struct {
	stances int     // stance phases found, all bones
	worst   float64 // the largest drift / travel of a stance
	where   string  // the bone and time of the worst
	covered float64 // the fraction of the clip some bone stands
}

// slip plays clip i of m as a game would, independently of package stride: the
// unit moves along the model's facing at the clip's ground speed when the clip
// plays in place, and stands still when the clip
// carries its own root motion (method root_motion, travel kept). It samples
// every palette bone at 240 poses per second of the clip and takes as contact
// bones the palette's leaves that come within 0.04·H of the lowest such leaf
// (H: the rest pose's height) at rest (a robot's fingers may swing lower than
// its feet while it runs), and never asks the estimator which the feet are. A
// stance is a run of samples (wrapping when the clip loops) where the bone is
// in the lowest band of its own height (within max(15% of its vertical range,
// 0.01·H) of its lowest point) and moves slower than a quarter of the unit's
// speed horizontally in the world; runs shorter than 4% of the clip are
// touches, not stances. Drift is the distance between where a stance begins
// and where it ends, in the world, horizontally.
func slip(m *Model, i int, c gait.Clip) slipReport {
	// A model faces along one of its horizontal axes (the Soldier faces -z), and
	// a game turns it once to face its heading: the heading kept is the one in
	// which the feet stand longest.
	var best slipReport
	for _, dir := range [][2]float64{{0, 1}, {0, -1}, {1, 0}, {-1, 0}} {
		if r := slipAlong(m, i, c, dir); r.covered > best.covered || best.stances == 0 {
			best = r
		}
	}
	return best
}

func slipAlong(m *Model, i int, c gait.Clip, dir [2]float64) slipReport {
	j := m.Job
	cl := &j.Clips[i]
	start, dur := j.Span(cl)
	sk := j.Rig.Skeleton
	bones := j.Rig.PaletteBones()
	s := j.Motions[cl.Motion].NewSampler()
	// The speed per second of the clip's own time: the stride over its duration.
	v := c.Stride / dur
	moves := c.Method != "root_motion" || c.InPlace
	n := int(math.Ceil(dur * 240))
	dt := dur / float64(n)

	leaf := make([]bool, sk.Len())
	for _, b := range bones {
		leaf[b] = true
	}
	for _, b := range bones {
		for p := sk.Parents[b]; p >= 0; p = sk.Parents[p] {
			leaf[p] = false
		}
	}
	rest := sk.RestModelSpace()
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, b := range bones {
		lo, hi = math.Min(lo, rest[b][7]), math.Max(hi, rest[b][7])
	}
	H := hi - lo
	pose := sk.RestPose()
	g := make([]rig.Mat4, sk.Len())
	pos := make([][]rig.Vec3, n+1) // world positions of every bone
	for k := 0; k <= n; k++ {
		s.Sample(start+float64(k)*dt, pose)
		sk.ModelSpace(pose, g)
		pos[k] = make([]rig.Vec3, sk.Len())
		for _, b := range bones {
			p := g[b].Translation()
			if moves {
				p[0] += dir[0] * v * float64(k) * dt
				p[2] += dir[1] * v * float64(k) * dt
			}
			pos[k][b] = p
		}
	}
	ymin := map[int]float64{}
	ymax := map[int]float64{}
	ground := math.Inf(1) // the lowest leaf at rest
	for _, b := range bones {
		if !leaf[b] {
			continue
		}
		ymin[b], ymax[b] = math.Inf(1), math.Inf(-1)
		for k := range pos {
			ymin[b], ymax[b] = math.Min(ymin[b], pos[k][b][1]), math.Max(ymax[b], pos[k][b][1])
		}
		ground = math.Min(ground, rest[b][7])
	}
	var r slipReport
	standing := make([]bool, n)
	for _, b := range bones {
		if !leaf[b] || rest[b][7] > ground+0.04*H {
			continue
		}
		band := ymin[b] + math.Max(0.15*(ymax[b]-ymin[b]), 0.01*H)
		stand := make([]bool, n)
		for k := 0; k < n; k++ {
			d := pos[k+1][b].Sub(pos[k][b])
			stand[k] = pos[k][b][1] <= band && math.Hypot(d[0], d[2])/dt < 0.25*v
		}
		// Runs of standing samples. A looping clip's are read from a sample
		// where the bone is lifted, so that a run may wrap past the end; past
		// it, a bone stands where it stood a pass earlier, moved by the pass.
		off := 0
		if cl.Loops {
			if off = slices.Index(stand, false); off < 0 {
				continue // never lifts: no stance to speak of
			}
		}
		at := func(q int) rig.Vec3 {
			if k := off + q; k > n {
				return pos[k-n][b].Add(pos[n][b].Sub(pos[0][b]))
			}
			return pos[off+q][b]
		}
		standingRuns(stand, off, func(q, e int) {
			pa, pe := at(q), at(e)
			T := float64(e-q) * dt
			drift := math.Hypot(pe[0]-pa[0], pe[2]-pa[2]) / (v * T)
			r.stances++
			for k := q; k < e; k++ {
				standing[(off+k)%n] = true
			}
			if drift > r.worst {
				r.worst = drift
				r.where = fmt.Sprintf("%s from %.3f s for %.3f s", sk.Names[b], float64((off+q)%n)*dt, T)
			}
		})
	}
	for _, s := range standing {
		if s {
			r.covered++
		}
	}
	r.covered /= float64(n)
	return r
}

// realGaits are the walks and runs of the real characters in the shared test
// data: each must get a measured ground speed that keeps its feet planted.
var realGaits = []realGait{
	{model: "threejs/Soldier.glb", walking: []string{"Walk", "Run"}, poses: []string{"TPose"}},
	{model: "threejs/Xbot.glb", walking: []string{"walk", "run"}, poses: []string{"sad_pose", "sneak_pose"}},
	{model: "mixamo-clips/ybot.glb", clips: []string{"mixamo-clips/walking.glb"}, walking: []string{"walking"}},
	{model: "Fox.glb", scale: 0.01, walking: []string{"Walk", "Run"}, loose: []string{"Walk"}, refused: []string{"Run"}},
	{model: "CesiumMan.gltf", walking: []string{"animation_0"}, loose: []string{"animation_0"}},
	{model: "threejs/RobotExpressive.glb", walking: []string{"Walking", "Running"}, loose: []string{"Walking", "Running"}},
	{kind: "bvh", model: "soldier_walk.bvh", walking: []string{"soldier_walk"}},
	// Root motion whose feet never stand still at the root's speed.
	{kind: "bvh", model: "a_biped_walk.bvh", walking: []string{"a_biped_walk"}, refused: []string{"a_biped_walk"}},
}

// realGait is a real character's walks and runs, as realGaits lists them.
type realGait struct {
	kind    string // the testdata folder: gltf when empty
	model   string
	clips   []string // clip files (--clips)
	scale   float64
	walking []string
	poses   []string // clips that hold a pose: no travel, and they say so
	// refused: walking clips whose feet slide a quarter of the way at any
	// one speed, or contradict their root motion (docs/formats/gait.md §6):
	// they get no speed, and a reason naming what slides and how far.
	refused []string
	// loose: walking clips whose feet slide over 5 % at any one speed: they
	// get the speed at which they slide least with a confidence under 0.8,
	// and a reason naming the foot and its slip.
	loose []string
}

// load loads the character as bake does, its feet planted or not.
func (g realGait) load(t *testing.T, plant bool) *Model {
	t.Helper()
	s := Settings{Scale: g.scale, PlantFeet: plant}
	for _, c := range g.clips {
		s.ClipFiles = append(s.ClipFiles, sharedModel(t, c))
	}
	kind := g.kind
	if kind == "" {
		kind = "gltf"
	}
	m, err := Load(testfiles.Path(t, kind, g.model), s)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// leastSlip reads the speed an untrusted feet measurement names.
var leastSlip = regexp.MustCompile(`at ([0-9.e+]+) m per s of clip, the speed at which the feet slide least`)

// ownSpeed is how a reason names the speed at which the foot that slides most
// would stand still.
var ownSpeed = regexp.MustCompile(`: foot \S+ would stand still at [0-9.e+]+ m per s of clip instead`)

// TestRealGaitsKeepFeetPlanted: the real walks and runs get a measured ground
// speed at which their feet, played by slip (which shares no code with the
// estimator), drift at most 5 % of the distance travelled in any stance; those
// whose feet slide over 5 % at any one speed get the speed at which they slide
// least with a confidence under 0.8, and those that slide a quarter of the way
// (or against their root motion) get none; both say which foot slides how far.
func TestRealGaitsKeepFeetPlanted(t *testing.T) {
	for _, g := range realGaits {
		t.Run(strings.ReplaceAll(g.model, "/", "_"), func(t *testing.T) {
			m := g.load(t, false)
			f := m.Gaits("x.bpat")
			for i, c := range f.Clips {
				if slices.Contains(g.poses, c.Name) && (c.Status != "no_travel" || !strings.Contains(c.Reason, "a pose")) {
					t.Errorf("%s: %+v: want no travel, saying it is a pose", c.Name, c)
				}
				if !slices.Contains(g.walking, c.Name) {
					continue
				}
				if c.GroundSpeed == 0 {
					t.Logf("%s: no ground speed: %s (confidence %.2f)", c.Name, c.Reason, c.Confidence)
					if !slices.Contains(g.refused, c.Name) || c.Status != "untrusted" || !strings.Contains(c.Reason, " slide") || !strings.Contains(c.Reason, "%") {
						t.Errorf("%s: %+v: want a speed, or untrusted saying which feet slide and how far", c.Name, c)
					}
					// The speed a refusal names is where the feet slide least,
					// so feet must stand there (played by slip, not the estimator).
					least := leastSlip.FindStringSubmatch(c.Reason)
					if least == nil {
						if c.Method == "feet" {
							t.Errorf("%s: %q names no speed at which the feet slide least", c.Name, c.Reason)
						}
						continue
					}
					v, _ := strconv.ParseFloat(least[1], 64)
					_, dur := m.Job.Span(&m.Job.Clips[i])
					if r := slip(m, i, gait.Clip{Stride: v * dur, Method: c.Method}); r.stances == 0 {
						t.Errorf("%s: at %.4g per s of clip, the speed the refusal names, no foot stands in the world", c.Name, v)
					} else {
						t.Logf("%s: at %.4g per s of clip %d stances, worst drift %.1f%% (%s)", c.Name, v, r.stances, 100*r.worst, r.where)
					}
					continue
				}
				r := slip(m, i, c)
				t.Logf("%s: %.4g m/s from %s, confidence %.2f: %d stances, worst drift %.1f%% (%s), feet standing %.0f%% of the clip",
					c.Name, c.GroundSpeed, c.Method, c.Confidence, r.stances, 100*r.worst, r.where, 100*r.covered)
				if r.stances == 0 {
					t.Errorf("%s: at %.4g m/s no foot stands in the world", c.Name, c.GroundSpeed)
				}
				if slices.Contains(g.refused, c.Name) {
					t.Errorf("%s: %+v: want no speed", c.Name, c)
				}
				if slices.Contains(g.loose, c.Name) {
					// A speed whose feet slide over 5 %: the confidence and
					// the reason say so (the slip meter, above, logs how far).
					if c.Confidence >= 0.8 || c.Status != "measured" || !leastSlip.MatchString(c.Reason) || !strings.Contains(c.Reason, "%") {
						t.Errorf("%s: %+v: want a confidence under 0.8 and a reason naming the foot that slides and how far", c.Name, c)
					}
					// A foot whose own standing speed is named is named as the
					// other speed it would need ("stands still at 1.027" left a
					// reader to guess what the number was).
					if strings.Contains(c.Reason, "still at") && !ownSpeed.MatchString(c.Reason) {
						t.Errorf("%s: %q: a foot's own speed not said as the one it would stand still at instead", c.Name, c.Reason)
					}
					continue
				}
				if c.Confidence < 0.8 || c.Reason != "" {
					t.Errorf("%s: %+v: want a confidence of 0.8 or more, without a remark", c.Name, c)
				}
				if r.worst > 0.05 {
					t.Errorf("%s: at %.4g m/s a foot drifts %.1f%% of the travel in its stance (%s)", c.Name, c.GroundSpeed, 100*r.worst, r.where)
				}
			}
		})
	}
}

// standingRuns calls fn(q, e) for each run of true in stand lasting 4 % of
// the clip or more, as the samples (off+q … off+e−1) mod len(stand): the
// stances of the outside meters (slipAlong's leaves, soleMeter's soles),
// which share no code with package stride.
func standingRuns(stand []bool, off int, fn func(q, e int)) {
	n := len(stand)
	for q := 0; q < n; {
		if !stand[(off+q)%n] {
			q++
			continue
		}
		e := q
		for e < n && stand[(off+e)%n] {
			e++
		}
		if float64(e-q) >= 0.04*float64(n) {
			fn(q, e)
		}
		q = e
	}
}
