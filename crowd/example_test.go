package crowd_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	"github.com/bonebake/bonebake/crowd"
	"github.com/bonebake/bonebake/crowd/registry"
	"github.com/bonebake/bonebake/crowd/unit"
	"github.com/bonebake/bonebake/formats/bpat"
	"github.com/bonebake/bonebake/roster"
)

// horseFile writes a horse-shaped species file (docs/species.md §4 clips, one bone, a
// palette whose translation y is the frame number) into dir and returns dir.
func horseFile(dir string) string {
	c := &bpat.Contents{SpeciesID: 1, BoneCount: 1}
	for _, cl := range []struct {
		name   string
		frames int
		loops  bool
	}{{"idle", 24, true}, {"walk", 24, true}, {"trot", 16, true}, {"canter", 16, true},
		{"gallop", 12, true}, {"fight", 24, true}, {"die", 20, false}, {"dead", 1, true}} {
		c.Clips = append(c.Clips, bpat.Clip{Name: cl.name, FPS: 24, Loops: cl.loops})
		pal := make([]float32, cl.frames*16)
		for f := range cl.frames {
			m := pal[f*16:]
			m[0], m[5], m[10], m[15], m[7] = 1, 1, 1, 1, float32(f)
		}
		c.Palettes = append(c.Palettes, pal)
	}
	c.Sockets = []bpat.Socket{{Name: "saddle", Anchor: 0, Offset: [3]float32{0, .5, 0}}}
	var buf bytes.Buffer
	bpat.Write(&buf, c)
	os.WriteFile(filepath.Join(dir, "horse.bpat"), buf.Bytes(), 0o644)
	return dir
}

func ExampleOpen() {
	dir, _ := os.MkdirTemp("", "species")
	defer os.RemoveAll(dir)
	reg, err := registry.Open(registry.Dir(horseFile(dir)))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer reg.Close()
	horse := reg.Species(1)
	t := horse.Table(roster.Horse)
	fmt.Println(horse.Name, len(horse.Clips), "clips")
	fmt.Println("Run plays", horse.Clips[t.Clip(unit.StateRun, 0)].Name)
	fmt.Println("gallop gait:", horse.Clips[4].Gait)
	// Output:
	// horse 8 clips
	// Run plays gallop
	// gallop gait: {0.38 12}
}

func ExampleInputs_Resolve() {
	for _, in := range []unit.Inputs{
		{Flags: unit.Running, Speed: 3.5},
		{Flags: unit.Attacking | unit.InMelee | unit.Running, Weapon: unit.WeaponSpear, Speed: 3.5},
		{Flags: unit.Mounted | unit.Attacking | unit.InMelee, Weapon: unit.WeaponSword},
		{Flags: unit.Dying | unit.HitReacting},
		{Flags: unit.Healing, Speed: 1},
	} {
		p := in.Resolve()
		fmt.Println(p, "→", p.State())
	}
	// Output:
	// Run → Run
	// AttackSpear → AttackSpear
	// RidingCharge → RidingCharge
	// Dying → Die
	// Walk → Walk
}

func ExampleCrowd_Animate() {
	dir, _ := os.MkdirTemp("", "species")
	defer os.RemoveAll(dir)
	reg, _ := registry.Open(registry.Dir(horseFile(dir)))
	defer reg.Close()

	c := crowd.New(2)
	for i := range 2 {
		c.Species[i], c.Archetype[i], c.Phase[i] = 1, roster.Horse, 0
	}
	c.Speed[0] = 1.7 // walking at the walk's own ground speed: one stride per 1.1 s
	c.Flags[1] = unit.Dying
	for range 33 { // 0.55 s
		c.Animate(reg, 1.0/60)
	}
	for i, o := range c.Out {
		fmt.Printf("unit %d: %s, phase %.3f, rows %d→%d, lerp %.2f\n", i, c.State[i], c.Phase[i], o.Frame, o.Next, o.Lerp)
	}
	// Output:
	// unit 0: Walk, phase 0.500, rows 36→37, lerp 0.00
	// unit 1: Die, phase 0.695, rows 129→130, lerp 0.20
}

func ExampleBatch_Step() {
	dir, _ := os.MkdirTemp("", "species")
	defer os.RemoveAll(dir)
	reg, _ := registry.Open(registry.Dir(horseFile(dir)))
	defer reg.Close()

	b := crowd.NewBatch(1)
	b.Species[0], b.Clip[0], b.Phase[0], b.Rate[0] = 1, 4, 0, 1/0.38 // gallop, one pass per 0.38 s
	b.Step(reg, 0.1)
	o := b.Out[0]
	fmt.Printf("phase %.4f: rows %d and %d, lerp %.3f\n", b.Phase[0], o.Frame, o.Next, o.Lerp)
	// Output: phase 0.2632: rows 83 and 84, lerp 0.158
}

func ExampleSpecies_Socket() {
	dir, _ := os.MkdirTemp("", "species")
	defer os.RemoveAll(dir)
	reg, _ := registry.Open(registry.Dir(horseFile(dir)))
	defer reg.Close()
	horse := reg.Species(1)
	// Half way between walk frames 6 and 7: the bone is at y 6.5, the saddle .5 above.
	s, _ := horse.Socket(1, 6.5/24, horse.SocketIndex("saddle"))
	fmt.Printf("saddle at (%.2f, %.2f, %.2f)\n", s[3], s[7], s[11])
	// Output: saddle at (0.00, 7.00, 0.00)
}
