package humanoid

import (
	"math"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/bonebake/bonebake/formats/bpat"
	"github.com/bonebake/bonebake/rig"
	"github.com/bonebake/bonebake/species"
)

func TestRigMatchesFacts(t *testing.T) {
	// docs/species.md, in order: name(parent).
	const facts = "Root(-) Pelvis(0) Spine(1) Chest(2) Neck(3) Head(4) ShoulderL(3) UpperArmL(6) ForearmL(7) HandL(8) " +
		"ShoulderR(3) UpperArmR(10) ForearmR(11) HandR(12) HipL(1) KneeL(14) FootL(15) HipR(1) KneeR(17) FootR(18)"
	for _, sp := range All() {
		var got []string
		for i, n := range sp.Skeleton.Names {
			p := "-"
			if q := sp.Skeleton.Parents[i]; q >= 0 {
				p = itoa(q)
			}
			got = append(got, n+"("+p+")")
		}
		if g := strings.Join(got, " "); g != facts {
			t.Errorf("%s rig:\n got %s\nwant %s", sp.Name, g, facts)
		}
	}
}

func itoa(i int) string { return strconv.Itoa(i) }

// frameCount is a clip's frame count for its duration and rate (docs/formats/bpat.md,
// sampling).
func frameCount(c *species.Clip) int {
	n := max(1, int(math.Floor(c.Duration()*c.FPS+0.5)))
	if !c.Loops {
		n++
	}
	return n
}

func TestSpeciesIdentity(t *testing.T) {
	want := []struct {
		id   uint32
		name string
	}{{0, "humanoid"}, {3, "humanoid_sword"}, {4, "humanoid_spear"}, {5, "humanoid_skeleton"}}
	for i, sp := range All() {
		if sp.ID != want[i].id || sp.Name != want[i].name {
			t.Errorf("species %d: %d %q, want %d %q", i, sp.ID, sp.Name, want[i].id, want[i].name)
		}
		if sp.Minimal == nil || sp.Minimal.TriangleCount() > MinimalTriangles || sp.Minimal.TriangleCount() < MinimalTriangles-2 {
			t.Errorf("%s: minimal mesh %v, want %d triangles", sp.Name, sp.Minimal != nil, MinimalTriangles)
		}
	}
}

// Proportions: an adult of about 1.75 m standing on the ground at the origin,
// arms out along ±x (left +x), facing +z.
func TestBindPose(t *testing.T) {
	for _, sp := range All() {
		b := newBody(profileOf(sp))
		rest := sp.Skeleton.RestModelSpace()
		y := func(i int) float64 { return rest[i][7] }
		top := y(Head) + 0.2*b.s // crown above the head joint (the mesh's)
		wantTop := 1.75 * b.s
		if math.Abs(top-wantTop) > 0.03 {
			t.Errorf("%s: crown at %.3f m, want %.3f", sp.Name, top, wantTop)
		}
		if math.Abs(y(FootL)-b.ankleH) > 1e-9 || math.Abs(y(FootR)-b.ankleH) > 1e-9 {
			t.Errorf("%s: ankles at %.3f/%.3f m", sp.Name, y(FootL), y(FootR))
		}
		if rest[HandL][3] <= 0.5 || rest[HandR][3] >= -0.5 {
			t.Errorf("%s: hands at x %.3f/%.3f, want a T-pose with the left hand on +x", sp.Name, rest[HandL][3], rest[HandR][3])
		}
		for i, tr := range sp.Skeleton.Rest {
			if tr.Rotation != rig.IdentityQuat() || tr.Scale != (vec{1, 1, 1}) {
				t.Errorf("%s: bone %d rest has rotation %v scale %v", sp.Name, i, tr.Rotation, tr.Scale)
			}
		}
	}
}

func profileOf(sp *species.Creature) Profile {
	for _, p := range []Profile{HumanoidProfile(), SwordProfile(), SpearProfile(), SkeletonProfile()} {
		if p.ID == sp.ID {
			return p
		}
	}
	panic("unknown species")
}

func TestSockets(t *testing.T) {
	want := []species.Socket{
		{Name: "head", Anchor: 5},
		{Name: "hand_r", Anchor: 13},
		{Name: "hand_l", Anchor: 9},
		{Name: "back", Anchor: 3, Offset: [3]float32{0, .10, -.12}},
		{Name: "hip_l", Anchor: 14, Offset: [3]float32{0, -.02, 0}},
		{Name: "hip_r", Anchor: 17, Offset: [3]float32{0, -.02, 0}},
		{Name: "chest_front", Anchor: 3, Offset: [3]float32{0, .05, .15}},
		{Name: "chest_back", Anchor: 3, Offset: [3]float32{0, .05, -.15}},
		{Name: "foot_l", Anchor: 16},
		{Name: "foot_r", Anchor: 19},
	}
	for _, sp := range All() {
		if len(sp.Sockets) != len(want) {
			t.Fatalf("%s: %d sockets", sp.Name, len(sp.Sockets))
		}
		for i := range want {
			if sp.Sockets[i] != want[i] {
				t.Errorf("%s socket %d: %+v, want %+v", sp.Name, i, sp.Sockets[i], want[i])
			}
		}
	}
}

// markersFor is the game's baker's marker table for the 25 humanoid clips
// (apply_authored_markers in tools/bpat_baker/main.cpp at the commit the format
// comes from: clip-name substrings, first rule wins), written out clip by clip:
// every clip containing "idle" gets exit_safe .98, hold_bow gets hold's markers.
func markersFor(name string) bpat.Markers {
	u := bpat.Unset
	melee := bpat.Markers{.10, .54, .58, .72, .90}
	bow := bpat.Markers{.18, .56, .56, .66, .86}
	hold := bpat.Markers{0, u, u, u, .98}
	exit := bpat.Markers{u, u, u, u, .98}
	return map[string]bpat.Markers{
		"idle": exit, "idle_squat": exit, "idle_jump": exit, "idle_weapon": exit, "idle_weave": exit,
		"walk": exit, "run": exit, "hold": hold, "hold_bow": hold,
		"attack_sword_a": melee, "attack_sword_b": melee, "attack_sword_c": melee,
		"attack_spear_a": melee, "attack_spear_b": melee, "attack_spear_c": melee,
		"attack_bow": bow, "riding_idle": exit, "riding_charge": exit, "riding_reining": bpat.NoMarkers(),
		"riding_bow_shot": bow, "riding_sword_strike": melee,
		"die_infantry": bpat.NoMarkers(), "dead_infantry": bpat.NoMarkers(),
		"die_mounted": bpat.NoMarkers(), "dead_mounted": bpat.NoMarkers(),
	}[name]
}

func TestClipTable(t *testing.T) {
	type row struct {
		name   string
		frames int
		fps    float64
		loops  bool
	}
	want := []row{
		{"idle", 24, 24, true}, {"idle_squat", 72, 24, false}, {"idle_jump", 72, 24, false},
		{"idle_weapon", 72, 24, false}, {"idle_weave", 72, 24, false}, {"walk", 24, 24, true},
		{"run", 24, 24, true}, {"hold", 16, 24, true}, {"hold_bow", 16, 24, true},
		{"attack_sword_a", 24, 24, false}, {"attack_sword_b", 24, 24, false}, {"attack_sword_c", 24, 24, false},
		{"attack_spear_a", 24, 24, false}, {"attack_spear_b", 24, 24, false}, {"attack_spear_c", 24, 24, false},
		{"attack_bow", 24, 24, false}, {"riding_idle", 24, 24, true}, {"riding_charge", 24, 24, false},
		{"riding_reining", 24, 24, false}, {"riding_bow_shot", 24, 24, false}, {"riding_sword_strike", 32, 24, false},
		{"die_infantry", 20, 24, false}, {"dead_infantry", 1, 1, true}, {"die_mounted", 20, 24, false},
		{"dead_mounted", 1, 1, true},
	}
	for _, sp := range All() {
		if len(sp.Clips) != len(want) {
			t.Fatalf("%s: %d clips", sp.Name, len(sp.Clips))
		}
		total := 0
		for i, w := range want {
			c := &sp.Clips[i]
			total += c.Frames
			if c.Name != w.name || c.Frames != w.frames || c.FPS != w.fps || c.Loops != w.loops {
				t.Errorf("%s clip %d: %s %d/%g loops=%v, want %s %d/%g loops=%v", sp.Name, i, c.Name, c.Frames, c.FPS, c.Loops, w.name, w.frames, w.fps, w.loops)
			}
			if c.Markers != markersFor(c.Name) {
				t.Errorf("%s %s: markers %v, want %v", sp.Name, c.Name, c.Markers, markersFor(c.Name))
			}
			if c.Pose == nil {
				t.Errorf("%s %s: no Pose", sp.Name, c.Name)
			}
			if frameCount(c) != c.Frames {
				t.Errorf("%s %s: duration %.4f s gives %d frames at %g fps, not %d", sp.Name, c.Name, c.Duration(), frameCount(c), c.FPS, c.Frames)
			}
		}
		if total != 730 {
			t.Errorf("%s: %d frames in all, want 730", sp.Name, total)
		}
		walk, run := sp.Clips[5], sp.Clips[6]
		if walk.GroundSpeed != 1.4 || walk.Cycle != 0.92 || run.GroundSpeed != 3.8 || run.Cycle != 0.56 {
			t.Errorf("%s: walk %g m/s %g s, run %g m/s %g s", sp.Name, walk.GroundSpeed, walk.Cycle, run.GroundSpeed, run.Cycle)
		}
		for i := range sp.Clips {
			if c := &sp.Clips[i]; i != 5 && i != 6 && (c.GroundSpeed != 0 || c.Cycle != 0) {
				t.Errorf("%s %s: speed %g cycle %g for an in-place clip", sp.Name, c.Name, c.GroundSpeed, c.Cycle)
			}
		}
	}
}

// Every Pose writes every bone's full local transform: finite, unit rotation,
// unit scale, whatever the slice held before.
func TestPoseWritesEveryBone(t *testing.T) {
	nan := math.NaN()
	for _, sp := range All() {
		for i := range sp.Clips {
			c := &sp.Clips[i]
			for _, ph := range []float64{0, 0.13, 0.5, 0.77, 1} {
				pose := make([]rig.Transform, sp.Skeleton.Len())
				for j := range pose {
					pose[j] = rig.Transform{Translation: vec{nan, nan, nan}, Rotation: rig.Quat{nan, nan, nan, nan}, Scale: vec{nan, 2, 3}}
				}
				c.Pose(ph, pose)
				for j, tr := range pose {
					if !tr.IsFinite() || math.Abs(tr.Rotation.Len()-1) > 1e-9 || tr.Scale != (vec{1, 1, 1}) {
						t.Fatalf("%s %s phase %g: bone %d transform %+v", sp.Name, c.Name, ph, j, tr)
					}
				}
				if j := Root; pose[j].Translation != (vec{}) || pose[j].Rotation != rig.IdentityQuat() {
					t.Errorf("%s %s phase %g: the root moves: %+v", sp.Name, c.Name, ph, pose[j])
				}
			}
		}
	}
}

// Poses are deterministic and safe to compute from many goroutines at once.
func TestPoseConcurrent(t *testing.T) {
	sp := Spear()
	const phases = 16
	want := make([][][]rig.Transform, len(sp.Clips))
	for i := range sp.Clips {
		for p := 0; p < phases; p++ {
			pose := sp.Skeleton.RestPose()
			sp.Clips[i].Pose(float64(p)/phases, pose)
			want[i] = append(want[i], pose)
		}
	}
	var wg sync.WaitGroup
	errs := make(chan string, 64)
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			pose := make([]rig.Transform, sp.Skeleton.Len())
			for rep := 0; rep < 4; rep++ {
				for i := range sp.Clips {
					p := (i + w + rep) % phases
					sp.Clips[i].Pose(float64(p)/phases, pose)
					for j := range pose {
						if pose[j] != want[i][p][j] {
							errs <- sp.Clips[i].Name
							return
						}
					}
				}
			}
		}(w)
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Errorf("%s: concurrent pose differs", e)
	}
	// A second build gives the same poses.
	again := Spear()
	for i := range again.Clips {
		pose := again.Skeleton.RestPose()
		again.Clips[i].Pose(0.3, pose)
		ref := sp.Skeleton.RestPose()
		sp.Clips[i].Pose(0.3, ref)
		for j := range pose {
			if pose[j] != ref[j] {
				t.Fatalf("%s: rebuilt species poses differently", again.Clips[i].Name)
			}
		}
	}
}

func TestMesh(t *testing.T) {
	for _, sp := range All() {
		m := sp.Mesh
		n := m.VertexCount()
		if tris := m.TriangleCount(); tris < 300 || tris > 5000 {
			t.Errorf("%s: %d triangles", sp.Name, tris)
		}
		if len(m.Normals) != n || len(m.UVs) != n || len(m.Joints) != n || len(m.Weights) != n || len(m.Roles) != n {
			t.Fatalf("%s: attribute counts differ", sp.Name)
		}
		roles := map[uint8]bool{}
		used := map[uint16]bool{}
		for v := 0; v < n; v++ {
			w := m.Weights[v]
			if s := float64(w[0] + w[1] + w[2] + w[3]); math.Abs(s-1) > 1e-6 {
				t.Fatalf("%s vertex %d: weights sum to %v", sp.Name, v, s)
			}
			for k := 0; k < 4; k++ {
				if int(m.Joints[v][k]) >= sp.Skeleton.Len() {
					t.Fatalf("%s vertex %d: joint %d", sp.Name, v, m.Joints[v][k])
				}
				if k > 0 && w[k] > w[k-1] {
					t.Fatalf("%s vertex %d: weights unsorted %v", sp.Name, v, w)
				}
				if w[k] > 0 {
					used[m.Joints[v][k]] = true
				}
			}
			nv := m.Normals[v]
			if l := math.Sqrt(float64(nv[0]*nv[0] + nv[1]*nv[1] + nv[2]*nv[2])); math.Abs(l-1) > 1e-4 {
				t.Fatalf("%s vertex %d: normal length %v", sp.Name, v, l)
			}
			roles[m.Roles[v]] = true
			p := m.Positions[v]
			if p[1] < -0.01 || p[1] > 1.8 || math.Abs(float64(p[0])) > 1 || math.Abs(float64(p[2])) > 0.35 {
				t.Fatalf("%s vertex %d at %v: outside the body", sp.Name, v, p)
			}
		}
		for _, i := range m.Indices {
			if int(i) >= n {
				t.Fatalf("%s: index %d of %d vertices", sp.Name, i, n)
			}
		}
		for b := 1; b < sp.Skeleton.Len(); b++ { // every bone but the root moves some skin
			if !used[uint16(b)] {
				t.Errorf("%s: no vertex follows %s", sp.Name, sp.Skeleton.Names[b])
			}
		}
		if len(roles) < 3 {
			t.Errorf("%s: only %d colour roles", sp.Name, len(roles))
		}
	}
}

// At the bind pose the palette times the inverse bind matrices is the identity,
// so skinning leaves the mesh where it was built.
func TestRestPoseSkinningIsIdentity(t *testing.T) {
	for _, sp := range All() {
		inv := sp.InverseBind()
		rest := sp.Skeleton.RestModelSpace()
		id := rig.IdentityMat4()
		for b := range rest {
			s := rest[b].Mul(inv[b])
			for k := range s {
				if math.Abs(s[k]-id[k]) > 1e-12 {
					t.Fatalf("%s bone %d: palette × inverse bind = %v", sp.Name, b, s)
				}
			}
		}
		// And the pose the clips start from is the rest pose's skeleton.
		pose := sp.Skeleton.RestPose()
		out := make([]rig.Mat4, len(pose))
		sp.Skeleton.ModelSpace(pose, out)
		for b := range out {
			if out[b] != rest[b] {
				t.Fatalf("%s: rest pose model space differs at bone %d", sp.Name, b)
			}
		}
	}
}
