package main

import (
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	goruntime "runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/bonebake/bonebake/crowd"
	"github.com/bonebake/bonebake/crowd/battle"
	"github.com/bonebake/bonebake/crowd/registry"
	"github.com/bonebake/bonebake/crowd/unit"
	"github.com/bonebake/bonebake/formats"
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

// speciesIn is ": --species 6,7" naming the ids past the built-in ones that the
// .bpat files in dir hold and --species may accept (roster.CheckID), or "".
func speciesIn(dir string) string {
	files, _ := filepath.Glob(filepath.Join(dir, "*.bpat"))
	var ids []uint32
	for _, f := range files {
		if id, ok := formats.HeaderSpecies(f); ok && roster.CheckID(id) == nil && !slices.Contains(roster.IDs(), id) && !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return ""
	}
	slices.Sort(ids)
	return ": --species " + idList(ids)
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
			// this flag in place of the registry's hint, which names its Go option
			msg := strings.ReplaceAll(err.Error(), " (a species of the game's own: register its id with WithSpecies)", "")
			return nil, "", fmt.Errorf("%s\n(a file of a species that is not built in needs --species with its id%s)", msg, speciesIn(dir))
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
