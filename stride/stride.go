// Package stride measures a clip's ground speed from its bones' motion: the speed
// at which a unit must travel while the clip plays for its feet not to slide
// (docs/formats/gait.md §2 has the rules and thresholds).
//
// Two kinds of clip are measured. A clip with root motion moves its root: the
// ground speed is the root's horizontal displacement over the clip divided by the
// clip's duration. An in-place clip keeps its root put and slides each planted
// foot backwards: the ground speed is the planted feet's horizontal speed relative
// to the root. Space is the model's: y up, metres (a glTF scene's units).
//
// A clip with no steady travel (an idle, an attack, a death) gets no speed
// (StatusNoTravel), and a measurement whose samples disagree says so
// (StatusUntrusted) instead of guessing.
package stride

import (
	"github.com/bonebake/bonebake/rig"
)

// Sampler poses a skeleton at a time (bake.Sampler and anim's samplers are ones):
// it writes the local transform of every bone it animates into pose.
type Sampler interface {
	Sample(t float64, pose []rig.Transform)
}

// Status says what a measurement found.
type Status string

const (
	// StatusMeasured: the clip travels steadily; Result.Speed is its ground
	// speed, and Result.Confidence says how far the feet slide at it.
	StatusMeasured Status = "measured"
	// StatusNoTravel: neither the root nor the planted feet travel steadily (an
	// idle, an attack, a death): the clip plays in place and has no ground speed.
	StatusNoTravel Status = "no_travel"
	// StatusUntrusted: the clip seems to travel, but no speed fits it (its
	// feet slide a quarter of the way at any speed, never stand, or
	// contradict its root motion); Result.Reason says why. No speed is given.
	StatusUntrusted Status = "untrusted"
)

// Method says where a speed was read.
type Method string

const (
	MethodRootMotion Method = "root_motion" // the root's displacement over the clip
	MethodFeet       Method = "feet"        // the planted feet's speed relative to the root
)

// Thresholds of the measurement (docs/formats/gait.md §2). Lengths are fractions
// of the body's height H (the rest pose's extent along y), so that a model in
// centimetres is measured like one in metres.
const (
	// A foot is low while its height is within PlantedHeight of its own
	// vertical range (and at least PlantedHeightMin·H) above its lowest point.
	PlantedHeight    = 0.10
	PlantedHeightMin = 0.005
	// MinPlanted is the least fraction of a clip in which some foot must stand
	// for a feet measurement. A gallop's foot stands for a fifth of the cycle,
	// and a gallop baked at 12 frames per cycle holds a foot fully planted
	// between two frames only: 8 % of the clip.
	MinPlanted = 0.05
	// StanceSlack: a low foot stands while its speed in the world is under
	// StanceSlack times the unit's speed (a fifth: a stride's slip of 20 % at
	// most before the refinement cancels it).
	StanceSlack = 0.2
	// MinStance is the shortest stance, as a fraction of the clip: shorter runs
	// of standing samples are a foot brushing the ground.
	MinStance = 0.03
	// SlipPerConfidence is the slip (a foot's drift in the world while it
	// stands, against the distance the unit travels meanwhile) that costs a
	// confidence of 1: a confidence of Trusted (0.8) means the worst stance
	// slips 5 %.
	SlipPerConfidence = 0.25
	// Unsteady is the largest departure of the root from a straight line at
	// constant speed, as a fraction of its travel, that still counts as
	// locomotion (a fall or a lunge departs further).
	Unsteady = 0.2
	// MinSpeed is the slowest travel counted as travel: MinSpeed·H per second of
	// the clip (9 cm/s for a 1.8 m body).
	MinSpeed = 0.05
	// MinDuration is the shortest clip, in seconds of its own time, that can
	// hold a stride (a mouse's gallop takes a tenth of a second): a shorter
	// one is a pose held (Mixamo's and three.js's poses last one frame, 1/30 s).
	MinDuration = 0.1
	// MinStride is the least ground, as a fraction of H, one pass of a clip
	// must cover for its feet to get a speed below Trusted: a walk covers
	// about a body height per cycle; a rider's feet shifting in the stirrups
	// (the built-in rider's reining, 0.17·H) cover much less.
	MinStride = 0.3
	// Trusted is the least confidence at which a measured speed keeps every
	// stance within 5 % of the distance travelled. A planted-feet speed below
	// it is still given (the speed at which the feet slide least) with its
	// Reason naming the foot that slides; a root-motion clip below it, or
	// feet that slide SlipPerConfidence or more at every speed, get none.
	Trusted = 0.8
	// FootZone is the height, as a fraction of H above the lowest rest joint, a
	// foot found by name or hierarchy must lie within at rest.
	FootZone = 0.25
	// SameLevel: a leaf found by hierarchy beside feet found by name (a
	// quadruped's front feet called hands) must stand at rest no higher than
	// SameLevel·H above the highest of them.
	SameLevel = 0.1
)
