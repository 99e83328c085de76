package gltfbake

import (
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/bonebake/bonebake/bake"
	"github.com/bonebake/bonebake/formats/gait"
	"github.com/bonebake/bonebake/internal/words"
	"github.com/bonebake/bonebake/rig"
	"github.com/bonebake/bonebake/source/gltf"
	"github.com/bonebake/bonebake/stride"
)

// measure measures clip i of the job from its motion as it stands.
func (m *Model) measure(i int) stride.Result {
	j := m.Job
	c := &j.Clips[i]
	start, dur := j.Span(c)
	if res, ok := m.plantedAt[i]; ok {
		return res
	}
	if was, ok := m.loaded[i]; ok && was.motion == c.Motion {
		return was.res
	}
	return m.gaitRig.Measure(j.Motions[c.Motion].NewSampler(), start, dur, c.Cycle, c.Loops)
}

// measurement is a clip's measurement (Model.loaded) and the motion it played
// (its index in Job.Motions: planting or removing travel gives a clip another).
type measurement struct {
	motion int
	res    stride.Result
}

// plantFeet locks the feet of every clip that asks (Clip.PlantFeet) to the
// ground while they stand, at the clip's ground speed (the manifest's, or the
// one measured: docs/formats/gait.md §7); Gaits then measures the planted
// clip. A clip whose feet, planted, would still slide beyond a trusted speed's
// 5 %, or already stand still as authored no worse than planted, is left as
// authored. It returns what the user should be told: the feet
// that cannot reach where they are planted, or have no leg to bend, and the
// clips left as authored and why.
func (m *Model) plantFeet() []string {
	j := m.Job
	var notes []string
	for i := range j.Clips {
		c := &j.Clips[i]
		if !c.PlantFeet {
			continue
		}
		plan, res, after := m.tryPlant(i)
		if plan == nil {
			continue
		}
		// A clip whose feet already stand still as authored, no worse than
		// planted, is not bent to stand a little otherwise (Soldier's Run:
		// 0.97 as authored, 0.94 planted): it stays as authored.
		if res.Confidence >= stride.Trusted && res.Confidence >= after.Confidence {
			m.leaveAuthored(c.Name)
			notes = append(notes, fmt.Sprintf("plant feet: clip %s: left as authored: its feet already stand still (confidence %.2f; planted, %.2f)",
				c.Name, res.Confidence, after.Confidence))
			continue
		}
		// Planting that leaves the feet sliding beyond what a trusted speed
		// allows only bends the legs out of shape: the clip stays as
		// authored.
		if after.Confidence < stride.Trusted {
			m.leaveAuthored(c.Name)
			why := after.Reason
			if why == "" {
				why = res.Reason
			}
			if why != "" {
				why = ": " + why
			}
			notes = append(notes, fmt.Sprintf("plant feet: clip %s: left as authored: planted, its feet would still slide (confidence %.2f, under %.2g%s)%s",
				c.Name, after.Confidence, stride.Trusted, why, shortOf(plan.Notes)))
			continue
		}
		if m.plantedAt == nil {
			m.plantedAt = map[int]stride.Result{}
		}
		m.plantedAt[i] = after
		for _, n := range plan.Notes {
			notes = append(notes, fmt.Sprintf("plant feet: clip %s: %s", c.Name, n))
		}
		// A motion of its own: another clip may bake the same animation as it is.
		mo := j.Motions[c.Motion]
		inner := mo.NewSampler
		mo.NewSampler = func() bake.Sampler { return plan.Sampler(inner()) }
		j.Motions = append(j.Motions, mo)
		c.Motion = len(j.Motions) - 1
	}
	return notes
}

// leaveAuthored marks a clip that asked to be planted as left as authored
// (GaitLine says so).
func (m *Model) leaveAuthored(clip string) {
	if m.unplanted == nil {
		m.unplanted = map[string]bool{}
	}
	m.unplanted[clip] = true
}

// tryPlant plans clip i's feet locked to the ground (nil: none to lock) and
// returns the plan, the clip as loaded measured (res, kept for Gaits) and
// planted (after).
func (m *Model) tryPlant(i int) (plan *stride.Plan, res, after stride.Result) {
	j := m.Job
	c := &j.Clips[i]
	res = m.measure(i)
	if m.loaded == nil {
		m.loaded = map[int]measurement{}
	}
	m.loaded[i] = measurement{c.Motion, res}
	start, dur := j.Span(c)
	speed := 0.0 // per second of the clip's own time
	if c.GroundSpeed > 0 {
		cycle := c.Cycle
		if !(cycle > 0) {
			cycle = dur
		}
		speed = c.GroundSpeed * cycle / dur
	}
	mo := j.Motions[c.Motion]
	plan = m.gaitRig.Plan(mo.NewSampler(), start, dur, c.Loops, res, speed)
	if plan == nil {
		return nil, res, res
	}
	return plan, res, m.planted(plan, mo, dur, c)
}

// planted measures the clip a plan locked the feet of (mo played with them
// pinned): the speed a unit playing it travels at (per second of the clip) and
// how well its feet stand there. The soles stand still at the plan's speed; a
// foot's joint, which rolls with its sole (a heel lifting), stands still at
// the speed measured from the joints, and the two slip in opposite ways
// between them: the speed is where the worse of the two slips is least
// (bisected: the soles' slip falls and the joints' grows toward the plan's
// speed). Where the joints still slide over 5 % there (the Fox's paws roll
// several centimetres on their pads while it runs), the soles, which the plan
// holds and which are what is seen on the ground, are judged alone, at the
// plan's own speed.
func (m *Model) planted(plan *stride.Plan, mo bake.Motion, dur float64, c *bake.Clip) stride.Result {
	posed := plan.Posed() // once for every measurement below
	at := func(x float64) stride.Result { return posed.MeasureAt(c.Cycle, c.Loops, x) }
	planned := plan.Speed
	joints := posed.Measure(c.Cycle, c.Loops)
	if joints.Method != stride.MethodFeet || !(joints.FeetSpeed > 0) {
		return at(planned)
	}
	a, b := joints.FeetSpeed, planned
	for range 8 {
		x := (a + b) / 2
		if (1-at(x).Confidence)*stride.SlipPerConfidence < math.Abs(planned-x)/x {
			a = x
		} else {
			b = x
		}
	}
	res := at((a + b) / 2)
	if res.Confidence >= stride.Trusted {
		return res
	}
	slip, where, ok := plan.SoleSlip(plan.Sampler(mo.NewSampler()), planned)
	if !ok {
		return res
	}
	res = at(planned)
	res.Status, res.Stride, res.Speed = stride.StatusMeasured, planned*dur, planned*dur/res.Cycle
	res.Confidence, res.Reason = math.Max(0, 1-slip/stride.SlipPerConfidence), ""
	if res.Confidence < stride.Trusted {
		res.Reason = where
	}
	return res
}

// shortOf returns, after "; ", the note of a plan that says which feet fall
// short of their pins, or "".
func shortOf(notes []string) string {
	for _, n := range notes {
		if strings.Contains(n, "falls short") {
			return "; " + n
		}
	}
	return ""
}

// soles returns each foot's sole for foot locking (stride.Rig.Soles): the
// skinned vertices in the lowest 3 % of the mesh's height at rest, counted
// from the lowest vertex that follows a leg (legBones; a part of another
// limb hanging lower, as the hands of the three.js robot through Blender's
// glTF importer and exporter do 0.3 below its feet, is no sole), each given
// to the nearest foot (horizontally, at rest, or where the mesh stands when
// that is another pose: standing) within 0.3·H (a boot's toe
// reaches well ahead of the foot's joint), skinned as the mesh is (its joints
// and weights). A foot with no such vertex (a model without a mesh) has none,
// and is pinned by its joint.
func (m *Model) soles() [][]stride.Point {
	r := m.gaitRig
	out := make([][]stride.Point, len(r.Feet))
	mesh := m.GLTF.Mesh
	if mesh == nil || len(mesh.Positions) == 0 {
		return out
	}
	bones := m.Job.Rig.PaletteBones()
	leg := legBones(r)
	lo, hi, ground := math.Inf(1), math.Inf(-1), math.Inf(1)
	onLeg := make([]bool, len(mesh.Positions))
	for v, p := range mesh.Positions {
		lo, hi = math.Min(lo, float64(p[1])), math.Max(hi, float64(p[1]))
		for q, w := range mesh.Weights[v] {
			if j := int(mesh.Joints[v][q]); w > 0 && j < len(bones) && leg[bones[j]] {
				onLeg[v], ground = true, math.Min(ground, float64(p[1]))
			}
		}
	}
	rest := r.Stand
	seen := map[stride.Point]bool{}
	for v, p := range mesh.Positions {
		if !onLeg[v] || float64(p[1]) > ground+0.03*(hi-lo) {
			continue
		}
		foot, near := -1, 0.3*r.Height
		for i, f := range r.Feet {
			at := rest[f].Translation()
			if d := math.Hypot(float64(p[0])-at[0], float64(p[2])-at[2]); d < near {
				foot, near = i, d
			}
		}
		if foot < 0 {
			continue
		}
		pos := rig.Vec3{float64(p[0]), float64(p[1]), float64(p[2])}
		var pt stride.Point
		for q, w := range mesh.Weights[v] {
			j := int(mesh.Joints[v][q])
			if w > 0 && j < len(bones) && j < len(m.GLTF.InverseBind) {
				pt.Bone[q], pt.Weight[q], pt.Offset[q] = bones[j], float64(w), m.GLTF.InverseBind[j].TransformPoint(pos)
			}
		}
		if pt.Weight != [4]float64{} && !seen[pt] { // a vertex split at a seam is one point
			seen[pt] = true
			out[foot] = append(out[foot], pt)
		}
	}
	return out
}

// soleReach is the farthest, as a fraction of H, a foot's sole stands from
// the foot's joint at rest in a skeleton that stands in its mesh: a paw's
// wrist joint 0.12·H from its pads (the Fox's front feet), a toe's or an
// ankle's 0.04·H at most in the shared characters.
const soleReach = 0.3

// offMesh says why m's joints do not stand in its mesh, or "": a foot whose
// sole (soles) stands further than soleReach·H from its joint at rest turns
// its mesh about a point off it, and where the joints stand says nothing of
// where the feet seen touch the ground. The three.js robot through Blender's
// glTF importer and exporter stands its skeleton 2.37 units below its mesh
// (0.77·H from each foot's sole), and a foot lifted swings its mesh 3 units
// under the ground, as three.js draws it too.
func (m *Model) offMesh() string {
	r := m.gaitRig
	rest := r.Stand
	for i, sole := range r.Soles {
		at, near := rest[r.Feet[i]].Translation(), math.Inf(1)
		for _, p := range sole {
			near = math.Min(near, p.At(rest).Sub(at).Len())
		}
		if near > soleReach*r.Height && !math.IsInf(near, 1) {
			return fmt.Sprintf("the sole of foot %s stands %.3g %s from its joint at rest (%.2g·H): the skeleton is not where the mesh is, and no speed measured from its joints would keep the feet seen planted",
				r.Skeleton.Names[r.Feet[i]], near, r.UnitWord(), near/r.Height)
		}
	}
	return ""
}

// legBones marks the bones of r's legs: each foot, the bones above it up to
// the root (the root itself not), and the bones below it.
func legBones(r *stride.Rig) []bool {
	sk := r.Skeleton
	out := make([]bool, sk.Len())
	for _, f := range r.Feet {
		for b := f; b >= 0 && b != r.Root; b = sk.Parents[b] {
			out[b] = true
		}
	}
	for b := range out {
		for a := sk.Parents[b]; a >= 0 && !out[b]; a = sk.Parents[a] {
			out[b] = slices.Contains(r.Feet, a)
		}
	}
	return out
}

// removeTravel takes the root's horizontal travel out of every clip that asks
// (Clip.InPlace), keeping what was measured before; it returns a note naming
// the clips that asked but had no root motion, or "".
func (m *Model) removeTravel() string {
	j := m.Job
	var still []string
	for i := range j.Clips {
		c := &j.Clips[i]
		if !c.InPlace {
			continue
		}
		res := m.measure(i)
		if m.measured == nil {
			m.measured = map[int]stride.Result{}
		}
		m.measured[i] = res
		if res.Carrier < 0 {
			still = append(still, c.Name)
			continue
		}
		// A motion of its own: another clip may bake the same animation as it is.
		mo := j.Motions[c.Motion]
		inner, r, start := mo.NewSampler, m.gaitRig, c.Start
		mo.NewSampler = func() bake.Sampler { return r.RemoveTravel(inner(), res, start) }
		j.Motions = append(j.Motions, mo)
		c.Motion = len(j.Motions) - 1
	}
	if len(still) == 0 {
		return ""
	}
	verb := "have"
	if len(still) == 1 {
		verb = "has"
	}
	return fmt.Sprintf("in place: %s %s no root motion to remove (%s)", words.Plural(len(still), "clip"), verb, strings.Join(still, ", "))
}

// Gaits measures every clip's ground speed (docs/formats/gait.md §2) and returns
// the gait sidecar of the BPAT file at bpatPath: each clip's cycle, and its
// ground speed when the manifest gives one or the measurement is trusted.
func (m *Model) Gaits(bpatPath string) *gait.File {
	j := m.Job
	r := m.gaitRig
	f := &gait.File{BPAT: filepath.Base(bpatPath), Units: "m", Feet: r.FootNames(), FeetFrom: r.FeetFrom, RootBone: r.Skeleton.Names[r.Root]}
	for i := range j.Clips {
		c := &j.Clips[i]
		_, planted := m.plantedAt[i]
		res, ok := m.measured[i]
		if !ok {
			res = m.measure(i)
		}
		gc := gait.Clip{Name: c.Name, Cycle: round(res.Cycle), Status: string(res.Status), Method: string(res.Method),
			Confidence: round(res.Confidence), Reason: res.Reason, InPlace: c.InPlace && res.Carrier >= 0, Planted: planted}
		if c.Loops && res.Seam > stride.Reopened && res.SeamTime > stride.TakeGap {
			if m.seams == nil {
				m.seams = map[string]float64{}
			}
			m.seams[c.Name] = res.Seam * r.Height
		}
		if !(gc.Cycle > 0) { // a one-frame clip: the runtime's fallback
			gc.Cycle = 1 / c.FPS
		}
		if res.Status == stride.StatusMeasured {
			gc.GroundSpeed, gc.GroundSpeedSource, gc.Stride = round(res.Speed), gait.SourceMeasured, round(res.Stride)
			gc.Direction = direction(res.Direction)
		}
		if c.GroundSpeed > 0 {
			gc.GroundSpeed, gc.GroundSpeedSource = c.GroundSpeed, gait.SourceManifest
			gc.Stride = round(c.GroundSpeed * gc.Cycle)
		}
		f.Clips = append(f.Clips, gc)
	}
	return f
}

// direction is the sidecar's direction of travel: d's horizontal components
// to four decimals (a hundredth of a degree), zero for none.
func direction(d rig.Vec3) [3]float64 {
	if d == (rig.Vec3{}) {
		return [3]float64{}
	}
	r := func(v float64) float64 { return math.Round(v*1e4)/1e4 + 0 } // + 0: no -0
	return [3]float64{r(d[0]), 0, r(d[2])}
}

// FacingHint says, when the clips that travel go along another axis than +z,
// which it is and the setting that turns the model to face +z, the
// runtime's heading 0 (docs/formats/gait.md §8); "" when they go along +z or
// none travels. The axis is the one nearest the sum of their directions
// (gait.Axis). face is the axis the model was turned from (Model.Face; "" for
// none): the setting named is then the axis the model faces unturned, which
// replaces face, not one to add to it.
func FacingHint(f *gait.File, face string) string {
	var sx, sz float64
	for _, c := range f.Clips {
		x, z, _ := c.Dir()
		sx, sz = sx+x, sz+z
	}
	name := gait.AxisName
	a := name(sx, sz)
	if a == "+z" {
		return ""
	}
	var names []string
	for _, c := range f.Clips {
		if x, z, ok := c.Dir(); ok && name(x, z) == a {
			names = append(names, c.Name)
		}
	}
	how := "sideways"
	if a == "-z" {
		how = "backwards"
	}
	hint := fmt.Sprintf("the clips that travel (%s) go toward %s, and a runtime faces a unit +z at heading 0: its units would walk %s; ", strings.Join(names, ", "), a, how)
	if face == "" || strings.EqualFold(strings.TrimPrefix(face, "+"), "z") {
		return hint + fmt.Sprintf("Settings.Face %s turns the model about +y to face +z", a)
	}
	ax, az := gait.Axis(sx, sz)
	d := gltf.Unturn(face, rig.Vec3{ax, 0, az})
	was := name(math.Round(d[0]), math.Round(d[2]))
	return hint + fmt.Sprintf("the model faces %s, not %s: Settings.Face %s turns it about +y to face +z", was, face, was)
}

// RootMotionHint names the clips that carry their travel in their own frames
// (gait.Clip.TravelsInFrames: a ground speed from root motion, not baked in
// place), which a runtime moving its units at their ground speed moves twice
// (docs/formats/gait.md §4); "" when none does.
func RootMotionHint(f *gait.File) string {
	var names []string
	for _, c := range f.Clips {
		if c.TravelsInFrames() {
			names = append(names, c.Name)
		}
	}
	if len(names) == 0 {
		return ""
	}
	return fmt.Sprintf("the clips with root motion (%s) move the model in their own frames, and a runtime that moves a unit at its ground speed moves it twice; Settings.InPlace (or the manifest's in_place: true) removes that travel and leaves it to the game", strings.Join(names, ", "))
}

// round keeps five significant digits: a measurement is not better than that.
func round(v float64) float64 {
	if v == 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return v
	}
	e := math.Pow(10, 4-math.Floor(math.Log10(math.Abs(v))))
	return math.Round(v*e) / e
}

// GaitLine is the line bake prints (on stderr, with its notes) for one clip of a
// sidecar.
func GaitLine(c gait.Clip) string {
	var b strings.Builder
	fmt.Fprintf(&b, "gait: %s: ", c.Name)
	switch {
	case c.GroundSpeed > 0 && c.GroundSpeedSource == gait.SourceManifest:
		fmt.Fprintf(&b, "%.4g m/s from the manifest, cycle %.4g s", c.GroundSpeed, c.Cycle)
	case c.GroundSpeed > 0:
		how := "planted feet"
		if c.Method == string(stride.MethodRootMotion) {
			how = "root motion"
		}
		fmt.Fprintf(&b, "%.4g m/s, cycle %.4g s, stride %.4g m (measured from %s, confidence %.2f)", c.GroundSpeed, c.Cycle, c.Stride, how, c.Confidence)
		if c.Reason != "" { // a low confidence: which foot slides, how far
			fmt.Fprintf(&b, "; %s", c.Reason)
		}
	case c.Status == string(stride.StatusUntrusted):
		fmt.Fprintf(&b, "no ground speed: the measurement is not trusted (confidence %.2f): %s; cycle %.4g s", c.Confidence, c.Reason, c.Cycle)
	case c.Reason != "":
		fmt.Fprintf(&b, "in place (%s), cycle %.4g s", c.Reason, c.Cycle)
	default:
		fmt.Fprintf(&b, "in place (no steady travel), cycle %.4g s", c.Cycle)
	}
	if c.InPlace {
		b.WriteString("; root travel removed")
	}
	switch {
	case c.Planted:
		b.WriteString("; feet locked to the ground")
	case low(c):
		// The feet slide (§7); a clip in which nothing was measured (its
		// body another size than the rest's) has none to lock.
		b.WriteString("; " + plantHint)
	}
	return b.String()
}

// low says whether clip c was measured and its measurement gives it a
// ground speed at a low confidence or none: its feet slide, or its seam
// joins stances of two phases.
func low(c gait.Clip) bool {
	return c.Status != string(stride.StatusNoTravel) && c.Method != "" && c.Confidence < stride.Trusted && c.GroundSpeedSource != gait.SourceManifest
}

// plantHint ends the gait line of a clip whose feet slide. It promises no
// more than a try: knowing whether planting keeps a clip (a leg that reaches,
// feet that then stand) takes planting it, which a bake without the setting
// does not pay for (about a quarter of a plain Fox bake's CPU).
const plantHint = "Settings.PlantFeet may lock them to the ground"

// GaitLine is GaitLine for a clip of this model: a clip whose planting was
// refused (its note says why) is not hinted to plant; a looping clip
// measured low that does not end as it began (Gaits: stride.Result.Seam and
// SeamTime) is hinted to be a take, which measures as one pass baked
// one-shot (docs/formats/gait.md §2, A take).
func (m *Model) GaitLine(c gait.Clip) string {
	line := GaitLine(c)
	if m.unplanted[c.Name] {
		line = strings.TrimSuffix(line, "; "+plantHint) + "; feet left as authored"
	}
	if seam := m.seams[c.Name]; seam > 0 && low(c) {
		name := c.Name
		if name == "" || strings.ContainsAny(name, " \t\"'\\$`") {
			name = strconv.Quote(name)
		}
		line += fmt.Sprintf("; its last frame has a foot %.2g %s from where its first had it, as a take's does, not a cycle's: a take is baked Settings.OneShot %s", seam, m.gaitRig.UnitWord(), name)
	}
	return line
}

// gaitOptions are the rig's measuring options for m: the manifest's feet and
// root bone, and the pose m's mesh stands in (standing).
func gaitOptions(m *gltf.Model, mf *Manifest) stride.Options {
	follows := skinned(m)
	return stride.Options{Feet: mf.Feet, RootBone: mf.RootBone, Stand: standing(m, follows), Skinned: follows}
}

// skinned says, for each bone of m's skeleton, whether a vertex of m's mesh
// follows it; nil when m has no mesh (a BVH: every bone counts).
func skinned(m *gltf.Model) []bool {
	if m.Mesh == nil {
		return nil
	}
	out := make([]bool, m.Skeleton.Len())
	for j, w := range m.WeightedJoints() {
		if w {
			out[m.Joints[j]] = true
		}
	}
	return out
}

// standing returns each bone's model-space matrix in the pose m's mesh stands
// in (follows: skinned's), its bind pose: a joint a vertex follows where its inverse bind puts it,
// any other bone where its rest transform puts it under its parent. It
// returns nil when the rest pose is the pose the body stands in: fewer than
// half of the joints a vertex follows stand elsewhere (over 0.001·H away). A
// file's rest pose need not be one the model stands in: Blender writes an
// FBX's scene as it is at the current frame (a walk's first, a paw lifted;
// every joint moved), its bind pose only in the skin's clusters, and the feet
// are found, and the mesh's soles given to them, where the model stands. A
// few joints bound otherwise are not the body posed: the three.js robot's
// fingertips, bound bent, would hang as low as its feet.
func standing(m *gltf.Model, follows []bool) []rig.Mat4 {
	if m.Mesh == nil || len(m.InverseBind) != len(m.Joints) {
		return nil
	}
	sk := m.Skeleton
	joint := make([]int, sk.Len())
	for b := range joint {
		joint[b] = -1
	}
	for j, b := range m.Joints {
		joint[b] = j
	}
	rest := sk.RestModelSpace()
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, b := range m.Joints {
		lo, hi = math.Min(lo, rest[b][7]), math.Max(hi, rest[b][7])
	}
	stand := make([]rig.Mat4, sk.Len())
	moved, bound := 0, 0
	for b := range stand { // parents come before their children
		switch j, p := joint[b], sk.Parents[b]; {
		case j >= 0 && follows[b]:
			inv, ok := m.InverseBind[j].Inverse()
			if !ok {
				return nil
			}
			stand[b] = inv
		case p >= 0:
			stand[b] = stand[p].Mul(sk.Rest[b].Matrix())
		default:
			stand[b] = rest[b]
		}
		if joint[b] >= 0 && follows[b] {
			bound++
			if stand[b].Translation().Sub(rest[b].Translation()).Len() > 0.001*(hi-lo) {
				moved++
			}
		}
	}
	if 2*moved < bound {
		return nil
	}
	return stand
}
