package crowd_test

import (
	"fmt"
	"log"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/bonebake/bonebake/crowd"
	"github.com/bonebake/bonebake/crowd/combat"
	"github.com/bonebake/bonebake/crowd/registry"
	"github.com/bonebake/bonebake/crowd/unit"
	"github.com/bonebake/bonebake/species/creatures"
)

// assets is the folder the README's examples read: the six built-in species,
// baked as 'bonebake bake' bakes them (TestMain writes it).
var assets string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "creatures")
	if err != nil {
		log.Fatal(err)
	}
	for _, s := range creatures.All() {
		b, err := s.Bytes()
		if err == nil {
			err = os.WriteFile(filepath.Join(dir, s.Name+".bpat"), b, 0o644)
		}
		if err != nil {
			log.Fatal(err)
		}
	}
	assets = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// Example_readme is the README's game loop: 1,000 mixed units walk at each
// other, fight and die for 5 s at 60 Hz.
func Example_readme() {
	reg, err := registry.Open(registry.Dir(assets)) // assets: where 'bonebake bake' wrote them (assets/creatures); validated, one slot per species id
	if err != nil {
		log.Fatal(err)
	}
	defer reg.Close()

	c := crowd.New(1000)             // 1,000 units as a structure of arrays
	fight := crowd.NewCombat(reg, c) // swings timed on the clips' markers, played by c
	w, m := &fight.World, fight.Melee
	kinds := []unit.Kind{unit.KindSwordsman, unit.KindSpearman, unit.KindBowman, unit.KindHorse, unit.KindElephant}
	for i := range c.Len() {
		c.Spawn(i, kinds[i/2%len(kinds)]) // species, archetype and weapon that fit together
		w.HP[i], w.Team[i], w.X[i], w.Z[i] = 100, uint8(i%2), float32(i%2)*4, float32(i/2)*2
		m.Damage[i], m.Cooldown[i], m.Reach[i] = 35, 1.5, 2
	}
	if err := c.Check(reg); err != nil { // every species loaded, every archetype supported
		log.Fatal(err)
	}

	hand := reg.Species(unit.SpeciesHumanoidSword).SocketIndex("hand_r")
	upload := make([]byte, 0, c.Len()*crowd.InstanceSize)
	var sword registry.Mat34
	hits, kills, arrows := 0, 0, 0
	const dt = 1.0 / 60
	for range 5 * 60 {
		for i := range c.Len() { // unit i fights unit i^1: walk into reach, then swing
			foe := i ^ 1
			dx := w.X[foe] - w.X[i]
			c.Speed[i] = 0
			if w.HP[i] <= 0 || w.HP[foe] <= 0 {
				continue
			}
			if math.Abs(float64(dx)) > 1.5 {
				c.Speed[i] = 1.4 // walking: the stride follows the speed
				w.X[i] += float32(math.Copysign(1.4*dt, float64(dx)))
				continue
			}
			fight.Attack(i, foe) // begins a swing when the cooldown allows
		}
		for _, e := range fight.Step(dt) { // this frame's events
			switch e.Kind {
			case combat.EventRelease: // an arrow leaves the bow
				arrows++
			case combat.EventHit: // damage taken off w.HP; a killed unit is Dying, then Dead
				hits++
				if e.Killed {
					kills++
				}
			}
		}
		if err := c.Animate(reg, dt); err != nil {
			log.Fatal(err)
		}
		upload = append(upload[:0], c.InstanceBytes()...) // 16 bytes per unit, for the GPU
		// A prop in unit 0's right hand: the socket in the world, unit 0 facing +x.
		sword, _ = c.WorldSocket(reg, 0, hand, w.X[0], 0, w.Z[0], math.Pi/2)
	}
	fmt.Printf("%d hits, %d kills, %d arrows; %d bytes uploaded per frame\n", hits, kills, arrows, len(upload))
	fmt.Printf("sword hand at x %.1f\n", sword.Translation()[0])
	// Output:
	// 2500 hits, 500 kills, 500 arrows; 16000 bytes uploaded per frame
	// sword hand at x 1.4
}
