package gltfbake

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/bonebake/bonebake/bake"
	"github.com/bonebake/bonebake/formats/gait"
	"github.com/bonebake/bonebake/internal/words"
)

// TestBakeReport: Bake tells its report as it comes and keeps it whole. The
// fox (the glTF sample: 24 joints, 3 animations, modelled in centimetres)
// gets the size hint before anything is written, then its summary (species
// 6, the first id that is not built in, named with the setting that chooses
// one), a gait line per clip and the sidecar's line.
func TestBakeReport(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "fox.bpat")
	var told []bake.Line
	b := Bake(sharedModel(t, "Fox.glb"), out, Settings{}, Output{Tell: func(l bake.Line) { told = append(told, l) }})
	if b.Err != nil {
		t.Fatal(b.Err)
	}
	if !slices.Equal(told, b.Report) {
		t.Errorf("told %q, but the report holds %q", told, b.Report)
	}
	kinds := make([]bake.LineKind, len(told))
	for i, l := range told {
		kinds[i] = l.Kind
	}
	want := []bake.LineKind{bake.Found, bake.Wrote, bake.Found, bake.Found, bake.Found, bake.Found}
	if !slices.Equal(kinds, want) {
		t.Fatalf("told %q: kinds %v, want %v (the hint, the summary, 3 gait lines, the sidecar's)", told, kinds, want)
	}
	if !strings.HasPrefix(told[0].Text, "hint: ") || !strings.Contains(told[0].Text, "centimetres") {
		t.Errorf("first line %q, want the hint that the fox is in centimetres", told[0].Text)
	}
	sum := told[1].Text
	for _, part := range []string{"wrote " + out + ": " + words.Bytes(b.Written.Bytes) + ", 24 bones, 3 clips, ", "species 6 (the first id not built in: pass Settings.SpeciesID to choose one; readers accept it with formats.KnownSpecies 6)", "BPAT v1 (no clip has a marker; Settings.Version 2"} {
		if !strings.Contains(sum, part) {
			t.Errorf("summary %q lacks %q", sum, part)
		}
	}
	for i, clip := range []string{"Survey", "Walk", "Run"} {
		if l := told[2+i].Text; !strings.HasPrefix(l, "gait: "+clip+": ") {
			t.Errorf("gait line %d: %q, want clip %s's", i, l, clip)
		}
	}
	if l := told[5].Text; !strings.HasPrefix(l, "gait: wrote "+gait.SidecarPath(out)+": ") || !strings.Contains(l, " of 3 clips with a ground speed; speeds are in the model's units") {
		t.Errorf("sidecar line %q", l)
	}
}

// TestBakeReportLarge: a bake over 16 MB says its size before it starts,
// the size it then writes; a model taking its id free in a folder is told
// so; a path CheckModel refuses is not loaded and tells nothing.
func TestBakeReportLarge(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "fox.bpat")
	id := uint32(9)
	b := Bake(sharedModel(t, "Fox.glb"), out, Settings{FPS: 3000, FreeSpeciesID: &id}, Output{})
	if b.Err != nil {
		t.Fatal(b.Err)
	}
	if b.Written.Bytes <= 16_000_000 {
		t.Fatalf("the bake wrote %d bytes, not over 16 MB: the test needs a larger one", b.Written.Bytes)
	}
	doing := slices.IndexFunc(b.Report, func(l bake.Line) bool { return l.Kind == bake.Doing })
	wrote := slices.IndexFunc(b.Report, func(l bake.Line) bool { return l.Kind == bake.Wrote })
	if doing < 0 || doing > wrote || b.Report[doing].Text != "writing "+words.Bytes(b.Written.Bytes)+" to "+out {
		t.Errorf("report %q: want 'writing %s to %s' before the summary", b.Report, words.Bytes(b.Written.Bytes), out)
	}
	if !strings.Contains(b.Report[wrote].Text, "species 9 (the first id free in "+dir+", ") {
		t.Errorf("summary %q: want the folder's free id", b.Report[wrote].Text)
	}
	b = Bake(dir, filepath.Join(dir, "no.bpat"), Settings{}, Output{})
	if b.Err == nil || b.Err.Error() != dir+": is a directory, not a file" || b.Loaded != nil || len(b.Report) != 0 {
		t.Errorf("refused model: err %v, loaded %v, report %q", b.Err, b.Loaded != nil, b.Report)
	}
}
