package pack

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/bonebake/bonebake/bake"
	"github.com/bonebake/bonebake/formats/bpx"
	"github.com/bonebake/bonebake/internal/words"
	"github.com/bonebake/bonebake/species"
	"github.com/bonebake/bonebake/species/creatures"
)

func packageOf(t *testing.T, objs ...bpx.PackInput) *bpx.Package {
	t.Helper()
	var buf bpx.Buffer
	if err := bpx.WritePackage(&buf, objs, bpx.PackOptions{Check: bpx.CRC32}); err != nil {
		t.Fatal(err)
	}
	f, err := bpx.NewReader(bytes.NewReader(buf.Bytes()), int64(len(buf.Bytes())))
	if err != nil {
		t.Fatal(err)
	}
	p, err := bpx.ReadPackage(f)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// openPackageFile opens the package at path, closed when the test ends.
func openPackageFile(t *testing.T, path string) *bpx.Package {
	t.Helper()
	f, err := bpx.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	p, err := bpx.ReadPackage(f)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestSafeName(t *testing.T) {
	for _, ok := range []string{"a.txt", "dir/b.bin", "a/b/c", "..a", "a..b/c"} {
		if _, err := SafeName(ok); err != nil {
			t.Errorf("%q refused: %v", ok, err)
		}
	}
	for _, bad := range []string{"", "../x", "a/../../x", "/etc/passwd", `\windows\x`, `C:\x`, "c:x", "a\x00b", `a\..\..\x`, "./a", "a//"} {
		if _, err := SafeName(bad); !errors.Is(err, ErrUnsafeName) {
			t.Errorf("%q accepted", bad)
		}
	}
}

// TestUnpackRefusesTraversal: a package with one unsafe name writes nothing.
func TestUnpackRefusesTraversal(t *testing.T) {
	for _, bad := range []string{"../escape.txt", "/abs.txt", `C:\x.txt`, "a/../../escape.txt"} {
		dir := t.TempDir()
		target := filepath.Join(dir, "out")
		p := packageOf(t, Bytes("ok.txt", []byte("fine")), Bytes(bad, []byte("evil")))
		_, err := Unpack(p, target)
		if !errors.Is(err, ErrUnsafeName) || !strings.Contains(err.Error(), strconv.Quote(bad)) {
			t.Errorf("%q: %v", bad, err)
		}
		entries, _ := os.ReadDir(dir)
		if len(entries) != 0 {
			t.Errorf("%q: something was written: %v", bad, entries)
		}
	}
}

func TestUnpackDoesNotFollowLinks(t *testing.T) {
	dir := t.TempDir()
	outside := filepath.Join(dir, "outside")
	target := filepath.Join(dir, "target")
	os.MkdirAll(outside, 0o755)
	os.MkdirAll(target, 0o755)
	if err := os.Symlink(outside, filepath.Join(target, "link")); err != nil {
		t.Skip(err)
	}
	p := packageOf(t, Bytes("link/x.txt", []byte("evil")))
	if _, err := Unpack(p, target); err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("unpacked through a link: %v", err)
	}
	// A link as the file itself is replaced, not written through.
	os.WriteFile(filepath.Join(outside, "f.txt"), []byte("keep"), 0o644)
	os.Symlink(filepath.Join(outside, "f.txt"), filepath.Join(target, "f.txt"))
	if _, err := Unpack(packageOf(t, Bytes("f.txt", []byte("new"))), target); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(outside, "f.txt")); string(b) != "keep" {
		t.Errorf("the link's target was written: %q", b)
	}
}

// TestUnpackFailureLeavesNoPartialFile: an object whose data section is corrupt
// fails its checksum at the end; its file is not left behind.
func TestUnpackFailureLeavesNoPartialFile(t *testing.T) {
	p := corruptPackage(t, Bytes("a.bin", bytes.Repeat([]byte("data"), 50000)))
	dir := t.TempDir()
	if _, err := Unpack(p, dir); err == nil || !strings.Contains(err.Error(), "checksum") {
		t.Fatalf("corrupt object unpacked: %v", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("left behind: %v", entries)
	}
}

func TestDirRoundTrip(t *testing.T) {
	src := t.TempDir()
	files := map[string]string{"a.txt": "alpha", "sub/b.bin": "\x00\x01", "sub/deep/c": strings.Repeat("c", 100000)}
	for name, content := range files {
		path := filepath.Join(src, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(path), 0o755)
		os.WriteFile(path, []byte(content), 0o644)
	}
	objs, _, err := Dir(src)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "p.bpx")
	if err := WriteFile(out, objs, bpx.PackOptions{Compression: bpx.XZ, Check: bpx.CRC32}); err != nil {
		t.Fatal(err)
	}
	p := openPackageFile(t, out)
	dst := t.TempDir()
	if _, err := Unpack(p, dst); err != nil {
		t.Fatal(err)
	}
	for name, content := range files {
		if b, err := os.ReadFile(filepath.Join(dst, filepath.FromSlash(name))); err != nil || string(b) != content {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func TestCreatures(t *testing.T) {
	h := creatures.ByName("horse")
	path := filepath.Join(t.TempDir(), "c.bpx")
	if _, err := Creatures(path, nil, nil, nil); err != nil { // no creatures: an empty package
		t.Fatal(err)
	}
	if p := openPackageFile(t, path); len(p.Objects) != 0 {
		t.Fatalf("empty package holds %d objects", len(p.Objects))
	}
	var told []bake.Line
	if _, err := Creatures(path, []*species.Creature{h}, func(l bake.Line) { told = append(told, l) }, nil); err != nil {
		t.Fatal(err)
	}
	p := openPackageFile(t, path)
	var names []string
	for _, o := range p.Objects {
		names = append(names, o.Name)
	}
	if strings.Join(names, " ") != "horse.bpat horse.model.bpx horse.palette.bpx horse_minimal.bpsm" {
		t.Fatalf("objects %v", names)
	}
	// Its report: the horse baked, the package compressed, then the total of
	// the four objects and the file's size.
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(told) != 3 || told[0].Kind != bake.Doing || !strings.HasSuffix(told[0].Text, ": baking horse (1 of 1)") ||
		told[1].Kind != bake.Doing || !strings.Contains(told[1].Text, ": compressing and writing ") || !strings.HasSuffix(told[1].Text, " into "+path+" (xz)") ||
		told[2].Kind != bake.Total || !strings.HasPrefix(told[2].Text, "baked 1 creature into "+path+": 4 objects, "+words.Bytes(st.Size())+", in ") {
		t.Errorf("told %q", told)
	}
	// The BPAT object is the bake's own bytes; the T and M objects are BPX
	// containers of those types, the texture one row per frame.
	want, err := h.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	read := func(i int) []byte {
		r, err := p.Open(i)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(r)
		return b
	}
	if !bytes.Equal(read(0), want) {
		t.Error("horse.bpat in the package differs from the bake's bytes")
	}
	for i, typ := range map[int]byte{1: bpx.TypeModel, 2: bpx.TypeTexture} {
		b := read(i)
		f, err := bpx.NewReader(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			t.Fatalf("%s: %v", names[i], err)
		}
		if f.Header.Type != typ {
			t.Errorf("%s: type %c, want %c", names[i], f.Header.Type, typ)
		}
	}
	v, _ := p.Metadata.Get("species")
	if len(v.Arr) != 1 {
		t.Fatalf("metadata %s", p.Metadata)
	}
	sp := v.Arr[0].Obj
	id, _ := sp.Get("id")
	clips, _ := sp.Get("clips")
	if id.Uint != uint64(h.ID) || len(clips.Arr) != len(h.Clips) || clips.Arr[0].Str != h.Clips[0].Name {
		t.Errorf("metadata %s", p.Metadata)
	}
	if !strings.Contains(p.Metadata.String(), `name: "horse"`) {
		t.Errorf("debug names missing:\n%s", p.Metadata)
	}
}

// TestUnpackSharedSectionFailure: the first of two objects sharing a data
// section is corrupt; that is found at the section's end, after the first file
// was written, and that file is removed.
func TestUnpackSharedSectionFailure(t *testing.T) {
	var buf bpx.Buffer
	if err := bpx.WritePackage(&buf, []bpx.PackInput{Bytes("a.txt", []byte("first")), Bytes("b.txt", []byte("second"))}, bpx.PackOptions{Check: bpx.CRC32}); err != nil {
		t.Fatal(err)
	}
	b := buf.Bytes()
	b[len(b)-len("firstsecond")] = 'F'
	f, _ := bpx.NewReader(bytes.NewReader(b), int64(len(b)))
	p, err := bpx.ReadPackage(f)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if _, err := Unpack(p, dir); err == nil {
		t.Fatal("corrupt package unpacked")
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("left behind: %v", entries)
	}
}

// corruptPackage is a package of objs whose last data section fails its
// checksum, found only when the whole section has been read.
func corruptPackage(t *testing.T, objs ...bpx.PackInput) *bpx.Package {
	t.Helper()
	var buf bpx.Buffer
	if err := bpx.WritePackage(&buf, objs, bpx.PackOptions{Check: bpx.CRC32}); err != nil {
		t.Fatal(err)
	}
	b := buf.Bytes()
	b[len(b)-1] ^= 0xFF
	f, err := bpx.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	p, err := bpx.ReadPackage(f)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestUnpackFailureRestores: an unpack that fails part-way puts back exactly what
// was there: the file it replaced (content and mode), no file or folder it
// created, no saved copy.
func TestUnpackFailureRestores(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "out")
	os.MkdirAll(filepath.Join(dir, "keep"), 0o755)
	os.WriteFile(filepath.Join(dir, "a.bin"), []byte("mine"), 0o600)
	os.WriteFile(filepath.Join(dir, "keep", "x"), []byte("x"), 0o644)
	os.Symlink("a.bin", filepath.Join(dir, "l.bin"))
	big := bytes.Repeat([]byte("data"), 50000)
	p := corruptPackage(t, Bytes("a.bin", []byte("theirs")), Bytes("l.bin", []byte("replaces the link")),
		Bytes("new/deep/b.bin", big), Bytes("keep/c.bin", big))
	if _, err := Unpack(p, dir); err == nil || !strings.Contains(err.Error(), "checksum") {
		t.Fatalf("corrupt package unpacked: %v", err)
	}
	var got []string
	filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		rel, _ := filepath.Rel(root, path)
		got = append(got, filepath.ToSlash(rel))
		return nil
	})
	want := []string{".", "out", "out/a.bin", "out/keep", "out/keep/x", "out/l.bin"}
	if !slices.Equal(got, want) {
		t.Errorf("after a failed unpack: %v, want %v", got, want)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "a.bin")); string(b) != "mine" {
		t.Errorf("a.bin holds %q, want it restored", b)
	}
	if st, err := os.Stat(filepath.Join(dir, "a.bin")); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("a.bin: %v (want mode 0600)", err)
	}
	if l, err := os.Readlink(filepath.Join(dir, "l.bin")); err != nil || l != "a.bin" {
		t.Errorf("the link was not restored: %q %v", l, err)
	}
	// Into a folder that did not exist: nothing of it is left.
	missing := filepath.Join(root, "new", "deeper")
	if _, err := Unpack(p, missing); err == nil {
		t.Fatal("corrupt package unpacked")
	}
	if _, err := os.Lstat(filepath.Join(root, "new")); err == nil {
		t.Error("the folders created for the target were left")
	}
	// A successful unpack over the same files leaves no saved copies.
	ok := packageOf(t, Bytes("a.bin", []byte("theirs")))
	if _, err := Unpack(ok, dir); err != nil {
		t.Fatal(err)
	}
	if m, _ := filepath.Glob(filepath.Join(dir, ".*")); len(m) != 0 {
		t.Errorf("left: %v", m)
	}
}

// TestDirSkips: pack.Dir leaves out symbolic links and other special files
// (listed with why) and the package being written into the folder.
func TestDirSkips(t *testing.T) {
	src := t.TempDir()
	os.WriteFile(filepath.Join(src, "a.txt"), []byte("a"), 0o644)
	os.WriteFile(filepath.Join(src, "out.bpx"), []byte("previous package"), 0o644)
	if err := os.Symlink("/etc/passwd", filepath.Join(src, "link")); err != nil {
		t.Skip(err)
	}
	objs, skipped, err := Dir(src, filepath.Join(src, "out.bpx"))
	if err != nil {
		t.Fatal(err)
	}
	if len(objs) != 1 || objs[0].Name != "a.txt" {
		t.Errorf("objects %v", objs)
	}
	if len(skipped) != 2 || !strings.Contains(skipped[0].Why, "symbolic link") || !strings.Contains(skipped[1].Why, "being written") {
		t.Errorf("skipped %v", skipped)
	}
	out := filepath.Join(src, "out.bpx")
	if err := WriteFile(out, objs, bpx.PackOptions{}); err != nil {
		t.Fatal(err)
	}
	if p := openPackageFile(t, out); len(p.Objects) != 1 {
		t.Errorf("packed %d objects", len(p.Objects))
	}
}
