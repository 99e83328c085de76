package crowd

import (
	"errors"
	"strings"
	"testing"

	"github.com/bonebake/bonebake/crowd/registry"
	"github.com/bonebake/bonebake/crowd/unit"
	"github.com/bonebake/bonebake/roster"
)

func TestMatch(t *testing.T) {
	r := registry.New()
	defer r.Close()
	for _, c := range []struct {
		file      string
		id        uint32
		want      string
		named, ok bool
	}{
		{"dir/horse.bpat", 2, "horse", true, true}, // the name wins, whatever the id
		{"x.bpat", 2, "elephant", false, true},
		{"humanoid_sword.BPAT", 0, "humanoid_sword", true, true},
		{"x.bpat", 9, "", false, false},
	} {
		def, named, ok := r.Match(c.file, c.id)
		if def.Name != c.want || named != c.named || ok != c.ok {
			t.Errorf("Match(%s, %d) = %s, named %v, ok %v; want %s, %v, %v", c.file, c.id, def.Name, named, ok, c.want, c.named, c.ok)
		}
	}
}

// WithSlot's slots are the program's own: only Into fills them. The rule of
// Load and LoadEach (a file's name, then its species_id) passes them by, so
// that one registry holds the files the rule places and the program's own side
// by side (the viewer's).
func TestWithSlotOnlyInto(t *testing.T) {
	wolf := encode(t, contents(speciesSpec{"wolf", 40, 12, horseClips, nil}))
	r := registry.New(registry.WithSlot(40, "wolf"), registry.WithSlot(41, "pack"))
	defer r.Close()
	if _, _, ok := r.Match("wolf.bpat", 40); ok {
		t.Error("Match finds a WithSlot slot by its name or id")
	}
	// LoadEach refuses both files as a registry without those slots does.
	files := []registry.File{{Name: "wolf.bpat", Data: wolf}, {Name: "x.bpat", Data: wolf}}
	plain := registry.New()
	defer plain.Close()
	_, want := plain.LoadEach(files)
	slots, errs := r.LoadEach(files)
	for k := range slots {
		if slots[k] != -1 || errs[k] == nil || want[k] == nil || errs[k].Error() != want[k].Error() {
			t.Errorf("LoadEach file %d: slot %d, %v; want none, %v", k, slots[k], errs[k], want[k])
		}
	}
	if err := r.Load(registry.Memory(registry.File{Name: "wolf.bpat", Data: wolf})); err == nil {
		t.Error("Load put wolf.bpat in a WithSlot slot by its name")
	}
	if err := r.Load(registry.Memory(registry.File{Name: "wolf.bpat", Data: wolf}).Into(41)); err != nil {
		t.Fatal(err)
	}
	if s := r.Species(41); s == nil || s.Name != "pack" || r.Species(40) != nil {
		t.Errorf("slot 41: %+v; slot 40: %+v", s, r.Species(40))
	}
}

// Into puts files in the slots given, whatever species they carry: two files
// of one species side by side, each with its slot's archetypes, and a snapshot
// mesh that carries the file's own species_id.
func TestLoadAs(t *testing.T) {
	human := encode(t, contents(builtinSpecs[0]))
	wolf := encode(t, contents(speciesSpec{"wolf", 9, 12, horseClips, nil}))
	r := registry.New(
		registry.WithSpecies(roster.Species{ID: 10, Name: "a", Archetypes: []roster.Archetype{roster.Humanoid}}),
		registry.WithSpecies(roster.Species{ID: 11, Name: "b"}),
		registry.WithSpecies(roster.Species{ID: 12, Name: "c"}))
	defer r.Close()
	if err := r.Load(registry.Memory(registry.File{Name: "one.bpat", Data: human, Snapshot: halfSnapshot(t, builtinSpecs[0])}).Into(10)); err != nil {
		t.Fatal(err)
	}
	if err := r.Load(registry.Memory(registry.File{Name: "two.bpat", Data: human}).Into(11)); err != nil {
		t.Fatal(err)
	}
	if err := r.Load(registry.Memory(registry.File{Name: "wolf.bpat", Data: wolf}).Into(12)); err != nil {
		t.Fatalf("a species id no one registered, in a slot given: %v", err)
	}
	a, b := r.Species(10), r.Species(11)
	if a == nil || b == nil || a.File.Header().SpeciesID != 0 || a.Name != "a" || b.Name != "b" {
		t.Fatalf("slots 10 and 11: %+v, %+v", a, b)
	}
	if a.Table(roster.Humanoid) == nil || b.Table(roster.Humanoid) != nil {
		t.Error("archetypes: want slot 10's humanoid table and none for slot 11")
	}
	if a.Snapshot == nil || b.Snapshot != nil {
		t.Error("snapshot: want slot 10's only")
	}
	// A unit of slot 11, registered with no archetype (as the README registers a
	// model the game baked), is reported saying how to give it one, not that it
	// supports "[]".
	c := New(1)
	c.Set(0, unit.Loadout{Species: 11, Archetype: roster.Humanoid})
	if err := c.Check(r); err == nil || !strings.Contains(err.Error(), "species b has no archetype") || !strings.Contains(err.Error(), "WithArchetype") {
		t.Errorf("a species with no archetype: %v", err)
	}
	if err := c.Animate(r, .1); err == nil || !strings.HasPrefix(err.Error(), "crowd: 1 unit cannot be played: ") {
		t.Errorf("Animate of the one unit: %v", err)
	}
	// The GPU clock mode reports the same unit with its own Check, which the
	// UnplayableError Commit returns points to.
	g := NewGPUClock(2)
	g.Set(0, unit.Loadout{Species: 10, Archetype: roster.Humanoid}) // playable
	g.Set(1, unit.Loadout{Species: 11, Archetype: roster.Humanoid})
	if err := g.Commit(r); err == nil || !strings.Contains(err.Error(), "(Check names them)") {
		t.Errorf("Commit: %v", err)
	}
	if err := g.Check(r); err == nil || !strings.Contains(err.Error(), "crowd: 1 of 2 units cannot be played:\nunit 1: species b has no archetype") {
		t.Errorf("GPUClock.Check: %v", err)
	}
	if err := r.Load(registry.Memory(registry.File{Name: "three.bpat", Data: human}).Into(13)); !errors.Is(err, registry.ErrUnregistered) {
		t.Errorf("an unregistered slot: %v", err)
	}
	if err := r.Load(registry.Memory(registry.File{Name: "again.bpat", Data: human}).Into(11)); err == nil || !strings.Contains(err.Error(), "already held") {
		t.Errorf("a held slot: %v", err)
	}
	// A snapshot mesh of another species is refused, as AttachSnapshot refuses it.
	err := r.Load(registry.Memory(registry.File{Name: "h.bpat", Data: human, Snapshot: halfSnapshot(t, builtinSpecs[1])}).Into(unit.SpeciesHumanoid))
	if err == nil || !strings.Contains(err.Error(), "species_id 1") {
		t.Errorf("a horse's snapshot for a humanoid: %v", err)
	}
}

// LoadEach loads what it can, by Load's rule, the files named after their
// species first, and says why it left the others out.
func TestLoadEach(t *testing.T) {
	spec := func(name string) []byte { return encode(t, contents(specNamed(name))) }
	srcs := []registry.File{
		{Name: "mine.bpat", Data: spec("humanoid")},     // the humanoid's id, and a name of its own
		{Name: "humanoid.bpat", Data: spec("humanoid")}, // named: goes first and keeps slot 0
		{Name: "horse.bpat", Data: spec("elephant")},    // named for the horse, carrying the elephant's id
		{Name: "wolf.bpat", Data: encode(t, contents(speciesSpec{"wolf", 9, 12, horseClips, nil}))},
		{Name: "big.bpat", Data: spec("elephant"), Snapshot: halfSnapshot(t, specNamed("elephant"))},
	}
	r := registry.New(registry.Lenient())
	defer r.Close()
	slots, errs := r.LoadEach(srcs)
	want := []int{-1, 0, -1, -1, 2}
	for k := range srcs {
		if slots[k] != want[k] || (errs[k] == nil) != (want[k] >= 0) {
			t.Errorf("%s: slot %d, %v; want slot %d", srcs[k].Name, slots[k], errs[k], want[k])
		}
	}
	if errs[0] == nil || !strings.Contains(errs[0].Error(), "already held by humanoid.bpat") {
		t.Errorf("mine.bpat: %v", errs[0])
	}
	if errs[2] == nil || !strings.Contains(errs[2].Error(), "named for slot 1") {
		t.Errorf("horse.bpat: %v", errs[2])
	}
	if !errors.Is(errs[3], registry.ErrUnregistered) {
		t.Errorf("wolf.bpat: %v, want ErrUnregistered", errs[3])
	}
	if s := r.Species(unit.SpeciesElephant); s == nil || s.Path != "big.bpat" || s.Snapshot == nil {
		t.Errorf("elephant slot: %+v", s)
	}
}

// Clips played by number stand for the states the species' tables give them
// (docs/runtime.md §5), and fade as the fade table says for those states.
func TestClipStateAndFade(t *testing.T) {
	r := registry.New(registry.WithSpecies(roster.Species{ID: 11, Name: "plain"}))
	defer r.Close()
	human := encode(t, contents(builtinSpecs[0]))
	if err := r.Load(registry.Memory(registry.File{Name: "humanoid.bpat", Data: human})); err != nil {
		t.Fatal(err)
	}
	if err := r.Load(registry.Memory(registry.File{Name: "plain.bpat", Data: human}).Into(11)); err != nil {
		t.Fatal(err)
	}
	h := r.Species(unit.SpeciesHumanoid)
	clip := func(name string) unit.ClipID { return clipID(h, name) }
	for name, want := range map[string]unit.StateID{
		"idle": unit.StateIdle, "idle_squat": unit.StateIdle, "walk": unit.StateWalk, "run": unit.StateRun,
		"hold":           unit.StateHold, // Hold comes before the attacks that also play it
		"attack_sword_b": unit.StateAttackSword, "attack_bow": unit.StateAttackBow,
		"die_infantry": unit.StateDie, "dead_infantry": unit.StateDead,
		"riding_idle":   unit.StateIdle, // the rider table (the humanoid's second) maps it first to Idle
		"riding_charge": unit.StateRun, "die_mounted": unit.StateDie,
	} {
		if st, ok := h.ClipState(clip(name)); st != want || !ok {
			t.Errorf("%s stands for %s (%v), want %s", name, st, ok, want)
		}
	}
	if st, ok := h.ClipState(clip("hold_bow")); st != unit.StateIdle || ok {
		t.Errorf("hold_bow, which no table plays: %s, %v", st, ok)
	}
	for _, c := range []struct {
		from, to string
		want     float32
	}{
		{"walk", "run", registry.FadeLocomotion},
		{"walk", "attack_sword_a", registry.FadeIntoAttack},
		{"attack_sword_a", "walk", registry.FadeFromAttack},
		{"run", "die_infantry", registry.FadeIntoDeath},
		{"dead_infantry", "idle", 0},
	} {
		if got := r.ClipFade(unit.SpeciesHumanoid, clip(c.from), clip(c.to)); got != c.want {
			t.Errorf("fade %s → %s: %v, want %v", c.from, c.to, got, c.want)
		}
	}
	if got := r.ClipFade(unit.SpeciesHumanoid, unit.NoClip, clip("walk")); got != 0 {
		t.Errorf("fade from NoClip: %v", got)
	}
	if got := r.ClipFade(11, clip("walk"), clip("die_infantry")); got != registry.FadeLocomotion {
		t.Errorf("a species without archetypes: %v, want FadeLocomotion on every change", got)
	}
	if got := r.ClipFade(unit.SpeciesHorse, 0, 1); got != 0 {
		t.Errorf("a species not loaded: %v", got)
	}
}

// A rider on a horse played clip by clip plays the riding clip of the state the
// horse's clip stands for (docs/runtime.md §5's horse and rider columns).
func TestRiderClips(t *testing.T) {
	r := registry.New()
	defer r.Close()
	for _, s := range builtinSpecs[:3] {
		if err := r.Load(registry.Memory(registry.File{Name: s.name + ".bpat", Data: encode(t, contents(s))})); err != nil {
			t.Fatal(err)
		}
	}
	h, horse := r.Species(unit.SpeciesHumanoid), r.Species(unit.SpeciesHorse)
	got := registry.RiderClips(horse, h)
	// Horse clips idle, walk, trot, canter, gallop, fight, die, dead.
	want := []string{"riding_idle", "riding_idle", "riding_idle", "riding_idle", "riding_charge", "riding_sword_strike", "die_mounted", "dead_mounted"}
	if len(got) != len(want) {
		t.Fatalf("%d rider clips for %d horse clips", len(got), len(want))
	}
	for c, name := range want {
		if got[c] != clipID(h, name) {
			t.Errorf("horse clip %s: rider plays %s, want %s", horseClips[c].name, h.Clips[got[c]].Name, name)
		}
	}
	if registry.RiderClips(r.Species(unit.SpeciesElephant), h) != nil || registry.RiderClips(horse, horse) != nil {
		t.Error("want nil without a horse table or a rider table")
	}
}

// Two files of one species id that was registered without a name (simulate
// --species 6, a game's WithSpecies{ID: 6}) are refused as two files of any
// id are, saying what to do, with no empty "()" where the name goes (issue 45
// item 2: "species slot 6 () is already held by many/Fox.bpat").
func TestSlotHeldUnnamed(t *testing.T) {
	dir := t.TempDir()
	writeSpecies(t, dir, speciesSpec{"fox", 6, 4, horseClips, nil}, speciesSpec{"wolf", 6, 4, horseClips, nil})
	_, err := registry.Open(registry.Dir(dir), registry.WithSpecies(roster.Species{ID: 6}))
	if err == nil || !strings.Contains(err.Error(), "species slot 6 is already held by") || !strings.Contains(err.Error(), "another id") {
		t.Errorf("two files of id 6: %v; want the slot named without an empty name, and what to do", err)
	}
}
