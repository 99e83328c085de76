package creatures

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/bonebake/bonebake/bake"
	"github.com/bonebake/bonebake/internal/words"
	"github.com/bonebake/bonebake/species"
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

// TestPick: names as a command line lists them (spaces around, repeated) pick
// each creature once in the order given; none picks all; an unknown name is
// quoted, with the names there are.
func TestPick(t *testing.T) {
	got, err := Pick([]string{" horse", "humanoid", "horse "})
	if err != nil || len(got) != 2 || got[0].Name != "horse" || got[1].Name != "humanoid" {
		t.Errorf("Pick: %v, %v; want horse, humanoid", got, err)
	}
	if all, err := Pick(nil); err != nil || len(all) != len(All()) {
		t.Errorf("Pick(nil): %d creatures, %v; want all %d", len(all), err, len(All()))
	}
	if _, err := Pick([]string{"horse", "dragon"}); err == nil || !strings.HasPrefix(err.Error(), `"dragon": no such built-in creature (there are: humanoid, horse, elephant,`) {
		t.Errorf("Pick(dragon): %v", err)
	}
}

// TestWriteAll: a line for each file written, naming it and saying its size,
// then the total of both files and the version the horse's markers need.
func TestWriteAll(t *testing.T) {
	dir := t.TempDir()
	var told []bake.Line
	if err := species.WriteAll([]*species.Creature{ByName("horse")}, dir, nil, func(l bake.Line) { told = append(told, l) }); err != nil {
		t.Fatal(err)
	}
	if len(told) != 3 {
		t.Fatalf("told %q, want 2 files and the total", told)
	}
	var total int64
	for i, name := range []string{"horse.bpat", "horse_minimal.bpsm"} {
		st, err := os.Stat(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		total += st.Size()
		if l := told[i]; l.Kind != bake.Wrote || !strings.HasPrefix(l.Text, "wrote "+filepath.Join(dir, name)+": ") || !strings.HasSuffix(l.Text, ", "+words.Bytes(st.Size())) {
			t.Errorf("line %d: %+v, want what %s holds and its size", i, l, name)
		}
	}
	want := "baked 1 creature into " + dir + ": 2 files, " + words.Bytes(total) + ", BPAT v2 (their clips have combat markers), in "
	if l := told[2]; l.Kind != bake.Total || !strings.HasPrefix(l.Text, want) {
		t.Errorf("total %+v, want %q…", l, want)
	}
}

// TestCheckVersion: the built-in creatures carry combat markers, which BPAT v1
// cannot store (docs/formats/bpat.md §2), so version 1 is refused as a setting
// (Settings.Version, which the command line names --bpat-version); no version
// given and version 2 pass.
func TestCheckVersion(t *testing.T) {
	markers := false
	for _, s := range All() {
		for _, c := range s.Clips {
			markers = markers || c.Markers.Any()
		}
	}
	if !markers {
		t.Fatal("no built-in creature has a marker: the rule has no reason")
	}
	var se *bake.SettingError
	if err := species.CheckVersion(1); !errors.As(err, &se) || se.Setting != "Version" || !se.ReadsOn || err.Error() != "Version 1: the built-in creatures have combat markers, which only v2 stores" {
		t.Errorf("version 1: %v", err)
	}
	for _, v := range []uint32{0, 2} {
		if err := species.CheckVersion(v); err != nil {
			t.Errorf("version %d: %v", v, err)
		}
	}
}
