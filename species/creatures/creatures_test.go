package creatures

import (
	"slices"
	"testing"
)

// TestIDsAndNames checks the table of docs/species.md §1.
func TestIDsAndNames(t *testing.T) {
	want := []string{"humanoid", "horse", "elephant", "humanoid_sword", "humanoid_spear", "humanoid_skeleton"}
	if !slices.Equal(Names(), want) {
		t.Fatalf("names %v, want %v", Names(), want)
	}
	for id, name := range want {
		s := ByID(uint32(id))
		if s == nil || s.Name != name || ByName(name) != s || s.ID != uint32(id) {
			t.Fatalf("id %d: %+v", id, s)
		}
		if s.Mesh == nil || len(s.Clips) == 0 || s.Skeleton == nil {
			t.Fatalf("%s is incomplete", name)
		}
		if s.Minimal == nil {
			t.Errorf("%s has no minimal mesh", name)
		}
	}
	if ByName("unicorn") != nil || ByID(6) != nil {
		t.Fatal("unknown species found")
	}
	if first, again := All(), All(); first[0] != again[0] {
		t.Fatal("species are rebuilt on every call")
	}
}
