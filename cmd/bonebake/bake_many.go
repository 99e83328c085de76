package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/bonebake/bonebake/roster"
	"github.com/bonebake/bonebake/source/gltf/gltfbake"

	"github.com/spf13/cobra"
)

// bakeModels bakes several glTF models into the folder dir, one NAME.bpat per
// model, with the same settings for all; a model without --manifest takes
// NAME.yaml beside it when there is one. Models bake in parallel, one per core
// (each with one sampling worker, or all cores shared when there are fewer models
// than cores), so that at most that many models are in memory at once. Each
// model's lines are printed in the order the models were given: its notes, hint
// and warnings prefixed with its path, its summary line, or its error; then a
// total. A model that fails does not stop the others; the exit status is 1 when
// any failed.
func bakeModels(cmd *cobra.Command, models []string, dir string, set gltfbake.Settings, base gltfbake.Output) error {
	start := time.Now()
	if dir == "" {
		return usagef("%d models: -o DIR names the folder for their NAME.bpat files", len(models))
	}
	if strings.EqualFold(filepath.Ext(dir), ".bpat") {
		return usagef("-o %s: with several models, -o names a folder (one NAME.bpat per model)", dir)
	}
	if st, err := os.Stat(dir); err == nil && !st.IsDir() {
		return usagef("-o %s: is a file; with several models, -o names a folder (one NAME.bpat per model)", dir)
	}
	outs := make([]string, len(models))
	byName := map[string]string{}
	for i, m := range models {
		name := modelName(m)
		// Case-insensitive file systems would write both into one file.
		if other, ok := byName[strings.ToLower(name)]; ok {
			return usagef("%s and %s would both be baked into %s: bake them into different folders", other, m, filepath.Join(dir, name+".bpat"))
		}
		byName[strings.ToLower(name)] = m
		outs[i] = filepath.Join(dir, name+".bpat")
	}
	manifests, ids, err := speciesIDs(models, outs, dir, set.Manifest)
	if err != nil {
		return err
	}
	if err := makeDirs(dir); err != nil {
		return fmt.Errorf("-o %s: %w", dir, err)
	}

	type result struct {
		out, errw bytes.Buffer
		n         int64
		err       error
		done      chan struct{}
	}
	results := make([]*result, len(models))
	for i := range results {
		results[i] = &result{done: make(chan struct{})}
	}
	// Many short-lived models make garbage at a steady rate: collecting when the
	// heap is three times the live data, not twice, spares a tenth of the batch's
	// time; the live data is still at most one model per core.
	if os.Getenv("GOGC") == "" {
		defer debug.SetGCPercent(debug.SetGCPercent(200))
	}
	procs := runtime.GOMAXPROCS(0)
	par := min(procs, len(models))
	run := base
	run.Workers = max(1, procs/par)
	next := make(chan int)
	go func() {
		for i := range models {
			next <- i
		}
		close(next)
	}()
	var wg sync.WaitGroup
	for range par {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				r := results[i]
				s := set
				if s.Manifest == nil {
					s.Manifest = manifests[i]
				}
				if ids[i] != nil {
					s.FreeSpeciesID = ids[i]
				}
				r.n, r.err = bakeModel(models[i], outs[i], s, run, &r.out, &r.errw)
				close(r.done)
			}
		}()
	}

	stdout, stderr := cmd.OutOrStdout(), cmd.ErrOrStderr()
	bar := progress(cmd, fmt.Sprintf("baking %d models", len(models)))
	failed, total := 0, int64(0)
	for i, r := range results {
		<-r.done
		sc := bufio.NewScanner(&r.errw)
		for sc.Scan() {
			line := sc.Text()
			if !strings.HasPrefix(line, "bonebake:") {
				line = models[i] + ": " + line
			}
			fmt.Fprintln(stderr, line)
		}
		if r.err != nil {
			failed++
			msg := r.err.Error()
			if !strings.Contains(msg, models[i]) {
				msg = models[i] + ": " + msg
			}
			fmt.Fprintln(stderr, "bonebake:", msg)
		} else {
			total += r.n
		}
		stdout.Write(r.out.Bytes())
		if bar != nil {
			bar(i+1, len(models))
		}
	}
	wg.Wait()
	// A model's bonebake extras (export-gltf's) may carry an id the pre-pass
	// could not see without loading it: say so when two files came out alike.
	seen := map[uint32]string{}
	for i, r := range results {
		if r.err != nil {
			continue
		}
		if id, ok := headerSpecies(outs[i]); ok {
			if other, dup := seen[id]; dup {
				fmt.Fprintf(stderr, "warning: %s and %s both have species id %d (from the models' own bonebake extras): the runtime loads one file per id; rebake one with species_id in its NAME.yaml\n", other, outs[i], id)
			}
			seen[id] = outs[i]
		}
	}
	fmt.Fprintf(stdout, "baked %d of %s into %s: %s in %.0f ms", len(models)-failed, plural(len(models), "model"), dir, bytesText(total),
		float64(time.Since(start).Microseconds())/1000)
	if failed > 0 {
		fmt.Fprintf(stdout, "; %d failed\n", failed)
		return exitError{exitFailure}
	}
	fmt.Fprintln(stdout)
	return nil
}

// speciesIDs reads each model's manifest (manifest, or NAME.yaml beside it) and
// picks the species id each model takes when its manifest gives none: distinct
// ids, the first ones neither built in, nor given by a manifest, nor held by a
// .bpat file already in dir that this bake does not replace. The runtime loads
// a folder only when its files' ids differ (one slot per id), so ids given
// that collide are refused before anything is baked. A model's bonebake extras
// are not read here: bakeModels warns after the bake if they collide.
func speciesIDs(models, outs []string, dir string, manifest *gltfbake.Manifest) ([]*gltfbake.Manifest, []*uint32, error) {
	if manifest != nil && manifest.SpeciesID != nil {
		return nil, nil, usagef("--manifest gives species_id %d to all %d models, and a folder of files with one id cannot be loaded together: give each model its own NAME.yaml manifest", *manifest.SpeciesID, len(models))
	}
	taken := map[uint32]string{} // id → the file or manifest that holds it
	replaced := map[string]bool{}
	for _, o := range outs {
		replaced[filepath.Clean(o)] = true
	}
	if ents, err := os.ReadDir(dir); err == nil {
		for _, e := range ents {
			p := filepath.Join(dir, e.Name())
			if !strings.EqualFold(filepath.Ext(p), ".bpat") || replaced[filepath.Clean(p)] || !e.Type().IsRegular() {
				continue
			}
			if kind, err := sniff(p); err != nil || kind != kindBPAT {
				continue
			}
			if id, ok := headerSpecies(p); ok {
				taken[id] = p
			}
		}
	}
	manifests := make([]*gltfbake.Manifest, len(models))
	for i, m := range models {
		mf := manifest
		if mf == nil {
			var err error
			if mf, err = besideManifest(m); err != nil {
				return nil, nil, err
			}
			manifests[i] = mf
		}
		if mf == nil || mf.SpeciesID == nil {
			continue
		}
		id := *mf.SpeciesID
		if other, ok := taken[id]; ok {
			return nil, nil, usagef("%s gives %s species id %d, which %s already holds: the runtime loads one file per id from a folder; choose another id", besidePath(m), m, id, other)
		}
		taken[id] = besidePath(m)
	}
	ids := make([]*uint32, len(models))
	for i := range models {
		if manifests[i] != nil && manifests[i].SpeciesID != nil {
			continue
		}
		used := make([]uint32, 0, len(taken))
		for id := range taken {
			used = append(used, id)
		}
		id := roster.FirstFreeID(used...)
		if err := roster.CheckID(id); err != nil {
			return nil, nil, fmt.Errorf("%s: no species id is left for %s (%d are taken in the folder and by the manifests): %w", dir, models[i], len(taken), err)
		}
		ids[i] = &id
		taken[id] = models[i]
	}
	return manifests, ids, nil
}

// modelName is a model's file name without its extension: NAME of NAME.glb.
func modelName(path string) string {
	return strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
}

// besidePath is NAME.yaml beside the model NAME.glb.
func besidePath(model string) string {
	return filepath.Join(filepath.Dir(model), modelName(model)+".yaml")
}

// besideManifest reads NAME.yaml beside the model NAME.glb (or .gltf), or returns
// nil when there is none.
func besideManifest(model string) (*gltfbake.Manifest, error) {
	p := besidePath(model)
	if _, err := os.Stat(p); err != nil {
		if os.IsNotExist(err) {
			return nil, nil
		}
		return nil, err
	}
	return gltfbake.ReadManifest(p)
}
