package gltfbake

import (
	"fmt"
	"path/filepath"
	"time"

	"github.com/bonebake/bonebake/bake"
	"github.com/bonebake/bonebake/formats/bpsm"
	"github.com/bonebake/bonebake/internal/words"
	"github.com/bonebake/bonebake/roster"
)

// Baked is the bake of one model (Bake; Folder.WriteFiles tells of each of its
// models as one).
type Baked struct {
	Model string // the model's path
	Out   string // its BPAT file
	// Loaded is what Load made of it, nil when its check or Load failed.
	Loaded *Model
	// Written is what was written, nil when Err is set.
	Written *Written
	Err     error
	Took    time.Duration // from its check to its last file
	// Report is every line Bake told, in order (Output.Tell).
	Report []bake.Line
}

// announceBytes is the size above which a bake says its size before it
// starts (a Doing line): a bake that takes seconds does not start silently.
const announceBytes = 16_000_000

// Bake is the whole bake of one model, as Folder.WriteFiles bakes each of its
// models: CheckModel on its path, Load with set, then
// Model.WriteFiles into out with o. o.Tell, when set, is told each line of
// the bake's report as it comes: the model's notes and size hint once it is
// loaded (Model.Report), its size before a large bake starts, then what was
// written (the BPAT's summary and the snapshot's), the measured gaits and
// the game's warnings. The result holds the report whole, and Err, the error
// that stopped the bake, if any. A model whose id no one gives (set.SpeciesID,
// set.FreeSpeciesID, its manifest) takes the first id not built in, or, when a
// file already in out's folder holds that one, the first id free there
// (FreeSpeciesIn): the runtime loads one file per id from a folder.
func Bake(path, out string, set Settings, o Output) *Baked {
	b := &Baked{Model: path, Out: out}
	several, folder := set.FreeSpeciesID != nil, ""
	if several {
		folder = filepath.Dir(out)
	} else if set.SpeciesID == nil {
		if id, ok := FreeSpeciesIn(out); ok {
			set.FreeSpeciesID, folder = &id, filepath.Dir(out)
		}
	}
	tell := func(l bake.Line) {
		b.Report = append(b.Report, l)
		if o.Tell != nil {
			o.Tell(l)
		}
	}
	start := time.Now()
	if b.Err = CheckModel(path); b.Err != nil {
		return b
	}
	if b.Loaded, b.Err = Load(path, set); b.Err != nil {
		return b
	}
	m, size := b.Loaded, b.Loaded.Size()
	for _, l := range m.report(size) {
		tell(l)
	}
	starting := o.Starting
	o.Starting = func(n int64) {
		if n > announceBytes {
			tell(bake.Line{Kind: bake.Doing, Text: fmt.Sprintf("writing %s to %s", words.Bytes(n), out)})
		}
		if starting != nil {
			starting(n)
		}
	}
	if b.Written, b.Err = m.WriteFiles(out, o); b.Err != nil {
		return b
	}
	b.Took = time.Since(start)
	for _, l := range b.written(size, folder, several) {
		tell(l)
	}
	return b
}

// Report is what to tell of the loaded model before it is baked: its notes,
// and the hint its size gives (a model in centimetres), if any.
func (m *Model) Report() []bake.Line { return m.report(m.Size()) }

func (m *Model) report(size Size) []bake.Line {
	var r []bake.Line
	for _, n := range m.Notes {
		r = append(r, bake.Line{Kind: bake.Found, Text: "note: " + n})
	}
	if h := size.Hint(); h != "" {
		r = append(r, bake.Line{Kind: bake.Found, Text: "hint: " + h})
	}
	return r
}

// SpeciesNote is what a summary says after the species id of a model whose
// id no one chose (DefaultSpecies): where the id came from, how to choose one
// and how readers accept it, in the library's words; "" when the id was
// given. folder is the folder whose free ids it took (Settings.FreeSpeciesID,
// FreeSpeciesIn), "" for the first id not built in; several says it is one of
// several models baked there together, which choose theirs in manifests.
func (m *Model) SpeciesNote(id uint32, folder string, several bool) string {
	if !m.DefaultSpecies {
		return ""
	}
	from, choose := "the first id not built in", "pass Settings.SpeciesID to choose one"
	if folder == "." {
		folder = "the current folder" // -o fox.bpat: "free in ." read as a typo
	}
	if folder != "" {
		from = fmt.Sprintf("the first id free in %s, built in or taken by no other file there", folder)
	}
	if several {
		choose = "give species_id in a NAME.yaml manifest to choose one"
	}
	return fmt.Sprintf(" (%s: %s; readers accept it with formats.KnownSpecies %d)", from, choose, id)
}

// FreeSpeciesIn is the id a model baked alone into out takes when no one
// gives it one and a BPAT file already in out's folder (out itself aside: the
// bake replaces it) holds the first id not built in: the first id free there.
// ok is false when that first id is free (the model takes it, as anywhere) or
// none is left.
func FreeSpeciesIn(out string) (id uint32, ok bool) {
	taken := heldSpecies(filepath.Dir(out), []string{out})
	if _, held := taken[roster.FirstFreeID()]; !held {
		return 0, false
	}
	used := make([]uint32, 0, len(taken))
	for id := range taken {
		used = append(used, id)
	}
	id = roster.FirstFreeID(used...)
	return id, roster.CheckID(id) == nil
}

// BonesText says a baked file's bone count, with the joints it was reduced
// from and the worst vertex deviation that cost when the rig was over the
// limit (Reduction).
func (m *Model) BonesText(bones int) string {
	s := words.Plural(bones, "bone")
	if rd := m.Reduction; rd != nil {
		s += fmt.Sprintf(" (of %d joints; worst vertex deviation %s)", rd.Joints, rd.DeviationText())
	}
	return s
}

// written is the report of what the bake wrote: the BPAT's summary, its
// measured gaits and sidecar, the snapshot's summary, the game's warnings.
// folder and several say where its species id was free (SpeciesNote).
func (b *Baked) written(size Size, folder string, several bool) []bake.Line {
	m, w := b.Loaded, b.Written
	h := w.Header
	r := []bake.Line{{Kind: bake.Wrote, Text: fmt.Sprintf("wrote %s: %s, %s, %s, %s, %s, species %d%s, %s, model %s, in %s",
		b.Out, words.Bytes(w.Bytes), m.BonesText(int(h.BoneCount)), words.Plural(int(h.ClipCount), "clip"), words.Plural(int(h.FrameTotal), "frame"),
		words.Plural(int(h.SocketCount), "socket"), h.SpeciesID, m.SpeciesNote(h.SpeciesID, folder, several), versionText(h.Version, m.Job), size, words.Took(b.Took))}}
	speeds := 0
	for _, c := range w.Gaits.Clips {
		r = append(r, bake.Line{Kind: bake.Found, Text: m.GaitLine(c)})
		if c.GroundSpeed > 0 {
			speeds++
		}
	}
	units := ""
	if size.Hint() != "" {
		units = "; speeds are in the model's units per second (see the hint)"
	}
	r = append(r, bake.Line{Kind: bake.Found, Text: fmt.Sprintf("gait: wrote %s: %d of %s with a ground speed%s", w.Gait, speeds, words.Plural(len(w.Gaits.Clips), "clip"), units)})
	for _, h := range []string{FacingHint(w.Gaits, m.Face), RootMotionHint(w.Gaits)} {
		if h != "" {
			r = append(r, bake.Line{Kind: bake.Found, Text: "hint: " + h})
		}
	}
	if sn := w.Snap; sn != nil {
		r = append(r, bake.Line{Kind: bake.Wrote, Text: fmt.Sprintf("wrote %s: %s, %s, %d vertices, %s (%s per frame), from %s", w.Snapshot, words.Bytes(w.SnapshotBytes),
			words.Plural(sn.Mesh.TriangleCount(), "triangle"), sn.Mesh.VertexCount(), words.Plural(sn.FrameTotal(), "frame"),
			words.Bytes(int64(sn.Mesh.VertexCount())*bpsm.VertexSize), sn.From)})
	}
	for _, warn := range w.Warnings {
		r = append(r, bake.Line{Kind: bake.Found, Text: "warning: " + warn})
	}
	return r
}

// versionText names the version a bake wrote and why (docs/formats/bpat.md §2).
func versionText(v uint32, job *bake.Job) string {
	switch {
	case job.Version != 0:
		return fmt.Sprintf("BPAT v%d (as asked)", v)
	case v == 2:
		return "BPAT v2 (clips have markers)"
	}
	return "BPAT v1 (no clip has a marker; Settings.Version 2 for readers of v2 only)"
}
