package runtime_test

import (
	"bytes"
	"testing"

	"bonebake/bake"
	"bonebake/format/bpat"
	"bonebake/runtime"
	"bonebake/species"
	"bonebake/species/quadruped"
)

// The built-in creatures, baked: their files load into their slots, every
// archetype finds its clips, and the runtime's gait table agrees with the species'
// own cycles and ground speeds.
func TestBakedQuadrupeds(t *testing.T) {
	reg := runtime.NewRegistry()
	defer reg.Close()
	for _, s := range []*species.Species{quadruped.Horse(), quadruped.Elephant()} {
		c, err := bake.Species(s)
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := bpat.Write(&buf, c); err != nil {
			t.Fatal(err)
		}
		if err := reg.LoadBytes(s.Name+".bpat", buf.Bytes()); err != nil {
			t.Fatal(err)
		}
		loaded := reg.Species(s.ID)
		for i, sc := range s.Clips {
			lc := loaded.Clips[i]
			want := runtime.Gait{Cycle: sc.Cycle, Speed: sc.Speed}
			if want.Cycle == 0 {
				want.Cycle = sc.Duration()
			}
			if lc.Name != sc.Name || lc.Gait != want {
				t.Errorf("%s clip %d %s: runtime gait %+v, species %+v", s.Name, i, sc.Name, lc.Gait, want)
			}
		}
	}
	if reg.Species(1).Table(runtime.ArchHorse) == nil || reg.Species(2).Table(runtime.ArchElephant) == nil {
		t.Error("archetype tables missing")
	}
}
