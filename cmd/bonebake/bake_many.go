package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"

	"github.com/bonebake/bonebake/source/gltf/gltfbake"

	"github.com/spf13/cobra"
)

// bakeModels bakes several models into the folder dir (gltfbake.Folder's
// WriteFiles) and prints each model's lines in the order given: its notes,
// hint and warnings prefixed with its path, its summary line, or its error;
// then a total. A model that fails does not stop the others; the exit status
// is 1 when any failed.
func bakeModels(cmd *cobra.Command, models []string, dir string, set gltfbake.Settings, o gltfbake.Output) error {
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
	if err := makeDirs(dir); err != nil {
		return fmt.Errorf("-o %s: %w", dir, err)
	}
	// Many short-lived models make garbage at a steady rate: collecting when the
	// heap is three times the live data, not twice, spares a tenth of the batch's
	// time; the live data is still at most one model per core.
	if os.Getenv("GOGC") == "" {
		defer debug.SetGCPercent(debug.SetGCPercent(200))
	}
	stdout, stderr := cmd.OutOrStdout(), cmd.ErrOrStderr()
	bar, n := progress(cmd, fmt.Sprintf("baking %d models", len(models))), 0
	o.Check, o.Tell = checkModel, tell(stdout, stderr, "")
	failed := plan.WriteFiles(gltfbake.FolderOutput{Output: o, Done: func(b *gltfbake.Baked) {
		// A model's lines come whole: what it found, its error, what it wrote.
		var out bytes.Buffer
		for _, l := range b.Report {
			tell(&out, stderr, b.Model+": ")(l)
		}
		if err := libError(b.Err); err != nil {
			msg := err.Error()
			if !strings.Contains(msg, b.Model) {
				msg = b.Model + ": " + msg
			}
			fmt.Fprintln(stderr, "bonebake:", msg)
		}
		stdout.Write(out.Bytes())
		if n++; bar != nil {
			bar(n, len(models))
		}
	}})
	if failed > 0 {
		return exitError{exitFailure}
	}
	return nil
}
