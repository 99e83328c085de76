//go:build linux

package main

import (
	"bufio"
	"fmt"
	"hash/crc32"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/bonebake/bonebake/formats/bpx"
	"github.com/bonebake/bonebake/internal/atomicfile"
	"github.com/bonebake/bonebake/pack"
)

// folderState is what a folder holds: each path with its mode and a checksum
// of its content, or a link's target.
func folderState(t *testing.T, root string) map[string]string {
	t.Helper()
	got := map[string]string{}
	filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, path)
		st, _ := os.Lstat(path)
		v := st.Mode().String()
		if st.Mode().IsRegular() {
			b, _ := os.ReadFile(path)
			v += fmt.Sprintf(" %d %08x", len(b), crc32.ChecksumIEEE(b))
		} else if st.Mode()&fs.ModeSymlink != 0 {
			l, _ := os.Readlink(path)
			v += " -> " + l
		}
		got[rel] = v
		return nil
	})
	return got
}

func diffState(t *testing.T, what string, got, want map[string]string) {
	t.Helper()
	bad := 0
	for k, v := range want {
		if got[k] != v && bad < 5 {
			t.Errorf("%s: %s is %q, want %q", what, k, got[k], v)
			bad++
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok && bad < 5 {
			t.Errorf("%s: %s left behind", what, k)
			bad++
		}
	}
}

// TestBPXUnpackRecoveryNote: the unpack that finds an interrupted one's stage
// undoes it and says so on one line.
func TestBPXUnpackRecoveryNote(t *testing.T) {
	root := t.TempDir()
	src, dir := filepath.Join(root, "src"), filepath.Join(root, "out")
	os.MkdirAll(src, 0o755)
	os.WriteFile(filepath.Join(src, "a.txt"), []byte("a"), 0o644)
	pkg := filepath.Join(root, "p.bpx")
	if code, _, errOut := bonebake(t, "bpx", "pack", src, "-o", pkg); code != 0 {
		t.Fatal(errOut)
	}
	killedUnpack(t, dir)
	code, out, errOut := bonebake(t, "bpx", "unpack", pkg, "-o", dir)
	if code != 0 || !strings.Contains(out, "unpacked 1 file") {
		t.Fatalf("exit %d: %s %s", code, out, errOut)
	}
	want := "note: " + dir + ": an unpack of old.bpx (process 42) was interrupted: undid it (0 replaced files put back, 1 new file removed); the folder is as it was before it\n"
	if errOut != want {
		t.Errorf("stderr %q, want %q", errOut, want)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 || entries[0].Name() != "a.txt" {
		t.Errorf("left %v, want a.txt alone", entries)
	}
}

// killedUnpack leaves in dir what an unpack of old.bpx killed after it put
// x.txt in place leaves.
func killedUnpack(t *testing.T, dir string) {
	t.Helper()
	os.MkdirAll(filepath.Join(dir, pack.StageName), 0o700)
	x := filepath.Join(dir, "x.txt")
	os.WriteFile(x, []byte("x"), 0o644)
	// The placed file's stamp (docs/formats/bpx.md §12).
	s, ok := atomicfile.StampAt(x)
	if !ok {
		t.Fatal("no stamp of", x)
	}
	os.WriteFile(filepath.Join(dir, pack.StageName, "journal"),
		fmt.Appendf(nil, "bonebake unpack journal 2\npackage \"old.bpx\"\npid 42\np \"x.txt\" %d %d %d %d %d\n", s.Dev, s.Ino, s.Size, s.Mtime, s.Btime), 0o600)
}

// TestBPXRecover: bpx recover undoes a killed unpack without unpacking, and
// says so; run again, it says there is none.
func TestBPXRecover(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "mine"), []byte("mine"), 0o644)
	killedUnpack(t, dir)
	code, out, errOut := bonebake(t, "bpx", "recover", dir)
	want := dir + ": an unpack of old.bpx (process 42) was interrupted: undid it (0 replaced files put back, 1 new file removed); the folder is as it was before it\n"
	if code != 0 || out != want {
		t.Errorf("exit %d, stdout %q, want %q; stderr %q", code, out, want, errOut)
	}
	if e, _ := os.ReadDir(dir); len(e) != 1 || e[0].Name() != "mine" {
		t.Errorf("left %v", e)
	}
	code, out, _ = bonebake(t, "bpx", "recover", dir)
	if code != 0 || out != dir+": no interrupted unpack found\n" {
		t.Errorf("again: exit %d, %q", code, out)
	}
}

// TestInterruptedUnpack: SIGINT or SIGTERM while bpx unpack writes a package
// of 4,000 files into a folder (into its stage, or putting them in place)
// exits 130 or 143 with one line naming the package and the folder, and leaves
// the folder exactly as it was: replaced files back, new ones gone, no stage
// (issue 42 item 3; it used to leave a third to a half of the files).
func TestInterruptedUnpack(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and unpacks 4,000 files twice")
	}
	bin := builtBinary(t)
	root := t.TempDir()
	rng := rand.New(rand.NewPCG(1, 2))
	var objs []bpx.PackInput
	for i := range 4000 {
		b := make([]byte, 4096+rng.IntN(8192))
		for k := range b {
			b[k] = byte(rng.Uint32())
		}
		objs = append(objs, pack.Bytes(fmt.Sprintf("d%02d/f%04d.bin", i%40, i), b))
	}
	pkg := filepath.Join(root, "big.bpx")
	if err := pack.WriteFile(pkg, objs, bpx.PackOptions{Check: bpx.CRC32}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		sig   syscall.Signal
		name  string
		code  int
		ready string // the journal line to wait for, or "read": a third of the package read
	}{{syscall.SIGINT, "SIGINT", 130, "read"}, {syscall.SIGTERM, "SIGTERM", 143, "\np "}} {
		dir := filepath.Join(root, "out-"+c.name)
		// The folder holds half of the package's files with other content,
		// and a file of its own.
		for i := 0; i < 4000; i += 2 {
			p := filepath.Join(dir, filepath.FromSlash(objs[i].Name))
			os.MkdirAll(filepath.Dir(p), 0o755)
			os.WriteFile(p, []byte("old"), 0o600)
		}
		os.WriteFile(filepath.Join(dir, "mine"), []byte("mine"), 0o644)
		before := folderState(t, dir)

		cmd := exec.Command(bin, "bpx", "unpack", pkg, "-o", dir)
		stderr, _ := cmd.StderrPipe()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		stage := filepath.Join(dir, pack.StageName)
		deadline := time.Now().Add(60 * time.Second)
		for !ready(cmd.Process.Pid, pkg, stage, c.ready) {
			if time.Now().After(deadline) {
				t.Fatalf("%s: the unpack never got to %q", c.name, c.ready)
			}
			time.Sleep(time.Millisecond)
		}
		cmd.Process.Signal(c.sig)
		rest, _ := readAll(bufio.NewReader(stderr))
		cmd.Wait()
		if code := cmd.ProcessState.ExitCode(); code != c.code {
			t.Errorf("%s: exit %d, want %d (was the unpack over before the signal?); stderr %q", c.name, code, c.code, rest)
		}
		want := fmt.Sprintf("bonebake: interrupted by %s while writing the files of %s into %s", c.name, pkg, dir)
		if lines := strings.Split(strings.TrimSpace(rest), "\n"); len(lines) != 1 || !strings.Contains(lines[0], want) {
			t.Errorf("%s: stderr %q, want one line %q", c.name, rest, want)
		}
		diffState(t, c.name, folderState(t, dir), before)
	}
}

// ready says whether the unpack has got to what: a line of its journal, or
// ("read") a third of the package read (/proc/PID/io), whatever the way it
// unpacks.
func ready(pid int, pkg, stage, what string) bool {
	if what == "read" {
		st, _ := os.Stat(pkg)
		b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/io", pid))
		var rchar int64
		for _, l := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(l, "rchar: "); ok {
				fmt.Sscan(v, &rchar)
			}
		}
		return rchar > st.Size()/3
	}
	b, _ := os.ReadFile(filepath.Join(stage, "journal"))
	return strings.Contains(string(b), what)
}
