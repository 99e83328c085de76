package species

// The species source's adapter: a creature → a bake.Job, and the files of its
// bake (BPAT, far-LOD snapshot, glTF export). It is this package's own, as
// source/mot's is, rather than a package beside it: a Creature exists only to be
// baked, and everything that makes or lists one (species/humanoid,
// species/quadruped, species/creatures) sits above it, so the engine (bake)
// needs to know of no species.

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/bonebake/bonebake/bake"
	"github.com/bonebake/bonebake/formats"
	"github.com/bonebake/bonebake/formats/bpat"
	"github.com/bonebake/bonebake/formats/bpsm"
	"github.com/bonebake/bonebake/internal/atomicfile"
	"github.com/bonebake/bonebake/internal/words"
	"github.com/bonebake/bonebake/rig"
	"github.com/bonebake/bonebake/source/gltf"
)

// Job returns the job that bakes the creature: every clip at its own frame
// count, fps, loop flag and markers, the sockets, every skeleton bone in order.
func (s *Creature) Job() (*bake.Job, error) {
	j := &bake.Job{SpeciesID: s.ID, Rig: bake.Rig{Skeleton: s.Skeleton}}
	for i := range s.Clips {
		c := &s.Clips[i]
		d := c.Duration()
		if c.Frames < 1 || bake.CheckFPS(c.FPS) != nil || bake.FrameCount(d, c.FPS, c.Loops) != c.Frames {
			return nil, fmt.Errorf("bake: species %s clip %q: %d frames at %v fps do not round-trip through docs/formats/bpat.md §5", s.Name, c.Name, c.Frames, c.FPS)
		}
		j.Motions = append(j.Motions, bake.Motion{Name: c.Name, Duration: d, NewSampler: func() bake.Sampler { return phaseSampler{c.Pose, d} }})
		bc := c.Clip
		bc.Motion = i
		j.Clips = append(j.Clips, bc)
	}
	j.Sockets = append(j.Sockets, s.Sockets...)
	return j, nil
}

// Bake bakes the creature into BPAT contents, palettes in memory.
func (s *Creature) Bake() (*bpat.Contents, error) {
	j, err := s.Job()
	if err != nil {
		return nil, err
	}
	return bake.Bake(j)
}

// Bytes bakes the creature in memory into the bytes its BPAT file holds: what
// the viewer shows and what a simulation loads when no files are given.
func (s *Creature) Bytes() ([]byte, error) {
	j, err := s.Job()
	if err != nil {
		return nil, err
	}
	b, err := bake.Bytes(j)
	if err != nil {
		return nil, fmt.Errorf("baking %s: %w", s.Name, err)
	}
	return b, nil
}

// Written is one file a bake wrote, with a line that says what it holds.
type Written struct {
	Path  string
	Size  int64
	Holds string
}

// WriteFiles bakes the creature into dir (created when missing): <name>.bpat,
// and <name>_minimal.bpsm when it has a far-LOD mesh. The BPAT is checked as
// a reader would check it before anything is written, and the two files are
// one set (atomicfile.Set): they take their names together or not at all.
// progress may be nil.
func (s *Creature) WriteFiles(dir string, progress func(done, total int)) ([]Written, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	j, err := s.Job()
	if err != nil {
		return nil, err
	}
	j.Progress = progress
	path := filepath.Join(dir, s.Name+".bpat")
	if err := atomicfile.Check(path); err != nil {
		return nil, err
	}
	// Baked in memory: the snapshot is skinned from the file's palettes before
	// the file has its name.
	b, err := bake.Bytes(j)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.Name, err)
	}
	f, err := bpat.Parse(b, formats.KnownSpecies(s.ID), formats.Name(path))
	if err != nil {
		return nil, fmt.Errorf("baked file does not validate: %w", err)
	}
	defer f.Close()
	files := atomicfile.NewSet()
	defer files.Discard()
	if err := files.Write(path, func(w io.Writer) error { _, err := w.Write(b); return err }); err != nil {
		return nil, err
	}
	h := f.Header()
	out := []Written{{path, f.Size(), fmt.Sprintf("BPAT v%d, species %d, %d bones, %d clips, %d frames, %d sockets",
		h.Version, h.SpeciesID, h.BoneCount, h.ClipCount, h.FrameTotal, h.SocketCount)}}
	if s.Minimal != nil {
		snap := filepath.Join(dir, s.Name+"_minimal.bpsm")
		c, err := s.Snapshot(f)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", s.Name, err)
		}
		n, err := bake.WriteSnapshotWith(files.Write, snap, c)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", s.Name, err)
		}
		out = append(out, Written{snap, n, fmt.Sprintf("BPSM minimal LOD, %d vertices, %d triangles, %d frames",
			s.Minimal.VertexCount(), s.Minimal.TriangleCount(), h.FrameTotal)})
	}
	if err := files.Commit(); err != nil {
		return nil, fmt.Errorf("%s: %w", s.Name, err)
	}
	return out, nil
}

// DefaultDir is the folder the built-in creatures' files go to when none is
// given, and where view looks for them by default.
var DefaultDir = filepath.Join("assets", "creatures")

// CheckVersion refuses a BPAT version the built-in creatures cannot be
// written at: version 1 stores no combat markers, which their clips carry
// (docs/formats/bpat.md §2). It is a *bake.SettingError of Settings.Version,
// as the models' settings name it.
func CheckVersion(v uint32) error {
	if v == 1 {
		return &bake.SettingError{Setting: "Version", Err: errors.New("1: the built-in creatures have combat markers, which only v2 stores"), ReadsOn: true}
	}
	return nil
}

// WriteAll bakes the creatures into dir, one after the other (WriteFiles),
// telling tell each line of its report as it comes: what each file written
// holds (a Wrote line), then the Total (how many files, their size, the BPAT
// version and why, how long it took). progress, when set, gives a creature's
// progress callback by its name. The first error stops it.
func WriteAll(cs []*Creature, dir string, progress func(name string) func(done, total int), tell func(bake.Line)) error {
	start := time.Now()
	files, size := 0, int64(0)
	for _, s := range cs {
		var bar func(done, total int)
		if progress != nil {
			bar = progress(s.Name)
		}
		written, err := s.WriteFiles(dir, bar)
		if err != nil {
			return err
		}
		for _, f := range written {
			files++
			size += f.Size
			tell(bake.Line{Kind: bake.Wrote, Text: fmt.Sprintf("wrote %s: %s, %s", f.Path, f.Holds, words.Bytes(f.Size))})
		}
	}
	tell(bake.Line{Kind: bake.Total, Text: fmt.Sprintf("baked %s into %s: %s, %s, %s, in %s", words.Plural(len(cs), "creature"), dir,
		words.Plural(files, "file"), words.Bytes(size), versionText(cs), words.Took(time.Since(start)))})
	return nil
}

// versionText names the BPAT version of the creatures' files and why: v2,
// the version their combat markers need (docs/formats/bpat.md §2), unless none
// of them has a marker.
func versionText(cs []*Creature) string {
	for _, s := range cs {
		for _, c := range s.Clips {
			if c.Markers.Any() {
				return "BPAT v2 (their clips have combat markers)"
			}
		}
	}
	return "BPAT v1 (no clip has a marker)"
}

// phaseSampler turns a procedural pose function of phase into a Sampler of time.
type phaseSampler struct {
	pose     func(phase float64, pose []rig.Transform)
	duration float64
}

func (p phaseSampler) Sample(t float64, pose []rig.Transform) {
	phase := 0.0
	if p.duration > 0 {
		phase = t / p.duration
	}
	p.pose(phase, pose)
}

// ExportGLTF samples every clip of the creature at its baked frame times (plus the
// end of a looping clip, equal to its start, so the animation lasts the clip's full
// duration) for a glTF export that bakes back into the same palettes: the clips'
// fps, loop flags, markers and game cycles (not their ground speeds: baking the file
// back measures those, docs/formats/gait.md) and the creature's species id and
// sockets travel in the file's extras.
func (s *Creature) ExportGLTF() *gltf.Export {
	e := &gltf.Export{Name: s.Name, Skeleton: s.Skeleton, Mesh: s.Mesh, InverseBind: s.InverseBind()}
	id := s.ID
	e.Meta.SpeciesID = &id
	for _, so := range s.Sockets {
		e.Meta.Sockets = append(e.Meta.Sockets, gltf.SocketMeta{Name: so.Name, Bone: s.Skeleton.Names[so.Anchor], Offset: so.Offset})
	}
	for i := range s.Clips {
		c := &s.Clips[i]
		d := c.Duration()
		loops := c.Loops
		ec := gltf.ExportAnimation{Name: c.Name, Meta: gltf.ClipMeta{FPS: c.FPS, Loops: &loops, Markers: markerMap(c.Markers), Cycle: c.Cycle}}
		keys := c.Frames
		if c.Loops && d > 0 {
			keys++ // the end, where the loop closes
		}
		for f := 0; f < keys; f++ {
			t := d
			if f < c.Frames {
				t = bake.FrameTime(f, c.Frames, d, c.Loops)
			}
			pose := s.Skeleton.RestPose()
			phaseSampler{c.Pose, d}.Sample(t, pose)
			ec.Times = append(ec.Times, float32(t))
			ec.Poses = append(ec.Poses, pose)
		}
		e.Clips = append(e.Clips, ec)
	}
	return e
}

func markerMap(m bpat.Markers) map[string]float32 {
	var out map[string]float32
	for k, v := range m {
		if v != bpat.Unset {
			if out == nil {
				out = map[string]float32{}
			}
			out[bpat.Marker(k).String()] = v
		}
	}
	return out
}

// Snapshot skins the creature's minimal mesh on the CPU at every frame of its
// baked palette file f (docs/formats/bpsm.md): the far-LOD snapshot, where a
// creature costs no skinning at all at run time.
func (s *Creature) Snapshot(f *bpat.File) (*bpsm.Contents, error) {
	if s.Minimal == nil {
		return nil, fmt.Errorf("bake: species %s has no minimal mesh", s.Name)
	}
	if f.BoneCount() != s.Skeleton.Len() {
		return nil, fmt.Errorf("bake: %s has %d bones, species %s has %d", f.Name(), f.BoneCount(), s.Name, s.Skeleton.Len())
	}
	c, err := bake.SnapshotFromFile(s.ID, s.Minimal, s.InverseBind(), f)
	if err != nil {
		return nil, fmt.Errorf("bake: %s minimal mesh: %w", s.Name, err)
	}
	return c, nil
}

// SnapshotBytes is Snapshot encoded: the bytes of the creature's
// NAME_minimal.bpsm, made in memory (as Bytes makes its BPAT file's).
func (s *Creature) SnapshotBytes(f *bpat.File) ([]byte, error) {
	c, err := s.Snapshot(f)
	if err != nil {
		return nil, err
	}
	n, err := c.Size()
	if err != nil {
		return nil, err
	}
	// Sized once: a growing buffer would copy and clear the whole file (tens of
	// megabytes for a humanoid) several times over.
	buf := bytes.NewBuffer(make([]byte, 0, n))
	if err := bpsm.Write(buf, c); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// SnapshotFile writes Snapshot's result to path atomically and returns its size.
func (s *Creature) SnapshotFile(path string, f *bpat.File) (int64, error) {
	c, err := s.Snapshot(f)
	if err != nil {
		return 0, err
	}
	return bake.WriteSnapshot(path, c)
}
