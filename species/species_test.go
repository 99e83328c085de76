package species

import (
	"github.com/bonebake/bonebake/bake"
	"testing"

	"github.com/bonebake/bonebake/formats/bpat"
	"github.com/bonebake/bonebake/rig"
)

// TestDuration follows docs/formats/bpat.md §5: a looping clip of N frames at F fps lasts N/F
// seconds (its end is its start), a one-shot (N−1)/F (its end pose is stored).
func TestDuration(t *testing.T) {
	for _, c := range []struct {
		clip Clip
		want float64
	}{
		{Clip{Clip: bake.Clip{FPS: 24, Loops: true}, Frames: 24}, 1},
		{Clip{Clip: bake.Clip{FPS: 24}, Frames: 24}, 23.0 / 24},
		{Clip{Clip: bake.Clip{FPS: 1, Loops: true}, Frames: 1}, 1},
		{Clip{Clip: bake.Clip{FPS: 24, Loops: true}, Frames: 16}, 16.0 / 24},
	} {
		if got := c.clip.Duration(); got != c.want {
			t.Errorf("%+v: %v, want %v", c.clip, got, c.want)
		}
	}
}

// TestInverseBind: a bone 1 m up and turned about y has the inverse of that as its
// inverse bind, so rest × inverse bind is the identity.
func TestInverseBind(t *testing.T) {
	sk, err := rig.New([]string{"root", "up"}, []int{-1, 0}, []rig.Transform{
		rig.IdentityTransform(),
		{Translation: [3]float64{0, 1, 0}, Rotation: rig.QuatFromAxisAngle([3]float64{0, 1, 0}, 0.7), Scale: [3]float64{1, 1, 1}},
	})
	if err != nil {
		t.Fatal(err)
	}
	s := &Creature{Skeleton: sk, Clips: []Clip{{Clip: bake.Clip{Name: "a"}}, {Clip: bake.Clip{Name: "b"}}}}
	inv := s.InverseBind()
	for b, m := range sk.RestModelSpace() {
		p := m.Mul(inv[b])
		for i, v := range p {
			want := 0.0
			if i%5 == 0 {
				want = 1
			}
			if d := v - want; d > 1e-12 || d < -1e-12 {
				t.Fatalf("bone %d: rest × inverse bind = %v", b, p)
			}
		}
	}
	if s.ClipIndex("b") != 1 || s.ClipIndex("c") != -1 {
		t.Fatal("ClipIndex")
	}
}

// TestAuthoredMarkers checks the game's baker's rule (apply_authored_markers,
// tools/bpat_baker/main.cpp): substrings, first match wins.
func TestAuthoredMarkers(t *testing.T) {
	u := bpat.Unset
	for name, want := range map[string]bpat.Markers{
		"attack_sword_b":      {.10, .54, .58, .72, .90},
		"riding_sword_strike": {.10, .54, .58, .72, .90},
		"riding_bow_shot":     {.18, .56, .56, .66, .86},
		"attack_bow":          {.18, .56, .56, .66, .86},
		"hold":                {0, u, u, u, .98},
		"hold_bow":            {0, u, u, u, .98},
		"idle_weave":          {u, u, u, u, .98},
		"riding_idle":         {u, u, u, u, .98},
		"riding_charge":       {u, u, u, u, .98},
		"walk":                {u, u, u, u, .98},
		"run":                 {u, u, u, u, .98},
		"trot":                bpat.NoMarkers(),
		"gallop":              bpat.NoMarkers(),
		"riding_reining":      bpat.NoMarkers(),
		"die_mounted":         bpat.NoMarkers(),
		"fight":               bpat.NoMarkers(),
	} {
		if got := AuthoredMarkers(name); got != want {
			t.Errorf("%s: %v, want %v", name, got, want)
		}
	}
}
