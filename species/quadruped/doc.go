// Package quadruped builds the horse (species 1) and the elephant (species 2):
// their skeletons (docs/species.md), procedural clips, sockets and meshes, all from one
// shared gait evaluator (docs/species.md, quadruped gait) plus two-bone IK for the feet.
//
// # Skeletons
//
// Both have 16 bones, metres, y up, facing +z, the origin on the ground under the
// body centre; left is +x. Horse: Root, Body(Root), ShoulderFL(Body),
// KneeFL(ShoulderFL), FootFL(KneeFL), the same for FR, BL and BR, NeckTop(Body),
// Head(NeckTop). Elephant: Root, Body(Root), the same four legs but with each
// Shoulder a child of Root, Head(Root), TrunkTip(Head). A Shoulder is the leg's
// root joint (shoulder or hip) at Dims.Hip, a Knee its middle joint, a Foot the
// hoof or pad centre. NeckTop is the neck's root on top of the withers (the neck
// runs from it to the poll, where Head sits); TrunkTip is the trunk's lower joint,
// halfway down (its tip is the trunk_tip socket). Every bind rotation is the
// identity.
//
// # Gait
//
// Evaluate implements the quadruped gait of docs/species.md: the moving phase
// wrap(t/max(cycle, 1e-3) + offset), the bob with its three harmonics and intensity scale, the intensity
// clamp, SwingEase and SwingArc, and feet under the hips. This package reads the
// gait table as follows:
//
//   - A leg's own phase is wrap(t/cycle + offset). Its foot swings while that
//     phase is below the swing fraction and is planted for the rest of the cycle.
//   - Front and rear phase: the horse's legs take their pair's phase, the right
//     legs half a cycle after the left (walk: BL 0, FL .25, BR .5, FR .75; trot:
//     diagonal pairs together). The elephant's legs keep their own table (FL 0,
//     FR .5, RL .75, RR .25). In both, the bob evaluated at phase + front phase
//     and at phase + rear phase lifts the front and the rear of the body, which
//     pitches by the difference.
//   - Swing is the stride's vigour: it feeds the intensity and, for the horse,
//     the share of the cycle a foot spends in the air (.25 + .60·swing; the
//     elephant's is fixed at .25).
//   - Lift is the swinging foot's arc height as a fraction of the leg height.
//   - Stride: a planted foot moves backward in model space at the clip's Speed,
//     so it stays put in the world when the unit moves at Speed; over the stance
//     it covers Speed · cycle · (1 − swing fraction), centred under the hip. The
//     swing brings it forward again. Where a stride end would stretch a leg past
//     98.5% of its length, that hip drops (the shoulder blade or pelvis giving)
//     instead of the foot sliding; hips also glide fore and aft with their foot.
//
// # Sockets
//
// Horse: saddle (Body, 0 .23 .10: the seat, 1.45 m up at rest, where a rider's
// seat goes, roster.MountSeat of its riding clips; it bobs with the gait) and head (Head, 0 −.06 .20: the middle of the
// skull). Elephant: howdah (Body, 0 .85 −.15: the top of the back, 3.05 m up, the
// floor of a howdah), head (Head, 0 .05 .35: the forehead) and trunk_tip
// (TrunkTip, 0 −.90 .05: the end of the trunk, where it holds things).
//
// # Meshes
//
// Creature.Mesh is the full mesh (about 2,600 triangles for the horse, 3,800 for
// the elephant) and Species.Minimal the far-LOD one (270 and about 290), built
// with species/meshgen around the bind pose. Colour roles: hide (meshgen.RoleSkin),
// mane and tail (RoleHair), hooves and tusks (RoleBone), saddle (RoleLeather),
// eyes (RoleEye).
//
// # Clips
//
// Horse: idle, walk, trot, canter, gallop, fight, die, dead. Elephant: idle,
// walk, run, fight, die, dead. Frame counts, fps and loop flags are those of
// docs/species.md; a gait clip is one cycle long (its Cycle field), its Speed the ground
// speed its stride matches. Death clips end on the ground and the dead clip holds
// that pose.
package quadruped
