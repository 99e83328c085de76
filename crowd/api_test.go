package crowd

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/bonebake/bonebake/crowd/combat"
	"github.com/bonebake/bonebake/crowd/registry"
	"github.com/bonebake/bonebake/crowd/unit"
	"github.com/bonebake/bonebake/formats/bpat"
	"github.com/bonebake/bonebake/roster"
)

// The named species are the roster's, and every kind pairs a species with an
// archetype it supports.
func TestKindsFit(t *testing.T) {
	for name, id := range map[string]unit.SpeciesID{"humanoid": unit.SpeciesHumanoid, "horse": unit.SpeciesHorse, "elephant": unit.SpeciesElephant,
		"humanoid_sword": unit.SpeciesHumanoidSword, "humanoid_spear": unit.SpeciesHumanoidSpear, "humanoid_skeleton": unit.SpeciesHumanoidSkeleton} {
		if d, ok := roster.ByName(name); !ok || unit.SpeciesID(d.ID) != id || id.String() != name {
			t.Errorf("%s: roster id %d, constant %d (%s)", name, d.ID, id, id)
		}
	}
	r := testRegistry(t)
	c := New(int(unit.NumKinds))
	for k := range unit.NumKinds {
		c.Spawn(int(k), k)
		u := k.Loadout()
		d, _ := roster.ByID(uint32(u.Species))
		if !slices.Contains(d.Archetypes, u.Archetype) || (u.Archetype == unit.ArchRider) != (u.Flags == unit.Mounted) {
			t.Errorf("%v: %+v does not fit %s", k, u, d.Name)
		}
	}
	if err := c.Check(r); err != nil {
		t.Fatal(err)
	}
	if err := c.Animate(r, .1); err != nil {
		t.Fatal(err)
	}
}

// A unit whose species is not loaded or whose archetype does not fit is counted by
// Animate and named by Check; the others still play.
func TestUnplayableReported(t *testing.T) {
	r := registry.New()
	writeDir := t.TempDir()
	writeSpecies(t, writeDir, specNamed("humanoid"), specNamed("horse"))
	if err := r.Load(registry.Dir(writeDir)); err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	c := New(6)
	c.Spawn(0, unit.KindSwordsman) // species 3: not loaded
	c.Spawn(1, unit.KindBowman)
	c.Spawn(2, unit.KindHorse)
	c.Species[3] = unit.SpeciesHorse // a horse left at the humanoid archetype
	c.Spawn(4, unit.KindHorseArcher)
	c.Archetype[5] = 200 // no such archetype
	err := c.Animate(r, .1)
	var ue *UnplayableError
	if !errors.As(err, &ue) || ue.Units != 3 {
		t.Fatalf("Animate: %v", err)
	}
	err = c.Check(r)
	for _, want := range []string{"3 of 6 units", "unit 0: species 3 (humanoid_sword) is not loaded", "unit 3: species horse does not support archetype humanoid", "unit 5:"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Check: %v; want %q", err, want)
		}
	}
	if st, cl := c.Select(r, 1); c.State[1] != st || c.Clip[1] != cl {
		t.Error("a playable unit was not animated")
	}
	for _, i := range []int{1, 2, 4} {
		c.Archetype[5], c.Species[0], c.Species[3] = unit.ArchHumanoid, unit.SpeciesHumanoid, unit.SpeciesHumanoid
		if err := c.Animate(r, .1); err != nil {
			t.Fatalf("unit %d: %v", i, err)
		}
	}
}

// Combat times hits exactly as Melee does, reports releases of ranged swings at
// their weapon_release marker, and keeps the Attacking and Dying flags.
func TestCombatEvents(t *testing.T) {
	r := testRegistry(t)
	c := New(3)
	c.Spawn(0, unit.KindSwordsman)
	c.Spawn(1, unit.KindBowman)
	c.Spawn(2, unit.KindElephant)
	f := NewCombat(r, c)
	w := &f.World
	if &c.Swing[0] != &f.Melee.Phase[0] {
		t.Fatal("the crowd does not play the combat's swings")
	}
	copy(w.HP, []float32{100, 100, 15})
	copy(w.Team, []uint8{0, 0, 1})
	copy(w.X, []float32{0, 0, 1})
	for i := range 2 {
		f.Melee.Damage[i], f.Melee.Cooldown[i], f.Melee.Reach[i] = 10, 5, 20
	}
	if !f.Attack(0, 2) || !f.Attack(1, 2) || f.Attack(0, 2) || f.Attack(2, 1) {
		t.Fatal("Attack: a swing that should begin did not, or one began on a cooldown or without reach")
	}
	if c.Flags[0]&unit.Attacking == 0 || w.Target[1] != 2 {
		t.Fatal("Attack did not set Attacking and the target")
	}
	// The reference: the same swings on a bare Melee.
	m := combat.NewMelee(3)
	rw := &combat.World{HP: []float32{100, 100, 15}, Team: []uint8{0, 0, 1}, X: []float32{0, 0, 1}, Z: make([]float32, 3)}
	for i := range 2 {
		m.Damage[i], m.Cooldown[i], m.Reach[i] = 10, 5, 20
	}
	h := r.Species(unit.SpeciesHumanoidSword)
	m.Start(rw, 0, 2, h.Contact(clipID(h, "attack_sword_a")))
	m.Start(rw, 1, 2, r.Species(unit.SpeciesHumanoid).Contact(clipID(h, "attack_bow")))
	var got []string
	var hits []combat.Hit
	for step := 0; step < 200; step++ {
		hits = m.Step(rw, 1.0/60, hits[:0])
		ev := f.Step(1.0 / 60)
		var refHits []combat.Event
		for _, e := range ev {
			got = append(got, e.Kind.String())
			if e.Kind == combat.EventHit {
				refHits = append(refHits, e)
			}
			if e.Kind == combat.EventRelease && (e.Attacker != 1 || math.Abs(float64(f.Melee.Phase[1]-bowMarkers[bpat.WeaponRelease])) > .05) {
				t.Errorf("step %d: release %+v at phase %v", step, e, f.Melee.Phase[1])
			}
		}
		if len(refHits) != len(hits) {
			t.Fatalf("step %d: %d hits, Melee has %d", step, len(refHits), len(hits))
		}
		for k := range hits {
			e := refHits[k]
			if (combat.Hit{Attacker: e.Attacker, Target: e.Target, Damage: e.Damage, Killed: e.Killed}) != hits[k] {
				t.Fatalf("step %d: %+v, Melee %+v", step, e, hits[k])
			}
		}
		c.Animate(r, 1.0/60)
	}
	if want := "release hit hit end end"; strings.Join(got, " ") != want {
		t.Errorf("events %q, want %q", got, want)
	}
	if c.Flags[2]&(unit.Dying|unit.Dead) == 0 || c.Flags[0]&unit.Attacking != 0 || c.Flags[1]&unit.Attacking != 0 {
		t.Errorf("flags %v", c.Flags)
	}
}

func TestInstanceBytes(t *testing.T) {
	b := NewBatch(2)
	b.Out[1] = Instance{Frame: 0x01020304, Next: 7, Lerp: .25, Clip: 0x0506, Species: 9}
	want := binary.LittleEndian.AppendUint32(nil, 0x01020304)
	want = binary.LittleEndian.AppendUint32(want, 7)
	want = binary.LittleEndian.AppendUint32(want, math.Float32bits(.25))
	want = append(want, 6, 5, 9, 0)
	if got := b.InstanceBytes(); len(got) != 2*InstanceSize || !bytes.Equal(got[16:], want) {
		t.Fatalf("InstanceBytes % x", got)
	}
	var buf bytes.Buffer
	if n, err := b.WriteTo(&buf); err != nil || n != 32 || !bytes.Equal(buf.Bytes()[16:], want) {
		t.Fatalf("WriteTo: %d %v % x", n, err, buf.Bytes())
	}
}

func TestPlaceAndWorldSocket(t *testing.T) {
	// Heading π/2 faces +x: the model's forward (+z) goes to +x, its left (+x) to −z.
	p := registry.Place(10, 0, 5, math.Pi/2)
	near := func(a, b [3]float32) bool {
		return math.Abs(float64(a[0]-b[0]))+math.Abs(float64(a[1]-b[1]))+math.Abs(float64(a[2]-b[2])) < 1e-5
	}
	if got := p.Point([3]float32{0, 1, 1}); !near(got, [3]float32{11, 1, 5}) {
		t.Errorf("forward: %v", got)
	}
	if got := p.Point([3]float32{1, 0, 0}); !near(got, [3]float32{10, 0, 4}) {
		t.Errorf("left: %v", got)
	}
	if registry.Identity34.Mul(p) != p || p.Mul(registry.Identity34) != p || p.Mat4()[15] != 1 {
		t.Error("identity")
	}
	q := registry.Place(1, 2, 3, .7)
	if pq := p.Mul(q); !near(pq.Point([3]float32{.5, .5, .5}), p.Point(q.Point([3]float32{.5, .5, .5}))) {
		t.Error("Mul does not compose")
	}
	r := testRegistry(t)
	c := New(1)
	c.Spawn(0, unit.KindSwordsman)
	c.Animate(r, .3)
	hand := r.Species(unit.SpeciesHumanoidSword).SocketIndex("hand_r")
	m, err := c.Socket(r, 0, hand)
	if err != nil {
		t.Fatal(err)
	}
	w, err := c.WorldSocket(r, 0, hand, 10, 0, 5, math.Pi/2)
	if err != nil || !near(w.Translation(), p.Point(m.Translation())) {
		t.Errorf("WorldSocket %v, want %v (%v)", w.Translation(), p.Point(m.Translation()), err)
	}
	if _, err := c.Socket(r, 0, 99); err == nil {
		t.Error("socket 99 found")
	}
}

func TestLoadFS(t *testing.T) {
	fsys := fstest.MapFS{
		"assets/creatures/horse.bpat":    {Data: encode(t, contents(specNamed("horse")))},
		"assets/creatures/humanoid.bpat": {Data: encode(t, contents(specNamed("humanoid")))},
		"assets/creatures/notes.txt":     {Data: []byte("not a species")},
	}
	r, err := registry.Open(registry.FS(fsys, "assets/creatures"))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if len(r.All()) != 2 || r.Species(unit.SpeciesHorse).Path != "assets/creatures/horse.bpat" {
		t.Fatalf("loaded %d species", len(r.All()))
	}
	if _, err := registry.Open(registry.FS(fsys, "assets")); err == nil {
		t.Error("a directory with no .bpat files loaded")
	}
	fsys["bad/horse.bpat"] = &fstest.MapFile{Data: []byte("BPAT")}
	if _, err := registry.Open(registry.FS(fsys, "bad")); err == nil || !strings.Contains(err.Error(), "bad/horse.bpat") {
		t.Errorf("a truncated file: %v", err)
	}
}
