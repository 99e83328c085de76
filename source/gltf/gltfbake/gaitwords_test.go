package gltfbake

import (
	"strings"
	"testing"

	"github.com/bonebake/bonebake/internal/testfiles"
)

// TestGaitReasonUnits: a gait reason gives its speeds with their unit, metres
// for a BVH taken for metres (a_biped_walk's reason said "2.879 per s of
// clip", a number a user could not place), as the summary's speeds do.
func TestGaitReasonUnits(t *testing.T) {
	m, err := Load(testfiles.Path(t, "bvh", "a_biped_walk.bvh"), Settings{})
	if err != nil {
		t.Fatal(err)
	}
	c := m.Gaits("x.bpat").Clips[0]
	if !strings.Contains(c.Reason, "at 2.879 m per s of clip") || !strings.HasSuffix(c.Reason, "slide 1.679 m per s") {
		t.Errorf("reason %q: want its speeds in m per s", c.Reason)
	}
}
