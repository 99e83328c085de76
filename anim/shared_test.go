package anim

import (
	"math"
	"testing"

	"github.com/bonebake/bonebake/rig"

	"github.com/bonebake/bonebake/internal/testfiles"
)

// Tracks of one clip that share their times and values (many glTF channels on
// one sampler) are validated and prepared once: what Prepare reserves is one
// track's rotation keys, not tracks × keys (issue 42, item 8).
func TestSharedTracksPreparedOnce(t *testing.T) {
	const tracks, keys = 1000, 4096
	times, values := make([]float32, keys), make([]float32, 4*keys)
	for k := range keys {
		times[k] = float32(k) / 30
		values[4*k+2], values[4*k+3] = float32(k%5)/10, 1
	}
	c := &Animation{Name: "shared", Duration: float64(times[keys-1])}
	for i := range tracks {
		c.Tracks = append(c.Tracks, Track{Bone: i % 2, Path: Rotation, Interpolation: Linear, Times: times, Values: values})
	}
	if err := c.Validate(2); err != nil {
		t.Fatal(err)
	}
	var p *Prepared
	a := testfiles.Allocated(func() { p = Prepare(c) })
	// One track's keys (32 bytes each) and spans, with room for the per-track
	// tables; tracks × keys would be over 100 MiB.
	if a > 4<<20 {
		t.Errorf("preparing %d tracks sharing %d keys allocated %d bytes", tracks, keys, a)
	}
	if &p.rot[0].keys[0] != &p.rot[tracks-1].keys[0] {
		t.Error("tracks sharing their keys do not share their prepared rotations")
	}
	// And they sample as the first two tracks alone do.
	two := &Animation{Name: "two", Duration: c.Duration, Tracks: c.Tracks[:2]}
	got, want := make([]rig.Transform, 2), make([]rig.Transform, 2)
	for _, at := range []float64{0, 1.01, 77.7, 1000} {
		p.NewSampler().Sample(at, got)
		NewSampler(two).Sample(at, want)
		if got[0] != want[0] || got[1] != want[1] {
			t.Errorf("at %v: %v, want %v", at, got, want)
		}
	}
}

// Clips validated with one ValidCache scan the times and values they share
// once: the second clip's shared keys are not scanned again (seen here by
// breaking them after the first check, which only a new scan would notice),
// while keys of its own still are.
func TestValidCacheAcrossClips(t *testing.T) {
	times, values := []float32{0, 1, 2}, []float32{0, 0, 0, 1, 0, 0, 0.5, 1, 0, 0, 1, 1}
	clip := func(name string, v []float32) *Animation {
		return &Animation{Name: name, Duration: 2, Tracks: []Track{{Bone: 0, Path: Rotation, Interpolation: Linear, Times: times, Values: v}}}
	}
	var vc ValidCache
	if err := clip("a", values).ValidateShared(1, &vc); err != nil {
		t.Fatal(err)
	}
	values[4] = float32(math.NaN())
	if err := clip("b", values).ValidateShared(1, &vc); err != nil {
		t.Errorf("keys validated for clip a scanned again for clip b: %v", err)
	}
	own := append([]float32(nil), values...)
	if err := clip("c", own).ValidateShared(1, &vc); err == nil {
		t.Error("clip c's own NaN value passed")
	}
	if err := clip("b", values).Validate(1); err == nil {
		t.Error("Validate without a cache passed a NaN value")
	}
}
