package roster

import (
	"slices"
	"strings"
	"testing"
)

// TestTable checks the roster against the species table of docs/species.md §1
// and the cycles of §3 and §5, written out here by hand.
func TestTable(t *testing.T) {
	want := []struct {
		id   uint32
		name string
		arch []Archetype
	}{
		{0, "humanoid", []Archetype{Humanoid, Rider}},
		{1, "horse", []Archetype{Horse}},
		{2, "elephant", []Archetype{Elephant}},
		{3, "humanoid_sword", []Archetype{Humanoid, Rider}},
		{4, "humanoid_spear", []Archetype{Humanoid, Rider}},
		{5, "humanoid_skeleton", []Archetype{Humanoid, Rider}},
	}
	all := Builtin()
	if len(all) != len(want) {
		t.Fatalf("%d species, want %d", len(all), len(want))
	}
	for i, w := range want {
		s := all[i]
		if s.ID != w.id || s.Name != w.name || !slices.Equal(s.Archetypes, w.arch) {
			t.Errorf("row %d: %+v, want %+v", i, s, w)
		}
		if b, ok := ByID(w.id); !ok || b.Name != w.name {
			t.Errorf("ByID(%d) = %v, %v", w.id, b.Name, ok)
		}
		if b, ok := ByName(w.name); !ok || b.ID != w.id {
			t.Errorf("ByName(%s) = %v, %v", w.name, b.ID, ok)
		}
	}
	if !slices.Equal(IDs(), []uint32{0, 1, 2, 3, 4, 5}) || Names()[5] != "humanoid_skeleton" {
		t.Errorf("IDs %v, Names %v", IDs(), Names())
	}
	if _, ok := ByID(6); ok {
		t.Error("id 6 found")
	}
	if _, ok := ByName("unicorn"); ok {
		t.Error("unicorn found")
	}
	cycles := map[string]map[string]float64{
		"humanoid": {"walk": 0.92, "run": 0.56},
		"horse":    {"idle": 2.5, "walk": 1.1, "trot": 0.55, "canter": 0.48, "gallop": 0.38},
		"elephant": {"idle": 2, "walk": 1.2, "run": 0.6, "fight": 1.15},
	}
	for name, m := range cycles {
		s, _ := ByName(name)
		for clip, c := range m {
			if g := s.Gait(clip); g.Cycle != c {
				t.Errorf("%s %s cycle %v, want %v", name, clip, g.Cycle, c)
			}
		}
	}
}

func TestCopies(t *testing.T) {
	a := Builtin()
	a[0].Gaits["walk"] = Gait{Cycle: 9}
	a[0].Archetypes[0] = Elephant
	b, _ := ByID(0)
	if b.Gait("walk").Cycle != 0.92 || b.Archetypes[0] != Humanoid {
		t.Fatal("Builtin returned the table itself")
	}
}

func TestFirstFreeID(t *testing.T) {
	for _, c := range []struct {
		taken []uint32
		want  uint32
	}{{nil, 6}, {[]uint32{6, 7, 9}, 8}, {[]uint32{0, 100}, 6}} {
		if got := FirstFreeID(c.taken...); got != c.want {
			t.Errorf("FirstFreeID(%v) = %d, want %d", c.taken, got, c.want)
		}
	}
}

func TestArchetypeString(t *testing.T) {
	if Rider.String() != "rider" || Archetype(9).String() != "archetype 9" {
		t.Fatal(Rider.String(), Archetype(9).String())
	}
}

func TestCheckID(t *testing.T) {
	// The runtime's units name their species with one byte: 255 is the last id.
	if err := CheckID(255); err != nil {
		t.Errorf("255: %v", err)
	}
	if err := CheckID(256); err == nil || !strings.Contains(err.Error(), "256") || !strings.Contains(err.Error(), "255") {
		t.Errorf("256: %v", err)
	}
}
