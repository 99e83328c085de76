package gltfbake

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"

	"github.com/bonebake/bonebake/bake"
	"github.com/bonebake/bonebake/formats"
	"github.com/bonebake/bonebake/formats/bpat"
	"github.com/bonebake/bonebake/formats/gait"
	"github.com/bonebake/bonebake/internal/atomicfile"
)

// Output says how WriteFiles writes a model's files beyond the model's
// settings.
type Output struct {
	// Workers and Progress are the bake's (bake.Job's fields of those names).
	Workers  int
	Progress func(done, total int)
	// Snapshot, when set, also writes the model's far-LOD snapshot; its size
	// is held to the bake's limit (Settings.NoLimits lifts both) unless
	// SnapshotAnySize.
	Snapshot        *SnapshotSettings
	SnapshotAnySize bool
	// Starting, when set, is told the BPAT's size once every check has passed,
	// just before the bake starts.
	Starting func(bytes int64)
	// Tell, when set, is told each line of Bake's report as it comes.
	Tell func(bake.Line)
}

// Written is what WriteFiles wrote.
type Written struct {
	BPAT   string
	Header bpat.Header
	Bytes  int64 // the BPAT's size
	// Gait is the sidecar's path and Gaits what it holds.
	Gait  string
	Gaits *gait.File
	// Snapshot is the snapshot's path, SnapshotBytes its size and Snap its mesh
	// and frames; "", 0 and nil when none was asked for.
	Snapshot      string
	SnapshotBytes int64
	Snap          *ModelSnapshot
	// Warnings say why the game the format comes from would refuse the BPAT,
	// when it looks meant for it (gameWarnings).
	Warnings []string
}

// The game the format comes from, Standard of Iron, reads BPAT version 2 only
// ("unsupported version") and species ids 0-5 only ("unknown species_id"), at
// the commit whose format bonebake writes (docs/formats/bpat.md §2).
const (
	gameVersion    = 2
	gameMaxSpecies = 5
)

// gameWarnings says why Standard of Iron's reader would refuse a file with
// header h, baked by a job that asked for version asked (0: none), when the
// file looks meant for the game: it takes one of the game's creature ids or
// asks for v2 by name. Nothing otherwise.
func gameWarnings(h bpat.Header, asked uint32) []string {
	if h.SpeciesID > gameMaxSpecies && asked != gameVersion {
		return nil
	}
	var w []string
	if h.Version != gameVersion {
		w = append(w, fmt.Sprintf("Standard of Iron reads BPAT v%d only and refuses this v%d file (\"unsupported version\"): bake with Settings.Version 2 for it", gameVersion, h.Version))
	}
	if h.SpeciesID > gameMaxSpecies {
		w = append(w, fmt.Sprintf("Standard of Iron accepts species ids 0-%d only and refuses id %d (\"unknown species_id\"): pass Settings.SpeciesID 0-%d for a file meant for it", gameMaxSpecies, h.SpeciesID, gameMaxSpecies))
	}
	return w
}

// SnapshotPath is where the far-LOD snapshot of the BPAT at bpatPath goes:
// NAME_minimal.bpsm beside NAME.bpat, as the built-in creatures' are.
func SnapshotPath(bpatPath string) string {
	return strings.TrimSuffix(bpatPath, filepath.Ext(bpatPath)) + "_minimal.bpsm"
}

// LimitError is a file that would be larger than the bake's limit
// (bake.DefaultMaxBytes unless Settings.NoLimits): nothing was written.
type LimitError struct {
	Model string
	// Snapshot says the file is the far-LOD snapshot, not the BPAT.
	Snapshot     bool
	Bytes, Limit int64
	// Frames and Bones are the BPAT's; Frames and Vertices the snapshot's.
	Frames, Bones, Vertices int
}

func (e *LimitError) Error() string {
	what := fmt.Sprintf("the bake would write %s (%d frames of %d bones)", bake.MB(e.Bytes), e.Frames, e.Bones)
	if e.Snapshot {
		what = fmt.Sprintf("the snapshot would be %s (%d vertices × %d frames)", bake.MB(e.Bytes), e.Vertices, e.Frames)
	}
	return fmt.Sprintf("%s: %s, more than the %s limit (Settings.NoLimits lifts it)", e.Model, what, bake.MB(e.Limit))
}

// WriteFiles bakes the model into the BPAT file at path, with its gait sidecar
// (gait.SidecarPath) and, when o.Snapshot asks, its snapshot (SnapshotPath):
// one set of files that take their names together or not at all
// (atomicfile.Set), as species.Creature.WriteFiles writes a built-in's. Sizes
// and every name are checked before the bake starts. Errors name the model.
func (m *Model) WriteFiles(path string, o Output) (*Written, error) {
	job := m.Job
	out, err := job.Output()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", m.Path, err)
	}
	limit := job.ByteLimit()
	if limit > 0 && out.Bytes > limit {
		return nil, &LimitError{Model: m.Path, Bytes: out.Bytes, Limit: limit, Frames: out.Frames, Bones: out.Bones}
	}
	w := &Written{BPAT: path, Gait: gait.SidecarPath(path)}
	if err := atomicfile.Check(w.Gait); err != nil {
		return nil, err
	}
	if o.Snapshot != nil {
		if w.Snap, err = m.Snapshot(*o.Snapshot); err != nil {
			return nil, err
		}
		w.Snapshot = SnapshotPath(path)
		if err := atomicfile.Check(w.Snapshot); err != nil {
			return nil, err
		}
		// A snapshot stores vertices, not bones (bpsm.VertexSize bytes a vertex
		// against bpat.FloatsPerBone floats a bone), so a useful far mesh is
		// several times its BPAT (the built-in creatures' 10×, the fox's 300
		// triangles 25×). It is held to the limit every output file has, as
		// the built-ins' are.
		names := make([]string, len(job.Clips))
		for i, c := range job.Clips {
			names[i] = c.Name
		}
		if n := w.Snap.Size(names); limit > 0 && n > limit && !o.SnapshotAnySize {
			return nil, &LimitError{Model: m.Path, Snapshot: true, Bytes: n, Limit: limit, Frames: w.Snap.FrameTotal(), Vertices: w.Snap.Mesh.VertexCount()}
		}
	}
	if o.Starting != nil {
		o.Starting(out.Bytes)
	}
	files := atomicfile.NewSet()
	defer files.Discard()
	// The gait sidecar (measured ground speeds and cycles, docs/formats/gait.md)
	// is measured from the motions once the last frame is sampled, while the
	// file is finished and takes its name (the old file's removal frees its
	// page cache, milliseconds for a large one): it reads the job, which baking
	// does not change, and so fills a core the bake leaves idle instead of
	// taking one from the samplers.
	gaits := make(chan *gait.File, 1)
	var measuring sync.Once
	measure := func() { measuring.Do(func() { go func() { gaits <- m.Gaits(path) }() }) }
	defer func(workers int, progress func(int, int)) { job.Workers, job.Progress = workers, progress }(job.Workers, job.Progress)
	job.Workers = o.Workers
	job.Progress = func(done, total int) {
		if o.Progress != nil {
			o.Progress(done, total)
		}
		if done == total {
			measure()
		}
	}
	// The workers check every palette float as they pose it (a non-finite one
	// fails the bake with strict validation's error and writes no file): the
	// file is not read back.
	w.Header, err = bake.BakeFileHeaderWith(files.Write, path, job)
	measure() // if the bake stopped before its last frame
	if ve := (*formats.ValidationError)(nil); errors.As(err, &ve) {
		return nil, fmt.Errorf("baked file does not validate: %w", err)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", m.Path, err)
	}
	w.Bytes = int64(w.Header.SocketDataOffset() + w.Header.SocketDataSize())
	w.Warnings = gameWarnings(w.Header, job.Version)
	w.Gaits = <-gaits
	if err := gait.WriteFileWith(files.Write, w.Gait, w.Gaits); err != nil {
		return nil, fmt.Errorf("%s: %w", m.Path, err)
	}
	if w.Snap != nil {
		if w.SnapshotBytes, err = w.Snap.WriteWith(files.Write, w.Snapshot, job); err != nil {
			return nil, fmt.Errorf("%s: %w", m.Path, err)
		}
	}
	if err := files.Commit(); err != nil {
		return nil, fmt.Errorf("%s: %w", m.Path, err)
	}
	return w, nil
}
