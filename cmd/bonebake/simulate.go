package main

import (
	"errors"
	"fmt"
	"io"
	"math"
	goruntime "runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/bonebake/bonebake/crowd"
	"github.com/bonebake/bonebake/crowd/battle"
	"github.com/bonebake/bonebake/crowd/registry"
	"github.com/bonebake/bonebake/crowd/unit"
	"github.com/bonebake/bonebake/formats"
	"github.com/bonebake/bonebake/formats/bpat"
	"github.com/bonebake/bonebake/roster"
	"github.com/bonebake/bonebake/species"
	"github.com/bonebake/bonebake/species/creatures"

	"github.com/spf13/cobra"
)

func newSimulateCmd() *cobra.Command {
	var (
		cfg     simConfig
		asJSON  bool
		species speciesFlag
	)
	cmd := &cobra.Command{
		Use:   "simulate [--units N] [--seconds S] [--assets DIR] [--json]",
		Short: "Run a headless battle and report the runtime's cost per unit and its combat counts",
		Long: `Simulate a battle of N units, two armies of mixed species (sword, spear and
skeleton infantry, archers, riders on horses, elephants) that march at each other,
fight and die, and animate every unit every step with the runtime: intent → state →
clip, phase, combat timeline, playback.

It prints the animation step's cost per unit in nanoseconds (median and p99 over the
steps), the frame-time percentiles of the whole simulation step, and
the combat counts: swings started, hits landed on the attack clip's contact marker,
and hits cancelled (target dead, friendly or out of reach at contact, attacker dead).

Every clip change cross-fades (docs/runtime.md §6.1); --no-fade switches them off
to show the pops they hide. The run counts the clip changes (transitions) and the
fades, and measures the largest move of any bone's origin from one frame to the
next over all units and steps (max_bone_jump_m), from the poses the GPU would
draw: with fades it is well below the --no-fade figure on the same seed.

Both the game side (targets, movement, deaths) and the animation step share the
units among --workers goroutines, one per core by default, as a game shares them
among its cores; the battle is the same on any number. Times are wall times.

Without --assets the built-in species are baked in memory first.`,
		Example: `  bonebake simulate
  bonebake simulate --units 100000 --seconds 10 --json
  bonebake simulate --units 100000 --workers 1      # the whole battle on one core
  bonebake simulate --assets assets/creatures --units 2000 --dt 1/30`,
		Args: args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if cfg.units < 2 {
				return usagef("--units must be at least 2")
			}
			if !(cfg.seconds > 0) || math.IsInf(cfg.seconds, 0) {
				return usagef("--seconds must be a positive number")
			}
			if cfg.workers < 1 {
				return usagef("--workers must be at least 1")
			}
			if !(cfg.dt > 0) || cfg.dt > 1 {
				return usagef("--dt must be in (0, 1] seconds")
			}
			// What cannot fit is refused before anything is allocated: a unit
			// costs about 150 bytes, a step two timings.
			if cfg.units > maxSimUnits {
				return usagef("--units %d: at most %d units (about %d MB; the runtime itself has no such limit)", cfg.units, maxSimUnits, maxSimUnits*150/1_000_000)
			}
			if steps := cfg.seconds / cfg.dt; steps > maxSimSteps {
				return usagef("--seconds %g at --dt %g is %.3g steps: at most %d (raise --dt or lower --seconds)", cfg.seconds, cfg.dt, steps, maxSimSteps)
			}
			reg, source, err := simRegistry(cfg.assets, cfg.camera != nil, species.extra...)
			if err != nil {
				return err
			}
			defer reg.Close()
			cfg.progress = progress(cmd, "simulating")
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
	cfg.dt = 1.0 / 60
	f.Var((*seconds)(&cfg.dt), "dt", "simulation step in seconds, a number or a fraction such as 1/30")
	f.Lookup("dt").DefValue = "1/60" // as people write it, not 0.016666666666666666
	f.StringVar(&cfg.assets, "assets", "", "directory of species .bpat files (default: bake the built-in species in memory)")
	f.Uint64Var(&cfg.seed, "seed", 1, "random seed of the armies")
	f.BoolVar(&asJSON, "json", false, "print JSON instead of text")
	f.IntVar(&cfg.workers, "workers", goruntime.GOMAXPROCS(0), "goroutines the battle's game side and animation step share the units among")
	f.Lookup("workers").DefValue = "one per core"
	f.BoolVar(&cfg.noFade, "no-fade", false, "switch cross-fades off: every clip change shows the new clip at once")
	f.Var(cameraFlag{&cfg.camera}, "camera", "choose each unit's level of detail by its distance from a camera at X,Y,Z (metres; the armies meet near 0,0,0)")
	species.add(cmd)
	return cmd
}

// simulate's bounds: what a run may ask for before it is refused.
const (
	maxSimUnits = 10_000_000
	maxSimSteps = 1_000_000
)

type simConfig struct {
	units       int
	seconds, dt float64
	assets      string
	seed        uint64
	noFade      bool
	workers     int         // goroutines the battle shares the units among
	camera      *[3]float32 // nil: no level of detail
	maxSteps    int         // tests: stop early
	// progress, when set, hears (steps done, steps) about ten times a second once
	// the run has lasted progressAfter (a second unless set), so that short runs
	// draw no bar.
	progress      func(done, total int)
	progressAfter time.Duration
}

type simResult struct {
	Units               int            `json:"units"`
	Steps               int            `json:"steps"`
	Workers             int            `json:"workers"`
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
	Fading              bool           `json:"fading"`
	Transitions         uint64         `json:"transitions"`
	Fades               uint64         `json:"fades"`
	MaxBoneJumpM        *float64       `json:"max_bone_jump_m"`
	// With --camera: the mean number of units at each level per step, and how often
	// a unit changes level.
	Camera                   *[3]float32        `json:"camera,omitempty"`
	LOD                      map[string]float64 `json:"lod,omitempty"`
	LODSwitchesPerUnitSecond *float64           `json:"lod_switches_per_unit_second,omitempty"`
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
	cores := "one goroutine"
	if r.Workers > 1 {
		cores = fmt.Sprintf("%d goroutines", r.Workers)
	}
	fmt.Fprintf(w, "animation step: %.2f ns/unit median, %.2f ns/unit p99 (intent, clip, phase, combat timeline, playback; %s)\n", r.StepNsPerUnitMedian, r.StepNsPerUnitP99, cores)
	fmt.Fprintf(w, "frame time: p50 %.3f ms, p90 %.3f ms, p99 %.3f ms, max %.3f ms\n", r.FrameMsP50, r.FrameMsP90, r.FrameMsP99, r.FrameMsMax)
	fmt.Fprintf(w, "attacks started %d, hits landed on contact %d, hits cancelled %d, kills %d\n", r.AttacksStarted, r.HitsLanded, r.HitsCancelled, r.Kills)
	fmt.Fprintf(w, "alive at the end: %d vs %d\n", r.Alive[0], r.Alive[1])
	fades := "cross-fades on"
	if !r.Fading {
		fades = "cross-fades off (--no-fade)"
	}
	fmt.Fprintf(w, "%s: %d clip changes, %d faded\n", fades, r.Transitions, r.Fades)
	if r.LOD != nil {
		fmt.Fprintf(w, "level of detail from a camera at %g,%g,%g: per step %.0f units full, %.0f reduced, %.0f snapshot; %.3f level changes per unit and second\n",
			r.Camera[0], r.Camera[1], r.Camera[2], r.LOD["full"], r.LOD["reduced"], r.LOD["snapshot"], *r.LODSwitchesPerUnitSecond)
	}
	if r.MaxBoneJumpM != nil {
		fmt.Fprintf(w, "largest bone move in one frame: %.3f m\n", *r.MaxBoneJumpM)
	}
}

// simRegistry loads the species files of dir, or bakes the built-in species in
// memory when dir is empty (with their snapshot meshes, when snapshots is set).
func simRegistry(dir string, snapshots bool, extra ...uint) (*registry.Registry, string, error) {
	if dir != "" {
		// Species beyond the built-in ones load into their own slots; no unit of
		// the battle plays them.
		var opts []registry.Option
		for _, id := range extra {
			opts = append(opts, registry.WithSpecies(roster.Species{ID: uint32(id)}))
		}
		reg, err := registry.Open(registry.Dir(dir), opts...)
		var fe *formats.FormatError
		if errors.As(err, &fe) && fe.Rule == formats.RuleSpecies {
			return nil, "", fmt.Errorf("%w\n(a file of a species that is not built in needs --species with its id)", err)
		}
		if err != nil {
			return nil, "", err
		}
		// The battle fields every built-in species: one the folder lacks is baked
		// in memory, and the summary says which.
		filled, err := loadBuiltins(reg, true, snapshots)
		if err != nil {
			reg.Close()
			return nil, "", err
		}
		source := dir
		if len(filled) > 0 {
			source += "; the built-in species it lacks baked in memory: " + strings.Join(filled, ", ")
		}
		// A folder of one's own bakes loads, but the battle is the built-in
		// species': say so, or its units look like the folder was ignored.
		var own []string
		for _, id := range extra {
			if id <= roster.MaxID && !slices.Contains(roster.IDs(), uint32(id)) && reg.Species(unit.SpeciesID(id)) != nil {
				own = append(own, strconv.FormatUint(uint64(id), 10))
			}
		}
		if len(own) > 0 {
			source += "; species " + strings.Join(own, ", ") + " loaded, but the battle's units are of the built-in species only"
		}
		return reg, source, nil
	}
	// The built-in species, baked in memory; their gaits are the roster's.
	reg := registry.New()
	if _, err := loadBuiltins(reg, false, snapshots); err != nil {
		reg.Close()
		return nil, "", err
	}
	return reg, "built-in species, baked in memory", nil
}

// loadBuiltins bakes the built-in species into reg in memory (with missingOnly,
// those it has not loaded), with their snapshot meshes when snapshots is set, and
// returns their names.
func loadBuiltins(reg *registry.Registry, missingOnly, snapshots bool) ([]string, error) {
	var names []string
	for _, s := range creatures.All() {
		if missingOnly && reg.Species(unit.SpeciesID(s.ID)) != nil {
			continue
		}
		b, err := s.Bytes()
		if err == nil {
			err = reg.Load(registry.Memory(registry.File{Name: s.Name + ".bpat", Data: b}))
		}
		if err == nil && snapshots && s.Minimal != nil {
			err = loadSnapshot(reg, s)
		}
		if err != nil {
			return nil, err
		}
		names = append(names, s.Name)
	}
	return names, nil
}

// loadSnapshot bakes a built-in species' snapshot mesh from its loaded file and
// gives it to reg.
func loadSnapshot(reg *registry.Registry, s *species.Creature) error {
	id := unit.SpeciesID(s.ID)
	b, err := s.SnapshotBytes(reg.Species(id).File)
	if err != nil {
		return err
	}
	return reg.AttachSnapshot(id, s.Name+"_minimal.bpsm", b)
}

func simulate(cfg simConfig, reg *registry.Registry) (*simResult, error) {
	steps := int(math.Round(cfg.seconds / cfg.dt))
	if cfg.maxSteps > 0 {
		steps = min(steps, cfg.maxSteps)
	}
	steps = max(steps, 1)
	anim := make([]float64, 0, steps)
	frame := make([]float64, 0, steps)
	var levels [crowd.NumLevels]uint64
	goruntime.GC() // the bake's garbage, collected before the clock starts
	if cfg.progressAfter == 0 {
		cfg.progressAfter = time.Second
	}
	// The bone moves are measured in the same run, after each step's clock has
	// stopped (the meter's time is in no figure). The meter keeps a few words
	// per unit and reads palettes only for the units it poses, so the next step
	// starts with caches little colder; a replay of the battle, which the meter
	// used before issue 46 to spare the timed steps its megabytes of origins,
	// cost more than the battle itself.
	jumps := newJumpMeter(reg, cfg.units)
	began, shown := time.Now(), time.Time{}
	b, err := playBattle(cfg, reg, steps, func(step int, b *battle.Battle, t0, t1, t2 time.Time) {
		if cfg.progress != nil && time.Since(began) > cfg.progressAfter && time.Since(shown) > 100*time.Millisecond {
			cfg.progress(step, steps)
			shown = time.Now()
		}
		anim = append(anim, float64(t2.Sub(t1).Nanoseconds())/float64(cfg.units))
		frame = append(frame, float64(t2.Sub(t0).Nanoseconds())/1e6)
		for _, l := range b.Crowd.Level {
			levels[l]++
		}
		jumps.measure(&b.Crowd.Batch)
	})
	if err != nil {
		return nil, err
	}
	if !shown.IsZero() {
		cfg.progress(steps, steps)
	}
	res := &simResult{Units: cfg.units, Steps: steps, Workers: crowd.ParallelParts(cfg.units, cfg.workers), Seconds: float64(steps) * cfg.dt, DT: cfg.dt, Species: map[string]int{},
		AttacksStarted: b.Melee.Stats.Started, HitsLanded: b.Melee.Stats.Landed, HitsCancelled: b.Melee.Stats.Cancelled,
		Kills: b.Melee.Stats.Kills, Alive: [2]int{b.Alive(0), b.Alive(1)},
		Fading: !cfg.noFade, Transitions: b.Crowd.Transitions, Fades: b.Crowd.Fades}
	m := jumps.max()
	res.MaxBoneJumpM = &m
	if cfg.camera != nil {
		res.Camera = cfg.camera
		res.LOD = map[string]float64{}
		for l, n := range levels {
			res.LOD[crowd.Level(l).String()] = float64(n) / float64(steps)
		}
		sw := float64(b.Crowd.LODSwitches) / float64(cfg.units) / res.Seconds
		res.LODSwitchesPerUnitSecond = &sw
	}
	for _, s := range b.Crowd.Species {
		name := fmt.Sprintf("species %d", s)
		if sp := reg.Species(s); sp != nil {
			name = sp.Name
		}
		res.Species[name]++
	}
	slices.Sort(anim)
	slices.Sort(frame)
	res.StepNsPerUnitMedian, res.StepNsPerUnitP99 = percentile(anim, .5), percentile(anim, .99)
	res.FrameMsP50, res.FrameMsP90, res.FrameMsP99 = percentile(frame, .5), percentile(frame, .9), percentile(frame, .99)
	res.FrameMsMax = frame[len(frame)-1]
	return res, nil
}

// playBattle runs cfg's battle for steps, calling after with the step's times:
// before Decide, before Animate and after it.
func playBattle(cfg simConfig, reg *registry.Registry, steps int, after func(step int, b *battle.Battle, t0, t1, t2 time.Time)) (*battle.Battle, error) {
	b := battle.New(reg, cfg.units, cfg.seed)
	b.Crowd.NoFade = cfg.noFade
	b.Workers = cfg.workers
	if cfg.camera != nil {
		b.Crowd.EnableLOD()
	}
	dt := float32(cfg.dt)
	for step := range steps {
		t0 := time.Now()
		b.Decide(dt)
		if cam := cfg.camera; cam != nil {
			for i, x := range b.World.X {
				dx, dy, dz := x-cam[0], -cam[1], b.World.Z[i]-cam[2]
				b.Crowd.Distance[i] = float32(math.Sqrt(float64(dx*dx + dy*dy + dz*dz)))
			}
		}
		t1 := time.Now()
		if err := b.Crowd.AnimateParallel(reg, dt, b.Workers); err != nil {
			return nil, err
		}
		after(step, b, t0, t1, time.Now())
	}
	return b, nil
}

// jumpMeter finds the largest move of any bone's model-space origin from one
// step to the next, over all units, on all cores. It keeps each unit's pose of
// the last step as its sides (crowd.Batch.Sides: a few words, not an origin per
// bone) and poses both steps' origins again only for a unit that might beat the
// largest move found so far: a unit that shows one clip in both steps moves each
// bone along the clip's baked path, so no bone moves farther than the path
// between the two phases, as long as its fastest bone's (clipPath.bound). The
// largest move is the one the meter posing every unit finds, bit for bit
// (TestJumpMeterAsBefore).
type jumpMeter struct {
	reg     *registry.Registry
	paths   []speciesPaths // per species id
	prev    []unitPose     // per unit, its pose at the last step
	most    []float64      // per worker, the largest squared move
	posed   []int          // per worker, units posed (tests)
	buf     int            // floats of origin buffers: 3 × the most bones of any species
	workers int
}

// unitPose is what a unit showed at a step.
type unitPose struct {
	species unit.SpeciesID
	sides   [3]registry.Side
	has     bool
	single  bool // has, and shows one clip at full weight
}

// speciesPaths are a species' clips' paths; box[c][x] is the farthest any bone
// of clip c is from the same bone of clip x (its boxes' farthest corners), big
// the largest coordinate of any origin.
type speciesPaths struct {
	clips []clipPath
	box   [][]float64
	big   float64
}

// clipPath is how far a clip's bones travel: step[f] is the farthest any bone's
// origin moves from frame f to the frame bpat.Resolve blends it with, along[f] the
// sum of step before frame f, and slack covers float32 rounding in the poses.
type clipPath struct {
	frames      int
	loops       bool
	step, along []float64
	fastest     float64      // the largest step
	perPhase    float64      // fastest × the frames a phase of 1 spans
	margin      float64      // what quick adds for rounding
	lo, hi      [][3]float64 // per bone, the box its origin stays in
	big         float64      // the largest coordinate of any origin
}

// newJumpMeter returns a meter for n units.
func newJumpMeter(reg *registry.Registry, n int) *jumpMeter {
	m := &jumpMeter{reg: reg, prev: make([]unitPose, n), workers: goruntime.GOMAXPROCS(0)}
	m.most, m.posed = make([]float64, m.workers), make([]int, m.workers)
	for _, s := range reg.All() {
		id := int(s.ID)
		for len(m.paths) <= id {
			m.paths = append(m.paths, speciesPaths{})
		}
		m.buf = max(m.buf, 3*s.File.BoneCount())
		sp := &m.paths[id]
		for c := range s.Clips {
			sp.clips = append(sp.clips, newClipPath(s, c))
			sp.big = max(sp.big, sp.clips[c].big)
		}
		sp.box = make([][]float64, len(sp.clips))
		for c, pc := range sp.clips {
			sp.box[c] = make([]float64, len(sp.clips))
			for x, px := range sp.clips {
				for k := range pc.lo {
					var d2 float64
					for a := range 3 {
						d := max(pc.hi[k][a]-px.lo[k][a], px.hi[k][a]-pc.lo[k][a])
						d2 += d * d
					}
					sp.box[c][x] = max(sp.box[c][x], math.Sqrt(d2))
				}
			}
		}
	}
	return m
}

// newClipPath measures clip c of species s.
func newClipPath(s *registry.Species, c int) clipPath {
	cl := &s.Clips[c]
	p := clipPath{frames: max(cl.FrameCount, 1), loops: cl.Loops}
	p.step, p.along = make([]float64, p.frames), make([]float64, p.frames+1)
	bones := s.File.BoneCount()
	p.lo, p.hi = make([][3]float64, bones), make([][3]float64, bones)
	for k := range bones {
		p.lo[k], p.hi[k] = [3]float64{math.Inf(1), math.Inf(1), math.Inf(1)}, [3]float64{math.Inf(-1), math.Inf(-1), math.Inf(-1)}
	}
	for f := range p.frames {
		next := 0 // a clip of one frame: frame 0 with itself
		if cl.FrameCount > 1 {
			next = min(f+1, cl.FrameCount-1)
			if cl.Loops && f+1 == cl.FrameCount {
				next = 0
			}
		}
		f0, f1 := s.File.Palette(c, f), s.File.Palette(c, next)
		for k := range bones {
			var d2 float64
			for a := range 3 {
				e := k*bpat.FloatsPerBone + 4*a + 3
				v := float64(f0[e])
				d := float64(f1[e]) - v
				d2 += d * d
				p.big = max(p.big, math.Abs(v))
				p.lo[k][a], p.hi[k][a] = min(p.lo[k][a], v), max(p.hi[k][a], v)
			}
			p.step[f] = max(p.step[f], math.Sqrt(d2))
		}
		p.along[f+1] = p.along[f] + p.step[f]
		p.fastest = max(p.fastest, p.step[f])
	}
	p.perPhase = p.fastest * float64(p.frames)
	p.margin = 1e-6*p.fastest + 8e-6*p.big
	return p
}

// quick is reach with the pose's rounding (as farther's bound for one clip at
// full weight: 8e-6·big) and the phases' distance taken without a floor while it
// is under half a phase, as it is between steps.
func (p *clipPath) quick(a, b float32) float64 {
	d := float64(b) - float64(a)
	if !p.loops || d > 0.5 || d < -0.5 {
		return (p.reach(a, b) + p.margin) * (1 + 1e-6)
	}
	// A looping clip: frames apart (n·|b − a|, the shorter way round as it is
	// under half), as reach gives them.
	return (math.Abs(d)*p.perPhase + p.margin) * (1 + 1e-6)
}

// reach is path's quick form: the frames between the phases (the shorter way
// round a looping clip, a millionth of a frame more for the rounding of
// bpat.Resolve's lerp) times the fastest step.
func (p *clipPath) reach(a, b float32) float64 {
	if p.frames <= 1 {
		return 0
	}
	pa, pb := float64(a), float64(b)
	var d float64
	if p.loops {
		n := float64(p.frames)
		d = math.Abs((pb-math.Floor(pb))*n - (pa-math.Floor(pa))*n)
		d = min(d, n-d)
	} else {
		d = math.Abs(min(max(pb, 0), 1)-min(max(pa, 0), 1)) * float64(p.frames-1)
	}
	return (d + 1e-6) * p.fastest
}

// path returns a length no bone's path from phase a to phase b exceeds, in
// exact arithmetic on the baked origins.
func (p *clipPath) path(a, b float32) float64 {
	if p.frames <= 1 {
		return 0
	}
	pa, pb := bpat.Resolve(float64(a), p.frames, p.loops), bpat.Resolve(float64(b), p.frames, p.loops)
	fa, la, fb, lb := pa.Frame, float64(pa.Lerp), pb.Frame, float64(pb.Lerp)
	if fa > fb || (fa == fb && la > lb) {
		fa, la, fb, lb = fb, lb, fa, la
	}
	// Along the path from a to b, or for a looping clip from b on round to a:
	// every bone's path between two poses is no longer than the fastest one's.
	var path float64
	if fa == fb {
		path = (lb - la) * p.step[fa]
	} else {
		path = (1-la)*p.step[fa] + (p.along[fb] - p.along[fa+1]) + lb*p.step[fb]
	}
	if p.loops {
		round := la*p.step[fa] + p.along[fa] + (p.along[p.frames] - p.along[fb+1]) + (1-lb)*p.step[fb]
		path = min(path, round)
	}
	return path
}

// measure compares every unit's pose now with its pose at the last call.
func (m *jumpMeter) measure(b *crowd.Batch) {
	n := b.Len()
	var wg sync.WaitGroup
	for w := range m.workers {
		lo, hi := n*w/m.workers, n*(w+1)/m.workers
		wg.Add(1)
		go func() {
			defer wg.Done()
			was, now := make([]float32, m.buf), make([]float32, m.buf)
			most, posed := m.most[w], 0 // the largest squared move: max takes its root
			for i := lo; i < hi; i++ {
				p := &m.prev[i]
				// The common case first, reading no more than the unit's clip
				// and phase: one clip at full weight then and now.
				if p.single && p.species == b.Species[i] && !b.Blending(i) && b.Clip[i] == p.sides[0].Clip {
					if paths := m.paths[p.species].clips; int(p.sides[0].Clip) < len(paths) {
						if d := paths[p.sides[0].Clip].quick(p.sides[0].Phase, b.Phase[i]); d*d <= most {
							p.sides[0].Phase = b.Phase[i]
							continue
						}
					}
				}
				cur := unitPose{species: b.Species[i], sides: b.Sides(i), has: true}
				cur.single = cur.sides[0].Weight == 1 && cur.sides[1].Weight == 0 && cur.sides[2].Weight == 0
				s := m.reg.Species(cur.species)
				if s == nil { // a species not loaded: nothing drawn
					p.has, p.single = false, false
					continue
				}
				if p.has && p.species == cur.species && (!m.farther(cur, p, most, false) || !m.farther(cur, p, most, true)) {
					*p = cur
					continue
				}
				if s.OriginsOf(cur.sides, now) != nil {
					p.has, p.single = false, false
					continue
				}
				if p.has && p.species == cur.species && s.OriginsOf(p.sides, was) == nil {
					posed++
					k3 := 3 * s.File.BoneCount()
					for k := 0; k+2 < k3; k += 3 {
						dx, dy, dz := float64(now[k]-was[k]), float64(now[k+1]-was[k+1]), float64(now[k+2]-was[k+2])
						most = max(most, dx*dx+dy*dy+dz*dz)
					}
				}
				*p = cur
			}
			m.most[w], m.posed[w] = most, m.posed[w]+posed
		}()
	}
	wg.Wait()
}

// farther reports whether a unit moving from pose p to cur might move a bone
// farther than √most. With X the origin of a bone in p's first clip, a pose's
// origin is Σ w·O_c over its clips c, and
//
//	Σ w′·O′ − Σ w·O = Σ_both w′_c·(O′_c − O_c) + Σ_both (w′_c − w_c)·(O_c − X)
//	                + Σ_new w′_c·(O′_c − X) − Σ_old w_c·(O_c − X) + (Σ w′ − Σ w)·X
//
// where O′_c − O_c is no longer than the clip's path between the phases and
// O_c − X no farther than the clips' boxes. Rounding: a posed coordinate is
// within 8 float32 units in the last place of the species' biggest per unit of
// weight (a lerp, then the weighted sum), √3 that for a point, both poses'
// together under 4e-6·big per unit of weight.
//
// Each clip's path is first taken as reach gives it, then, with tight, as path
// does (slower, and shorter where the fastest step is not between the phases).
func (m *jumpMeter) farther(cur unitPose, p *unitPose, most float64, tight bool) bool {
	if int(cur.species) >= len(m.paths) {
		return true
	}
	sp := &m.paths[cur.species]
	n := unit.ClipID(len(sp.clips))
	// Most units show one clip at full weight both times: the quick bound.
	a, b := &p.sides, &cur.sides
	if a[0].Weight == 1 && b[0].Weight == 1 && a[1].Weight == 0 && a[2].Weight == 0 && b[1].Weight == 0 && b[2].Weight == 0 &&
		a[0].Clip == b[0].Clip && a[0].Clip < n {
		bound := (sp.clips[a[0].Clip].reach(a[0].Phase, b[0].Phase) + 8e-6*sp.big) * (1 + 1e-6)
		if bound*bound <= most {
			return false
		}
	}
	x := p.sides[0].Clip
	if p.sides[0].Weight == 0 || x >= n {
		return true
	}
	var bound, sumOld, sumNew float64
	var matched [3]bool
	for i, c := range cur.sides {
		if c.Weight == 0 {
			continue
		}
		if c.Clip >= n || (i > 0 && c.Clip == cur.sides[0].Clip) || (i == 2 && c.Clip == cur.sides[1].Clip && cur.sides[1].Weight != 0) {
			return true // a clip twice in a pose: sides are not matched so simply
		}
		w := math.Abs(float64(c.Weight))
		sumNew += float64(c.Weight)
		j := -1
		for k, o := range p.sides {
			if o.Weight != 0 && o.Clip == c.Clip {
				if j >= 0 {
					return true
				}
				j = k
			}
		}
		if j < 0 {
			bound += w * sp.box[c.Clip][x]
			continue
		}
		matched[j] = true
		o := p.sides[j]
		if tight {
			bound += w * sp.clips[c.Clip].path(o.Phase, c.Phase)
		} else {
			bound += w * sp.clips[c.Clip].reach(o.Phase, c.Phase)
		}
		if c.Clip != x {
			bound += math.Abs(float64(c.Weight)-float64(o.Weight)) * sp.box[c.Clip][x]
		}
	}
	weights := 0.0
	for k, o := range p.sides {
		if o.Weight == 0 {
			continue
		}
		if o.Clip >= n {
			return true
		}
		sumOld += float64(o.Weight)
		weights += math.Abs(float64(o.Weight))
		if !matched[k] && o.Clip != x {
			bound += math.Abs(float64(o.Weight)) * sp.box[o.Clip][x]
		}
	}
	for _, c := range cur.sides {
		weights += math.Abs(float64(c.Weight))
	}
	bound += math.Abs(sumNew-sumOld)*math.Sqrt(3)*sp.big + 4e-6*sp.big*weights
	bound *= 1 + 1e-6
	return !(bound*bound <= most)
}

// max is the largest move measured: the square root of the largest squared one
// (the root is monotonic, so this is the largest root bit for bit).
func (m *jumpMeter) max() float64 { return math.Sqrt(slices.Max(m.most)) }

// cameraFlag is --camera X,Y,Z: the camera's place, nil when not given.
type cameraFlag struct{ at **[3]float32 }

func (c cameraFlag) String() string {
	if c.at == nil || *c.at == nil {
		return ""
	}
	p := *c.at
	return fmt.Sprintf("%g,%g,%g", p[0], p[1], p[2])
}
func (c cameraFlag) Type() string { return "x,y,z" }
func (c cameraFlag) Set(v string) error {
	parts := strings.Split(v, ",")
	if len(parts) != 3 {
		return fmt.Errorf("%q: want three numbers X,Y,Z in metres", v)
	}
	var p [3]float32
	for k, s := range parts {
		f, err := strconv.ParseFloat(strings.TrimSpace(s), 32)
		if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
			return fmt.Errorf("%q: want three numbers X,Y,Z in metres", v)
		}
		p[k] = float32(f)
	}
	*c.at = &p
	return nil
}

// percentile returns the q-quantile of sorted values (nearest rank).
func percentile(sorted []float64, q float64) float64 {
	i := int(math.Ceil(q*float64(len(sorted)))) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}

// seconds is a flag value in seconds written as a number or a fraction (1/60).
type seconds float64

func (s *seconds) String() string { return strconv.FormatFloat(float64(*s), 'g', -1, 64) }
func (s *seconds) Type() string   { return "seconds" }
func (s *seconds) Set(v string) error {
	num, den, frac := strings.Cut(v, "/")
	n, err := strconv.ParseFloat(num, 64)
	if err != nil {
		return fmt.Errorf("%q is not a number or a fraction such as 1/60", v)
	}
	if frac {
		d, err := strconv.ParseFloat(den, 64)
		if err != nil || d == 0 {
			return fmt.Errorf("%q is not a number or a fraction such as 1/60", v)
		}
		n /= d
	}
	*s = seconds(n)
	return nil
}
