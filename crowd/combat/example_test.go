package combat_test

import (
	"fmt"

	"github.com/bonebake/bonebake/crowd/combat"
)

func ExampleMelee() {
	m := combat.NewMelee(2)
	m.Damage[0], m.Cooldown[0], m.Reach[0] = 10, 1.5, 2
	w := &combat.World{HP: []float32{100, 100}, Team: []uint8{0, 1}, X: []float32{0, 1}, Z: []float32{0, 0}}

	// A sword swing: contact at phase .58. The 1.5 s cooldown is shorter than the
	// 1.84 s swing, so the swing plays 1.84/1.5 times faster: contact after 0.9 s.
	m.Start(w, 0, 1, 0.58)
	var hits []combat.Hit
	for step := 1; len(hits) == 0; step++ {
		hits = m.Step(w, 1.0/30, hits)
		if len(hits) > 0 {
			fmt.Printf("hit on step %d at attack phase %.3f: target HP %v\n", step, m.Phase[0], w.HP[1])
		}
	}
	// Output: hit on step 27 at attack phase 0.582: target HP 90
}
