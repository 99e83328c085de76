package formats

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSniff(t *testing.T) {
	cases := []struct {
		start string
		want  Kind
	}{
		{"BPAT\x02\x00\x00\x00", BPAT},
		{"BPSM\x01\x00\x00\x00", BPSM},
		{"glTF\x02\x00\x00\x00", GLB},
		{"BPXP\x11\x0d\x00\x00", BPX},
		{"BPXT", BPX},
		{"BPX", Unknown}, // the type byte is missing
		{"mot\x00\x20\x12\x04\x05", Mot},
		{"mot\x00\x05\x04\x12\x20", Mot},
		{"  \n{\"asset\":{\"version\":\"2.0\"}}", GLTF},
		{"{\"frames\": []}", Unknown}, // JSON, but no glTF asset
		{"HIERARCHY\nROOT Hips", BVH},
		{"\ufeff\r\nHIERARCHY\r\n", BVH},
		{"HIERARCHY", BVH},
		{"Kaydara FBX Binary  \x00\x1a\x00\x1c\x1e\x00\x00", FBX},
		{"; FBX 7.4.0 project file\n", FBX},
		{"; a comment", Unknown},
		{"HIERARCHYX", Unknown},
		{"", Unknown},
		{"BPA", Unknown},
		{"\x00\x00\x00\x00", Unknown},
	}
	for _, tc := range cases {
		if got := Sniff([]byte(tc.start)); got != tc.want {
			t.Errorf("Sniff(%q) = %q, want %q", tc.start, got, tc.want)
		}
	}
}

func TestSniffFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a.bin")
	os.WriteFile(path, []byte("BPSM and more"), 0o644)
	if k, err := SniffFile(path); k != BPSM || err != nil {
		t.Errorf("SniffFile = %q, %v", k, err)
	}
	short := filepath.Join(dir, "short")
	os.WriteFile(short, []byte("BP"), 0o644)
	if k, err := SniffFile(short); k != Unknown || err != nil {
		t.Errorf("short file: %q, %v", k, err)
	}
	// A .gltf whose "asset" comes after the first 512 bytes is still glTF by
	// its name; the same JSON under another name is not.
	late := `{"nodes": [` + strings.Repeat(`{"name": "n"}, `, 60) + `{}], "asset": {"version": "2.0"}}`
	for name, want := range map[string]Kind{"late.gltf": GLTF, "late.json": Unknown} {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(late), 0o644)
		if k, err := SniffFile(p); k != want || err != nil {
			t.Errorf("%s: %q, %v; want %q", name, k, err, want)
		}
	}
	if _, err := SniffFile(dir); !errors.Is(err, ErrIsDirectory) {
		t.Errorf("directory: %v", err)
	}
	if _, err := SniffFile(filepath.Join(dir, "missing")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}

// TestHeaderSpecies: the species id of a BPAT or BPSM header (BPATSpecies: a
// BPAT's only), and nothing for a file of another format with the same bytes at
// 8-11, a short file or no file.
func TestHeaderSpecies(t *testing.T) {
	dir := t.TempDir()
	id := []byte{7, 1, 0, 0} // 263
	for _, c := range []struct {
		name  string
		bytes []byte
		id    uint32
		ok    bool
	}{
		{"a.bpat", append([]byte("BPAT\x02\x00\x00\x00"), id...), 263, true},
		{"a.bpsm", append([]byte("BPSM\x01\x00\x00\x00"), id...), 263, true},
		{"a.glb", append([]byte("glTF\x02\x00\x00\x00"), id...), 0, false},
		{"short.bpat", []byte("BPAT\x02\x00\x00\x00\x07"), 0, false},
	} {
		p := filepath.Join(dir, c.name)
		if err := os.WriteFile(p, c.bytes, 0o644); err != nil {
			t.Fatal(err)
		}
		if id, ok := HeaderSpecies(p); id != c.id || ok != c.ok {
			t.Errorf("%s: %d, %v; want %d, %v", c.name, id, ok, c.id, c.ok)
		}
		// BPATSpecies: the same, a BPSM's id not taken
		bpat := c.ok && c.name != "a.bpsm"
		if id, ok := BPATSpecies(p); ok != bpat || (bpat && id != c.id) {
			t.Errorf("%s: BPATSpecies %d, %v; want %d, %v", c.name, id, ok, c.id, bpat)
		}
	}
	if _, ok := HeaderSpecies(filepath.Join(dir, "none.bpat")); ok {
		t.Error("a missing file has a species id")
	}
}

// TestKindWords: every kind Sniff tells apart has words of its own, which
// name it with an article ("a …", "an …") as messages put it after a path,
// and none of them is Unknown's.
func TestKindWords(t *testing.T) {
	seen := map[string]Kind{}
	for _, k := range []Kind{BPAT, BPSM, GLB, GLTF, BPX, Mot, BVH, FBX, Unknown} {
		w := k.Words()
		if other, ok := seen[w]; ok {
			t.Errorf("%q and %q are both %q", k, other, w)
		}
		seen[w] = k
		if k != Unknown && !strings.HasPrefix(w, "a ") && !strings.HasPrefix(w, "an ") {
			t.Errorf("%q is %q: no article", k, w)
		}
	}
	if w := Kind("xyz").Words(); w != Unknown.Words() {
		t.Errorf("a kind Sniff never gives is %q, want Unknown's %q", w, Unknown.Words())
	}
}
