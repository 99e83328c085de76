package gltfbake

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/bonebake/bonebake/bake"
)

// TestManifestErrorsNameTheLine: a manifest read from a file names the file and
// line of the entry at fault, and the YAML decoder's Go type names do not reach
// the user.
func TestManifestErrorsNameTheLine(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		yaml      string
		want      []string
		loadError bool // ReadManifest fails; otherwise resolving the job does
	}{
		{"fsp: 30\n", []string{"line 1", `unknown key "fsp"`, "fps"}, true},
		{"fps: fast\n", []string{"line 1", `fps: want a number, got "fast"`}, true},
		{"clips:\n  - name: a\n    loops: maybe\n", []string{"line 3", `clips[0].loops: want true or false, got "maybe"`}, true},
		{"sockets:\n  - {name: s, bone: b, offset: [1, 2]}\n", []string{"line 2", "sockets[0].offset: want a list of 3 numbers"}, true},
		{"species_id: -3\n", []string{"line 1", "whole number"}, true},
		{"feet: b_LeftFoot02_018\n", []string{"line 1", `feet: want a list, got "b_LeftFoot02_018" (a list of one is written [b_LeftFoot02_018])`}, true},
		{"clips:\n  - name: a\n    source: Walk\n  - name: b\n    source: Wlak\n", []string{"line 4", `no source animation "Wlak"`}, false},
		{"clips:\n  - name: a\n    source: Walk\n    markers: {contakt: 0.5}\n", []string{"line 2", `unknown marker "contakt"`}, false},
		{"sockets:\n  - {name: s, bone: nope}\n", []string{"line 2", `no bone "nope"`}, false},
	}
	m := loadFox(t)
	for i, c := range cases {
		path := filepath.Join(dir, "m.yaml")
		writeFile(t, path, c.yaml)
		mf, err := ReadManifest(path)
		if err == nil && !c.loadError {
			_, err = Load(m, Settings{Manifest: mf})
		}
		if err == nil {
			t.Errorf("case %d: no error", i)
			continue
		}
		msg := err.Error()
		for _, w := range append(c.want, path) {
			if !strings.Contains(msg, w) {
				t.Errorf("case %d: %q does not say %q", i, msg, w)
			}
		}
		for _, goName := range []string{"float64", "uint32", "bake.", "!!str", "unmarshal"} {
			if strings.Contains(msg, goName) {
				t.Errorf("case %d: %q shows %q", i, msg, goName)
			}
		}
	}
}

func loadFox(t *testing.T) string {
	t.Helper()
	return sharedModel(t, "Fox.glb")
}

// TestDuplicateNames: two clips or two sockets of one name are refused, naming
// both, because a reader's lookup by name would never find the second.
func TestDuplicateNames(t *testing.T) {
	fox := loadFox(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "dup.yaml")
	writeFile(t, path, "clips:\n  - {name: walk, source: Walk}\n  - {name: run, source: Run}\n  - {name: walk, source: Survey}\n")
	mf, err := ReadManifest(path)
	if err != nil {
		t.Fatal(err)
	}
	m, err := Load(fox, Settings{Manifest: mf})
	if err == nil {
		_, err = m.Job.Output()
	}
	if err == nil || !strings.Contains(err.Error(), `clip 2 "walk" (from "Survey") has the same name as clip 0 (from "Walk")`) {
		t.Errorf("duplicate clips: %v", err)
	}
	m, err = Load(fox, Settings{Sockets: []ManifestSocket{{Name: "head", Bone: "b_Head_05"}, {Name: "head", Bone: "b_Neck_04"}}})
	if err == nil {
		_, err = bake.Bytes(m.Job)
	}
	if err == nil || !strings.Contains(err.Error(), `socket 1 "head" has the same name as socket 0`) {
		t.Errorf("duplicate sockets: %v", err)
	}
}

// TestSize: the size Output announces before a bake is the size of the bytes it writes.
func TestSize(t *testing.T) {
	fox := loadFox(t)
	for _, s := range []Settings{
		{},
		{FPS: 60, OneShot: []string{"Survey"}, Sockets: []ManifestSocket{{Name: "head", Bone: "b_Head_05"}, {Name: "tail", Bone: "b_Tail03_014"}}},
	} {
		m, err := Load(fox, s)
		if err != nil {
			t.Fatal(err)
		}
		o, err := m.Job.Output()
		if err != nil {
			t.Fatal(err)
		}
		size := o.Bytes
		b, err := bake.Bytes(m.Job)
		if err != nil {
			t.Fatal(err)
		}
		if size != int64(len(b)) {
			t.Errorf("%+v: Size %d, wrote %d bytes", s, size, len(b))
		}
	}
}

// TestDefaultSpecies: a model nobody gave a species id takes the first id that is
// not built in, never the humanoid's 0; an explicit 0 stays 0.
func TestDefaultSpecies(t *testing.T) {
	fox := loadFox(t)
	m, err := Load(fox, Settings{})
	if err != nil {
		t.Fatal(err)
	}
	if m.Job.SpeciesID != 6 || !m.DefaultSpecies {
		t.Errorf("default species %d (defaulted %v), want 6", m.Job.SpeciesID, m.DefaultSpecies)
	}
	zero := uint32(0)
	if m, err = Load(fox, Settings{SpeciesID: &zero}); err != nil || m.Job.SpeciesID != 0 || m.DefaultSpecies {
		t.Errorf("explicit 0: %v %+v", err, m)
	}
}
