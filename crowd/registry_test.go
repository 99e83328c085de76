package crowd

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/bonebake/bonebake/crowd/registry"
	"github.com/bonebake/bonebake/crowd/unit"
	"github.com/bonebake/bonebake/formats"
	"github.com/bonebake/bonebake/formats/bpat"
	"github.com/bonebake/bonebake/roster"
)

func TestRegistryLoadsDirectory(t *testing.T) {
	r := testRegistry(t)
	all := r.All()
	if len(all) != 6 {
		t.Fatalf("%d species loaded, want 6", len(all))
	}
	for i, s := range all {
		want := builtinSpecs[i]
		if uint32(s.ID) != want.id || s.Name != want.name || len(s.Clips) != len(want.clips) || s.File.BoneCount() != want.bones {
			t.Errorf("slot %d: %d %s, %d clips, %d bones", i, s.ID, s.Name, len(s.Clips), s.File.BoneCount())
		}
		if r.Species(unit.SpeciesID(want.id)) != s || r.Lookup(want.name) != s {
			t.Errorf("Species(%d)/Lookup(%s) do not find it", want.id, want.name)
		}
		if !strings.HasSuffix(s.Path, want.name+".bpat") {
			t.Errorf("path %s", s.Path)
		}
	}
	if r.Species(6) != nil || r.Species(255) != nil || r.Lookup("wolf") != nil {
		t.Error("found a species that was not loaded")
	}
	h := r.Species(0)
	if h.Table(roster.Humanoid) == nil || h.Table(roster.Rider) == nil || h.Table(roster.Horse) != nil {
		t.Error("humanoid archetypes: want humanoid and rider only")
	}
	if r.Species(1).Table(roster.Horse) == nil || r.Species(2).Table(roster.Elephant) == nil {
		t.Error("horse and elephant tables missing")
	}
	// Gaits: built-in walk and run cycles; an unknown clip plays once per duration.
	walk := h.Clips[clipID(h, "walk")]
	run := h.Clips[clipID(h, "run")]
	squat := h.Clips[clipID(h, "idle_squat")]
	if walk.Gait != (roster.Gait{Cycle: 0.92, Speed: 1.4}) || run.Gait != (roster.Gait{Cycle: 0.56, Speed: 3.8}) || squat.Gait.Cycle != squat.Duration || squat.Gait.Speed != 0 {
		t.Errorf("gaits: walk %+v run %+v idle_squat %+v (duration %v)", walk.Gait, run.Gait, squat.Gait, squat.Duration)
	}
	if c := h.Contact(clipID(h, "attack_sword_a")); c != .58 {
		t.Errorf("sword contact %v", c)
	}
	if c := h.Contact(clipID(h, "idle")); c != registry.DefaultContact {
		t.Errorf("idle contact %v, want the default", c)
	}
}

func TestRegistryGaitOverride(t *testing.T) {
	r := testRegistry(t, registry.WithGait(0, "walk", roster.Gait{Cycle: 1, Speed: 1.5}))
	h := r.Species(0)
	if g := h.Clips[clipID(h, "walk")].Gait; g != (roster.Gait{Cycle: 1, Speed: 1.5}) {
		t.Errorf("overridden walk gait %+v", g)
	}
	if g := r.Species(3).Clips[5].Gait; g != (roster.Gait{Cycle: 0.92, Speed: 1.4}) {
		t.Errorf("humanoid_sword walk gait %+v changed", g)
	}
}

func TestRegistryRefusesWrongSlot(t *testing.T) {
	dir := t.TempDir()
	writeSpecies(t, dir, specNamed("humanoid"), specNamed("elephant"))
	// horse.bpat holding the elephant (species_id 2).
	el := contents(specNamed("elephant"))
	if err := os.WriteFile(filepath.Join(dir, "horse.bpat"), encode(t, el), 0o644); err != nil {
		t.Fatal(err)
	}
	r := registry.New()
	defer r.Close()
	err := r.Load(registry.Dir(dir))
	if err == nil {
		t.Fatal("loaded a file in the wrong slot")
	}
	msg := err.Error()
	if !strings.Contains(msg, filepath.Join(dir, "horse.bpat")) || !strings.Contains(msg, "species_id is 2") || !strings.Contains(msg, "slot 1 (horse)") {
		t.Errorf("error does not say which file and why: %v", err)
	}
	if len(r.All()) != 0 {
		t.Errorf("a refused directory left %d species loaded", len(r.All()))
	}
}

func TestRegistryRefusesInvalidFile(t *testing.T) {
	dir := t.TempDir()
	writeSpecies(t, dir, specNamed("humanoid"))
	b := encode(t, contents(specNamed("horse")))
	b[4] = 9 // version 9
	path := filepath.Join(dir, "horse.bpat")
	os.WriteFile(path, b, 0o644)
	_, err := registry.Open(registry.Dir(dir))
	var ve *bpat.ValidationError
	if err == nil || !errors.As(err, &ve) || !ve.HasRule(formats.RuleVersion) || !strings.Contains(err.Error(), path) {
		t.Fatalf("want a version error naming %s, got %v", path, err)
	}

	// A file that validates but lacks a clip its archetype needs.
	spec := specNamed("elephant")
	spec.clips = spec.clips[:4] // no die, dead
	dir2 := t.TempDir()
	writeSpecies(t, dir2, spec)
	_, err = registry.Open(registry.Dir(dir2))
	if err == nil || !strings.Contains(err.Error(), `needs clip "die"`) || !strings.Contains(err.Error(), "elephant.bpat") {
		t.Fatalf("missing clip: %v", err)
	}

	// An empty directory.
	if _, err := registry.Open(registry.Dir(t.TempDir())); err == nil {
		t.Error("opened an empty directory")
	}
}

func TestRegistryBySpeciesID(t *testing.T) {
	dir := t.TempDir()
	// warhorse.bpat is no species' name: it loads by its species_id, 1.
	os.WriteFile(filepath.Join(dir, "warhorse.bpat"), encode(t, contents(specNamed("horse"))), 0o644)
	r, err := registry.Open(registry.Dir(dir))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if s := r.Species(1); s == nil || s.Name != "horse" || !strings.HasSuffix(s.Path, "warhorse.bpat") {
		t.Fatalf("warhorse.bpat not in slot 1: %+v", s)
	}
	// A second file for slot 1 is refused and names both.
	p := filepath.Join(t.TempDir(), "horse.bpat")
	os.WriteFile(p, encode(t, contents(specNamed("horse"))), 0o644)
	if err := r.Load(registry.Files(p)); err == nil || !strings.Contains(err.Error(), "warhorse.bpat") || !strings.Contains(err.Error(), p) {
		t.Errorf("duplicate slot: %v", err)
	}
}

func TestRegistryCustomSpecies(t *testing.T) {
	wolf := speciesSpec{"wolf", 9, 12, horseClips, nil}
	c := contents(wolf)
	// Without registration, id 9 fails validation, and the refusal says how to
	// register it.
	r := registry.New()
	if err := r.Load(registry.Memory(registry.File{Name: "wolf.bpat", Data: encode(t, c)})); err == nil {
		t.Fatal("loaded an unregistered species id")
	} else if !strings.Contains(err.Error(), "species id 9") || !strings.Contains(err.Error(), "register its id with WithSpecies") {
		t.Errorf("an unregistered species id: %v", err)
	}
	r.Close()
	r = registry.New(registry.WithSpecies(roster.Species{ID: 9, Name: "wolf", Archetypes: []roster.Archetype{roster.Horse},
		Gaits: map[string]roster.Gait{"walk": {Cycle: .7, Speed: 1.2}}}))
	defer r.Close()
	if err := r.Load(registry.Memory(registry.File{Name: "wolf.bpat", Data: encode(t, c)})); err != nil {
		t.Fatal(err)
	}
	s := r.Species(9)
	if s == nil || s.Table(roster.Horse).Clip(unit.StateRun, 0) != 4 || s.Clips[1].Gait != (roster.Gait{Cycle: .7, Speed: 1.2}) {
		t.Fatalf("wolf: %+v", s)
	}
	// A built-in name with the custom id is refused.
	if err := r.Load(registry.Memory(registry.File{Name: "elephant.bpat", Data: encode(t, c)})); err == nil || !strings.Contains(err.Error(), "species_id is 9") {
		t.Errorf("custom id under a built-in name: %v", err)
	}
}

func TestRegistryConcurrentReaders(t *testing.T) {
	r := registry.New()
	defer r.Close()
	for _, s := range builtinSpecs[:3] {
		if err := r.Load(registry.Memory(registry.File{Name: s.name + ".bpat", Data: encode(t, contents(s))})); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			c := New(64)
			for i := range c.Species {
				c.Species[i] = unit.SpeciesID(i % 3)
				c.Archetype[i] = roster.Archetype(i % 3)
				c.Speed[i] = float32(i%4) * .8
			}
			soc := make([]float32, 16*12)
			for k := 0; ; k++ {
				select {
				case <-stop:
					return
				default:
				}
				if err := c.Animate(r, 1.0/60); err != nil {
					t.Error(err)
					return
				}
				if err := c.Sockets(r, k%64, soc); err != nil {
					t.Error(err)
					return
				}
				if s := r.Species(unit.SpeciesID(k % 6)); s != nil && s.ID != unit.SpeciesID(k%6) {
					t.Errorf("slot %d holds %d", k%6, s.ID)
				}
				_ = r.All()
			}
		}(g)
	}
	// Meanwhile, load the other three species.
	for _, s := range builtinSpecs[3:] {
		if err := r.Load(registry.Memory(registry.File{Name: s.name + ".bpat", Data: encode(t, contents(s))})); err != nil {
			t.Error(err)
		}
	}
	close(stop)
	wg.Wait()
	if len(r.All()) != 6 {
		t.Errorf("%d species after the loads", len(r.All()))
	}
}

func TestRegistryClose(t *testing.T) {
	dir := t.TempDir()
	writeSpecies(t, dir, builtinSpecs...)
	r, err := registry.Open(registry.Dir(dir))
	if err != nil {
		t.Fatal(err)
	}
	h := r.Species(0)
	c := New(4)
	if err := c.Animate(r, .1); err != nil {
		t.Fatal(err)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if err := r.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if r.Species(0) != nil || len(r.All()) != 0 {
		t.Error("species still found after Close")
	}
	if err := c.Animate(r, .1); !errors.Is(err, registry.ErrClosed) {
		t.Errorf("Animate after Close: %v", err)
	}
	if err := c.Batch.Step(r, .1); !errors.Is(err, registry.ErrClosed) {
		t.Errorf("Step after Close: %v", err)
	}
	if err := c.Sockets(r, 0, make([]float32, 120)); !errors.Is(err, registry.ErrClosed) {
		t.Errorf("Sockets after Close: %v", err)
	}
	if _, err := h.Sockets(0, .5, make([]float32, 120)); !errors.Is(err, registry.ErrClosed) {
		t.Errorf("Species.Sockets after Close: %v", err)
	}
	if err := r.Load(registry.Dir(dir)); !errors.Is(err, registry.ErrClosed) {
		t.Errorf("Load after Close: %v", err)
	}
	// The files are unmapped: they can be removed (and, on every OS, replaced).
	for _, s := range builtinSpecs {
		if err := os.Remove(filepath.Join(dir, s.name+".bpat")); err != nil {
			t.Error(err)
		}
	}
}
