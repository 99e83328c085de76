//go:build unix

package pack

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/bonebake/bonebake/formats/bpx"
	"github.com/bonebake/bonebake/internal/atomicfile"
)

// helperEnv asks the test binary, run again, to be TestUnpackHelperProcess:
// "SIGNAL PHASE N PACKAGE DIR".
const helperEnv = "BONEBAKE_PACK_UNPACK_HELPER"

// TestUnpackHelperProcess is not a test: run by the tests below in a process
// of its own, it unpacks a package with the command line's interrupt handling
// and sends itself a signal after step N of PHASE.
func TestUnpackHelperProcess(t *testing.T) {
	spec := os.Getenv(helperEnv)
	if spec == "" {
		t.Skip("run by the interrupt tests")
	}
	f := strings.Fields(spec)
	sig := map[string]syscall.Signal{"SIGINT": syscall.SIGINT, "SIGTERM": syscall.SIGTERM, "SIGKILL": syscall.SIGKILL}[f[0]]
	n, _ := strconv.Atoi(f[2])
	atomicfile.HandleInterrupts(func(s os.Signal, paths []string) {
		if len(paths) == 0 {
			fmt.Fprintf(os.Stderr, "interrupted by %v; finished first\n", s)
			return
		}
		fmt.Fprintf(os.Stderr, "interrupted by %v while writing %s\n", s, strings.Join(paths, ", "))
	})
	afterStep = func(phase string, i int) {
		if phase == f[1] && i == n {
			syscall.Kill(os.Getpid(), sig)
			time.Sleep(time.Minute) // the handler (or the kernel) ends the process meanwhile
		}
	}
	pf, err := bpx.Open(f[3])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	p, err := bpx.ReadPackage(pf)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	if _, err := Unpack(p, f[4]); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Fprintln(os.Stderr, "the signal never came")
	os.Exit(3)
}

// interruptFixture makes a folder holding files, a link and a subfolder, and a
// package that replaces some, adds others and makes folders; it returns the
// package's path, the folder, and what the folder holds before and after a
// whole unpack.
func interruptFixture(t *testing.T) (pkg, dir string, before, after map[string]string) {
	t.Helper()
	root := t.TempDir()
	dir = filepath.Join(root, "out")
	os.MkdirAll(filepath.Join(dir, "sub"), 0o755)
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("old a"), 0o600)
	os.WriteFile(filepath.Join(dir, "sub", "b.txt"), []byte("old b"), 0o644)
	os.WriteFile(filepath.Join(dir, "mine.txt"), []byte("not in the package"), 0o644)
	os.Symlink("a.txt", filepath.Join(dir, "l.txt"))
	objs := []bpx.PackInput{
		Bytes("a.txt", []byte("new a")), Bytes("sub/b.txt", []byte("new b")), Bytes("new/deep/c.txt", []byte("new c")),
		Bytes("l.txt", []byte("replaces the link")), Bytes("d.txt", []byte("new d")), Bytes("sub/e.txt", []byte("new e")),
	}
	pkg = filepath.Join(root, "p.bpx")
	if err := WriteFile(pkg, objs, bpx.PackOptions{Check: bpx.CRC32}); err != nil {
		t.Fatal(err)
	}
	before = tree(t, dir)
	ref := filepath.Join(root, "ref")
	os.MkdirAll(ref, 0o755)
	for _, c := range [][2]string{{"a.txt", ""}, {"sub/b.txt", ""}, {"mine.txt", ""}} {
		b, _ := os.ReadFile(filepath.Join(dir, c[0]))
		os.MkdirAll(filepath.Dir(filepath.Join(ref, c[0])), 0o755)
		st, _ := os.Stat(filepath.Join(dir, c[0]))
		os.WriteFile(filepath.Join(ref, c[0]), b, st.Mode().Perm())
	}
	os.Symlink("a.txt", filepath.Join(ref, "l.txt"))
	if _, err := Unpack(openPackageFile(t, pkg), ref); err != nil {
		t.Fatal(err)
	}
	after = tree(t, ref)
	os.RemoveAll(ref)
	return pkg, dir, before, after
}

// runHelper runs TestUnpackHelperProcess with spec and returns its exit code
// (-1: killed by a signal) and standard error.
func runHelper(t *testing.T, spec string) (int, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestUnpackHelperProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), helperEnv+"="+spec)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cmd.Run()
	return cmd.ProcessState.ExitCode(), stderr.String()
}

// TestUnpackInterrupted: SIGINT or SIGTERM at any step of an unpack (writing
// the objects into the stage, putting them in place) leaves the folder exactly
// as it was and nothing else, exits 130 or 143 and says what was being
// unpacked; once every file is in place, the unpack is finished instead, and
// the report names nothing undone (issue 42 item 3).
func TestUnpackInterrupted(t *testing.T) {
	for _, c := range []struct {
		sig, phase string
		n, code    int
	}{
		{"SIGINT", "staged", 0, 130}, {"SIGTERM", "staged", 4, 143},
		{"SIGINT", "placed", 0, 130}, {"SIGTERM", "placed", 3, 143}, {"SIGINT", "placed", 5, 130},
		{"SIGINT", "committed", 0, 130},
	} {
		pkg, dir, before, after := interruptFixture(t)
		code, stderr := runHelper(t, fmt.Sprintf("%s %s %d %s %s", c.sig, c.phase, c.n, pkg, dir))
		what := fmt.Sprintf("%s after %s %d", c.sig, c.phase, c.n)
		if code != c.code {
			t.Errorf("%s: exit %d, want %d; stderr %q", what, code, c.code, stderr)
		}
		said := "while writing the files of " + pkg + " into " + dir
		want := before
		if c.phase == "committed" {
			said, want = "finished first", after
		}
		if !strings.Contains(stderr, said) {
			t.Errorf("%s: stderr %q, want it to say %q", what, stderr, said)
		}
		sameTree(t, what, tree(t, dir), want)
	}
}

// TestUnpackKilled: an unpack killed (SIGKILL, as kill -9) at any step leaves
// its stage, and the next unpack into the folder undoes it, or finishes it
// when every file was in place, and says so; the folder is then as the
// interrupted unpack found it (or left it, finished).
func TestUnpackKilled(t *testing.T) {
	for _, c := range []struct {
		phase             string
		n                 int
		restored, removed int
	}{
		{"staged", 2, 0, 0}, {"placed", 0, 1, 0}, {"placed", 2, 2, 1}, {"placed", 5, 3, 3}, {"committed", 0, 0, 0},
	} {
		pkg, dir, before, after := interruptFixture(t)
		what := fmt.Sprintf("SIGKILL after %s %d", c.phase, c.n)
		if code, stderr := runHelper(t, fmt.Sprintf("SIGKILL %s %d %s %s", c.phase, c.n, pkg, dir)); code != -1 {
			t.Fatalf("%s: exit %d, want killed; stderr %q", what, code, stderr)
		}
		if _, err := os.Stat(filepath.Join(dir, StageName, journalName)); err != nil {
			t.Fatalf("%s: no journal left: %v", what, err)
		}
		// The next unpack, of a package that fails its checksum, first
		// deals with the stage, then undoes itself: what is left is what
		// the recovery made.
		var notes []Recovered
		_, err := UnpackWith(corruptPackage(t, Bytes("a.txt", []byte("x")), Bytes("z/y.txt", []byte("y"))), dir,
			UnpackOptions{Recovered: func(r Recovered) { notes = append(notes, r) }})
		if err == nil || !strings.Contains(err.Error(), "checksum") {
			t.Fatalf("%s: the corrupt package: %v", what, err)
		}
		finished := c.phase == "committed"
		if len(notes) != 1 || notes[0].Finished != finished || notes[0].Restored != c.restored || notes[0].Removed != c.removed ||
			notes[0].Package != pkg || notes[0].Dir != dir {
			t.Errorf("%s: told %+v, want finished %v, %d restored, %d removed", what, notes, finished, c.restored, c.removed)
		}
		want := before
		if finished {
			want = after
		}
		sameTree(t, what, tree(t, dir), want)
	}
}

// TestUnpackKilledIntoNewFolder: a killed unpack into a folder it created is
// undone by the next unpack into that folder, which removes the folder too
// when it fails in turn; an unpack into the folder above (which enters it) or
// into one below finds it as well.
func TestUnpackKilledIntoNewFolder(t *testing.T) {
	pkg, dir, _, _ := interruptFixture(t)
	root := filepath.Dir(dir)
	target := filepath.Join(root, "made", "here")
	for _, next := range []string{target, root, filepath.Join(target, "deeper")} {
		if code, stderr := runHelper(t, fmt.Sprintf("SIGKILL placed 3 %s %s", pkg, target)); code != -1 {
			t.Fatalf("exit %d, want killed; stderr %q", code, stderr)
		}
		var notes []Recovered
		_, err := UnpackWith(corruptPackage(t, Bytes("made/here/a.txt", []byte("x"))), next,
			UnpackOptions{Recovered: func(r Recovered) { notes = append(notes, r) }})
		if err == nil {
			t.Fatal("the corrupt package unpacked")
		}
		if len(notes) != 1 || notes[0].Dir != target || notes[0].Removed != 4 {
			t.Errorf("into %s: told %+v", next, notes)
		}
		if _, err := os.Lstat(filepath.Join(root, "made")); err == nil {
			t.Errorf("into %s: the folders the killed unpack made are left", next)
		}
	}
}

// TestRecover: Recover undoes the killed unpacks into a folder and under it
// without unpacking anything, and says what it found; a second call finds
// none.
func TestRecover(t *testing.T) {
	pkg, dir, before, _ := interruptFixture(t)
	root := filepath.Dir(dir)
	if code, stderr := runHelper(t, fmt.Sprintf("SIGKILL placed 2 %s %s", pkg, dir)); code != -1 {
		t.Fatalf("exit %d, want killed; stderr %q", code, stderr)
	}
	made := filepath.Join(root, "made", "here")
	if code, stderr := runHelper(t, fmt.Sprintf("SIGKILL placed 3 %s %s", pkg, made)); code != -1 {
		t.Fatalf("exit %d, want killed; stderr %q", code, stderr)
	}
	found, err := Recover(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(found) != 2 || found[0].Dir != made || found[0].Removed != 4 || found[1].Dir != dir || found[1].Restored != 2 || found[1].Removed != 1 {
		t.Errorf("found %+v", found)
	}
	sameTree(t, "after", tree(t, dir), before)
	if _, err := os.Lstat(filepath.Join(root, "made")); err == nil {
		t.Error("the folders the killed unpack made are left")
	}
	if found, err := Recover(dir); err != nil || len(found) != 0 {
		t.Errorf("again: %v %v", found, err)
	}
	if _, err := Recover(filepath.Join(root, "none")); err == nil || !strings.Contains(err.Error(), "none: no such file") {
		t.Errorf("a missing folder: %v", err)
	}
}
