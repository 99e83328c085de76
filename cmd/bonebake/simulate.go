package main

import (
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	goruntime "runtime"
	"slices"
	"time"

	"bonebake/bake"
	"bonebake/crowd"
	"bonebake/roster"
	"bonebake/species/builtin"

	"github.com/spf13/cobra"
)

func newSimulateCmd() *cobra.Command {
	var (
		cfg    simConfig
		asJSON bool
	)
	cmd := &cobra.Command{
		Use:   "simulate [--units N] [--seconds S] [--assets DIR] [--json]",
		Short: "Run a headless battle and report the runtime's cost per unit and its combat counts",
		Long: `Simulate a battle of N units, two armies of mixed species (sword, spear and
skeleton infantry, archers, riders on horses, elephants) that march at each other,
fight and die, and animate every unit every step with the runtime: intent → state →
clip, phase, combat timeline, playback.

It prints the animation step's cost per unit in nanoseconds (median and p99 over the
steps, on one core), the frame-time percentiles of the whole simulation step, and
the combat counts: swings started, hits landed on the attack clip's contact marker,
and hits cancelled (target dead, friendly or out of reach at contact, attacker dead).

Without --assets the built-in species are baked in memory first.`,
		Args: args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if cfg.units < 2 {
				return usagef("--units must be at least 2")
			}
			if !(cfg.seconds > 0) || math.IsInf(cfg.seconds, 0) {
				return usagef("--seconds must be a positive number")
			}
			if !(cfg.dt > 0) || cfg.dt > 1 {
				return usagef("--dt must be in (0, 1] seconds")
			}
			reg, source, err := simRegistry(cfg.assets)
			if err != nil {
				return err
			}
			defer reg.Close()
			res, err := simulate(cfg, reg)
			if err != nil {
				return err
			}
			res.Assets = source
			if asJSON {
				return writeJSON(cmd.OutOrStdout(), res)
			}
			res.print(cmd.OutOrStdout())
			return nil
		},
	}
	f := cmd.Flags()
	f.IntVar(&cfg.units, "units", 10000, "number of units, horses included")
	f.Float64Var(&cfg.seconds, "seconds", 20, "simulated seconds")
	f.Float64Var(&cfg.dt, "dt", 1.0/60, "simulation step in seconds")
	f.StringVar(&cfg.assets, "assets", "", "directory of species .bpat files (default: bake the built-in species in memory)")
	f.Uint64Var(&cfg.seed, "seed", 1, "random seed of the armies")
	f.BoolVar(&asJSON, "json", false, "print JSON instead of text")
	return cmd
}

type simConfig struct {
	units       int
	seconds, dt float64
	assets      string
	seed        uint64
	maxSteps    int // tests: stop early
}

type simResult struct {
	Units               int            `json:"units"`
	Steps               int            `json:"steps"`
	Seconds             float64        `json:"seconds"`
	DT                  float64        `json:"dt"`
	Assets              string         `json:"assets"`
	Species             map[string]int `json:"species"`
	StepNsPerUnitMedian float64        `json:"step_ns_per_unit_median"`
	StepNsPerUnitP99    float64        `json:"step_ns_per_unit_p99"`
	FrameMsP50          float64        `json:"frame_ms_p50"`
	FrameMsP90          float64        `json:"frame_ms_p90"`
	FrameMsP99          float64        `json:"frame_ms_p99"`
	FrameMsMax          float64        `json:"frame_ms_max"`
	AttacksStarted      uint64         `json:"attacks_started"`
	HitsLanded          uint64         `json:"hits_landed"`
	HitsCancelled       uint64         `json:"hits_cancelled"`
	Kills               uint64         `json:"kills"`
	Alive               [2]int         `json:"alive"`
}

func (r *simResult) print(w io.Writer) {
	fmt.Fprintf(w, "simulated %d units for %.4g s: %d steps of %.4g ms (assets: %s)\n", r.Units, r.Seconds, r.Steps, r.DT*1000, r.Assets)
	names := make([]string, 0, len(r.Species))
	for n := range r.Species {
		names = append(names, n)
	}
	slices.Sort(names)
	fmt.Fprint(w, "species:")
	for _, n := range names {
		fmt.Fprintf(w, " %s %d", n, r.Species[n])
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "animation step: %.2f ns/unit median, %.2f ns/unit p99 (intent, clip, phase, combat timeline, playback; one core)\n", r.StepNsPerUnitMedian, r.StepNsPerUnitP99)
	fmt.Fprintf(w, "frame time: p50 %.3f ms, p90 %.3f ms, p99 %.3f ms, max %.3f ms\n", r.FrameMsP50, r.FrameMsP90, r.FrameMsP99, r.FrameMsMax)
	fmt.Fprintf(w, "attacks started %d, hits landed on contact %d, hits cancelled %d, kills %d\n", r.AttacksStarted, r.HitsLanded, r.HitsCancelled, r.Kills)
	fmt.Fprintf(w, "alive at the end: %d vs %d\n", r.Alive[0], r.Alive[1])
}

// simRegistry loads the species files of dir, or bakes the built-in species in
// memory when dir is empty.
func simRegistry(dir string) (*crowd.Registry, string, error) {
	if dir != "" {
		reg, err := crowd.Open(dir)
		if err != nil {
			return nil, "", err
		}
		return reg, dir, nil
	}
	// The built-in species, baked in memory; their gaits are the roster's.
	reg := crowd.NewRegistry()
	for _, s := range builtin.All() {
		b, err := bake.SpeciesBytes(s)
		if err == nil {
			err = reg.LoadBytes(s.Name+".bpat", b)
		}
		if err != nil {
			reg.Close()
			return nil, "", err
		}
	}
	return reg, "built-in species, baked in memory", nil
}

// Unit kinds of the battle.
const (
	kindInfantry = iota
	kindArcher
	kindRider
	kindHorse // a rider's mount: it follows its rider and dies with it
	kindElephant
)

// kindStats are a kind's combat numbers and speeds.
type kindStats struct {
	hp, damage, cooldown, reach float32
	walk, run, runBeyond        float32 // m/s, and the distance beyond which it runs
	melee                       bool
}

var kinds = [...]kindStats{
	kindInfantry: {hp: 100, damage: 10, cooldown: 1.5, reach: 1.6, walk: 1.4, run: 3.8, runBeyond: 10, melee: true},
	kindArcher:   {hp: 70, damage: 7, cooldown: 2, reach: 18, walk: 1.4, run: 3.8, runBeyond: 30},
	kindRider:    {hp: 140, damage: 14, cooldown: 1.8, reach: 2.2, walk: 1.7, run: 9, runBeyond: 12, melee: true},
	kindHorse:    {hp: 1},
	kindElephant: {hp: 700, damage: 30, cooldown: 2.2, reach: 3, walk: 1.6, run: 4.5, runBeyond: 15, melee: true},
}

type battle struct {
	reg   *crowd.Registry
	crowd *crowd.Crowd
	melee *crowd.Melee
	world crowd.World
	kind  []uint8
	mount []int32 // a rider's horse, else −1
	base  []crowd.Flags
	hit   []float32 // seconds of hit reaction left
	army  [2][]int32
	rng   *rand.Rand
	hits  []crowd.Hit
	speed []float32 // per-kind scaled move speeds, by unit: skeletons are a little slower
}

// newBattle lines up two armies of n units in all facing each other 30 m apart.
func newBattle(reg *crowd.Registry, n int, seed uint64) *battle {
	b := &battle{reg: reg, crowd: crowd.New(n), melee: crowd.NewMelee(n), kind: make([]uint8, n),
		mount: make([]int32, n), base: make([]crowd.Flags, n), hit: make([]float32, n), speed: make([]float32, n),
		rng: rand.New(rand.NewPCG(seed, seed^0x5eed)), hits: make([]crowd.Hit, 0, 1024)}
	b.world = crowd.World{HP: make([]float32, n), Team: make([]uint8, n), X: make([]float32, n), Z: make([]float32, n), Target: make([]int32, n)}
	b.crowd.Swing = b.melee.Phase
	c, m, w := b.crowd, b.melee, &b.world
	for i := range n {
		b.mount[i], w.Target[i] = -1, -1
	}
	perTeam := [2]int{n / 2, n - n/2}
	next := 0
	for team := range 2 {
		cols := int(math.Ceil(math.Sqrt(float64(perTeam[team]) * 2)))
		slot := 0
		place := func(i int) {
			row, col := slot/cols, slot%cols
			slot++
			x := (float32(col) - float32(cols)/2) * 1.4
			z := 15 + float32(row)*1.6
			if team == 0 {
				z = -z
			}
			w.X[i], w.Z[i], w.Team[i] = x, z, uint8(team)
		}
		end := next + perTeam[team]
		for next < end {
			i := next
			r := b.rng.IntN(100)
			switch {
			case r < 10 && end-next >= 2: // a rider and its horse
				b.setKind(i, kindRider)
				c.Species[i], c.Archetype[i], c.Weapon[i] = 3, roster.Rider, crowd.WeaponSword
				b.base[i] = crowd.Mounted
				h := i + 1
				b.setKind(h, kindHorse)
				c.Species[h], c.Archetype[h] = 1, roster.Horse
				b.mount[i] = int32(h)
				w.Team[h] = uint8(team)
				place(i)
				w.X[h], w.Z[h] = w.X[i], w.Z[i]
				next += 2
				b.army[team] = append(b.army[team], int32(i))
				continue
			case r < 18:
				b.setKind(i, kindElephant)
				c.Species[i], c.Archetype[i] = 2, roster.Elephant
			case r < 33:
				b.setKind(i, kindArcher)
				c.Species[i], c.Weapon[i] = 0, crowd.WeaponBow
			default:
				b.setKind(i, kindInfantry)
				switch b.rng.IntN(4) {
				case 0:
					c.Species[i], c.Weapon[i] = 0, crowd.WeaponSword
				case 1:
					c.Species[i], c.Weapon[i] = 3, crowd.WeaponSword
				case 2:
					c.Species[i], c.Weapon[i] = 4, crowd.WeaponSpear
					m.Reach[i] = 2.4
				case 3:
					c.Species[i], c.Weapon[i] = 5, crowd.WeaponSword // a skeleton: shorter reach, slower
					m.Reach[i], b.speed[i] = 1.3, 0.9
				}
			}
			c.Variant[i] = uint8(b.rng.IntN(8))
			place(i)
			next++
			b.army[team] = append(b.army[team], int32(i))
		}
	}
	return b
}

func (b *battle) setKind(i int, k uint8) {
	s := &kinds[k]
	b.kind[i] = k
	b.world.HP[i] = s.hp
	b.melee.Damage[i], b.melee.Cooldown[i], b.melee.Reach[i] = s.damage, s.cooldown, s.reach
	b.speed[i] = 1
	// Desynchronize the armies' first swings a little.
	b.melee.Wait[i] = float32(b.rng.Float64()) * s.cooldown * 0.5
}

// think picks targets, moves units and starts swings.
func (b *battle) think(dt float32) {
	c, m, w := b.crowd, b.melee, &b.world
	for team := range 2 {
		for _, ii := range b.army[team] {
			i := int(ii)
			c.Speed[i] = 0
			c.Flags[i] &^= crowd.Running
			if w.HP[i] <= 0 {
				continue
			}
			tg := w.Target[i]
			if tg < 0 || w.HP[tg] <= 0 {
				tg = b.pick(i, 1-team)
				w.Target[i] = tg
			}
			if tg < 0 || m.Swinging(i) {
				continue
			}
			k := &kinds[b.kind[i]]
			dx, dz := w.X[tg]-w.X[i], w.Z[tg]-w.Z[i]
			d := float32(math.Sqrt(float64(dx*dx + dz*dz)))
			reach := m.Reach[i]
			if d > reach {
				speed := k.walk * b.speed[i]
				if d > k.runBeyond {
					speed = k.run * b.speed[i]
					c.Flags[i] |= crowd.Running
				}
				step := min(speed*dt, d-reach*0.8)
				w.X[i] += dx / d * step
				w.Z[i] += dz / d * step
				c.Speed[i] = step / dt
				continue
			}
			if !m.Ready(i) {
				continue
			}
			// The swing's clip: the one the unit plays once it attacks.
			c.Flags[i] |= crowd.Attacking
			if k.melee {
				c.Flags[i] |= crowd.InMelee
			}
			_, clip := c.Select(b.reg, i)
			contact := float32(crowd.DefaultContact)
			if s := b.reg.Species(uint32(c.Species[i])); s != nil {
				contact = s.Contact(int(clip))
			}
			m.Start(w, i, tg, contact)
		}
	}
}

// pick returns a live enemy near unit i: the nearest of a few sampled, else the
// first found by a scan; −1 when the enemy army is gone.
func (b *battle) pick(i, enemy int) int32 {
	w, army := &b.world, b.army[enemy]
	best, bestD := int32(-1), float32(math.MaxFloat32)
	for range 8 {
		j := army[b.rng.IntN(len(army))]
		if w.HP[j] <= 0 {
			continue
		}
		dx, dz := w.X[j]-w.X[i], w.Z[j]-w.Z[i]
		if d := dx*dx + dz*dz; d < bestD {
			best, bestD = j, d
		}
	}
	if best >= 0 {
		return best
	}
	start := b.rng.IntN(len(army))
	for k := range min(len(army), 256) {
		if j := army[(start+k)%len(army)]; w.HP[j] > 0 {
			return j
		}
	}
	return -1
}

// settle applies the strikes that landed and sets every unit's flags for the
// animation step.
func (b *battle) settle(dt float32) {
	c, m, w := b.crowd, b.melee, &b.world
	for _, h := range b.hits {
		if h.Killed {
			c.Flags[h.Target] = crowd.Dying | b.base[h.Target]
			if mt := b.mount[h.Target]; mt >= 0 {
				c.Flags[mt] = crowd.Dying
				w.HP[mt] = 0
			}
		} else {
			b.hit[h.Target] = 0.25
			// Retaliation: a unit struck while its own target is out of reach turns
			// on the attacker (a retarget: its pending strike, if any, is cancelled).
			if v := h.Target; b.kind[v] != kindHorse && !m.Swinging(int(v)) {
				if tg := w.Target[v]; tg < 0 || !inReach(w, v, tg, m.Reach[v]) {
					w.Target[v] = h.Attacker
				}
			}
		}
	}
	for i := range c.Flags {
		f := c.Flags[i]
		if f&(crowd.Dying|crowd.Dead) != 0 {
			if f&crowd.Dying != 0 && c.State[i] == crowd.StateDie && c.Phase[i] >= 1 {
				c.Flags[i] = crowd.Dead | b.base[i]
			}
			continue
		}
		if b.kind[i] == kindHorse {
			continue // below, from its rider
		}
		f = b.base[i] | f&crowd.Running
		if m.Swinging(i) {
			f |= crowd.Attacking
			if kinds[b.kind[i]].melee {
				f |= crowd.InMelee
			}
		}
		if b.hit[i] > 0 {
			b.hit[i] -= dt
			f |= crowd.HitReacting
		}
		c.Flags[i] = f
		if h := b.mount[i]; h >= 0 && c.Flags[h]&(crowd.Dying|crowd.Dead) == 0 {
			// The horse carries its rider: same place, same pace, fights when it does.
			w.X[h], w.Z[h] = w.X[i], w.Z[i]
			c.Speed[h] = c.Speed[i]
			c.Flags[h] = f & (crowd.Running | crowd.Attacking | crowd.InMelee)
		}
	}
}

func simulate(cfg simConfig, reg *crowd.Registry) (*simResult, error) {
	b := newBattle(reg, cfg.units, cfg.seed)
	dt := float32(cfg.dt)
	steps := int(math.Round(cfg.seconds / cfg.dt))
	if cfg.maxSteps > 0 {
		steps = min(steps, cfg.maxSteps)
	}
	steps = max(steps, 1)
	anim := make([]float64, 0, steps)
	frame := make([]float64, 0, steps)
	goruntime.GC() // the bake's garbage, collected before the clock starts
	for range steps {
		t0 := time.Now()
		b.think(dt)
		b.hits = b.melee.Step(&b.world, dt, b.hits[:0])
		b.settle(dt)
		t1 := time.Now()
		if err := b.crowd.Animate(reg, dt); err != nil {
			return nil, err
		}
		t2 := time.Now()
		anim = append(anim, float64(t2.Sub(t1).Nanoseconds())/float64(cfg.units))
		frame = append(frame, float64(t2.Sub(t0).Nanoseconds())/1e6)
	}
	res := &simResult{Units: cfg.units, Steps: steps, Seconds: float64(steps) * cfg.dt, DT: cfg.dt, Species: map[string]int{},
		AttacksStarted: b.melee.Stats.Started, HitsLanded: b.melee.Stats.Landed, HitsCancelled: b.melee.Stats.Cancelled,
		Kills: b.melee.Stats.Kills}
	for _, s := range b.crowd.Species {
		name := fmt.Sprintf("species %d", s)
		if sp := reg.Species(uint32(s)); sp != nil {
			name = sp.Name
		}
		res.Species[name]++
	}
	for team := range 2 {
		for _, i := range b.army[team] {
			if b.world.HP[i] > 0 {
				res.Alive[team]++
			}
		}
	}
	slices.Sort(anim)
	slices.Sort(frame)
	res.StepNsPerUnitMedian, res.StepNsPerUnitP99 = percentile(anim, .5), percentile(anim, .99)
	res.FrameMsP50, res.FrameMsP90, res.FrameMsP99 = percentile(frame, .5), percentile(frame, .9), percentile(frame, .99)
	res.FrameMsMax = frame[len(frame)-1]
	return res, nil
}

func inReach(w *crowd.World, a, b int32, reach float32) bool {
	dx, dz := w.X[a]-w.X[b], w.Z[a]-w.Z[b]
	return dx*dx+dz*dz <= reach*reach
}

// percentile returns the q-quantile of sorted values (nearest rank).
func percentile(sorted []float64, q float64) float64 {
	i := int(math.Ceil(q*float64(len(sorted)))) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}
