package viewer

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/bonebake/bonebake/crowd/battle"
	"github.com/bonebake/bonebake/crowd/unit"
	"github.com/bonebake/bonebake/formats/bpat"
)

// smooth is docs/runtime.md §6.1's ease of the clip faded in: x²(3 − 2x).
func smooth(x float64) float64 { return x * x * (3 - 2*x) }

// TestOverrideFades: a clip chosen for an asset fades in over the time
// docs/runtime.md §6.1's table gives the change of states (idle → walk 0.3 s,
// into an attack 0.15 s); after dt of a fade over d the clip faded from weighs
// 1 − smoothstep(dt/d) and its rows are the old clip's; an interrupted fade keeps
// the older clip as the prior; a horse's rider fades with it. With fades=0, and
// in a step of no time (paused), the change shows at once.
func TestOverrideFades(t *testing.T) {
	assets := builtins(t)
	if assets[0].Name != "humanoid" || assets[1].Name != "horse" {
		t.Fatalf("assets %s, %s", assets[0].Name, assets[1].Name)
	}
	hc, rc := assets[0].file.Clips(), assets[1].file.Clips()
	clip := func(cs []bpat.Clip, name string) (int, bpat.Clip) {
		for k, c := range cs {
			if c.Name == name {
				return k, c
			}
		}
		t.Fatalf("no clip %s", name)
		return 0, bpat.Clip{}
	}
	idleK, idle := clip(hc, "idle")
	walkK, walk := clip(hc, "walk")
	swordK, sword := clip(hc, "attack_sword_a")
	horseIdle, _ := clip(rc, "idle")
	gallop, _ := clip(rc, "gallop")
	in := func(row float32, c bpat.Clip) bool {
		return int(row) >= c.FrameOffset && int(row) < c.FrameOffset+c.FrameCount
	}
	s := New(assets)
	_, j := post(t, s, `{"layout":"parade","count":120,"seed":2}`)
	// each checks every humanoid unit's record.
	each := func(got stepAnswer, what string, ok func(r []float32) bool) {
		t.Helper()
		for i := range got.counts[0] {
			if r := got.records[i*RecordFloats : (i+1)*RecordFloats]; !ok(r) {
				t.Fatalf("%s: unit %d: record %v", what, i, r)
			}
		}
	}
	near := func(a float32, b float64) bool { return math.Abs(float64(a)-b) < 1e-5 }

	got := step(t, s, j.ID, fmt.Sprintf("dt=0&clips=0:%d", idleK))
	each(got, "paused", func(r []float32) bool { return in(r[0], idle) && r[19] == 0 && r[23] == 0 })

	got = step(t, s, j.ID, fmt.Sprintf("dt=0.1&clips=0:%d", walkK))
	w := 1 - smooth(0.1/0.3)
	each(got, "idle → walk after 0.1 s", func(r []float32) bool {
		return in(r[0], walk) && in(r[16], idle) && in(r[17], idle) && near(r[19], w) && r[23] == 0
	})

	// Into an attack 0.05 s later: walk (fading in, at weight 1 − w) is faded
	// from, idle stays on as the prior, both at half of what they had.
	got = step(t, s, j.ID, fmt.Sprintf("dt=0.05&clips=0:%d", swordK))
	out := 1 - smooth(0.05/0.15)
	each(got, "walk → attack after 0.05 s", func(r []float32) bool {
		return in(r[0], sword) && in(r[16], walk) && near(r[19], out*(1-w)) && in(r[20], idle) && in(r[21], idle) && near(r[23], out*w)
	})
	got = step(t, s, j.ID, fmt.Sprintf("dt=0.15&clips=0:%d", swordK))
	each(got, "the fade is over", func(r []float32) bool { return slices.Equal(r[16:24], make([]float32, 8)) })

	got = step(t, s, j.ID, fmt.Sprintf("dt=0.1&clips=0:%d&fades=0", walkK))
	each(got, "fades off", func(r []float32) bool { return in(r[0], walk) && slices.Equal(r[16:24], make([]float32, 8)) })

	// A horse and its rider fade alike: idle → gallop is Idle → Run, 0.3 s.
	step(t, s, j.ID, fmt.Sprintf("dt=0&clips=1:%d", horseIdle))
	got = step(t, s, j.ID, fmt.Sprintf("dt=0.05&clips=1:%d", gallop))
	w = 1 - smooth(0.05/0.3)
	riders := 0
	for i := got.counts[0]; i < got.counts[0]+got.counts[1]; i++ {
		r := got.records[i*RecordFloats : (i+1)*RecordFloats]
		if !near(r[19], w) || r[27] != 0 && !near(r[27], w) {
			t.Fatalf("horse %d: fade weights %v (rider %v), want %v", i, r[19], r[27], w)
		}
		if r[27] != 0 {
			riders++
		}
	}
	if riders == 0 {
		t.Error("no rider faded with its horse")
	}
}

// TestBattleOverrideFades: in a battle, a clip chosen for an asset fades in
// from the pose the battle shows, and fades back out to the battle's clip when
// the choice is dropped.
func TestBattleOverrideFades(t *testing.T) {
	assets := builtins(t)
	s := New(assets)
	_, j := post(t, s, `{"layout":"battle","count":200,"seed":5}`)
	step(t, s, j.ID, "dt=0.2")
	got := step(t, s, j.ID, "dt=0.05&clips=0:7")
	n := 0
	for i := range got.counts[0] {
		if r := got.records[i*RecordFloats:]; r[19] > 0.5 {
			n++
		}
	}
	if n != got.counts[0] {
		t.Errorf("%d of %d units fade into the chosen clip", n, got.counts[0])
	}
	step(t, s, j.ID, "dt=0.5&clips=0:7")
	got = step(t, s, j.ID, "dt=0.05")
	hold := assets[0].file.Clips()[7]
	n = 0
	for i := range got.counts[0] {
		// The chosen clip is faded from, or is the prior when the battle changed
		// the unit's clip again in the same step.
		r, w := got.records[i*RecordFloats:], float32(0)
		for _, side := range []int{16, 20} {
			if int(r[side]) >= hold.FrameOffset && int(r[side]) < hold.FrameOffset+hold.FrameCount {
				w += r[side+3]
			}
		}
		if w > 0.5 {
			n++
		}
	}
	if n != got.counts[0] {
		t.Errorf("%d of %d units fade from the chosen clip back to the battle's", n, got.counts[0])
	}
}

// TestBattleOverrideInItsCrowd: a clip chosen for an asset in a battle is a
// setting of the battle's own units (crowd.Crowd.Override), not a move into a
// second engine and back: the scene holds no Player, every record is the
// battle Crowd's Out and Blend, which show the chosen clip while it is chosen,
// and underneath the battle plays on as a game's battle of the same seed
// without the choice does (each unit's state, clip and phase).
func TestBattleOverrideInItsCrowd(t *testing.T) {
	s := New(builtins(t))
	c, err := s.NewScene(SceneParams{Layout: LayoutBattle, Count: 300, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	game := battle.New(builtinRegistry(t), 300, 5)
	in := StepInput{Focus: 0, Seek: math.NaN(), Override: make([]int, len(s.assets))}
	for k := range 40 {
		chosen := k >= 10 && k < 25
		for a := range in.Override {
			in.Override[a] = -1
		}
		if chosen {
			in.Override[0] = 7
		}
		const dt = float32(1.0 / 30)
		if _, err := c.Step(dt, in); err != nil {
			t.Fatal(err)
		}
		if err := game.Step(dt); err != nil {
			t.Fatal(err)
		}
		if c.play != nil {
			t.Fatal("a battle holds a Player besides its Crowd")
		}
		bc, gc := c.battle.Crowd, game.Crowd
		for i := range c.Len() {
			u, rec := c.battleOf[i], c.Records[i*RecordFloats:]
			o, b := bc.Out[u], bc.Blend[u]
			if rec[recFrame] != float32(o.Frame) || rec[recFrame+2] != o.Lerp || rec[recFade] != float32(b.Frame) || rec[recFade+3] != b.Weight {
				t.Fatalf("step %d unit %d: record %v, the battle's Crowd shows %+v %+v", k, i, rec[:24], o, b)
			}
			if chosen && c.unitAsset[i] == 0 && o.Clip != 7 {
				t.Fatalf("step %d unit %d: the battle's Crowd shows clip %d, not the chosen 7", k, i, o.Clip)
			}
			if bc.State[u] != gc.State[u] || bc.Clip[u] != gc.Clip[u] || bc.Phase[u] != gc.Phase[u] {
				t.Fatalf("step %d unit %d: the battle underneath plays %v %d %v, a game's %v %d %v", k, i, bc.State[u], bc.Clip[u], bc.Phase[u], gc.State[u], gc.Clip[u], gc.Phase[u])
			}
		}
	}
}

// TestFadeRules: the rules the crowd answer lists for a built-in species spell
// out docs/runtime.md §6.1's default table, the first matching rule winning.
func TestFadeRules(t *testing.T) {
	attack := map[string]bool{"AttackMelee": true, "AttackRanged": true, "AttackSword": true, "AttackSpear": true,
		"AttackBow": true, "Cast": true, "RidingCharge": true, "RidingBowShot": true}
	doc := func(from, to string) float32 {
		switch {
		case from == "Dead":
			return 0
		case to == "Die" || to == "Dead":
			return 0.15
		case attack[to]:
			return 0.15
		case attack[from]:
			return 0.2
		}
		return 0.3
	}
	_, j := post(t, New(builtins(t)), `{"layout":"parade","count":10}`)
	rules := j.Assets[0].Fades
	if len(rules) > 6 {
		t.Errorf("%d rules for the default table: %v", len(rules), rules)
	}
	for f := range unit.NumStates {
		for to := range unit.NumStates {
			from, into := f.String(), to.String()
			got := float32(-1)
			for _, r := range rules {
				if (r.To == nil || slices.Contains(r.To, into)) && (r.From == nil || slices.Contains(r.From, from)) {
					got = r.Seconds
					break
				}
			}
			if got != doc(from, into) {
				t.Errorf("%s → %s: the rules give %v s, the table %v s", from, into, got, doc(from, into))
			}
		}
	}
	if r := fadeRules(nil); len(r) != 1 || r[0].To != nil || r[0].From != nil || r[0].Seconds != 0.3 {
		t.Errorf("an asset without states: %+v", r)
	}
}
