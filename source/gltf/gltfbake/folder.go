package gltfbake

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/bonebake/bonebake/bake"
	"github.com/bonebake/bonebake/formats"
	"github.com/bonebake/bonebake/internal/words"
	"github.com/bonebake/bonebake/roster"
)

// Folder is the plan for baking several models into one folder with the same
// settings: each model's file and its own settings. The runtime loads a folder
// only when its files' species ids differ (one slot per id), so the plan gives
// each model a distinct id before anything is baked.
type Folder struct {
	Dir      string     // the folder
	Models   []string   // the models, in the order given
	Outs     []string   // each model's DIR/NAME.bpat
	Settings []Settings // each model's: the shared ones with its manifest and free species id
}

// FolderError is a plan that cannot be: two models baked into one file, or two
// species ids alike in the folder.
type FolderError struct{ Err error }

func (e *FolderError) Error() string { return e.Err.Error() }
func (e *FolderError) Unwrap() error { return e.Err }

// PlanFolder plans the bake of models into dir, one NAME.bpat each, with set
// for all. A model takes set.Manifest, else NAME.yaml beside it when there is
// one. When its manifest gives no species id, it takes one free in the folder
// (Settings.FreeSpeciesID): distinct ids, the first ones neither built in, nor
// given by a manifest, nor held by a .bpat file already in dir that this bake
// does not replace. A model's bonebake extras are not read here: ids they give
// may still collide.
func PlanFolder(models []string, dir string, set Settings) (*Folder, error) {
	p := &Folder{Dir: dir, Models: models, Outs: make([]string, len(models)), Settings: make([]Settings, len(models))}
	byName := map[string]string{}
	for i, m := range models {
		name := modelName(m)
		// Case-insensitive file systems would write both into one file.
		if other, ok := byName[strings.ToLower(name)]; ok {
			return nil, &FolderError{fmt.Errorf("%s and %s would both be baked into %s: bake them into different folders", other, m, BPATPath(m, dir))}
		}
		byName[strings.ToLower(name)] = m
		p.Outs[i] = BPATPath(m, dir)
	}
	if set.SpeciesID != nil {
		return nil, &FolderError{fmt.Errorf("Settings.SpeciesID %d would give all %d models one id, and a folder of files with one id cannot be loaded together: leave it out (each model then takes its own free id) or give each model species_id in its NAME.yaml manifest", *set.SpeciesID, len(models))}
	}
	if set.Manifest != nil && set.Manifest.SpeciesID != nil {
		return nil, &FolderError{fmt.Errorf("Settings.Manifest gives species_id %d to all %d models, and a folder of files with one id cannot be loaded together: give each model its own NAME.yaml manifest", *set.Manifest.SpeciesID, len(models))}
	}
	taken := heldSpecies(dir, p.Outs) // id → the file or manifest that holds it
	for i, m := range models {
		s := set
		if s.Manifest == nil {
			var err error
			if s.Manifest, err = besideManifest(m); err != nil {
				return nil, err
			}
		}
		p.Settings[i] = s
		if s.Manifest == nil || s.Manifest.SpeciesID == nil {
			continue
		}
		id := *s.Manifest.SpeciesID
		if other, ok := taken[id]; ok {
			return nil, &FolderError{fmt.Errorf("%s gives %s species id %d, which %s already holds: the runtime loads one file per id from a folder; choose another id", ManifestBeside(m), m, id, other)}
		}
		taken[id] = ManifestBeside(m)
	}
	for i := range models {
		if mf := p.Settings[i].Manifest; mf != nil && mf.SpeciesID != nil {
			continue
		}
		used := make([]uint32, 0, len(taken))
		for id := range taken {
			used = append(used, id)
		}
		id := roster.FirstFreeID(used...)
		if err := roster.CheckID(id); err != nil {
			return nil, fmt.Errorf("%s: no species id is left for %s (%d are taken in the folder and by the manifests): %w", dir, models[i], len(taken), err)
		}
		p.Settings[i].FreeSpeciesID = &id
		taken[id] = models[i]
	}
	return p, nil
}

// heldSpecies is the species id of each BPAT file in dir that outs does not
// replace: id → the file.
func heldSpecies(dir string, outs []string) map[uint32]string {
	taken := map[uint32]string{}
	replaced := map[string]bool{}
	for _, o := range outs {
		replaced[filepath.Clean(o)] = true
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return taken
	}
	for _, e := range ents {
		p := filepath.Join(dir, e.Name())
		if !strings.EqualFold(filepath.Ext(p), ".bpat") || replaced[filepath.Clean(p)] || !e.Type().IsRegular() {
			continue
		}
		if id, ok := formats.BPATSpecies(p); ok {
			taken[id] = p
		}
	}
	return taken
}

// modelName is a model's file name without its extension: NAME of NAME.glb.
func modelName(path string) string {
	return strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
}

// BPATPath is where the bake of the model NAME.glb (.gltf, .fbx, .bvh) goes in
// dir: DIR/NAME.bpat, or NAME.bpat when dir is "".
func BPATPath(model, dir string) string { return filepath.Join(dir, modelName(model)+".bpat") }

// ManifestBeside is NAME.yaml beside the model NAME.glb: the manifest a model
// takes in a folder bake when none is given.
func ManifestBeside(model string) string {
	return filepath.Join(filepath.Dir(model), modelName(model)+".yaml")
}

// besideManifest reads NAME.yaml beside the model NAME.glb (or .gltf), or returns
// nil when there is none.
func besideManifest(model string) (*Manifest, error) {
	p := ManifestBeside(model)
	if _, err := os.Stat(p); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, nil
		}
		return nil, err
	}
	return ReadManifest(p)
}

// FolderOutput says how BakeAll and Folder.WriteFiles bake their models and
// tell of them.
type FolderOutput struct {
	// Output is every model's (Bake): its Workers are shared out among the
	// models baking at once, its Starting is not called, its Progress is
	// told of the models done (after Done), not of a model's frames, and its
	// Tell is told the folder's own lines (a model's are in its Baked).
	Output
	// Done is told of each model of several in the order given, as soon as
	// it and every model before it are done.
	Done func(*Baked)
	// Out is where BakeAll writes: one model's BPAT file (its NAME.bpat in
	// the working folder when ""), or the folder of several.
	Out string
}

// WriteFiles bakes every model of the plan into its file (Bake), in
// parallel, one model per core (each with its share of the cores as sampling
// workers, all of them when there are fewer models than cores), so that at
// most that many models are in memory at once. A model that fails does not
// stop the others. Each file is byte-identical to the model's bake on its own
// with the plan's settings. Once every model is done, o.Tell is told a
// warning for each two files that came out with one species id (a model's
// bonebake extras may carry an id the plan could not see without loading it),
// then the total. It returns how many models failed.
func (p *Folder) WriteFiles(o FolderOutput) (failed int) {
	start, models := time.Now(), p.Models
	baked := make([]*Baked, len(models))
	done := make([]chan struct{}, len(models))
	for i := range models {
		done[i] = make(chan struct{})
	}
	procs := runtime.GOMAXPROCS(0)
	par := min(procs, len(models))
	run := o.Output
	run.Workers, run.Progress, run.Starting, run.Tell = max(1, procs/par), nil, nil, nil
	next := make(chan int)
	go func() {
		for i := range models {
			next <- i
		}
		close(next)
	}()
	var wg sync.WaitGroup
	for range par {
		wg.Go(func() {
			for i := range next {
				baked[i] = Bake(models[i], p.Outs[i], p.Settings[i], run)
				close(done[i])
			}
		})
	}
	for i := range baked {
		<-done[i]
		if o.Done != nil {
			o.Done(baked[i])
		}
		if o.Progress != nil {
			o.Progress(i+1, len(models))
		}
	}
	wg.Wait()
	var report []bake.Line
	seen, total := map[uint32]string{}, int64(0)
	for _, b := range baked {
		if b.Err != nil {
			failed++
			continue
		}
		total += b.Written.Bytes + b.Written.SnapshotBytes
		id := b.Written.Header.SpeciesID
		if other, dup := seen[id]; dup {
			report = append(report, bake.Line{Kind: bake.Found, Text: fmt.Sprintf("warning: %s and %s both have species id %d (from the models' own bonebake extras): the runtime loads one file per id; rebake one with species_id in its NAME.yaml", other, b.Out, id)})
		}
		seen[id] = b.Out
	}
	sum := fmt.Sprintf("baked %d of %s into %s: %s in %s", len(models)-failed, words.Plural(len(models), "model"), p.Dir, words.Bytes(total),
		words.Took(time.Since(start)))
	if failed > 0 {
		sum += fmt.Sprintf("; %d failed", failed)
	}
	report = append(report, bake.Line{Kind: bake.Total, Text: sum})
	for _, l := range report {
		if o.Tell != nil {
			o.Tell(l)
		}
	}
	return failed
}
