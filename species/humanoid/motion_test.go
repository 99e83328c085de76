package humanoid

import (
	"math"
	"strings"
	"testing"

	"github.com/bonebake/bonebake/rig"
	"github.com/bonebake/bonebake/species"
)

// The motion tests bake every clip themselves, sampled as docs/formats/bpat.md
// says (sampling), and measure the model-space result.

// baked is one clip sampled at the frame times of docs/formats/bpat.md
// (sampling): model-space matrices per frame, and each frame's phase.
type baked struct {
	clip   *species.Clip
	phases []float64
	frames [][]rig.Mat4
}

// bakeClip samples a clip the way the baker does: looping frames at phase f/N,
// one-shot frames at f/(N−1), a single frame at 0.
func bakeClip(sp *species.Creature, c *species.Clip) *baked {
	n := c.Frames
	out := &baked{clip: c}
	pose := make([]rig.Transform, sp.Skeleton.Len())
	for f := 0; f < n; f++ {
		var ph float64
		switch {
		case n == 1:
		case c.Loops:
			ph = float64(f) / float64(n)
		default:
			ph = float64(f) / float64(n-1)
		}
		copy(pose, sp.Skeleton.Rest)
		c.Pose(ph, pose)
		m := make([]rig.Mat4, sp.Skeleton.Len())
		sp.Skeleton.ModelSpace(pose, m)
		out.phases = append(out.phases, ph)
		out.frames = append(out.frames, m)
	}
	return out
}

func (k *baked) pos(f, bone int) vec { return k.frames[f][bone].Translation() }

// profiles is every humanoid species with its body.
func profiles() []struct {
	sp *species.Creature
	b  *body
} {
	var out []struct {
		sp *species.Creature
		b  *body
	}
	for _, p := range []Profile{HumanoidProfile(), SwordProfile(), SpearProfile(), SkeletonProfile()} {
		out = append(out, struct {
			sp *species.Creature
			b  *body
		}{New(p), newBody(p)})
	}
	return out
}

// footSlide measures the worst slide of a planted ankle in world space (model
// position + Speed·t·ẑ with t = phase·Cycle) over every stance, a stance being the
// frames where the ankle is within 1 mm of its lowest height in the clip. It also
// returns the number of planted frames.
func footSlide(k *baked, foot int) (worst float64, planted int) {
	n := len(k.frames)
	c := k.clip
	minY := math.Inf(1)
	for f := 0; f < n; f++ {
		minY = math.Min(minY, k.pos(f, foot)[1])
	}
	down := make([]bool, n)
	for f := 0; f < n; f++ {
		if down[f] = k.pos(f, foot)[1] < minY+0.001; down[f] {
			planted++
		}
	}
	world := func(f int, lap float64) vec {
		p := k.pos(f, foot)
		p[2] += c.GroundSpeed * (k.phases[f] + lap) * c.Cycle
		return p
	}
	for f := 0; f < n; f++ {
		if !down[f] || down[(f+n-1)%n] {
			continue // not the first frame of a stance
		}
		start := world(f, 0)
		for i := 1; i < n && down[(f+i)%n]; i++ {
			g, lap := f+i, 0.0
			if g >= n {
				g, lap = g-n, 1
			}
			worst = math.Max(worst, world(g, lap).Sub(start).Len())
		}
	}
	return worst, planted
}

// lowest is the height of the lower of the ball and heel of a foot at frame f.
func lowest(b *body, k *baked, f, foot int) float64 {
	ball := k.frames[f][foot].TransformPoint(b.ball)
	heel := k.frames[f][foot].TransformPoint(b.heel)
	return math.Min(ball[1], heel[1])
}

func TestFootSlide(t *testing.T) {
	for _, pb := range profiles() {
		for _, name := range []string{"walk", "run"} {
			c := &pb.sp.Clips[pb.sp.ClipIndex(name)]
			k := bakeClip(pb.sp, c)
			for _, foot := range []int{FootL, FootR} {
				slide, planted := footSlide(k, foot)
				if planted < 4 {
					t.Errorf("%s %s %s: only %d planted frames", pb.sp.Name, name, boneNames[foot], planted)
				}
				if slide >= 0.01 {
					t.Errorf("%s %s %s: planted foot slides %.4f m", pb.sp.Name, name, boneNames[foot], slide)
				}
			}
		}
	}
}

// The ball of the foot stays put while the heel rises: from the end of the flat
// stance to toe-off, the ball slides less than 1 cm in world space.
func TestBallPlantedDuringHeelRise(t *testing.T) {
	for _, pb := range profiles() {
		for _, g := range []*gait{&pb.b.walk, &pb.b.run} {
			var start vec
			worst := 0.0
			const n = 40
			for i := 0; i <= n; i++ {
				q := g.flat + g.heelRise*float64(i)/n
				fp := pb.b.footOnPath(g, q, left)
				ball := fp.Pos.Add(rotX(pb.b.ball, fp.Pitch))
				ball[2] += g.stride * q
				if i == 0 {
					start = ball
				}
				worst = math.Max(worst, ball.Sub(start).Len())
			}
			if worst > 0.01 {
				t.Errorf("%s speed %.1f: ball slides %.4f m during heel rise", pb.sp.Name, g.speed, worst)
			}
		}
	}
}

func TestFlightPhase(t *testing.T) {
	for _, pb := range profiles() {
		for _, name := range []string{"walk", "run"} {
			k := bakeClip(pb.sp, &pb.sp.Clips[pb.sp.ClipIndex(name)])
			flight, support := 0, math.Inf(1)
			for f := range k.frames {
				l, r := lowest(pb.b, k, f, FootL), lowest(pb.b, k, f, FootR)
				if math.Min(l, r) > 0.015 {
					flight++
				}
				support = math.Min(support, math.Min(l, r))
			}
			switch {
			case name == "walk" && flight > 0:
				t.Errorf("%s walk: %d frames with both feet off the ground", pb.sp.Name, flight)
			case name == "run" && flight < 2:
				t.Errorf("%s run: %d flight frames, want a flight phase", pb.sp.Name, flight)
			}
			if support < -0.005 {
				t.Errorf("%s %s: a foot goes %.3f m into the ground", pb.sp.Name, name, -support)
			}
		}
	}
}

// Walk and run: the arms swing against the legs, the pelvis bobs, the head stays
// steady, and the run leans further forward and steps faster.
func TestLocomotionRealism(t *testing.T) {
	for _, pb := range profiles() {
		lean := map[string]float64{}
		for _, name := range []string{"walk", "run"} {
			k := bakeClip(pb.sp, &pb.sp.Clips[pb.sp.ClipIndex(name)])
			var corr float64
			minY, maxY := math.Inf(1), math.Inf(-1)
			headTilt := 0.0
			for f := range k.frames {
				// left hand forward while the right foot is forward
				lh := k.pos(f, HandL)[2] - k.pos(f, Chest)[2]
				rf := k.pos(f, FootR)[2] - k.pos(f, Pelvis)[2]
				corr += lh * rf
				y := k.pos(f, Pelvis)[1]
				minY, maxY = math.Min(minY, y), math.Max(maxY, y)
				up := k.frames[f][Head].TransformVector(vec{0, 1, 0})
				headTilt = math.Max(headTilt, math.Abs(math.Atan2(up[0], up[1])))
				chestUp := k.frames[f][Chest].TransformVector(vec{0, 1, 0})
				lean[name] += math.Atan2(chestUp[2], chestUp[1]) / float64(len(k.frames))
			}
			if corr <= 0 {
				t.Errorf("%s %s: the arms do not swing against the legs", pb.sp.Name, name)
			}
			if bob := maxY - minY; bob < 0.01 || bob > 0.12 {
				t.Errorf("%s %s: pelvis bob %.3f m", pb.sp.Name, name, bob)
			}
			if headTilt > 0.05 {
				t.Errorf("%s %s: head rolls %.3f rad", pb.sp.Name, name, headTilt)
			}
		}
		if lean["run"] <= lean["walk"]+0.05 {
			t.Errorf("%s: run leans %.3f rad, walk %.3f", pb.sp.Name, lean["run"], lean["walk"])
		}
		w, r := &pb.sp.Clips[pb.sp.ClipIndex("walk")], &pb.sp.Clips[pb.sp.ClipIndex("run")]
		if r.Cycle >= w.Cycle {
			t.Errorf("%s: run cycle %.2f s is not shorter than walk %.2f s", pb.sp.Name, r.Cycle, w.Cycle)
		}
	}
}

func TestLoopSeams(t *testing.T) {
	for _, pb := range profiles() {
		for i := range pb.sp.Clips {
			c := &pb.sp.Clips[i]
			if !c.Loops || c.Frames < 2 {
				continue
			}
			k := bakeClip(pb.sp, c)
			wrap, step := seam(k)
			if wrap > 1.5*step+1e-9 {
				t.Errorf("%s %s: seam %.4f m, largest step %.4f m", pb.sp.Name, c.Name, wrap, step)
			}
			// Pose(1) is Pose(0).
			a, b := sp2pose(pb.sp, c, 0), sp2pose(pb.sp, c, 1)
			for j := range a {
				if d := a[j].Translation().Sub(b[j].Translation()).Len(); d > 1e-9 {
					t.Errorf("%s %s: bone %d at phase 1 is %.2e m from phase 0", pb.sp.Name, c.Name, j, d)
					break
				}
			}
		}
	}
}

// seam returns the largest joint jump from the last frame back to the first and
// the largest jump between consecutive frames.
func seam(k *baked) (wrap, step float64) {
	n := len(k.frames)
	jump := func(a, b int) float64 {
		m := 0.0
		for i := range k.frames[a] {
			m = math.Max(m, k.pos(a, i).Sub(k.pos(b, i)).Len())
		}
		return m
	}
	for f := 0; f+1 < n; f++ {
		step = math.Max(step, jump(f, f+1))
	}
	return jump(n-1, 0), step
}

func sp2pose(sp *species.Creature, c *species.Clip, phase float64) []rig.Mat4 {
	pose := sp.Skeleton.RestPose()
	c.Pose(phase, pose)
	m := make([]rig.Mat4, sp.Skeleton.Len())
	sp.Skeleton.ModelSpace(pose, m)
	return m
}

func TestDeathsEndOnGround(t *testing.T) {
	for _, pb := range profiles() {
		for _, name := range []string{"die_infantry", "dead_infantry", "die_mounted", "dead_mounted"} {
			k := bakeClip(pb.sp, &pb.sp.Clips[pb.sp.ClipIndex(name)])
			last := len(k.frames) - 1
			ground := 0.0
			if strings.HasSuffix(name, "mounted") { // the horse's ground, in the mount frame
				ground = MountSeat[1] - SeatHeight
			}
			for bn := range k.frames[last] {
				if bn == Root && ground != 0 { // the root stays at the origin (TestBoundingBox)
					continue
				}
				if y := k.pos(last, bn)[1] - ground; y > 0.35 || y < -0.05 {
					t.Errorf("%s %s: %s ends at height %.3f m", pb.sp.Name, name, boneNames[bn], y)
				}
			}
			if name == "die_mounted" {
				if y := k.pos(0, Pelvis)[1]; y < MountSeat[1] {
					t.Errorf("%s die_mounted starts with the pelvis at %.2f m, below the saddle", pb.sp.Name, y)
				}
			}
			if strings.HasPrefix(name, "die") { // the dead clip is the last pose of the death
				dead := bakeClip(pb.sp, &pb.sp.Clips[pb.sp.ClipIndex(strings.Replace(name, "die", "dead", 1))])
				for bn := range k.frames[last] {
					if d := k.pos(last, bn).Sub(dead.pos(0, bn)).Len(); d > 1e-9 {
						t.Errorf("%s %s: last frame differs from the dead pose by %.2e m at %s", pb.sp.Name, name, d, boneNames[bn])
						break
					}
				}
			}
		}
	}
}

// strikePoint is what strikes: the right hand, or for a two-handed spear the
// spear head 1.3 m along the right hand's grip (+z).
func strikePoint(sp *species.Creature, k *baked, f int) vec {
	if sp.Name == SpearProfile().Name {
		return k.frames[f][HandR].TransformPoint(vec{0, 0, 1.3})
	}
	return k.pos(f, HandR)
}

func TestStrikeTiming(t *testing.T) {
	for _, pb := range profiles() {
		for i := range pb.sp.Clips {
			c := &pb.sp.Clips[i]
			if c.Markers[2] < 0 {
				continue
			}
			k := bakeClip(pb.sp, c)
			release, hit := float64(c.Markers[1]), float64(c.Markers[2])
			// The striking (right) hand moves fastest between release and contact.
			best, peak := -1.0, 0.0
			for f := 0; f+1 < len(k.frames); f++ {
				v := k.pos(f+1, HandR).Sub(k.pos(f, HandR)).Len() / (k.phases[f+1] - k.phases[f])
				if v > best {
					best, peak = v, (k.phases[f]+k.phases[f+1])/2
				}
			}
			if peak < release-0.12 || peak > hit+0.12 {
				t.Errorf("%s %s: hand speed peaks at phase %.3f, want %.2f–%.2f ± .12", pb.sp.Name, c.Name, peak, release, hit)
			}
			if strings.Contains(c.Name, "bow") {
				continue
			}
			// The strike reaches furthest from the body near contact.
			far, at := -1.0, 0.0
			for f := range k.frames {
				d := strikePoint(pb.sp, k, f).Sub(k.pos(f, Chest))
				if r := math.Hypot(d[0], d[2]); r > far {
					far, at = r, k.phases[f]
				}
			}
			if math.Abs(at-hit) > 0.1 {
				t.Errorf("%s %s: furthest reach at phase %.3f, contact at %.2f", pb.sp.Name, c.Name, at, hit)
			}
		}
	}
}

// The bow arm is straight and the string hand at full draw just before release.
func TestBowDraw(t *testing.T) {
	for _, pb := range profiles() {
		for _, name := range []string{"attack_bow", "riding_bow_shot", "hold_bow"} {
			c := &pb.sp.Clips[pb.sp.ClipIndex(name)]
			ph := 0.54
			if c.Loops {
				ph = 0
			}
			m := sp2pose(pb.sp, c, ph)
			armLen := pb.b.upper + pb.b.fore
			if d := m[HandL].Translation().Sub(m[UpperArmL].Translation()).Len(); d < 0.97*armLen {
				t.Errorf("%s %s: bow arm reaches %.3f of %.3f m", pb.sp.Name, name, d, armLen)
			}
			draw := m[HandL].Translation().Sub(m[HandR].Translation()).Len()
			want := 0.5
			if name == "hold_bow" {
				want = 0.25
			}
			if draw < want {
				t.Errorf("%s %s: hands %.3f m apart, want a draw of at least %.2f m", pb.sp.Name, name, draw, want)
			}
		}
	}
}

// Every bone stays in a plausible box: on foot within 1.5 m of the origin
// horizontally and between the ground and 2.3 m; riding clips the same box
// raised to the seat of the mount frame; the mounted death from there to the
// horse's ground (MountSeat.y − SeatHeight in the mount frame).
func TestBoundingBox(t *testing.T) {
	for _, pb := range profiles() {
		for i := range pb.sp.Clips {
			c := &pb.sp.Clips[i]
			lo, hi := -0.05, 2.3
			switch {
			case strings.HasPrefix(c.Name, "riding"):
				lo, hi = MountSeat[1]-0.8, MountSeat[1]+1.2
			case strings.HasSuffix(c.Name, "mounted"):
				lo, hi = MountSeat[1]-SeatHeight-0.05, MountSeat[1]+1.2
			}
			k := bakeClip(pb.sp, c)
			for f := range k.frames {
				for bn := range k.frames[f] {
					p := k.pos(f, bn)
					if bn == Root { // the root stays on the ground under the horse
						if p != (vec{}) {
							t.Errorf("%s %s frame %d: root at %.3v, not the origin", pb.sp.Name, c.Name, f, p)
						}
						continue
					}
					if math.Abs(p[0]) >= 1.5 || math.Abs(p[2]) >= 1.5 || p[1] <= lo || p[1] >= hi {
						t.Errorf("%s %s frame %d: %s at %.3v outside the box", pb.sp.Name, c.Name, f, boneNames[bn], p)
					}
				}
			}
		}
	}
}

// Seated clips: the seat on the saddle, hips bent near a right angle, the knees
// apart round the horse.
func TestRidingSeat(t *testing.T) {
	for _, pb := range profiles() {
		for i := range pb.sp.Clips {
			c := &pb.sp.Clips[i]
			if !strings.HasPrefix(c.Name, "riding") {
				continue
			}
			k := bakeClip(pb.sp, c)
			for f := range k.frames {
				seat := k.pos(f, Pelvis)[1] - 0.13*pb.b.s
				if math.Abs(seat-MountSeat[1]) > 0.1 {
					t.Errorf("%s %s frame %d: seat at %.3f m", pb.sp.Name, c.Name, f, seat)
				}
				up := k.frames[f][Pelvis].TransformVector(vec{0, 1, 0}).Normalize()
				for _, s := range [2][2]int{{HipL, KneeL}, {HipR, KneeR}} {
					thigh := k.pos(f, s[1]).Sub(k.pos(f, s[0])).Normalize()
					flex := 180 - math.Acos(clamp(up.Dot(thigh), -1, 1))*180/math.Pi
					if flex < 60 || flex > 120 {
						t.Errorf("%s %s frame %d: hip flexion %.0f°", pb.sp.Name, c.Name, f, flex)
					}
					if math.Abs(k.pos(f, s[1])[0]) < 0.15 {
						t.Errorf("%s %s frame %d: knee at x %.3f, not round the horse", pb.sp.Name, c.Name, f, k.pos(f, s[1])[0])
					}
				}
			}
		}
	}
}

func TestIdleJumpLeavesTheGround(t *testing.T) {
	for _, pb := range profiles() {
		k := bakeClip(pb.sp, &pb.sp.Clips[pb.sp.ClipIndex("idle_jump")])
		air := 0.0
		for f := range k.frames {
			air = math.Max(air, math.Min(lowest(pb.b, k, f, FootL), lowest(pb.b, k, f, FootR)))
		}
		if air < 0.1 {
			t.Errorf("%s idle_jump: the feet rise only %.3f m", pb.sp.Name, air)
		}
		// It starts and ends standing.
		for _, f := range []int{0, len(k.frames) - 1} {
			if l := lowest(pb.b, k, f, FootL); math.Abs(l) > 0.01 {
				t.Errorf("%s idle_jump frame %d: foot at %.3f m", pb.sp.Name, f, l)
			}
		}
	}
}

// One-shot idles and attacks start and end in the same pose, so they chain.
func TestOneShotsReturn(t *testing.T) {
	for _, pb := range profiles() {
		for i := range pb.sp.Clips {
			c := &pb.sp.Clips[i]
			if c.Loops || strings.HasPrefix(c.Name, "die") || c.Name == "riding_bow_shot" || c.Name == "attack_bow" {
				continue
			}
			a, b := sp2pose(pb.sp, c, 0), sp2pose(pb.sp, c, 1)
			for j := range a {
				if d := a[j].Translation().Sub(b[j].Translation()).Len(); d > 1e-6 {
					t.Errorf("%s %s: %s ends %.3f m from where it started", pb.sp.Name, c.Name, boneNames[j], d)
					break
				}
			}
		}
	}
}

// The profiles differ: the skeleton has the shortest reach, and the three armed
// profiles hold different stances.
func TestProfilesDiffer(t *testing.T) {
	ps := profiles()
	reach := func(i int) float64 { return ps[i].b.upper + ps[i].b.fore }
	for i := 0; i < 3; i++ {
		if reach(3) >= reach(i) {
			t.Errorf("skeleton reach %.3f not shorter than %s's %.3f", reach(3), ps[i].sp.Name, reach(i))
		}
	}
	holds := make([][]rig.Mat4, 3)
	for i := range holds {
		holds[i] = sp2pose(ps[i].sp, &ps[i].sp.Clips[ps[i].sp.ClipIndex("hold")], 0)
	}
	for i := 0; i < 3; i++ {
		for j := i + 1; j < 3; j++ {
			if d := holds[i][HandR].Translation().Sub(holds[j][HandR].Translation()).Len(); d < 0.05 {
				t.Errorf("%s and %s hold their weapon hand %.3f m apart", ps[i].sp.Name, ps[j].sp.Name, d)
			}
		}
	}
}
