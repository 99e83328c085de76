package anim

import (
	"errors"
	"math"
	"strings"
	"testing"
)

func TestValidate(t *testing.T) {
	good := func() *Animation {
		return &Animation{Name: "walk", Duration: 1, Tracks: []Track{
			{Bone: 0, Path: Translation, Interpolation: Linear, Times: []float32{0, 1}, Values: []float32{0, 0, 0, 1, 1, 1}},
			{Bone: 1, Path: Rotation, Interpolation: Step, Times: []float32{0.5}, Values: []float32{0, 0, 0, 1}},
			{Bone: 1, Path: Scale, Interpolation: CubicSpline, Times: []float32{0, 1},
				Values: []float32{0, 0, 0, 1, 1, 1, 0, 0, 0, 0, 0, 0, 2, 2, 2, 0, 0, 0}},
			{Bone: 0, Path: Rotation, Interpolation: CubicSpline, Times: []float32{0},
				Values: []float32{0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0}}, // zero tangents are fine
		}}
	}
	if err := good().Validate(2); err != nil {
		t.Fatalf("good clip rejected: %v", err)
	}
	if err := (&Animation{Name: "empty"}).Validate(1); err != nil {
		t.Fatalf("clip without tracks rejected: %v", err)
	}

	nan, inf := float32(math.NaN()), float32(math.Inf(1))
	tests := []struct {
		name   string
		bones  int
		modify func(c *Animation)
		track  int
		key    int
		words  string
	}{
		{"NaN duration", 2, func(c *Animation) { c.Duration = math.NaN() }, -1, -1, "duration NaN"},
		{"infinite duration", 2, func(c *Animation) { c.Duration = math.Inf(1) }, -1, -1, "duration +Inf"},
		{"negative duration", 2, func(c *Animation) { c.Duration = -1 }, -1, -1, "duration -1"},
		{"bone too big", 1, func(c *Animation) {}, 1, -1, "bone 1 is outside the skeleton's 1 bones"},
		{"negative bone", 2, func(c *Animation) { c.Tracks[2].Bone = -1 }, 2, -1, "bone -1"},
		{"bad path", 2, func(c *Animation) { c.Tracks[0].Path = 3 }, 0, -1, "unknown path 3"},
		{"bad interpolation", 2, func(c *Animation) { c.Tracks[1].Interpolation = 7 }, 1, -1, "unknown interpolation 7"},
		{"no keys", 2, func(c *Animation) { c.Tracks[1].Times, c.Tracks[1].Values = nil, nil }, 1, -1, "no keys"},
		{"values short", 2, func(c *Animation) { c.Tracks[0].Values = c.Tracks[0].Values[:5] }, 0, -1, "5 values, want 6"},
		{"rotation as 3 floats", 2, func(c *Animation) { c.Tracks[1].Values = []float32{0, 0, 1} }, 1, -1, "3 values, want 4"},
		{"cubic without tangents", 2, func(c *Animation) { c.Tracks[2].Values = []float32{1, 1, 1, 2, 2, 2} }, 2, -1,
			"6 values, want 18 (2 keys × 9 floats per CUBICSPLINE scale key)"},
		{"NaN time", 2, func(c *Animation) { c.Tracks[0].Times[1] = nan }, 0, 1, "time NaN is not finite"},
		{"infinite time", 2, func(c *Animation) { c.Tracks[0].Times[1] = inf }, 0, 1, "not finite"},
		{"negative time", 2, func(c *Animation) { c.Tracks[0].Times[0] = -0.5 }, 0, 0, "negative"},
		{"equal times", 2, func(c *Animation) { c.Tracks[2].Times[1] = 0 }, 2, 1, "strictly increase"},
		{"decreasing times", 2, func(c *Animation) { c.Tracks[0].Times = []float32{1, 0.5} }, 0, 1, "not after the previous key's 1"},
		{"NaN value", 2, func(c *Animation) { c.Tracks[0].Values[4] = nan }, 0, 1, "value NaN (float 1 of the key)"},
		{"infinite tangent", 2, func(c *Animation) { c.Tracks[2].Values[17] = -inf }, 2, 1, "-Inf (float 8 of the key)"},
		{"zero rotation", 2, func(c *Animation) { c.Tracks[1].Values[3] = 0 }, 1, 0, "zero quaternion"},
		{"zero cubic rotation", 2, func(c *Animation) { c.Tracks[3].Values[7] = 0 }, 3, 0, "zero quaternion"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := good()
			tc.modify(c)
			err := c.Validate(tc.bones)
			if err == nil {
				t.Fatal("accepted")
			}
			var te *TrackError
			if !errors.As(err, &te) {
				t.Fatalf("error %T %v is not a *TrackError", err, err)
			}
			if te.Clip != "walk" || te.Track != tc.track || te.Key != tc.key {
				t.Errorf("error names clip %q track %d key %d, want walk, %d, %d", te.Clip, te.Track, te.Key, tc.track, tc.key)
			}
			if !strings.Contains(err.Error(), tc.words) || !strings.Contains(err.Error(), `"walk"`) {
				t.Errorf("error %q does not say %q and the clip name", err, tc.words)
			}
		})
	}
}

func TestTrackErrorMessage(t *testing.T) {
	for _, tc := range []struct {
		e    TrackError
		want string
	}{
		{TrackError{"run", -1, -1, "bad"}, `anim: clip "run": bad`},
		{TrackError{"run", 2, -1, "bad"}, `anim: clip "run", track 2: bad`},
		{TrackError{"run", 2, 5, "bad"}, `anim: clip "run", track 2, key 5: bad`},
	} {
		if got := tc.e.Error(); got != tc.want {
			t.Errorf("Error() = %q, want %q", got, tc.want)
		}
	}
}

func TestNames(t *testing.T) {
	if Translation.String() != "translation" || Rotation.String() != "rotation" || Scale.String() != "scale" ||
		Path(9).String() != "Path(9)" {
		t.Error("Path.String")
	}
	if Step.String() != "STEP" || Linear.String() != "LINEAR" || CubicSpline.String() != "CUBICSPLINE" ||
		Interpolation(9).String() != "Interpolation(9)" {
		t.Error("Interpolation.String")
	}
	if Translation.Width() != 3 || Rotation.Width() != 4 || Scale.Width() != 3 || Path(9).Width() != 0 {
		t.Error("Path.Width")
	}
}
