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

	"github.com/bonebake/bonebake/formats"
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
	plan, err := gltfbake.PlanFolder(models, dir, set)
	if err != nil {
		return libError(err)
	}
	outs := plan.Outs
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
				r.n, r.err = bakeModel(models[i], outs[i], plan.Settings[i], run, &r.out, &r.errw)
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
		if id, ok := formats.HeaderSpecies(outs[i]); ok {
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
