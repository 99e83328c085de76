package crowd

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/bonebake/bonebake/crowd/registry"
	"github.com/bonebake/bonebake/crowd/unit"
	"github.com/bonebake/bonebake/formats/bpat"
)

// Synthesized species files with the clip lists, frame counts, loop flags, markers
// and sockets of docs/species.md §3, and palettes that say where they come from: bone b of
// frame f of clip c is the identity with translation (c, f, b), rotated about y by
// a small angle that grows with f so that blends are not trivial.

type clipSpec struct {
	name   string
	frames int
	fps    float32
	loops  bool
}

var (
	swordMarkers = bpat.Markers{.10, .54, .58, .72, .90}
	bowMarkers   = bpat.Markers{.18, .56, .56, .66, .86}
	holdMarkers  = bpat.Markers{0, -1, -1, -1, .98}
	loopMarkers  = bpat.Markers{-1, -1, -1, -1, .98}
)

func markersFor(name string) bpat.Markers {
	switch {
	case len(name) >= 12 && name[:12] == "attack_sword", len(name) >= 12 && name[:12] == "attack_spear", len(name) >= 13 && name[:13] == "riding_sword_":
		return swordMarkers
	case name == "attack_bow", name == "riding_bow_shot":
		return bowMarkers
	case name == "hold":
		return holdMarkers
	case name == "walk", name == "run", name == "idle", name == "riding_idle", name == "riding_charge":
		return loopMarkers
	}
	return bpat.NoMarkers()
}

var humanoidClips = []clipSpec{
	{"idle", 24, 24, true}, {"idle_squat", 72, 24, false}, {"idle_jump", 72, 24, false},
	{"idle_weapon", 72, 24, false}, {"idle_weave", 72, 24, false}, {"walk", 24, 24, true},
	{"run", 24, 24, true}, {"hold", 16, 24, true}, {"hold_bow", 16, 24, true},
	{"attack_sword_a", 24, 24, false}, {"attack_sword_b", 24, 24, false}, {"attack_sword_c", 24, 24, false},
	{"attack_spear_a", 24, 24, false}, {"attack_spear_b", 24, 24, false}, {"attack_spear_c", 24, 24, false},
	{"attack_bow", 24, 24, false}, {"riding_idle", 24, 24, true}, {"riding_charge", 24, 24, false},
	{"riding_reining", 24, 24, false}, {"riding_bow_shot", 24, 24, false}, {"riding_sword_strike", 32, 24, false},
	{"die_infantry", 20, 24, false}, {"dead_infantry", 1, 1, true}, {"die_mounted", 20, 24, false},
	{"dead_mounted", 1, 1, true},
}

var horseClips = []clipSpec{
	{"idle", 24, 24, true}, {"walk", 24, 24, true}, {"trot", 16, 24, true}, {"canter", 16, 24, true},
	{"gallop", 12, 24, true}, {"fight", 24, 24, true}, {"die", 20, 24, false}, {"dead", 1, 1, true},
}

var elephantClips = []clipSpec{
	{"idle", 24, 24, true}, {"walk", 24, 24, true}, {"run", 16, 24, true}, {"fight", 24, 24, true},
	{"die", 24, 24, false}, {"dead", 1, 1, true},
}

var humanoidSockets = []bpat.Socket{
	{Name: "head", Anchor: 5}, {Name: "hand_r", Anchor: 13}, {Name: "hand_l", Anchor: 9},
	{Name: "back", Anchor: 3, Offset: [3]float32{0, .10, -.12}}, {Name: "hip_l", Anchor: 14, Offset: [3]float32{0, -.02, 0}},
	{Name: "hip_r", Anchor: 17, Offset: [3]float32{0, -.02, 0}}, {Name: "chest_front", Anchor: 3, Offset: [3]float32{0, .05, .15}},
	{Name: "chest_back", Anchor: 3, Offset: [3]float32{0, .05, -.15}}, {Name: "foot_l", Anchor: 16}, {Name: "foot_r", Anchor: 19},
}

type speciesSpec struct {
	name    string
	id      uint32
	bones   int
	clips   []clipSpec
	sockets []bpat.Socket
}

var builtinSpecs = []speciesSpec{
	{"humanoid", 0, 20, humanoidClips, humanoidSockets},
	{"horse", 1, 16, horseClips, []bpat.Socket{{Name: "saddle", Anchor: 1, Offset: [3]float32{0, .3, 0}}}},
	{"elephant", 2, 16, elephantClips, []bpat.Socket{{Name: "howdah", Anchor: 1, Offset: [3]float32{0, .8, .1}}}},
	{"humanoid_sword", 3, 20, humanoidClips, humanoidSockets},
	{"humanoid_spear", 4, 20, humanoidClips, humanoidSockets},
	{"humanoid_skeleton", 5, 20, humanoidClips, humanoidSockets},
}

func contents(s speciesSpec) *bpat.Contents {
	c := &bpat.Contents{SpeciesID: s.id, BoneCount: s.bones, Sockets: s.sockets}
	for ci, cs := range s.clips {
		c.Clips = append(c.Clips, bpat.Clip{Name: cs.name, FPS: cs.fps, Loops: cs.loops, Markers: markersFor(cs.name)})
		pal := make([]float32, cs.frames*s.bones*16)
		for f := 0; f < cs.frames; f++ {
			for b := 0; b < s.bones; b++ {
				m := pal[(f*s.bones+b)*16:][:16]
				a := float64(f) * 0.05
				cs, sn := float32(math.Cos(a)), float32(math.Sin(a))
				m[0], m[2], m[8], m[10] = cs, sn, -sn, cs
				m[5], m[15] = 1, 1
				m[3], m[7], m[11] = float32(ci), float32(f), float32(b)
			}
		}
		c.Palettes = append(c.Palettes, pal)
	}
	return c
}

func encode(t testing.TB, c *bpat.Contents) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := bpat.Write(&buf, c); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// writeSpecies writes the given species into dir as <name>.bpat.
func writeSpecies(t testing.TB, dir string, specs ...speciesSpec) {
	t.Helper()
	for _, s := range specs {
		if err := os.WriteFile(filepath.Join(dir, s.name+".bpat"), encode(t, contents(s)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// testRegistry returns a registry of the six built-in species, loaded from a
// temporary directory.
func testRegistry(t testing.TB, opts ...registry.Option) *registry.Registry {
	t.Helper()
	dir := t.TempDir()
	writeSpecies(t, dir, builtinSpecs...)
	r, err := registry.Open(registry.Dir(dir), opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

func specNamed(name string) speciesSpec {
	for _, s := range builtinSpecs {
		if s.name == name {
			return s
		}
	}
	panic(name)
}

// clipID is the id of the named clip of s; it panics when s lacks it.
func clipID(s *registry.Species, name string) unit.ClipID {
	id, ok := s.ClipIndex(name)
	if !ok {
		panic(s.Name + " has no clip " + name)
	}
	return id
}
