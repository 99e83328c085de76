package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/bonebake/bonebake/formats/bpx"
	"github.com/bonebake/bonebake/internal/testfiles"
	"github.com/bonebake/bonebake/pack"
)

func sharedBPX(t *testing.T, name string) string { return testfiles.Path(t, "bpx", name) }

func TestBPXInspectJSON(t *testing.T) {
	file := sharedBPX(t, "07_package.bpx")
	code, out, errOut := bonebake(t, "bpx", "inspect", file, "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var j struct {
		Type     string `json:"type"`
		Version  int    `json:"version"`
		Package  struct{ Architecture, Platform, Generator string }
		Sections []struct {
			Index      int      `json:"index"`
			Type       int      `json:"type"`
			Flags      []string `json:"flags"`
			Size       int      `json:"size"`
			CSize      int      `json:"csize"`
			ChecksumOK *bool    `json:"checksum_ok"`
		} `json:"sections"`
	}
	if err := json.Unmarshal([]byte(out), &j); err != nil {
		t.Fatal(err)
	}
	if j.Type != "P" || j.Version != 2 || len(j.Sections) != 4 || j.Package.Architecture != "x86_64" || j.Package.Platform != "linux" || j.Package.Generator != "PK" {
		t.Fatalf("%+v", j)
	}
	s := j.Sections[3]
	if s.Index != 3 || s.Type != 1 || s.Size != 22 || s.CSize != 22 || len(s.Flags) != 1 || s.Flags[0] != "crc32" || s.ChecksumOK == nil || !*s.ChecksumOK {
		t.Errorf("data section %+v", s)
	}
}

func TestBPXInspectBadChecksum(t *testing.T) {
	b, _ := bpx.Encode('X', [16]byte{}, []bpx.SectionBytes{{Type: 1, Data: []byte("123456789"), Check: bpx.CRC32}})
	b[len(b)-1] = '0'
	path := filepath.Join(t.TempDir(), "bad.bpx")
	os.WriteFile(path, b, 0o644)
	code, out, errOut := bonebake(t, "bpx", "inspect", path)
	if code != 1 || !strings.Contains(out, "BAD") || !strings.Contains(errOut, "1 section failed") {
		t.Errorf("exit %d\n%s\n%s", code, out, errOut)
	}
}

// TestBPXPackLike07 packs the demo objects with the options 07_package.bpx was
// written with. The command packs files in name order ("b.bin" before
// "dir/a.txt", the SDK's file has them the other way round), so the header
// fields and the size agree; format/bpx's TestPackage07 checks every byte.
func TestBPXPackLike07(t *testing.T) {
	want, err := os.ReadFile(sharedBPX(t, "07_package.bpx"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "src")
	os.MkdirAll(filepath.Join(src, "dir"), 0o755)
	os.WriteFile(filepath.Join(src, "dir", "a.txt"), []byte("alpha content\n"), 0o644)
	os.WriteFile(filepath.Join(src, "b.bin"), []byte{0, 1, 2, 3, 4, 5, 6, 7}, 0o644)
	out := filepath.Join(dir, "p.bpx")
	code, _, errOut := bonebake(t, "bpx", "pack", src, "-o", out, "--arch", "x86_64", "--platform", "linux", "--generator", "PK", "--meta", "Name=demo", "--meta", "Version=3")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	got, _ := os.ReadFile(out)
	if !bytes.Equal(got[3:4], want[3:4]) || !bytes.Equal(got[8:40], want[8:40]) {
		t.Errorf("header fields after the checksum differ:\n% x\n% x", got[:40], want[:40])
	}
	code, list, _ := bonebake(t, "bpx", "list", out)
	if code != 0 || !strings.Contains(list, "14  dir/a.txt") || !strings.Contains(list, "8  b.bin") {
		t.Errorf("list: %s", list)
	}
	if len(got) != len(want) {
		t.Errorf("packed %d bytes; 07_package.bpx is %d", len(got), len(want))
	}
}

func TestBPXPackUnpackRoundTrip(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "src")
	files := map[string][]byte{"a.txt": []byte("alpha"), "sub/big.bin": bytes.Repeat([]byte("bonebake "), 20000)}
	for name, b := range files {
		p := filepath.Join(src, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, b, 0o644)
	}
	for _, comp := range []string{"xz", "zlib", "none"} {
		out := filepath.Join(dir, comp+".bpx")
		code, _, e := bonebake(t, "bpx", "pack", src, "-o", out, "--compress", comp, "--checksum", "weak", "--meta", "k=v", "--debug-names")
		if code != 0 {
			t.Fatalf("pack: %s", e)
		}
		// the wait is said off a terminal too, as bake --package says it: 5 +
		// 180,000 bytes
		how, with := "compressing and writing", comp
		if comp == "none" {
			how, with = "writing", "not compressed"
		}
		if want := "bonebake: " + how + " 180 KB into " + out + " (" + with + ")\n"; e != want {
			t.Errorf("pack --compress %s: stderr %q, want %q", comp, e, want)
		}
		code, tree, _ := bonebake(t, "bpx", "dump", out, "--section", "2", "--bpxsd")
		if code != 0 || !strings.Contains(tree, `k: "v"`) {
			t.Errorf("metadata: %q", tree)
		}
		dst := filepath.Join(dir, "out-"+comp)
		if code, o, e := bonebake(t, "bpx", "unpack", out, "-o", dst); code != 0 || !strings.Contains(o, "unpacked 2 files") {
			t.Fatalf("unpack: %s %s", o, e)
		}
		for name, want := range files {
			if got, _ := os.ReadFile(filepath.Join(dst, filepath.FromSlash(name))); !bytes.Equal(got, want) {
				t.Errorf("%s: %s differs", comp, name)
			}
		}
		raw := filepath.Join(dir, comp+".data")
		if code, _, e := bonebake(t, "bpx", "dump", out, "--section", "3", "-o", raw); code != 0 {
			t.Fatal(e)
		}
		if b, _ := os.ReadFile(raw); len(b) != len("alpha")+len(files["sub/big.bin"]) {
			t.Errorf("dumped data section of %d bytes", len(b))
		}
	}
}

func TestBPXUnpackRefusesTraversal(t *testing.T) {
	dir := t.TempDir()
	var buf bpx.Buffer
	bpx.WritePackage(&buf, []bpx.PackInput{pack.Bytes("ok", []byte("x")), pack.Bytes("../evil", []byte("x"))}, bpx.PackOptions{})
	path := filepath.Join(dir, "evil.bpx")
	os.WriteFile(path, buf.Bytes(), 0o644)
	code, _, errOut := bonebake(t, "bpx", "unpack", path, "-o", filepath.Join(dir, "out"))
	if code != 1 || !strings.Contains(errOut, `"../evil"`) {
		t.Errorf("exit %d: %s", code, errOut)
	}
	if _, err := os.Stat(filepath.Join(dir, "out", "ok")); err == nil {
		t.Error("a file was written")
	}
}

func TestBPXUsage(t *testing.T) {
	file := sharedBPX(t, "07_package.bpx")
	for _, c := range [][]string{
		{"bpx", "dump", file}, {"bpx", "dump", file, "--section", "9"}, {"bpx", "dump", file, "--section", "0", "--hex", "--bpxsd"},
		{"bpx", "pack", ".", "-o", "x.bpx", "--compress", "lz4"}, {"bpx", "unpack", file}, {"bpx", "inspect"},
	} {
		if code, _, _ := bonebake(t, c...); code != 2 {
			t.Errorf("%v: exit %d, want 2", c, code)
		}
	}
	if code, out, _ := bonebake(t, "bpx", "--help"); code != 0 || !strings.Contains(out, "unpack") {
		t.Errorf("help: %d %s", code, out)
	}
	if code, _, errOut := bonebake(t, "bpx", "list", sharedBPX(t, "02_weak_plain.bpx")); code != 1 || !strings.Contains(errOut, "not a package") {
		t.Errorf("list of a non-package: %d %s", code, errOut)
	}
}

// TestBakePackage bakes two creatures into a package and reads it back. The two
// are the horse and the elephant, whose files are a tenth of the humanoid's
// (its snapshot mesh alone is 12 MB to compress). The package takes any name,
// as bpx pack's -o does (readers tell a package by its first bytes): here the
// one a game might dictate.
func TestBakePackage(t *testing.T) {
	out := filepath.Join(t.TempDir(), "creatures.pak")
	// Two creatures, or in -short one: packing is most of the test's time.
	species, files, said := "horse,elephant", []string{"horse.bpat", "horse_minimal.bpsm", "elephant.bpat", "elephant_minimal.bpsm"}, "baked 2 creatures"
	if testing.Short() {
		species, files, said = "horse", files[:2], "baked 1 creature"
	}
	code, stdout, errOut := bonebake(t, "bake", "--package", out, "--species", species)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(stdout, said) {
		t.Errorf("%s", stdout)
	}
	// Seconds to a minute of work are never silent: a line per stage on stderr
	// (issue 45 item 7).
	if !strings.Contains(errOut, "baking horse (1 of ") || !strings.Contains(errOut, "into "+out) {
		t.Errorf("no progress lines on stderr: %q", errOut)
	}
	// Off a terminal there is no bar: the compressing line says how much is
	// compressed, so that a log reader knows the wait to expect.
	if !regexp.MustCompile(`compressing and writing [0-9.]+ [KMG]B into ` + regexp.QuoteMeta(out) + ` \(xz\)`).MatchString(errOut) {
		t.Errorf("the compressing line does not say how much: %q", errOut)
	}
	code, list, _ := bonebake(t, "bpx", "list", out)
	if code != 0 {
		t.Errorf("bpx list: exit %d", code)
	}
	for _, name := range files {
		if !strings.Contains(list, name) {
			t.Errorf("list lacks %s:\n%s", name, list)
		}
	}
	code, tree, _ := bonebake(t, "bpx", "dump", out, "--section", "2", "--bpxsd")
	if code != 0 || !strings.Contains(tree, `name: "horse"`) || !strings.Contains(tree, "clips: [") {
		t.Errorf("metadata:\n%s", tree)
	}
}
