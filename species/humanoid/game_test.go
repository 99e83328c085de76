package humanoid

import (
	"math"
	"testing"
)

// The game's own BPAT tests (tests/render/bpat/bpat_registry_test.cpp at the
// commit the format comes from) measure five things about the humanoid clips that
// are content, not format. They are repeated here, measurement for measurement, on
// the clips sampled as the baker samples them, so a change that would fail them is
// caught without the game; the full-suite test in package bake runs the game's
// tests themselves on the baked files.

// gameSample bakes one clip of a profile.
func gameSample(p Profile, clip string) *baked {
	sp := New(p)
	i := sp.ClipIndex(clip)
	if i < 0 {
		panic("no clip " + clip)
	}
	return bakeClip(sp, &sp.Clips[i])
}

// HumanoidIdleClipRemainsStableAcrossLoop: the idle's frame 0 and frame N/2 are
// the same matrices (QMatrix4x4 ==, exact) for humanoid and humanoid_sword.
func TestGameIdleStill(t *testing.T) {
	for _, p := range []Profile{HumanoidProfile(), SwordProfile()} {
		k := gameSample(p, "idle")
		mid := len(k.frames) / 2
		for b := range k.frames[0] {
			for e := 0; e < 16; e++ {
				if float32(k.frames[0][b][e]) != float32(k.frames[mid][b][e]) {
					t.Errorf("%s idle: bone %d differs between frame 0 and %d", p.Name, b, mid)
					break
				}
			}
		}
	}
	// The breathing idle stays reachable and does move.
	p := HumanoidProfile()
	p.BreathingIdle = true
	k := gameSample(p, "idle")
	if d := k.pos(len(k.frames)/2, Chest).Sub(k.pos(0, Chest)).Len(); d < 1e-3 {
		t.Errorf("breathing idle: the chest moves %.4f m, want it to breathe", d)
	}
}

// SwordHumanoidSwordAttackDiffersFromDefaultHumanoidAttack: at frame N/2 of
// attack_sword_a the sword species' right hand and right shoulder are each more
// than 5 cm from the default humanoid's.
func TestGameSwordAttackDiffers(t *testing.T) {
	d, s := gameSample(HumanoidProfile(), "attack_sword_a"), gameSample(SwordProfile(), "attack_sword_a")
	f := min(len(d.frames), len(s.frames)) / 2
	t.Logf("frame %d: hands %.3f m apart, shoulders %.3f m", f, s.pos(f, HandR).Sub(d.pos(f, HandR)).Len(), s.pos(f, ShoulderR).Sub(d.pos(f, ShoulderR)).Len())
	if v := s.pos(f, HandR).Sub(d.pos(f, HandR)).Len(); !(v > 0.05) {
		t.Errorf("frame %d: hands %.3f m apart, the game wants > 0.05", f, v)
	}
	if v := s.pos(f, ShoulderR).Sub(d.pos(f, ShoulderR)).Len(); !(v > 0.05) {
		t.Errorf("frame %d: shoulders %.3f m apart, the game wants > 0.05", f, v)
	}
}

// gameShieldHand is where the game's test wants the sword rider's left hand at
// frame 0 of riding_charge: seat + forward·0.05 + right·(−0.16) + up·0.22 of the
// game's mount frame, printed by the game's own compute_mount_frame and
// tune_mounted_knight_frame for make_horse_profile(0) (seat (0, 2.679032,
// 0.178199), forward +z, right +x, up +y), compiled from its sources.
var gameShieldHand = vec{-0.16, 2.899032, 0.228199}

// SwordHumanoidRidingChargeKeepsShieldHandMountedRelative: within 0.12 m on each
// axis.
func TestGameRidingChargeShieldHand(t *testing.T) {
	k := gameSample(SwordProfile(), "riding_charge")
	h := k.pos(0, HandL)
	for a := 0; a < 3; a++ {
		if math.Abs(h[a]-gameShieldHand[a]) > 0.12 {
			t.Errorf("riding_charge frame 0: left hand %.3f, the game wants %.3f ± 0.12 (axis %d)", h, gameShieldHand, a)
		}
	}
}

// SwordHumanoidRidingSwordStrikeDropsHandBelowChamber and
// SwordHumanoidRidingSwordStrikeRotatesGripIntoCut: frames 8 (chamber) and 22
// (strike) of riding_sword_strike; the hand_r socket is the HandR bone (offset 0).
func TestGameRidingSwordStrike(t *testing.T) {
	k := gameSample(SwordProfile(), "riding_sword_strike")
	ch, st := k.pos(8, HandR), k.pos(22, HandR)
	if !(st[0] > ch[0]+0.08) {
		t.Errorf("strike hand x %.3f, want > chamber %.3f + 0.08", st[0], ch[0])
	}
	if !(st[1] < ch[1]) {
		t.Errorf("strike hand y %.3f, want < chamber %.3f", st[1], ch[1])
	}
	if s, c := k.pos(22, ShoulderR)[1], k.pos(8, ShoulderR)[1]; !(s < c) {
		t.Errorf("strike shoulder y %.3f, want < chamber %.3f", s, c)
	}
	if !(st[2] > ch[2]) {
		t.Errorf("strike hand z %.3f, want > chamber %.3f", st[2], ch[2])
	}
	up := func(f int) vec {
		m := k.frames[f][HandR]
		return vec{m[1], m[5], m[9]}.Normalize() // column 1: the hand's +y
	}
	cu, su := up(8), up(22)
	t.Logf("hand_r at frame 8 %.3f, 22 %.3f; its +y at 8 %.3f, 22 %.3f", ch, st, cu, su)
	if !(su[1] < cu[1]-0.12) {
		t.Errorf("grip up %.3f at the strike, want y < chamber %.3f y − 0.12", su, cu)
	}
	if !(su[2] > cu[2]+0.30) {
		t.Errorf("grip up %.3f at the strike, want z > chamber %.3f z + 0.30", su, cu)
	}
}
