//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// writers are the commands that write a file named by -o, with what they need.
func writers(t *testing.T, dir string) map[string]func(out string) []string {
	t.Helper()
	src := filepath.Join(dir, "src")
	os.MkdirAll(src, 0o755)
	os.WriteFile(filepath.Join(src, "a.txt"), []byte("alpha"), 0o644)
	pkg := filepath.Join(dir, "p.bpx")
	if code, _, e := bonebake(t, "bpx", "pack", src, "-o", pkg); code != 0 {
		t.Fatal(e)
	}
	dump := filepath.Join(dir, "m.json")
	os.WriteFile(dump, []byte(`{"family":"bayo2","byte_order":"little","frames":2,"flags":0,"name":"x","records":[{"bone":0,"track":0,"values":[1,2]}]}`), 0o644)
	return map[string]func(string) []string{
		"bake":        func(o string) []string { return []string{"bake", sharedModel(t, "SimpleSkin.gltf"), "-o", o} },
		"bpx pack":    func(o string) []string { return []string{"bpx", "pack", src, "-o", o} },
		"bpx dump":    func(o string) []string { return []string{"bpx", "dump", pkg, "--section", "0", "-o", o} },
		"mot convert": func(o string) []string { return []string{"mot", "convert", sharedMot(t), "-o", o} },
		"mot encode":  func(o string) []string { return []string{"mot", "encode", dump, "-o", o} },
		"export-gltf": func(o string) []string { return []string{"export-gltf", "humanoid", "-o", o} },
	}
}

// TestOutputOntoFIFO: every writer refuses -o naming a named pipe, and leaves it
// a named pipe.
func TestOutputOntoFIFO(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "out.fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip(err)
	}
	for name, argv := range writers(t, dir) {
		code, _, e := bonebake(t, argv(fifo)...)
		if code == 0 || !strings.Contains(e, "named pipe") || !strings.Contains(e, fifo) {
			t.Errorf("%s -o FIFO: exit %d, %q", name, code, e)
		}
		if st, err := os.Lstat(fifo); err != nil || st.Mode()&os.ModeNamedPipe == 0 {
			t.Fatalf("%s replaced the named pipe", name)
		}
	}
}

// TestOutputOntoLink: every writer writes a link's target, keeps the link, and
// keeps the target's mode; a new file honours the umask.
func TestOutputOntoLink(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "real", "out.glb") // a name every writer but bake takes (export-gltf wants .glb or .gltf)
	os.MkdirAll(filepath.Dir(real), 0o755)
	for name, argv := range writers(t, dir) {
		ext := ".glb"
		if name == "bake" {
			ext = ".bpat" // bake writes only .bpat files
		}
		link := filepath.Join(dir, "link"+ext)
		os.Symlink(real, link)
		os.WriteFile(real, []byte("old"), 0o600)
		os.Chmod(real, 0o640)
		code, _, e := bonebake(t, argv(link)...)
		if code != 0 {
			t.Fatalf("%s: %s", name, e)
		}
		if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
			t.Fatalf("%s replaced the link", name)
		}
		if b, _ := os.ReadFile(real); string(b) == "old" {
			t.Errorf("%s did not write the link's target", name)
		}
		if st, _ := os.Stat(real); st.Mode().Perm() != 0o640 {
			t.Errorf("%s: the rewritten file's mode is %v, want 0640", name, st.Mode().Perm())
		}
		fresh := filepath.Join(dir, "fresh-"+strings.ReplaceAll(name, " ", "-")+ext)
		mask := syscall.Umask(0o077)
		code, _, e = bonebake(t, argv(fresh)...)
		syscall.Umask(mask)
		if st, err := os.Stat(fresh); code != 0 || err != nil || st.Mode().Perm() != 0o600 {
			t.Errorf("%s: a new file under umask 077: %v %s", name, err, e)
		}
	}
	if m, _ := filepath.Glob(filepath.Join(dir, "*", ".*")); len(m) != 0 {
		t.Errorf("temporary files left: %v", m)
	}
}

// TestPackSkipsItsOutputAndLinks: packing a folder into a file inside it leaves
// the package out, and a link in the folder is skipped with a warning.
func TestPackSkipsItsOutputAndLinks(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("alpha"), 0o644)
	os.Symlink("/etc/hostname", filepath.Join(dir, "link"))
	out := filepath.Join(dir, "out.bpx")
	for range 2 {
		code, o, e := bonebake(t, "bpx", "pack", dir, "-o", out)
		if code != 0 || !strings.Contains(o, "packed 1 file") || !strings.Contains(e, `warning: skipped "`+filepath.Join(dir, "link")+`": a symbolic link`) {
			t.Fatalf("pack: exit %d %q %q", code, o, e)
		}
	}
	code, list, _ := bonebake(t, "bpx", "list", out)
	if code != 0 || strings.Contains(list, "out.bpx") || !strings.Contains(list, "a.txt") {
		t.Errorf("list: %s", list)
	}
}
