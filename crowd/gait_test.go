package crowd

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bonebake/bonebake/bake"
	"github.com/bonebake/bonebake/crowd/registry"
	"github.com/bonebake/bonebake/crowd/unit"
	"github.com/bonebake/bonebake/formats/bpat"
	"github.com/bonebake/bonebake/formats/gait"
	"github.com/bonebake/bonebake/internal/testfiles"
	"github.com/bonebake/bonebake/roster"
	"github.com/bonebake/bonebake/source/gltf/gltfbake"
)

// walkerArch is the archetype slot the synthetic walker's tests register: every
// state plays its one clip.
const walkerArch roster.Archetype = 4

// bakeWalker bakes testfiles.WalkerGLTF (in place: its planted feet slide back at
// exactly 1.4 m/s over a 1 s cycle) as `bonebake bake` does, into dir/walker.bpat
// with its gait sidecar beside it, and returns the BPAT path, its species id and
// its clip's name.
func bakeWalker(t *testing.T, dir string) (string, uint32, string) {
	t.Helper()
	m, err := gltfbake.Load(testfiles.WalkerGLTF(t, false), gltfbake.Settings{})
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "walker.bpat")
	if err := bake.BakeFile(out, m.Job); err != nil {
		t.Fatal(err)
	}
	if err := gait.WriteFile(gait.SidecarPath(out), m.Gaits(out)); err != nil {
		t.Fatal(err)
	}
	if len(m.Job.Clips) != 1 {
		t.Fatalf("%d clips, want the walker's one", len(m.Job.Clips))
	}
	return out, m.Job.SpeciesID, m.Job.Clips[0].Name
}

// walkerOpts registers the walker's species (with table as its built-in gaits)
// and an archetype that plays its clip in every state.
func walkerOpts(id uint32, clip string, table map[string]roster.Gait, more ...registry.Option) []registry.Option {
	var a registry.Archetype
	a.Name = "walker"
	for s := range a.States {
		a.States[s] = []string{clip}
	}
	return append([]registry.Option{
		registry.WithSpecies(roster.Species{ID: id, Name: "walker", Archetypes: []roster.Archetype{walkerArch}, Gaits: table}),
		registry.WithArchetype(walkerArch, a),
	}, more...)
}

// rates animates one step of two walker units, at 1.4 and 2.8 m/s, and returns
// their phase rates (passes per second).
func rates(t *testing.T, r *registry.Registry, id uint32) [2]float64 {
	t.Helper()
	c := New(2)
	for i, v := range []float32{testfiles.WalkerSpeed, 2 * testfiles.WalkerSpeed} {
		c.Species[i], c.Archetype[i], c.Speed[i] = unit.SpeciesID(id), walkerArch, v
	}
	if err := c.Animate(r, 1.0/60); err != nil {
		t.Fatal(err)
	}
	return [2]float64{float64(c.Rate[0]), float64(c.Rate[1])}
}

// TestSidecarMatchesStride: a model baked from glTF, whose feet are planted at a
// speed known independently of bonebake (1.4 m/s over a 1 s cycle), loads with
// its measured gait from the sidecar; a unit moving at 2.8 m/s plays it at
// 2 passes per second, twice the rate at 1.4 m/s, and its planted foot stands
// still on the ground while the unit moves.
func TestSidecarMatchesStride(t *testing.T) {
	dir := t.TempDir()
	out, id, clip := bakeWalker(t, dir)
	r := registry.New(walkerOpts(id, clip, nil)...)
	defer r.Close()
	if err := r.Load(registry.Files(out)); err != nil {
		t.Fatal(err)
	}
	s := r.Species(unit.SpeciesID(id))
	c := s.Clips[0]
	if c.GaitSource != registry.GaitMeasured || s.GaitFile != gait.SidecarPath(out) {
		t.Fatalf("gait from %q (sidecar %q), want %q from %s", c.GaitSource, s.GaitFile, registry.GaitMeasured, gait.SidecarPath(out))
	}
	if math.Abs(c.Gait.Cycle-1) > 1e-9 || math.Abs(c.Gait.Speed-testfiles.WalkerSpeed) > 0.02*testfiles.WalkerSpeed {
		t.Fatalf("gait %+v, want cycle 1 s and 1.4 m/s within 2 %%", c.Gait)
	}

	rt := rates(t, r, id)
	if math.Abs(rt[0]-1) > 0.02 || math.Abs(rt[1]-2) > 0.04 || math.Abs(rt[1]/rt[0]-2) > 1e-6 {
		t.Errorf("phase rates %.4f and %.4f passes/s at 1.4 and 2.8 m/s, want 1 and 2 (the feet's 1.4 m per 1 s pass)", rt[0], rt[1])
	}

	// The feet: a unit walks +z at 2.8 m/s for 2 s. While its left foot is
	// planted (at its lowest), the foot's world z = the unit's z + the foot's
	// model z must stay put. Played at one pass per second (no gait), it would
	// slide 1.4 m/s · 0.6 s = 0.84 m per step.
	if s.File.BoneCount() != 4 {
		t.Fatalf("%d bones, want the walker's Root, Pelvis, FootL, FootR", s.File.BoneCount())
	}
	const foot, speed, dt = 2, 2 * testfiles.WalkerSpeed, 1.0 / 240
	pal := make([]float32, s.File.BoneCount()*bpat.FloatsPerBone)
	if _, err := s.Palette(0, 0, pal); err != nil {
		t.Fatal(err)
	}
	if x := pal[foot*16+3]; math.Abs(float64(x)-0.1) > 1e-4 {
		t.Fatalf("bone %d at x = %v: not FootL (x = 0.1)", foot, x)
	}
	u := New(1)
	u.Species[0], u.Archetype[0], u.Speed[0] = unit.SpeciesID(id), walkerArch, speed
	var (
		z         float64
		planted   []float64 // the foot's world z over the current stance
		stances   int
		worstSlip float64
	)
	end := func() {
		if len(planted) > 10 {
			stances++
			worstSlip = max(worstSlip, math.Abs(planted[len(planted)-1]-planted[0]))
		}
		planted = planted[:0]
	}
	for range int(2 / dt) {
		if err := u.Animate(r, dt); err != nil {
			t.Fatal(err)
		}
		z += speed * dt
		if _, err := s.Palette(0, u.Phase[0], pal); err != nil {
			t.Fatal(err)
		}
		// Planted: the foot at its lowest (the walker's planted height, 0.08 m),
		// away from the ends of the stance, where frames blend into the swing.
		if y := float64(pal[foot*16+7]); math.Abs(y-testfiles.WalkerFootHeight) < 1e-4 {
			planted = append(planted, z+float64(pal[foot*16+11]))
		} else {
			end()
		}
	}
	end()
	if stances < 3 || worstSlip > 0.02 {
		t.Errorf("%d stances seen in 2 s; the planted foot slides %.4f m over a stance, want at most 0.02 m", stances, worstSlip)
	}
}

// TestGaitPrecedence: the game's WithGait, then the sidecar, then the built-in
// table, then the clip's own duration; the source says which.
func TestGaitPrecedence(t *testing.T) {
	dir := t.TempDir()
	out, id, clip := bakeWalker(t, dir)
	table := map[string]roster.Gait{clip: {Cycle: 1, Speed: 0.7}}
	load := func(opts ...registry.Option) *registry.Species {
		t.Helper()
		r := registry.New(walkerOpts(id, clip, table, opts...)...)
		t.Cleanup(func() { r.Close() })
		if err := r.Load(registry.Files(out)); err != nil {
			t.Fatal(err)
		}
		return r.Species(unit.SpeciesID(id))
	}
	if c := load().Clips[0]; c.GaitSource != registry.GaitMeasured || math.Abs(c.Gait.Speed-1.4) > 0.03 {
		t.Errorf("sidecar and table: %+v from %q, want the sidecar's 1.4 m/s", c.Gait, c.GaitSource)
	}
	game := roster.Gait{Cycle: 0.5, Speed: 3}
	if c := load(registry.WithGait(unit.SpeciesID(id), clip, game)).Clips[0]; c.GaitSource != registry.GaitGame || c.Gait != game {
		t.Errorf("WithGait: %+v from %q, want %+v from the game", c.Gait, c.GaitSource, game)
	}

	// The manifest's speed, and a clip the sidecar plays in place.
	side, err := gait.OpenFor(out)
	if err != nil || side == nil {
		t.Fatalf("sidecar: %v", err)
	}
	side.Clips[0].GroundSpeed, side.Clips[0].GroundSpeedSource = 2, gait.SourceManifest
	write := func() {
		if err := gait.WriteFile(gait.SidecarPath(out), side); err != nil {
			t.Fatal(err)
		}
	}
	write()
	if c := load().Clips[0]; c.GaitSource != registry.GaitManifest || c.Gait.Speed != 2 {
		t.Errorf("manifest speed: %+v from %q", c.Gait, c.GaitSource)
	}
	side.Clips[0].GroundSpeed, side.Clips[0].GroundSpeedSource, side.Clips[0].Cycle = 0, "", 0.8
	write()
	if c := load().Clips[0]; c.GaitSource != registry.GaitSidecar || c.Gait != (roster.Gait{Cycle: 0.8}) {
		t.Errorf("sidecar without a speed: %+v from %q, want cycle 0.8, no speed", c.Gait, c.GaitSource)
	}

	// No sidecar: the table; nothing at all: the clip's duration, whatever the speed.
	if err := os.Remove(gait.SidecarPath(out)); err != nil {
		t.Fatal(err)
	}
	if s := load(); s.Clips[0].GaitSource != registry.GaitTable || s.Clips[0].Gait != table[clip] || s.GaitFile != "" {
		t.Errorf("table: %+v from %q (sidecar %q)", s.Clips[0].Gait, s.Clips[0].GaitSource, s.GaitFile)
	}
	table = nil
	r := registry.New(walkerOpts(id, clip, nil)...)
	defer r.Close()
	if err := r.Load(registry.Files(out)); err != nil {
		t.Fatal(err)
	}
	if c := r.Species(unit.SpeciesID(id)).Clips[0]; c.GaitSource != registry.GaitNone || c.Gait.Speed != 0 {
		t.Errorf("no gait: %+v from %q", c.Gait, c.GaitSource)
	}
	if rt := rates(t, r, id); rt[0] != rt[1] || math.Abs(rt[0]-1) > 1e-6 {
		t.Errorf("no gait: rates %v, want one pass per 1 s clip at any speed", rt)
	}
}

// TestSidecarLoads: a Dir, an FS and Memory with gaits read the gait as Files
// does; a broken sidecar, or one of another bake, refuses the file.
func TestSidecarLoads(t *testing.T) {
	dir := t.TempDir()
	out, id, clip := bakeWalker(t, dir)
	check := func(what string, load func(r *registry.Registry) error) {
		t.Helper()
		r := registry.New(walkerOpts(id, clip, nil)...)
		defer r.Close()
		if err := load(r); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if c := r.Species(unit.SpeciesID(id)).Clips[0]; c.GaitSource != registry.GaitMeasured || math.Abs(c.Gait.Speed-1.4) > 0.03 {
			t.Errorf("%s: %+v from %q, want measured 1.4 m/s", what, c.Gait, c.GaitSource)
		}
	}
	check("Dir", func(r *registry.Registry) error { return r.Load(registry.Dir(dir)) })
	check("FS", func(r *registry.Registry) error { return r.Load(registry.FS(os.DirFS(dir), ".")) })
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	side, err := gait.OpenFor(out)
	if err != nil {
		t.Fatal(err)
	}
	check("Memory with gaits", func(r *registry.Registry) error {
		return r.Load(registry.Memory(registry.File{Name: "walker.bpat", Data: b, Gaits: side}))
	})

	for _, c := range []struct{ text, want string }{
		{`{"format":"bonebake-gait","version":1,"clips":[{"name":"` + clip + `","cycle":-1,"status":"measured","confidence":1}]}`, "cycle"},
		{`{"format":"bonebake-gait","version":1,"clips":[{"name":"jog","cycle":1,"status":"measured","confidence":1}]}`, `"jog", which the file lacks`},
	} {
		if err := os.WriteFile(gait.SidecarPath(out), []byte(c.text), 0o644); err != nil {
			t.Fatal(err)
		}
		for what, load := range map[string]func(r *registry.Registry) error{
			"Files": func(r *registry.Registry) error { return r.Load(registry.Files(out)) },
			"FS":    func(r *registry.Registry) error { return r.Load(registry.FS(os.DirFS(dir), ".")) },
		} {
			r := registry.New(walkerOpts(id, clip, nil)...)
			err := load(r)
			r.Close()
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "walker.gait.json") {
				t.Errorf("%s with sidecar %s: %v, want a refusal naming the sidecar and %q", what, c.text, err, c.want)
			}
		}
	}
}
