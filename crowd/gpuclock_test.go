package crowd

import (
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/bonebake/bonebake/crowd/combat"
	"github.com/bonebake/bonebake/crowd/registry"
	"github.com/bonebake/bonebake/crowd/unit"
	"github.com/bonebake/bonebake/roster"
)

// attackTime inverts AttackPhase: the phase reaches p at attackTime(p) and not
// one float earlier.
func TestAttackTime(t *testing.T) {
	for _, p := range []float32{0, .01, .14, .3, .34, .52, .56, .58, .6, .9, .995} {
		tau := attackTime(p)
		if combat.AttackPhase(tau) < p || (tau > 0 && combat.AttackPhase(math.Nextafter32(tau, 0)) >= p) {
			t.Errorf("phase %v: time %v gives %v, the float before it %v", p, tau, combat.AttackPhase(tau), combat.AttackPhase(math.Nextafter32(tau, 0)))
		}
	}
	if attackTime(.999) != combat.SwingDuration {
		t.Errorf("a phase the swing never reaches: %v, want the swing's end", attackTime(.999))
	}
}

// agree reports whether two resolutions (frame row, next row, lerp) show the same
// pose: the same rows with lerps within 0.005 (Animate adds rate·dt to a float32
// phase every step, whose roundings add up over hundreds of steps; the clock
// computes Phase + Rate·t once), or the two sides of a frame
// boundary (row f at lerp ≈ 1, row f+1 at lerp ≈ 0); or, as boundary says, both
// on a whole row at the two ends of a clip that wraps, where a time a rounding
// apart shows the last frame or the first.
func agree(f0, n0 uint32, l0 float32, f1, n1 uint32, l1 float32) (same, boundary bool) {
	if f0 == f1 && n0 == n1 && math.Abs(float64(l0-l1)) < 5e-3 {
		return true, false
	}
	at := func(f, n uint32, l float32) (uint32, bool) { // the row a lerp near 0 or 1 shows
		switch {
		case l < 5e-3:
			return f, true
		case l > 1-5e-3:
			return n, true
		}
		return 0, false
	}
	r0, ok0 := at(f0, n0, l0)
	r1, ok1 := at(f1, n1, l1)
	if ok0 && ok1 && r0 == r1 {
		return true, false
	}
	return ok0 && ok1, true
}

// The GPU clock mode shows what Animate shows: two copies of one fighting crowd,
// one animated every frame on the CPU with a frame-stepped Combat, the other
// updated only where its inputs changed with a scheduled Combat, give every unit
// the same clip, rows, lerp and fade weights on every frame, and the two combats
// report the same events on the same frames. The inputs change at random: speeds,
// runs, holds, variants, deaths.
func TestGPUClockMatchesAnimate(t *testing.T) {
	r := testRegistry(t)
	const n = 96
	// A step that no fade time (0.15, 0.2, 0.3 s) nor half of one is a whole number of: at a
	// fade's exact end or middle, the two modes' roundings may decide either way
	// (the CPU mode sums dt, the clock subtracts times), both right.
	const dt = float32(1.0 / 61)
	cpu, clock := New(n), NewGPUClock(n)
	fc, fg := NewCombat(r, cpu), NewScheduledCombat(r, clock)
	for i := range n {
		cpu.Spawn(i, unit.Kind(i%int(unit.NumKinds)))
		cpu.Variant[i] = uint8(i % 5)
		clock.Spawn(i, unit.Kind(i%int(unit.NumKinds)))
		clock.SetVariant(i, uint8(i%5))
	}
	for _, f := range []*Combat{fc, fg} {
		for i := range n {
			// Cooldowns far from a whole number of steps, so that no event falls
			// within a rounding of a step's end: there, the stepped combat's float32
			// sums and the scheduled one's float64 clock may decide on steps a step
			// apart, both right.
			f.Melee.Damage[i], f.Melee.Cooldown[i], f.Melee.Reach[i] = 10, []float32{1.2345, 2.5678, 3.9123}[i%3], 100
			f.World.HP[i], f.World.Team[i] = 25, uint8(i%2) // three hits kill
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	if err := clock.Commit(r); err != nil {
		t.Fatal(err)
	}
	if got := len(clock.Changed()); got != n {
		t.Fatalf("the first Commit wrote %d records of %d", got, n)
	}
	if got := clock.Changed(); len(got) != 0 {
		t.Fatalf("Changed again without a Commit: %v, want none", got)
	}
	cpu.Animate(r, 0) // both crowds at their first clips, at time 0
	compared, edges, blends := 0, 0, 0
	for frame := range 900 {
		// The game: a few units change what they do; fighters strike when ready.
		for range 4 {
			i := rng.IntN(n)
			var speed float32
			var flags unit.Flags
			switch rng.IntN(7) {
			case 0:
				speed = 1.4
			case 6:
				speed = 2.5 // between walk and run: a speed blend
			case 1:
				speed, flags = 4, unit.Running
			case 2:
				flags = unit.HoldStance
			case 3:
				if frame > 600 {
					flags = unit.Dying
				}
			}
			v := uint8(rng.IntN(8))
			cpu.Speed[i], cpu.Variant[i] = speed, v
			cpu.Flags[i] = cpu.Flags[i]&(unit.Mounted|unit.Attacking|unit.Dying) | flags
			in := clock.Inputs(i)
			in.Speed, in.Flags = speed, in.Flags&(unit.Mounted|unit.Attacking|unit.Dying)|flags
			clock.SetInputs(i, in)
			clock.SetVariant(i, v)
		}
		if frame%2 == 0 {
			a := rng.IntN(n)
			tg := (a + 1 + 2*rng.IntN(n/2-1)) % n // the other team
			if fc.Attack(a, tg) != fg.Attack(a, tg) {
				t.Fatalf("frame %d: the combats disagree on whether %d may strike %d", frame, a, tg)
			}
		}
		// The same events in the frame: the stepped combat lists them by unit,
		// the scheduled one by time. An attacker killed in its swing is the one
		// difference: stepped, its strike is cancelled at once; scheduled, at its
		// contact time (the counts compared at the end agree).
		byUnit := func(a, b combat.Event) int { return int(a.Attacker-b.Attacker)*8 + int(a.Kind) - int(b.Kind) }
		deadAttacker := func(w *combat.World) func(e combat.Event) bool {
			return func(e combat.Event) bool { return w.HP[e.Attacker] <= 0 }
		}
		ec := slices.DeleteFunc(slices.SortedStableFunc(slices.Values(fc.Step(dt)), byUnit), deadAttacker(&fc.World))
		eg := slices.DeleteFunc(slices.SortedStableFunc(slices.Values(fg.Step(dt)), byUnit), deadAttacker(&fg.World))
		if fmt.Sprint(ec) != fmt.Sprint(eg) {
			t.Fatalf("frame %d: events\n%v stepped\n%v scheduled", frame, ec, eg)
		}
		if err := cpu.Animate(r, dt); err != nil {
			t.Fatal(err)
		}
		if err := clock.Commit(r); err != nil {
			t.Fatal(err)
		}
		clock.Advance(dt)
		for i := range n {
			o, b := clock.Records[i].At(clock.Now)
			want, wb := cpu.Out[i], cpu.Blend[i]
			if st, cl := clock.State(i); cpu.Clip[i] != cl || cpu.State[i] != st || cpu.Flags[i] != clock.Inputs(i).Flags {
				t.Fatalf("frame %d unit %d: clip %d state %v flags %v on the CPU, %d %v %v on the clock", frame, i, cpu.Clip[i], cpu.State[i], cpu.Flags[i], cl, st, clock.Inputs(i).Flags)
			}
			same, edge := agree(o.Frame, o.Next, o.Lerp, want.Frame, want.Next, want.Lerp)
			compared++
			if edge {
				edges++
			}
			if !same {
				t.Fatalf("frame %d unit %d (%v, clip %d): rows %d %d %.5f on the clock, %d %d %.5f on the CPU", frame, i, cpu.State[i], cpu.Clip[i], o.Frame, o.Next, o.Lerp, want.Frame, want.Next, want.Lerp)
			}
			if math.Abs(float64(b.Weight-wb.Weight)) > 1e-4 || math.Abs(float64(b.PriorWeight-wb.PriorWeight)) > 1e-4 {
				t.Fatalf("frame %d unit %d: fade weights %v %v on the clock, %v %v on the CPU", frame, i, b.Weight, b.PriorWeight, wb.Weight, wb.PriorWeight)
			}
			if wb.Weight > 0 && !cpu.Fading(i) {
				blends++
			}
			if wb.Weight > 0 {
				same, edge := agree(b.Frame, b.Next, b.Lerp, wb.Frame, wb.Next, wb.Lerp)
				compared++
				if edge {
					edges++
				}
				if !same {
					t.Fatalf("frame %d unit %d: faded-from rows %d %d %.5f on the clock, %d %d %.5f on the CPU", frame, i, b.Frame, b.Next, b.Lerp, wb.Frame, wb.Next, wb.Lerp)
				}
			}
		}
	}
	if edges*1000 > compared {
		t.Errorf("%d of %d poses agree only as the two sides of a wrap", edges, compared)
	}
	if cpu.Transitions == 0 || cpu.Transitions != clock.Transitions || cpu.Fades != clock.Fades {
		t.Errorf("transitions %d/%d, fades %d/%d", cpu.Transitions, clock.Transitions, cpu.Fades, clock.Fades)
	}
	if fc.Melee.Stats != fg.Melee.Stats || fc.Melee.Stats.Landed == 0 || fc.Melee.Stats.Kills == 0 || fc.Melee.Stats.Cancelled == 0 {
		t.Errorf("combat %+v stepped, %+v scheduled", fc.Melee.Stats, fg.Melee.Stats)
	}
	if blends == 0 {
		t.Error("no unit blended walk and run")
	}
	t.Logf("%d speed-blended poses; %d poses compared, %d at a wrap; %d transitions, %d fades; combat %+v", blends, compared, edges, cpu.Transitions, cpu.Fades, fc.Melee.Stats)
}

// Commit's table gives, for every species id (loaded or not), archetype (valid or
// not), state and variant (past MaxVariants too), what resolving the unit by
// chooseIn and its clip entry gives: the clip, its rows, shape, rates, whether it
// loops, has a speed blend, is swing-driven, and can be played as asked.
func TestClockTableMatchesChoose(t *testing.T) {
	r := testRegistry(t)
	cat := tables(r)
	tab := cat.clockTable()
	var empty clipEntry
	for s := range 256 {
		for a := range roster.Archetype(registry.MaxArchetypes + 2) {
			for st := range unit.NumStates {
				for v := range uint8(registry.MaxVariants + 2) {
					cl, e, ok := chooseIn(cat, &empty, s, a, st, v)
					res := tab[resolveKey(cat, unit.SpeciesID(s), a, st, v)]
					loops := e.wrapTo != e.last
					wantShape := uint32(e.last)
					if loops {
						wantShape |= ShapeLoops
					}
					if st != unit.StateDie {
						wantShape |= ShapeWraps
					}
					g := pairOf(cat, s, a, v, cl)
					gait := (st == unit.StateWalk || st == unit.StateRun) && g != nil
					got := [...]bool{res.flags&resOK != 0 && a < registry.MaxArchetypes, res.flags&resLoops != 0, res.pair != 0, res.flags&resSwing != 0}
					if gait && &cat.pairs[res.pair-1] != g {
						t.Fatalf("species %d archetype %d state %v variant %d: pair %d, want the one of its walk and run", s, a, st, v, res.pair)
					}
					want := [...]bool{ok, loops, gait, swingDriven[st] != 0}
					if res.clip != cl || res.own.Row != e.offset || res.own.Shape != wantShape || res.own.Rate != e.base || res.own.Phase != 0 ||
						res.perSpeed != e.perSpeed || res.keep != e.keep || got != want {
						t.Fatalf("species %d archetype %d state %v variant %d: %+v, want clip %d entry %+v shape %#x flags %v", s, a, st, v, res, cl, *e, wantShape, want)
					}
				}
			}
		}
	}
}

// pairOf is the speed blend of a unit of species s, archetype a and variant v
// that plays clip cl, found from the pairs table alone, or nil when it has none
// (cl is neither of a pair's clips).
func pairOf(cat *catalog, s int, a roster.Archetype, v uint8, cl unit.ClipID) *gaitPair {
	if s > cat.maxID {
		return nil
	}
	g := &cat.pairs[(s*registry.MaxArchetypes+int(a&(registry.MaxArchetypes-1)))*registry.MaxVariants+int(min(v, registry.MaxVariants-1))]
	if g.walk == g.run || (cl != g.walk && cl != g.run) {
		return nil
	}
	return g
}

// recordBits is a record's 16 words, so that records compare bit for bit (NaNs
// and signed zeros included).
func recordBits(r *TimeRecord) [16]uint32 {
	var b [16]uint32
	for k, p := range []Playhead{r.Own, r.From, r.Prior} {
		b[4*k], b[4*k+1], b[4*k+2], b[4*k+3] = math.Float32bits(p.Phase), math.Float32bits(p.Rate), p.Row, p.Shape
	}
	b[12], b[13], b[14], b[15] = math.Float32bits(r.Start), math.Float32bits(r.FadeStart), math.Float32bits(r.FadeInv), math.Float32bits(r.PriorShare)
	return b
}

// A record rebased and then given rebasedAgain holds the bits that rebasing it
// twice at the same time gives, which Commit relies on to switch clips without
// the second Rebase that Switch makes: for phases and rates of every kind
// (signed zeros, infinite and NaN rates, swings, one-frame clips, fades that
// have ended or not, priors and speed blends).
func TestRebasedAgain(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 18))
	odd := []float32{0, float32(math.Copysign(0, -1)), 1, -1, .5, .99999994, 1e-30, -1e-30, 3e9, float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN())}
	pick := func() float32 {
		if rng.IntN(2) == 0 {
			return odd[rng.IntN(len(odd))]
		}
		return float32(rng.NormFloat64() * 3)
	}
	head := func() Playhead {
		sh := uint32(rng.IntN(3) * 11)
		sh |= []uint32{0, ShapeLoops, ShapeWraps, ShapeLoops | ShapeWraps, ShapeSwing, ShapeGait | ShapeLoops | ShapeWraps}[rng.IntN(6)]
		return Playhead{Phase: pick(), Rate: pick(), Row: uint32(rng.IntN(100)), Shape: sh}
	}
	for range 200_000 {
		r := TimeRecord{Own: head(), From: head(), Prior: head(), Start: float32(rng.IntN(4)), FadeStart: float32(rng.IntN(4))}
		if rng.IntN(2) == 0 {
			r.FadeInv = []float32{.5, 3, 10, float32(math.Inf(1))}[rng.IntN(4)]
		}
		if rng.IntN(2) == 0 {
			r.PriorShare = []float32{.25, .5, .75, 1}[rng.IntN(4)]
		}
		now := r.Start + []float32{0, 1.0 / 60, .5, 2}[rng.IntN(4)]
		a, b := r, r
		a.Rebase(now)
		a.Rebase(now)
		b.Rebase(now)
		b.rebasedAgain()
		if recordBits(&a) != recordBits(&b) {
			t.Fatalf("%+v at %v: rebased twice %+v, rebasedAgain %+v", r, now, a, b)
		}
	}
}

// commitQuick writes what commit's general path writes, bit for bit: two clocks
// given the same random history, one committed with the quick path and one
// without, hold the same records, states, counts and Changed lists after every
// Commit. The history has inputs of every kind (any flags, weapons, variants
// past MaxVariants, species not loaded, archetypes out of range, respawns),
// speeds at, between and past the gaits and not finite, frames of 0 to 2 s, fades
// switched off and on, a change that switches at once in the fade table, and,
// in one of the two runs, a scheduled combat striking.
func TestCommitQuickMatchesGeneral(t *testing.T) {
	fades := registry.DefaultFades()
	fades[unit.StateIdle][unit.StateWalk] = 1e-39 // too short to invert: the table keeps 0, a switch
	r := testRegistry(t, registry.WithFades(unit.SpeciesHumanoid, fades))
	speeds := []float32{0, 0, 1.4, 1.4, 1.7, 2.5, 3.8, 4, 12, 1e30, float32(math.Inf(1)), float32(math.NaN()), -1}
	for _, fight := range []bool{false, true} {
		const n = 256
		quick, general := NewGPUClock(n), NewGPUClock(n)
		clocks := []*GPUClock{quick, general}
		var combats []*Combat
		if fight {
			for _, g := range clocks {
				f := NewScheduledCombat(r, g)
				for i := range n {
					f.Melee.Damage[i], f.Melee.Cooldown[i], f.Melee.Reach[i] = 10, .7, 100
					f.World.HP[i], f.World.Team[i] = 1e9, uint8(i%2)
				}
				combats = append(combats, f)
			}
		}
		rng := rand.New(rand.NewPCG(21, 22))
		eligible, total := 0, 0
		for frame := range 3000 {
			changes := rng.IntN(24)
			if frame == 0 {
				changes = 0 // every unit is listed for the first Commit
			}
			for range changes {
				i := rng.IntN(n)
				switch rng.IntN(20) {
				case 0: // a respawn as anything, valid or not
					u := unit.Loadout{Species: unit.SpeciesID(rng.IntN(8)), Archetype: roster.Archetype(rng.IntN(registry.MaxArchetypes + 2)), Weapon: unit.Weapon(rng.IntN(4))}
					if rng.IntN(4) == 0 {
						u.Flags = unit.Flags(rng.Uint32())
					}
					for _, g := range clocks {
						g.Set(i, u)
					}
				case 1:
					v := uint8(rng.IntN(registry.MaxVariants + 3))
					for _, g := range clocks {
						g.SetVariant(i, v)
					}
				default:
					in := quick.Inputs(i)
					in.Speed = speeds[rng.IntN(len(speeds))]
					switch rng.IntN(8) {
					case 0:
						in.Flags ^= unit.Flags(1) << rng.IntN(bits.Len16(uint16(unit.Running))) // Running is the last flag
					case 1:
						in.Flags = 0
					}
					if rng.IntN(10) == 0 {
						in.Weapon = unit.Weapon(rng.IntN(4))
					}
					for _, g := range clocks {
						g.SetInputs(i, in)
					}
				}
			}
			if fight && frame%3 == 0 {
				a := rng.IntN(n)
				tg := (a + 1 + 2*rng.IntN(n/2-1)) % n
				if combats[0].Attack(a, tg) != combats[1].Attack(a, tg) {
					t.Fatalf("frame %d: the combats disagree on whether %d may strike %d", frame, a, tg)
				}
			}
			dt := []float32{0, 1.0 / 60, 1.0 / 60, 1.0 / 60, .05, .1, .31, 2}[rng.IntN(8)]
			if fight {
				for _, f := range combats {
					f.Step(dt)
				}
			}
			noFade := frame%500 > 450
			// The units the quick path may take: a record that shows one clip.
			for _, u := range quick.pending {
				o := &quick.Records[u]
				total++
				if quick.units[u].clip != unit.NoClip && o.PriorShare == 0 && !(o.FadeInv > 0 && (quick.Now-o.FadeStart)*o.FadeInv < 1) {
					eligible++
				}
			}
			var errs [2]error
			for k, g := range clocks {
				g.NoFade = noFade
				quickCommit = k == 0
				errs[k] = g.Commit(r)
			}
			quickCommit = true
			if fmt.Sprint(errs[0]) != fmt.Sprint(errs[1]) {
				t.Fatalf("frame %d: Commit says %v quick, %v general", frame, errs[0], errs[1])
			}
			qChanged, gChanged := quick.Changed(), general.Changed()
			if !slices.Equal(qChanged, gChanged) || quick.Transitions != general.Transitions || quick.Fades != general.Fades {
				t.Fatalf("frame %d: changed %v / %v, transitions %d / %d, fades %d / %d", frame, qChanged, gChanged,
					quick.Transitions, general.Transitions, quick.Fades, general.Fades)
			}
			for _, u := range qChanged {
				qs, qc := quick.State(int(u))
				gs, gc := general.State(int(u))
				if recordBits(&quick.Records[u]) != recordBits(&general.Records[u]) || qs != gs || qc != gc {
					t.Fatalf("frame %d unit %d: quick %+v (%v, clip %d), general %+v (%v, clip %d)", frame, u,
						quick.Records[u], qs, qc, general.Records[u], gs, gc)
				}
			}
			for _, g := range clocks {
				g.Advance(dt)
			}
		}
		if eligible*4 < total || eligible == total {
			t.Errorf("fight %v: %d of %d changes could take the quick path: the history does not test both paths", fight, eligible, total)
		}
		if fight && (combats[0].Melee.Stats != combats[1].Melee.Stats || combats[0].Melee.Stats.Landed == 0) {
			t.Errorf("combat %+v quick, %+v general", combats[0].Melee.Stats, combats[1].Melee.Stats)
		}
		t.Logf("fight %v: %d changes, %d of them records that show one clip; %d transitions, %d fades", fight, total, eligible, quick.Transitions, quick.Fades)
	}
}

// A unit respawned with Set or Spawn in the middle of a run starts its next
// (looping) clip at the phase it showed, in both modes: a Crowd keeps the
// unit's Phase through Set, and the clock now does too (it used to start the
// unit at its AmbientPhase, where New starts it). Only the clock's first units
// start at AmbientPhase.
func TestGPUClockRespawnKeepsPhase(t *testing.T) {
	r := testRegistry(t)
	const n = 24
	const dt = float32(1.0 / 61)
	cpu, clock := New(n), NewGPUClock(n)
	for i := range n {
		cpu.Spawn(i, unit.Kind(i%int(unit.NumKinds)))
		clock.Spawn(i, unit.Kind(i%int(unit.NumKinds)))
	}
	if err := clock.Commit(r); err != nil {
		t.Fatal(err)
	}
	if err := cpu.Animate(r, 0); err != nil {
		t.Fatal(err)
	}
	compare := func(frame int) {
		t.Helper()
		for i := range n {
			o, _ := clock.Records[i].At(clock.Now)
			w := cpu.Out[i]
			if same, _ := agree(o.Frame, o.Next, o.Lerp, w.Frame, w.Next, w.Lerp); !same {
				t.Fatalf("frame %d unit %d: rows %d %d %.4f on the clock, %d %d %.4f on the CPU", frame, i, o.Frame, o.Next, o.Lerp, w.Frame, w.Next, w.Lerp)
			}
		}
	}
	for frame := range 120 {
		for i := range n {
			switch {
			case frame == 20 && i%3 == 0: // walk for a while, then respawn as another kind
				cpu.Speed[i] = 1.4
				clock.SetInputs(i, unit.Inputs{Flags: clock.Inputs(i).Flags, Speed: 1.4})
			case frame == 57 && i%3 == 0:
				cpu.Spawn(i, unit.Kind((i+1)%int(unit.NumKinds)))
				clock.Spawn(i, unit.Kind((i+1)%int(unit.NumKinds)))
			case frame == 80 && i%3 == 1: // respawn as the same kind
				cpu.Spawn(i, unit.Kind(i%int(unit.NumKinds)))
				clock.Spawn(i, unit.Kind(i%int(unit.NumKinds)))
			}
		}
		if err := cpu.Animate(r, dt); err != nil {
			t.Fatal(err)
		}
		if err := clock.Commit(r); err != nil {
			t.Fatal(err)
		}
		clock.Advance(dt)
		compare(frame)
	}
}
