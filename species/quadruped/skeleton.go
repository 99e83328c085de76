package quadruped

import (
	"github.com/bonebake/bonebake/bake"
	"math"

	"github.com/bonebake/bonebake/rig"
	"github.com/bonebake/bonebake/species"
)

// layout describes a quadruped's skeleton; newPlan builds it.
type layout struct {
	dims Dims
	cfg  Config
	// legStretch is the leg's length (upper + lower bone, equal halves) over
	// the rest hip height: above 1, so the middle joint has room to bend.
	legStretch float64
	forward    [NumLegs]bool // the middle joint bends toward +z
	onRoot     bool          // shoulders and the first head bone hang from Root
	headNames  [2]string
	headA      rig.Vec3 // the first head bone's rest position, body frame
	headB      rig.Vec3 // the second's, relative to the first
	reach      float64
}

var legNames = [NumLegs]string{"FL", "FR", "BL", "BR"}

// newPlan builds the 16-bone skeleton of docs/species.md: Root, Body(Root), then
// Shoulder/Knee/Foot for FL, FR, BL, BR, then the two head bones. The rest pose
// (the bind pose) stands the creature on the ground with every foot under its
// hip and every rotation the identity; each leg's middle joint sits off the hip
// → foot line toward its bend, so the legs start bent the way they fold.
func newPlan(l layout) *plan {
	d := l.dims
	v := d.LegHeight()
	half := l.legStretch * v / 2
	off := math.Sqrt(half*half - v*v/4)
	p := &plan{dims: d, cfg: l.cfg, body: 1, onRoot: l.onRoot, headA: 14, headB: 15, headOffset: l.headA, reach: l.reach}

	id := rig.IdentityQuat()
	at := func(t rig.Vec3) rig.Transform { return rig.Transform{Translation: t, Rotation: id, Scale: one} }
	names := []string{"Root", "Body"}
	parents := []int{-1, 0}
	rest := []rig.Transform{at(rig.Vec3{}), at(rig.Vec3{0, d.BodyHeight, 0})}
	body := rig.Vec3{0, d.BodyHeight, 0}
	for leg := range NumLegs {
		s := off
		if !l.forward[leg] {
			s = -s
		}
		hip, parent := d.Hip(leg), 1
		if l.onRoot {
			hip, parent = body.Add(hip), 0
		}
		n := len(names)
		names = append(names, "Shoulder"+legNames[leg], "Knee"+legNames[leg], "Foot"+legNames[leg])
		parents = append(parents, parent, n, n+1)
		rest = append(rest, at(hip), at(rig.Vec3{0, -v / 2, s}), at(rig.Vec3{0, -v / 2, -s}))
		p.legs[leg] = legBones{shoulder: n, knee: n + 1, foot: n + 2, forward: l.forward[leg], length: 2 * half}
	}
	headA, parent := l.headA, 1
	if l.onRoot {
		headA, parent = body.Add(headA), 0
	}
	names = append(names, l.headNames[0], l.headNames[1])
	parents = append(parents, parent, 14)
	rest = append(rest, at(headA), at(l.headB))
	skel, err := rig.New(names, parents, rest)
	if err != nil {
		panic("quadruped: " + err.Error()) // the layouts are fixed; this is a bug
	}
	p.skel = skel
	return p
}

// gaitClips is a looping clip of one cycle for each gait, in order: frames[name]
// frames long (24 when the gait is not listed), with head(name) adding the
// species' head, neck and trunk motion.
func (p *plan) gaitClips(gaits []Gait, frames map[string]int, head func(name string) headMotion) []species.Clip {
	var clips []species.Clip
	for _, g := range gaits {
		n, ok := frames[g.Name]
		if !ok {
			n = 24
		}
		clips = append(clips, p.gaitClip(g.Name, n, g, head(g.Name)))
	}
	return clips
}

// gaitClip is a looping clip of one gait cycle; head adds the species' head,
// neck and trunk motion (nil for none).
func (p *plan) gaitClip(name string, frames int, g Gait, head headMotion) species.Clip {
	c := species.Clip{Clip: bake.Clip{Name: name, FPS: 24, Loops: true, Markers: species.AuthoredMarkers(name),
		GroundSpeed: g.Speed, Cycle: g.Cycle}, Frames: frames}
	c.Pose = func(phase float64, pose []rig.Transform) {
		p.gaitPose(g, Wrap(phase)*g.Cycle, pose, head)
	}
	return c
}

// deathClips are die, a one-shot clip of frames frames posed from keys, and
// dead, a one-frame looping clip that holds die's last key still.
func (p *plan) deathClips(frames int, keys []key) []species.Clip {
	return []species.Clip{
		{Clip: bake.Clip{Name: "die", FPS: 24, Markers: species.AuthoredMarkers("die")}, Frames: frames,
			Pose: func(phase float64, pose []rig.Transform) { p.keyed(keys, phase, pose) }},
		{Clip: bake.Clip{Name: "dead", FPS: 1, Loops: true, Markers: species.AuthoredMarkers("dead")}, Frames: 1,
			Pose: func(_ float64, pose []rig.Transform) { p.keyed(keys, 1, pose) }},
	}
}

// legFK sets a leg's three rotations (about the body's x axis: positive swings
// the bone's lower end backward).
func legFK(bp *bodyPose, leg int, upper, lower, foot float64) {
	bp.Leg[leg] = [3]rig.Quat{rotX(upper), rotX(lower), rotX(foot)}
}
