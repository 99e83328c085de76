package gltfbake

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/bonebake/bonebake/bake"
	"github.com/bonebake/bonebake/formats/bpat"
	"github.com/bonebake/bonebake/formats/gait"
	"github.com/bonebake/bonebake/internal/testfiles"
	"github.com/bonebake/bonebake/rig"
)

// contents bakes m's job.
func contents(t *testing.T, m *Model) *bpat.Contents {
	t.Helper()
	c, err := bake.Bake(m.Job)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// jumps returns, for each clip of m's bake, the largest distance a bone moves
// between two frames (the palettes' translations: each bone's joint in model
// space), as a fraction of the body's height at rest.
func jumps(t *testing.T, m *Model) []float64 {
	t.Helper()
	c, err := bake.Bake(m.Job)
	if err != nil {
		t.Fatal(err)
	}
	sk := m.Job.Rig.Skeleton
	bones := m.Job.Rig.PaletteBones()
	rest := sk.RestModelSpace()
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, b := range bones {
		lo, hi = math.Min(lo, rest[b][7]), math.Max(hi, rest[b][7])
	}
	out := make([]float64, len(c.Palettes))
	nb := len(bones)
	for i, p := range c.Palettes {
		frames := len(p) / (16 * nb)
		for f := 1; f < frames; f++ {
			for b := range nb {
				a, z := p[(f-1)*16*nb+16*b:], p[f*16*nb+16*b:]
				d := math.Sqrt(sq(float64(z[3]-a[3])) + sq(float64(z[7]-a[7])) + sq(float64(z[11]-a[11])))
				out[i] = math.Max(out[i], d/(hi-lo))
			}
		}
	}
	return out
}

// plantKept are the clips left as authored because their feet already stand
// still (confidence 0.8 or more) no worse than planted: Soldier's Run stands
// at 0.97 as authored and 0.94 planted, where planting only bends its legs to
// stand a little worse (it was planted before, at 4.319 m/s for 4.381).
var plantKept = map[string][]string{
	"threejs/Soldier.glb": {"Run"},
}

// TestPlantFeet: with Settings.PlantFeet, every real walk and run gets a
// ground speed at which its feet stay planted within 5 %, by both outside
// meters (the palette's lowest leaves, slip; the mesh's soles, soleMeter),
// with a confidence of 0.8 or more, measured on the planted clip, says it was
// planted (but for those of plantKept, left as authored, byte for byte, with
// a note saying their feet already stand still), and no bone jumps between two frames much further than in the
// animation as authored (a knee that flips, a pin that pops). Without foot
// locking the Fox's, CesiumMan's and the robot's clips fail it (confidence
// 0.36 to 0.79, no speed for the Fox's Run); before contacts were shortened
// to the legs' reach the Fox's Run was left as authored (planted, confidence
// 0.77), and before the soles were skinned with their weights the robot's
// Running slid 5.1 % by its soles. a_biped_walk.bvh, whose feet are as low in
// their swing as in their stance, was left as authored (planted, confidence
// 0.00) before its contacts were found along the runs in which its feet move
// back under the body and its feet's back measured against its root's travel.
func TestPlantFeet(t *testing.T) {
	for _, g := range realGaits {
		t.Run(strings.ReplaceAll(g.model, "/", "_"), func(t *testing.T) {
			m, authored := g.load(t, true), g.load(t, false)
			short := false
			for _, n := range m.Notes {
				if strings.HasPrefix(n, "plant feet") {
					t.Log(n)
					short = short || strings.Contains(n, "falls short")
				}
			}
			// The Fox's front legs cannot reach every pin: the bake says so.
			if g.model == "Fox.glb" && !short {
				t.Errorf("%s: no note says which feet fall short of their pins: %q", g.model, m.Notes)
			}
			var so *soles
			if g.kind == "" { // a BVH file has no mesh, so no soles
				so = findSoles(t, m)
			}
			f := m.Gaits("x.bpat")
			jp, ja := jumps(t, m), jumps(t, authored)
			pm, pa := contents(t, m), contents(t, authored)
			for i, c := range f.Clips {
				kept := slices.Contains(plantKept[g.model], c.Name)
				if kept {
					note := "plant feet: clip " + c.Name + ": left as authored: its feet already stand still"
					if c.Planted || !slices.ContainsFunc(m.Notes, func(n string) bool { return strings.HasPrefix(n, note) }) ||
						!slices.Equal(pm.Palettes[i], pa.Palettes[i]) || !strings.HasSuffix(m.GaitLine(c), "; feet left as authored") {
						t.Errorf("%s: planted %v, notes %q, gait line %q: want it left as authored (its palettes the authored ones), its feet already standing",
							c.Name, c.Planted, m.Notes, m.GaitLine(c))
					}
				}
				if jp[i] > 1.25*ja[i]+0.005 {
					t.Errorf("%s: a bone jumps %.3g·H between two frames, %.3g·H as authored", c.Name, jp[i], ja[i])
				}
				if !slices.Contains(g.walking, c.Name) {
					continue
				}
				_, dur := m.Job.Span(&m.Job.Clips[i])
				r := slip(m, i, c)
				t.Logf("%s: %.4g m/s, confidence %.2f, planted %v; jump %.3g·H (authored %.3g·H); leaves: %d stances, worst %.1f%% (%s)",
					c.Name, c.GroundSpeed, c.Confidence, c.Planted, jp[i], ja[i], r.stances, 100*r.worst, r.where)
				if !c.Planted && !kept || c.GroundSpeed == 0 {
					t.Errorf("%s: %+v: want planted, with a speed", c.Name, c)
				}
				if c.Confidence < 0.8 || c.Reason != "" {
					t.Errorf("%s: %+v: want a confidence of 0.8 or more without a remark", c.Name, c)
				}
				if r.stances == 0 || r.worst > 0.05 {
					t.Errorf("%s: at %.4g m/s a foot drifts %.1f%% of the travel in its stance (%s)", c.Name, c.GroundSpeed, 100*r.worst, r.where)
				}
				if so == nil {
					continue
				}
				sr := so.meter(i).at(c.Stride / dur)
				t.Logf("%s: soles: %d stances covering %.0f%% of their contact, drift %.1f%% in all, worst %.1f%% (%s)",
					c.Name, sr.stances, 100*sr.covered, 100*sr.agg, 100*sr.worst, sr.where)
				if sr.stances == 0 || sr.agg > 0.05 || sr.worst > 0.05 {
					t.Errorf("%s: at %.4g m/s the soles drift %.1f%% in all, %.1f%% in the worst stance (%s): want within 5 %%",
						c.Name, c.GroundSpeed, 100*sr.agg, 100*sr.worst, sr.where)
				}
			}
		})
	}
}

// TestPlantFeetManifest: plant_feet in a manifest plants the clips it names and
// only those (the model's default, then each clip's own), and the gait line of
// a clip that slides without it hints the setting.
func TestPlantFeetManifest(t *testing.T) {
	fox := testfiles.Path(t, "gltf", "Fox.glb")
	dir := t.TempDir()
	man := dir + "/fox.yaml"
	writeFile(t, man, "scale: 0.01\nplant_feet: true\nclips:\n  - {name: Walk}\n  - {name: Run, plant_feet: false}\n")
	mf, err := ReadManifest(man)
	if err != nil {
		t.Fatal(err)
	}
	m, err := Load(fox, Settings{Manifest: mf})
	if err != nil {
		t.Fatal(err)
	}
	f := m.Gaits("x.bpat")
	want := map[string]bool{"Walk": true, "Run": false}
	for _, c := range f.Clips {
		if c.Planted != want[c.Name] {
			t.Errorf("%s: planted %v, want %v", c.Name, c.Planted, want[c.Name])
		}
		line := GaitLine(c)
		if hint := strings.Contains(line, "Settings.PlantFeet"); hint == c.Planted {
			t.Errorf("%s (planted %v, confidence %.2f): %q: want the hint exactly when not planted", c.Name, c.Planted, c.Confidence, line)
		}
	}
}

// kneeSteps returns, for each foot of m's gait rig, the largest change between
// two frames of clip i of the bake c of the angle at the foot's grandparent
// (a humanoid's knee: toe → foot → knee), in degrees, from the palettes'
// joint positions.
func kneeSteps(m *Model, c *bpat.Contents, i int) []float64 {
	sk := m.Job.Rig.Skeleton
	at := map[int]int{}
	for k, b := range m.Job.Rig.PaletteBones() {
		at[b] = k
	}
	nb := c.BoneCount
	p := c.Palettes[i]
	joint := func(f, b int) [3]float64 {
		q := p[(f*nb+at[b])*16:]
		return [3]float64{float64(q[3]), float64(q[7]), float64(q[11])}
	}
	angle := func(f, a, k, e int) float64 {
		h, kn, an := joint(f, a), joint(f, k), joint(f, e)
		var u, v [3]float64
		for x := range 3 {
			u[x], v[x] = h[x]-kn[x], an[x]-kn[x]
		}
		dot := (u[0]*v[0] + u[1]*v[1] + u[2]*v[2]) / math.Sqrt((u[0]*u[0]+u[1]*u[1]+u[2]*u[2])*(v[0]*v[0]+v[1]*v[1]+v[2]*v[2]))
		return math.Acos(math.Max(-1, math.Min(1, dot))) * 180 / math.Pi
	}
	var out []float64
	for _, foot := range m.gaitRig.Feet {
		e := sk.Parents[foot]
		k := sk.Parents[e]
		a := sk.Parents[k]
		worst := 0.0
		for f := 1; f < len(p)/(16*nb); f++ {
			worst = math.Max(worst, math.Abs(angle(f, a, k, e)-angle(f-1, a, k, e)))
		}
		out = append(out, worst)
	}
	return out
}

// TestPlantFeetKneesDoNotSnap: planted, a humanoid's knee turns between two
// frames at most a quarter (and a degree) more than it does as authored. Two-bone
// IK alone snaps a knee straight when its pin moves a few millimetres near the
// leg's reach, and back (ybot's walking: 156° to 180° in a frame where the
// animation turns it 14.6° at most; CesiumMan 25.5° against 16.6°, the
// Soldier's Walk 25.5° against 17.3°); softReach eases it. Fails without it.
func TestPlantFeetKneesDoNotSnap(t *testing.T) {
	for _, g := range realGaits {
		if g.kind != "" || g.model == "Fox.glb" || g.model == "threejs/RobotExpressive.glb" { // no knee above a foot's parent
			continue
		}
		m, authored := g.load(t, true), g.load(t, false)
		cp, ca := contents(t, m), contents(t, authored)
		for i, c := range m.Job.Clips {
			if !slices.Contains(g.walking, c.Name) {
				continue
			}
			sp, sa := kneeSteps(m, cp, i), kneeSteps(authored, ca, i)
			for f := range sp {
				t.Logf("%s %s: knee above %s turns %.1f° a frame at most planted, %.1f° as authored", g.model, c.Name, m.Job.Rig.Skeleton.Names[m.gaitRig.Feet[f]], sp[f], sa[f])
				if sp[f] > 1.25*sa[f]+1 {
					t.Errorf("%s %s: the knee above %s turns %.1f° between two frames, %.1f° as authored", g.model, c.Name, m.Job.Rig.Skeleton.Names[m.gaitRig.Feet[f]], sp[f], sa[f])
				}
			}
		}
	}
}

// bodyRoot returns the palette bone nearest above every contact leaf of m (the
// palette's leaves within 0.04·H of the lowest at rest, as slip takes them):
// the body's hips, or the rig's root above the legs; and H, the rest height of
// the palette's joints.
func bodyRoot(m *Model) (int, float64) {
	sk := m.Job.Rig.Skeleton
	bones := m.Job.Rig.PaletteBones()
	rest := sk.RestModelSpace()
	inPalette := map[int]bool{}
	for _, b := range bones {
		inPalette[b] = true
	}
	leaf := map[int]bool{}
	for _, b := range bones {
		leaf[b] = true
	}
	for _, b := range bones {
		for p := sk.Parents[b]; p >= 0; p = sk.Parents[p] {
			leaf[p] = false
		}
	}
	lo, hi, ground := math.Inf(1), math.Inf(-1), math.Inf(1)
	for _, b := range bones {
		lo, hi = math.Min(lo, rest[b][7]), math.Max(hi, rest[b][7])
		if leaf[b] {
			ground = math.Min(ground, rest[b][7])
		}
	}
	var feet []int
	for _, b := range bones {
		if leaf[b] && rest[b][7] <= ground+0.04*(hi-lo) {
			feet = append(feet, b)
		}
	}
	above := func(a, b int) bool { // a is b or an ancestor of it
		for ; b >= 0; b = sk.Parents[b] {
			if b == a {
				return true
			}
		}
		return false
	}
	for r := sk.Parents[feet[0]]; r >= 0; r = sk.Parents[r] {
		if inPalette[r] && !slices.ContainsFunc(feet, func(f int) bool { return !above(r, f) }) {
			return r, hi - lo
		}
	}
	return -1, hi - lo
}

// rootSteps returns, for clip i of the bake c of m, the largest change of the
// body root's height (bodyRoot) between two frames, and of that change between
// two frames (its vertical acceleration, per frame squared), as fractions of H.
func rootSteps(m *Model, c *bpat.Contents, i int) (step, accel float64) {
	b, H := bodyRoot(m)
	at := slices.Index(m.Job.Rig.PaletteBones(), b)
	nb := c.BoneCount
	p := c.Palettes[i]
	frames := len(p) / (16 * nb)
	y := func(f int) float64 { return float64(p[(f*nb+at)*16+7]) }
	for f := 1; f < frames; f++ {
		step = math.Max(step, math.Abs(y(f)-y(f-1))/H)
		if f > 1 {
			accel = math.Max(accel, math.Abs(y(f)-2*y(f-1)+y(f-2))/H)
		}
	}
	return step, accel
}

// TestPlantFeetRootSmooth: where planting lowers the body so that a leg
// reaches its pin, the body's root (bodyRoot, found from the palette alone)
// moves up or down between two frames at most 0.01·H more than as authored,
// and its vertical acceleration grows by at most 0.005·H per frame squared: a
// drop of at most 0.05·H (stride.RootDrop) spread over half the clip each way
// by a smoothstep moves a one-second clip at 30 fps by 0.005·H a frame at
// most. Lowered by each sample's own drop instead (not spread), the Fox's
// Walk and Run move 0.053·H and 0.070·H in a frame (0.012·H and 0.032·H as
// authored) and CesiumMan's 0.016·H (0.009·H), and fail it.
func TestPlantFeetRootSmooth(t *testing.T) {
	for _, g := range realGaits {
		m, authored := g.load(t, true), g.load(t, false)
		cp, ca := contents(t, m), contents(t, authored)
		for i, c := range m.Job.Clips {
			if !slices.Contains(g.walking, c.Name) {
				continue
			}
			sp, ap := rootSteps(m, cp, i)
			sa, aa := rootSteps(authored, ca, i)
			b, _ := bodyRoot(m)
			t.Logf("%s %s: %s moves %.4f·H a frame at most planted, %.4f·H as authored; accelerates %.4f·H against %.4f·H", g.model, c.Name, m.Job.Rig.Skeleton.Names[b], sp, sa, ap, aa)
			if sp > sa+0.01 || ap > aa+0.005 {
				t.Errorf("%s %s: the body's root moves %.4f·H between two frames (authored %.4f·H), accelerates %.4f·H (authored %.4f·H)", g.model, c.Name, sp, sa, ap, aa)
			}
		}
	}
}

// TestPlantFeetWholeStance: a_biped_walk.bvh's feet, as low in mid-swing as in
// mid-stance, are planted for their whole stance, not only where they are
// lowest. Its file sweeps each thigh back from +30° to −30° over half a
// cycle (0.5 s), its shin straight for the first half of that, so each foot
// bears the body for about 40 % of the cycle at least; planted, each foot's
// joint stands still in the world (slower than a quarter of the root's
// speed: this is root motion, the world is the model's space) that long.
// With its contacts found by height alone (docs/formats/gait.md §7, step 2),
// pinned only where it is lowest, foot.R stood still 19 % of the cycle; left
// as authored, 12 %.
func TestPlantFeetWholeStance(t *testing.T) {
	m, err := Load(testfiles.Path(t, "bvh", "a_biped_walk.bvh"), Settings{PlantFeet: true})
	if err != nil {
		t.Fatal(err)
	}
	c := &m.Job.Clips[0]
	start, dur := m.Job.Span(c)
	sk := m.Job.Rig.Skeleton
	s := m.Job.Motions[c.Motion].NewSampler()
	n := int(math.Ceil(dur * 240))
	dt := dur / float64(n)
	pose, g := sk.RestPose(), make([]rig.Mat4, sk.Len())
	feet := []int{sk.Index("foot.L"), sk.Index("foot.R")}
	pos := make([][2]rig.Vec3, n+1)
	var root [2]rig.Vec3
	for k := 0; k <= n; k++ {
		s.Sample(start+float64(k)*dt, pose)
		sk.ModelSpace(pose, g)
		for j, f := range feet {
			pos[k][j] = g[f].Translation()
		}
		if k == 0 || k == n {
			root[k/n] = g[sk.Index("root")].Translation()
		}
	}
	v := math.Hypot(root[1][0]-root[0][0], root[1][2]-root[0][2]) / dur
	for j, f := range feet {
		still := 0
		for k := range n {
			d := pos[k+1][j].Sub(pos[k][j])
			if math.Hypot(d[0], d[2])/dt < 0.25*v {
				still++
			}
		}
		frac := float64(still) / float64(n)
		t.Logf("%s stands still %.0f%% of the cycle (the root travels %.3g m/s)", sk.Names[f], 100*frac, v)
		if frac < 0.35 {
			t.Errorf("%s stands still in the world %.0f%% of the cycle: want its stance, about 40%% or more", sk.Names[f], 100*frac)
		}
	}
}

// TestPlantFeetBindPose: a model whose rest pose is not the pose its mesh
// stands in (Blender writes an FBX's bones as the scene stands at its
// current frame, the bind pose only in the skin's clusters) has its feet
// found, and its soles given to them, where the mesh stands, and planted keeps
// them within 5 % by both outside meters. Found at rest, fox.zup.fbx (its rest
// the Walk's first frame, a front paw lifted) lost that paw from its feet
// (three of four, its soles drifting 44 % planted at confidence 0.95), and
// the soles of cesiumman.xbones.fbx's walk, given to the feet nearest where
// the rest pose puts them, drifted 6.6 % (fox.default.fbx's Run 33 %, measured
// from its _end bones then: TestFeetNotEndBones).
func TestPlantFeetBindPose(t *testing.T) {
	for _, k := range []struct {
		file, clip string
		feet       int
	}{
		{"fox.zup.fbx", "root|Walk_root", 4},
		{"cesiumman.xbones.fbx", "Armature|Anim_0_Armature", 2},
	} {
		t.Run(k.file, func(t *testing.T) {
			m, err := Load(testfiles.Path(t, "fbx", k.file), Settings{PlantFeet: true})
			if err != nil {
				t.Fatal(err)
			}
			f := m.Gaits("x.bpat")
			if len(f.Feet) != k.feet {
				t.Errorf("feet %q: want %d", f.Feet, k.feet)
			}
			i := slices.IndexFunc(f.Clips, func(c gait.Clip) bool { return c.Name == k.clip })
			if i < 0 {
				t.Fatalf("no clip %q", k.clip)
			}
			c := f.Clips[i]
			_, dur := m.Job.Span(&m.Job.Clips[i])
			r := slip(m, i, c)
			sr := findSoles(t, m).meter(i).at(c.Stride / dur)
			t.Logf("%s: %.4g units/s, confidence %.2f; leaves: %d stances, worst %.1f%% (%s); soles: %d stances, %.1f%% in all, worst %.1f%% (%s)",
				c.Name, c.GroundSpeed, c.Confidence, r.stances, 100*r.worst, r.where, sr.stances, 100*sr.agg, 100*sr.worst, sr.where)
			if !c.Planted || c.Confidence < 0.8 {
				t.Errorf("%+v: want planted, at a confidence of 0.8 or more", c)
			}
			if r.stances == 0 || r.worst > 0.05 {
				t.Errorf("leaves: %d stances, worst %.1f%%: want within 5 %%", r.stances, 100*r.worst)
			}
			if sr.stances == 0 || sr.agg > 0.05 || sr.worst > 0.05 {
				t.Errorf("soles: %d stances, %.1f%% in all, worst %.1f%%: want within 5 %%", sr.stances, 100*sr.agg, 100*sr.worst)
			}
		})
	}
}

// TestPlantFeetBriefTouch: a touch too brief to pin as authored that lasts
// long enough planted is stepped over, not left to slide. The Fox's Run as
// Blender samples it ends a frame short (1.125 s of its 1.158: the
// fox.default.fbx variant's), and planted, its right front paw's second touch
// (under 3 % of the clip as authored, 3.7 % planted) slid 87 % of the travel: the
// clip was left as authored, with no speed. Cut so by a manifest, Fox.glb's
// Run is planted with a confidence of 0.8 or more, and both outside meters
// keep its feet within 5 %, no bone jumping much further than as authored.
func TestPlantFeetBriefTouch(t *testing.T) {
	man := t.TempDir() + "/fox.yaml"
	writeFile(t, man, "scale: 0.01\nclips:\n  - {name: Run, end: 1.125}\n")
	mf, err := ReadManifest(man)
	if err != nil {
		t.Fatal(err)
	}
	fox := testfiles.Path(t, "gltf", "Fox.glb")
	m, err := Load(fox, Settings{Manifest: mf, PlantFeet: true})
	if err != nil {
		t.Fatal(err)
	}
	authored, err := Load(fox, Settings{Manifest: mf})
	if err != nil {
		t.Fatal(err)
	}
	c := m.Gaits("x.bpat").Clips[0]
	_, dur := m.Job.Span(&m.Job.Clips[0])
	r := slip(m, 0, c)
	sr := findSoles(t, m).meter(0).at(c.Stride / dur)
	jp, ja := jumps(t, m)[0], jumps(t, authored)[0]
	t.Logf("%s (%.4g s): %.4g m/s, confidence %.2f; leaves: %d stances, worst %.1f%% (%s); soles: %d stances, %.1f%% in all, worst %.1f%% (%s); jump %.3g·H (authored %.3g·H)",
		c.Name, dur, c.GroundSpeed, c.Confidence, r.stances, 100*r.worst, r.where, sr.stances, 100*sr.agg, 100*sr.worst, sr.where, jp, ja)
	if !c.Planted || c.Confidence < 0.8 || c.Reason != "" {
		t.Errorf("%+v: want planted, at a confidence of 0.8 or more", c)
	}
	if r.stances == 0 || r.worst > 0.05 {
		t.Errorf("leaves: %d stances, worst %.1f%%: want within 5 %%", r.stances, 100*r.worst)
	}
	if sr.stances == 0 || sr.agg > 0.05 || sr.worst > 0.05 {
		t.Errorf("soles: %d stances, %.1f%% in all, worst %.1f%%: want within 5 %%", sr.stances, 100*sr.agg, 100*sr.worst)
	}
	if jp > 1.25*ja+0.005 {
		t.Errorf("a bone jumps %.3g·H between two frames, %.3g·H as authored", jp, ja)
	}
}
