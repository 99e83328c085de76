package gltfbake

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/bonebake/bonebake/formats"
	"github.com/bonebake/bonebake/roster"
)

// Folder is the plan for baking several models into one folder with the same
// settings: each model's file and its own settings. The runtime loads a folder
// only when its files' species ids differ (one slot per id), so the plan gives
// each model a distinct id before anything is baked.
type Folder struct {
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
	p := &Folder{Outs: make([]string, len(models)), Settings: make([]Settings, len(models))}
	byName := map[string]string{}
	for i, m := range models {
		name := modelName(m)
		// Case-insensitive file systems would write both into one file.
		if other, ok := byName[strings.ToLower(name)]; ok {
			return nil, &FolderError{fmt.Errorf("%s and %s would both be baked into %s: bake them into different folders", other, m, filepath.Join(dir, name+".bpat"))}
		}
		byName[strings.ToLower(name)] = m
		p.Outs[i] = filepath.Join(dir, name+".bpat")
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
		if kind, err := formats.SniffFile(p); err != nil || kind != formats.BPAT {
			continue
		}
		if id, ok := formats.HeaderSpecies(p); ok {
			taken[id] = p
		}
	}
	return taken
}

// modelName is a model's file name without its extension: NAME of NAME.glb.
func modelName(path string) string {
	return strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
}

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
