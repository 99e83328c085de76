// Package humanoid builds the four humanoid species of docs/species.md: humanoid
// (id 0), humanoid_sword (3), humanoid_spear (4) and humanoid_skeleton (5). They share the
// 20-bone rig, the 25 clips and the 10 sockets, and differ in body (proportions,
// mesh) and weapon handling (stance, grip and swings).
//
// Conventions: metres, y up, the creature facing +z with its left side on +x, the
// origin on the ground between the feet. The rest pose is the bind pose: a T-pose
// with the arms out along ±x, palms down. Every clip is in place: the Root bone
// stays at the origin and the game moves the creature; a locomotion clip's planted
// foot slides backward in model space at exactly Clip.GroundSpeed. The rider clips
// keep the Root at the origin too and sit the rider in the game's mount frame,
// the seat at MountSeat (2.68 m up); the mounted death falls from there to the
// horse's ground, SeatHeight below it (docs/species.md §3).
//
// Weapons hang from the hand sockets: a held weapon's shaft or blade points along
// the hand's local +z (in the bind pose, forward), the grip at the socket origin.
// The bow is held in the left hand, its stave along +z of hand_l.
//
// Legs are placed by analytic two-bone inverse kinematics on designed foot paths
// (flat stance on the ground, heel rise on the ball, toe-off and a forward swing
// arc); arms by the same solver from a shoulder-relative hand direction and elbow
// flexion; clips are key poses blended with eased great-circle interpolation, or
// periodic functions of phase for the loops, so Pose(1) equals Pose(0).
package humanoid

import (
	"fmt"
	"github.com/bonebake/bonebake/bake"

	"github.com/bonebake/bonebake/mesh/simplify"
	"github.com/bonebake/bonebake/rig"
	"github.com/bonebake/bonebake/species"
)

// Bone indices, in file order (docs/species.md).
const (
	Root = iota
	Pelvis
	Spine
	Chest
	Neck
	Head
	ShoulderL
	UpperArmL
	ForearmL
	HandL
	ShoulderR
	UpperArmR
	ForearmR
	HandR
	HipL
	KneeL
	FootL
	HipR
	KneeR
	FootR
	boneCount
)

var boneNames = [boneCount]string{
	"Root", "Pelvis", "Spine", "Chest", "Neck", "Head",
	"ShoulderL", "UpperArmL", "ForearmL", "HandL",
	"ShoulderR", "UpperArmR", "ForearmR", "HandR",
	"HipL", "KneeL", "FootL", "HipR", "KneeR", "FootR",
}

var boneParents = [boneCount]int{-1, 0, 1, 2, 3, 4, 3, 6, 7, 8, 3, 10, 11, 12, 1, 14, 15, 1, 17, 18}

// Weapon is how a profile fights and carries its weapon.
type Weapon uint8

const (
	// WeaponOneHanded is a generic one-handed weapon (club, axe, short blade) in the
	// right hand: compact stance, shorter chopping swings.
	WeaponOneHanded Weapon = iota
	// WeaponSword is a one-handed sword with a guard arm: side-on fencing stance, wide
	// slashes and a lunge.
	WeaponSword
	// WeaponSpear is a spear held in both hands, the left hand ahead on the shaft: a
	// wide, low stance and thrusts.
	WeaponSpear
)

// Outfit picks the mesh's look.
type Outfit uint8

const (
	OutfitPeasant  Outfit = iota // tunic, trousers, hair
	OutfitSoldier                // helmet, breastplate, belt
	OutfitSpearman               // helmet, padded coat
	OutfitBones                  // bare bones
)

// Profile is one humanoid species: identity, body and weapon.
type Profile struct {
	ID   uint32 // the BPAT species_id
	Name string // the file base name
	// Scale is the body's size: 1 is an adult of 1.75 m.
	Scale float64
	// Reach scales the arms' length relative to the body (1 typical).
	Reach float64
	// Build scales the girth of the mesh (1 average).
	Build float64
	// Stoop bends the spine and head forward, radians (a skeleton's hunch).
	Stoop  float64
	Weapon Weapon
	Outfit Outfit
	// Shield: the left arm carries a shield; riding a charge it guards across the
	// body, the hand low in front of the belly.
	Shield bool
	// BreathingIdle makes the base idle clip breathe and shift its weight. The
	// built-in species leave it off: the game's base idle is still and its own
	// tests require it (docs/species.md §3).
	BreathingIdle bool
}

// HumanoidProfile is species 0: a peasant militia with a generic one-handed weapon.
func HumanoidProfile() Profile {
	return Profile{ID: rosterID("humanoid"), Name: "humanoid", Scale: 1, Reach: 1, Build: 1, Weapon: WeaponOneHanded, Outfit: OutfitPeasant}
}

// SwordProfile is species 3: a swordsman in helmet and breastplate, with a shield.
func SwordProfile() Profile {
	return Profile{ID: rosterID("humanoid_sword"), Name: "humanoid_sword", Scale: 1.01, Reach: 1, Build: 1.08, Weapon: WeaponSword, Outfit: OutfitSoldier, Shield: true}
}

// SpearProfile is species 4: a spearman.
func SpearProfile() Profile {
	return Profile{ID: rosterID("humanoid_spear"), Name: "humanoid_spear", Scale: 1, Reach: 1, Build: 1.03, Weapon: WeaponSpear, Outfit: OutfitSpearman}
}

// SkeletonProfile is species 5: an animated skeleton, a little smaller, with
// shorter arms (less reach), a stoop and a rusty sword.
func SkeletonProfile() Profile {
	return Profile{ID: rosterID("humanoid_skeleton"), Name: "humanoid_skeleton", Scale: 0.97, Reach: 0.9, Build: 1, Stoop: 0.12, Weapon: WeaponSword, Outfit: OutfitBones}
}

// Humanoid returns species 0.
func Humanoid() *species.Creature { return New(HumanoidProfile()) }

// Sword returns species 3.
func Sword() *species.Creature { return New(SwordProfile()) }

// Spear returns species 4.
func Spear() *species.Creature { return New(SpearProfile()) }

// Skeleton returns species 5.
func Skeleton() *species.Creature { return New(SkeletonProfile()) }

// All returns the four humanoid species in id order.
func All() []*species.Creature {
	return []*species.Creature{Humanoid(), Sword(), Spear(), Skeleton()}
}

// body holds a profile's dimensions and precomputed gaits; it is read-only once
// built, so clip poses can run concurrently.
type body struct {
	prof                     Profile
	s                        float64 // Scale
	rest                     [boneCount]vec
	thigh, shin, upper, fore float64
	ankleH                   float64 // ankle height with the foot flat on the ground
	ball, heel               vec     // the ball and heel of the foot, from the ankle
	standY                   float64 // pelvis height standing
	walk, run                gait
}

func newBody(p Profile) *body {
	if p.Scale <= 0 {
		p.Scale = 1
	}
	if p.Reach <= 0 {
		p.Reach = 1
	}
	if p.Build <= 0 {
		p.Build = 1
	}
	s, a := p.Scale, p.Scale*p.Reach
	b := &body{prof: p, s: s}
	b.rest = [boneCount]vec{
		Root:      {0, 0, 0},
		Pelvis:    {0, 0.98 * s, 0},
		Spine:     {0, 0.10 * s, 0},
		Chest:     {0, 0.20 * s, 0},
		Neck:      {0, 0.19 * s, 0},
		Head:      {0, 0.09 * s, 0},
		ShoulderL: {0.02 * s, 0.14 * s, 0},
		UpperArmL: {0.16 * s, 0.02 * s, 0},
		ForearmL:  {0.29 * a, 0, 0},
		HandL:     {0.26 * a, 0, 0},
		ShoulderR: {-0.02 * s, 0.14 * s, 0},
		UpperArmR: {-0.16 * s, 0.02 * s, 0},
		ForearmR:  {-0.29 * a, 0, 0},
		HandR:     {-0.26 * a, 0, 0},
		HipL:      {0.09 * s, -0.06 * s, 0},
		KneeL:     {0, -0.43 * s, 0},
		FootL:     {0, -0.41 * s, 0},
		HipR:      {-0.09 * s, -0.06 * s, 0},
		KneeR:     {0, -0.43 * s, 0},
		FootR:     {0, -0.41 * s, 0},
	}
	b.thigh, b.shin = 0.43*s, 0.41*s
	b.upper, b.fore = 0.29*a, 0.26*a
	b.ankleH = 0.08 * s
	b.ball = vec{0, -0.075 * s, 0.125 * s}
	b.heel = vec{0, -0.075 * s, -0.045 * s}
	b.standY = b.rest[Pelvis][1] - 0.012*s // knees just off straight
	b.walk = b.newGait(walkGait)
	b.run = b.newGait(runGait)
	return b
}

// restT is bone i's rest offset from its parent.
func (b *body) restT(i int) vec { return b.rest[i] }

// MinimalTriangles is the triangle budget of a humanoid's far-LOD mesh, the
// full mesh simplified (package mesh/simplify) into <name>_minimal.bpsm: about
// the horse's and the elephant's hand-built minimal meshes (270 and 290).
const MinimalTriangles = 300

// New builds a humanoid species from a profile: its full mesh, and the far-LOD
// minimal mesh simplified from it.
func New(p Profile) *species.Creature {
	b := newBody(p)
	rest := make([]rig.Transform, boneCount)
	for i := range rest {
		rest[i] = rig.IdentityTransform()
		rest[i].Translation = b.rest[i]
	}
	skel, err := rig.New(boneNames[:], boneParents[:], rest)
	if err != nil {
		panic(fmt.Sprintf("humanoid: %v", err)) // the tables above are fixed
	}
	full := b.buildMesh()
	minimal, _, err := simplify.Simplify(full, MinimalTriangles, simplify.Options{})
	if err != nil {
		panic(fmt.Sprintf("humanoid: %v", err)) // the mesh is built above
	}
	return &species.Creature{
		ID:       p.ID,
		Name:     p.Name,
		Skeleton: skel,
		Mesh:     full,
		Minimal:  minimal,
		Sockets:  sockets(),
		Clips:    b.clips(),
	}
}

// sockets are docs/species.md's humanoid sockets.
func sockets() []species.Socket {
	return []species.Socket{
		{Name: "head", Anchor: Head},
		{Name: "hand_r", Anchor: HandR},
		{Name: "hand_l", Anchor: HandL},
		{Name: "back", Anchor: Chest, Offset: [3]float32{0, 0.10, -0.12}},
		{Name: "hip_l", Anchor: HipL, Offset: [3]float32{0, -0.02, 0}},
		{Name: "hip_r", Anchor: HipR, Offset: [3]float32{0, -0.02, 0}},
		{Name: "chest_front", Anchor: Chest, Offset: [3]float32{0, 0.05, 0.15}},
		{Name: "chest_back", Anchor: Chest, Offset: [3]float32{0, 0.05, -0.15}},
		{Name: "foot_l", Anchor: FootL},
		{Name: "foot_r", Anchor: FootR},
	}
}

// clipDef is one row of the clip table.
type clipDef struct {
	name   string
	frames int
	fps    float64
	loops  bool
	pose   func(b *body, phase float64) bodyPose
}

var clipTable = []clipDef{
	{"idle", 24, 24, true, (*body).idle},
	{"idle_squat", 72, 24, false, (*body).idleSquat},
	{"idle_jump", 72, 24, false, (*body).idleJump},
	{"idle_weapon", 72, 24, false, (*body).idleWeapon},
	{"idle_weave", 72, 24, false, (*body).idleWeave},
	{"walk", 24, 24, true, (*body).walkPose},
	{"run", 24, 24, true, (*body).runPose},
	{"hold", 16, 24, true, (*body).hold},
	{"hold_bow", 16, 24, true, (*body).holdBow},
	{"attack_sword_a", 24, 24, false, (*body).swordA},
	{"attack_sword_b", 24, 24, false, (*body).swordB},
	{"attack_sword_c", 24, 24, false, (*body).swordC},
	{"attack_spear_a", 24, 24, false, (*body).spearA},
	{"attack_spear_b", 24, 24, false, (*body).spearB},
	{"attack_spear_c", 24, 24, false, (*body).spearC},
	{"attack_bow", 24, 24, false, (*body).attackBow},
	{"riding_idle", 24, 24, true, (*body).ridingIdle},
	{"riding_charge", 24, 24, false, (*body).ridingCharge},
	{"riding_reining", 24, 24, false, (*body).ridingReining},
	{"riding_bow_shot", 24, 24, false, (*body).ridingBowShot},
	{"riding_sword_strike", 32, 24, false, (*body).ridingSwordStrike},
	{"die_infantry", 20, 24, false, (*body).dieInfantry},
	{"dead_infantry", 1, 1, true, (*body).deadInfantry},
	{"die_mounted", 20, 24, false, (*body).dieMounted},
	{"dead_mounted", 1, 1, true, (*body).deadMounted},
}

// clips builds the 25 clips of docs/species.md for this body.
func (b *body) clips() []species.Clip {
	out := make([]species.Clip, len(clipTable))
	for i, d := range clipTable {
		pose := d.pose
		out[i] = species.Clip{
			Clip:   bake.Clip{Name: d.name, FPS: d.fps, Loops: d.loops, Markers: species.AuthoredMarkers(d.name)},
			Frames: d.frames,
			Pose: func(phase float64, dst []rig.Transform) {
				bp := pose(b, phase)
				b.apply(&bp, dst)
			},
		}
		switch d.name {
		case "walk":
			out[i].GroundSpeed, out[i].Cycle = b.walk.speed, b.walk.cycle
		case "run":
			out[i].GroundSpeed, out[i].Cycle = b.run.speed, b.run.cycle
		}
	}
	return out
}
