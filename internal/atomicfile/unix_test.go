//go:build unix

package atomicfile

import (
	"bufio"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func writeString(s string) func(io.Writer) error {
	return func(w io.Writer) error { _, err := io.WriteString(w, s); return err }
}

// TestRefusesNonRegular: a named pipe (or a link to one) at the target is refused
// before anything is written, and stays a named pipe.
func TestRefusesNonRegular(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "out.bpat")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("no named pipes here:", err)
	}
	link := filepath.Join(dir, "link.bpat")
	if err := os.Symlink("out.bpat", link); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{fifo, link} {
		err := Write(p, writeString("data"))
		if !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), "named pipe") || !strings.Contains(err.Error(), p) {
			t.Errorf("%s: err = %v, want a refusal naming the file and the named pipe", p, err)
		}
		if err := Check(p); !errors.Is(err, ErrNotRegular) {
			t.Errorf("Check(%s) = %v", p, err)
		}
	}
	if st, err := os.Lstat(fifo); err != nil || st.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the named pipe was replaced: %v %v", st.Mode(), err)
	}
	if err := Write("/dev/null", writeString("x")); !errors.Is(err, ErrNotRegular) {
		t.Errorf("/dev/null: %v", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 2 {
		t.Errorf("left in the folder: %v", entries)
	}
}

// TestFollowsLinks: a link at the target is kept and its target rewritten, the
// temporary file made in the target's folder.
func TestFollowsLinks(t *testing.T) {
	for _, unnamed := range []bool{true, false} {
		old := unnamedOK.Load()
		unnamedOK.Store(unnamed && old)
		a, b := t.TempDir(), t.TempDir()
		real := filepath.Join(b, "real.bin")
		os.WriteFile(real, []byte("old"), 0o600)
		link := filepath.Join(a, "out.bin")
		rel, _ := filepath.Rel(a, real)
		if err := os.Symlink(rel, link); err != nil {
			t.Fatal(err)
		}
		err := Write(link, func(w io.Writer) error {
			if e, _ := os.ReadDir(a); len(e) != 1 {
				t.Errorf("temporary file in the link's folder: %v", e)
			}
			if e, _ := os.ReadDir(b); !unnamedOK.Load() && len(e) != 2 {
				t.Errorf("no temporary file in the target's folder: %v", e)
			}
			_, err := io.WriteString(w, "new")
			return err
		})
		unnamedOK.Store(old)
		if err != nil {
			t.Fatal(err)
		}
		if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
			t.Errorf("link replaced: %v", err)
		}
		if got, _ := os.ReadFile(real); string(got) != "new" {
			t.Errorf("target holds %q", got)
		}
		if st, _ := os.Stat(real); st.Mode().Perm() != 0o600 {
			t.Errorf("target mode %v, want 0600 kept", st.Mode())
		}
		// A dangling link: its target is created.
		dangling := filepath.Join(a, "d.bin")
		os.Symlink(filepath.Join(b, "new.bin"), dangling)
		if err := Write(dangling, writeString("x")); err != nil {
			t.Fatal(err)
		}
		if got, _ := os.ReadFile(filepath.Join(b, "new.bin")); string(got) != "x" {
			t.Errorf("dangling link's target holds %q", got)
		}
		// Unpacking replaces a link rather than follows it.
		if err := WriteReplacingLink(link, writeString("unpacked")); err != nil {
			t.Fatal(err)
		}
		if st, _ := os.Lstat(link); st.Mode()&os.ModeSymlink != 0 {
			t.Error("WriteReplacingLink kept the link")
		}
		if got, _ := os.ReadFile(real); string(got) != "new" {
			t.Errorf("WriteReplacingLink wrote through the link: %q", got)
		}
	}
}

// TestModes: a rewritten file keeps its mode; a new one honours the umask.
func TestModes(t *testing.T) {
	for _, unnamed := range []bool{true, false} {
		old := unnamedOK.Load()
		unnamedOK.Store(unnamed && old)
		dir := t.TempDir()
		kept := filepath.Join(dir, "kept")
		os.WriteFile(kept, []byte("old"), 0o600)
		os.Chmod(kept, 0o640)
		if err := Write(kept, writeString("new")); err != nil {
			t.Fatal(err)
		}
		if st, _ := os.Stat(kept); st.Mode().Perm() != 0o640 {
			t.Errorf("unnamed %v: rewritten file's mode %v, want 0640", unnamed, st.Mode())
		}
		mask := syscall.Umask(0o077)
		err := Write(filepath.Join(dir, "new"), writeString("x"))
		syscall.Umask(0o027)
		err2 := Write(filepath.Join(dir, "new2"), writeString("x"))
		syscall.Umask(mask)
		unnamedOK.Store(old)
		if err != nil || err2 != nil {
			t.Fatal(err, err2)
		}
		if st, _ := os.Stat(filepath.Join(dir, "new")); st.Mode().Perm() != 0o600 {
			t.Errorf("unnamed %v: new file under umask 077 is %v, want 0600", unnamed, st.Mode())
		}
		if st, _ := os.Stat(filepath.Join(dir, "new2")); st.Mode().Perm() != 0o640 {
			t.Errorf("unnamed %v: new file under umask 027 is %v, want 0640", unnamed, st.Mode())
		}
	}
}

// TestUnnamedWhileWriting: on Linux, nothing is in the folder until the write is
// complete.
func TestUnnamedWhileWriting(t *testing.T) {
	if !unnamedOK.Load() {
		t.Skip("no unnamed temporary files on this system")
	}
	dir := t.TempDir()
	var seen []os.DirEntry
	if err := Write(filepath.Join(dir, "f"), func(w io.Writer) error {
		seen, _ = os.ReadDir(dir)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(seen) != 0 && unnamedOK.Load() {
		t.Errorf("folder during the write: %v", seen)
	}
}

// The interrupt tests run this test binary as a helper that writes forever.
func TestMain(m *testing.M) {
	if path := os.Getenv("ATOMICFILE_HELPER"); path != "" {
		helper(path)
		return
	}
	if dir := os.Getenv("ATOMICFILE_SET_HELPER"); dir != "" {
		setHelper(dir)
		return
	}
	os.Exit(m.Run())
}

func helper(path string) {
	if os.Getenv("ATOMICFILE_NAMED") != "" {
		unnamedOK.Store(false)
	}
	if os.Getenv("ATOMICFILE_SIGNAL_AT_CREATE") != "" {
		// SIGTERM as the temporary file comes into being, and time for the
		// handler to act before the write is registered, were it not held off.
		makeTemp = func(dir, base string) (*tempFile, error) {
			t, err := createTemp(dir, base)
			syscall.Kill(os.Getpid(), syscall.SIGTERM)
			time.Sleep(200 * time.Millisecond)
			return t, err
		}
	}
	HandleInterrupts(func(sig os.Signal, paths []string) {
		os.Stderr.WriteString("interrupted by " + sig.String() + " while writing " + strings.Join(paths, ", ") + "\n")
	})
	err := Write(path, func(w io.Writer) error {
		chunk := make([]byte, 1<<20)
		for i := 0; ; i++ {
			if _, err := w.Write(chunk); err != nil {
				return err
			}
			if i == 4 {
				os.Stdout.WriteString("writing\n")
			}
			time.Sleep(time.Millisecond)
		}
	})
	os.Stderr.WriteString("write ended: " + err.Error() + "\n")
	os.Exit(3)
}

// TestInterrupted: SIGINT and SIGTERM mid-write remove the temporary file and
// exit 130 and 143 with one line; SIGKILL leaves nothing either where the
// temporary file is unnamed. The old file is untouched in every case.
func TestInterrupted(t *testing.T) {
	cases := []struct {
		sig   syscall.Signal
		named bool
		code  int
	}{
		{syscall.SIGINT, false, 130}, {syscall.SIGTERM, false, 143}, {syscall.SIGKILL, false, -1},
		{syscall.SIGINT, true, 130}, {syscall.SIGTERM, true, 143},
	}
	for _, c := range cases {
		if c.sig == syscall.SIGKILL && !unnamedOK.Load() {
			continue
		}
		dir := t.TempDir()
		path := filepath.Join(dir, "out.bpat")
		os.WriteFile(path, []byte("old"), 0o644)
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), "ATOMICFILE_HELPER="+path)
		if c.named {
			cmd.Env = append(cmd.Env, "ATOMICFILE_NAMED=1")
		}
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, _ := cmd.StdoutPipe()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		line, _ := bufio.NewReader(out).ReadString('\n')
		if line != "writing\n" {
			t.Fatalf("helper said %q", line)
		}
		if c.named {
			if m, _ := filepath.Glob(filepath.Join(dir, ".out.bpat.tmp*")); len(m) != 1 {
				t.Errorf("named: no temporary file while writing: %v", m)
			}
		}
		cmd.Process.Signal(c.sig)
		err := cmd.Wait()
		code := cmd.ProcessState.ExitCode()
		if code != c.code {
			t.Errorf("%v (named %v): exit %d (%v), want %d; stderr %q", c.sig, c.named, code, err, c.code, stderr.String())
		}
		if c.code > 0 {
			want := "interrupted by " + c.sig.String() + " while writing " + path + "\n"
			if stderr.String() != want {
				t.Errorf("%v: stderr %q, want %q", c.sig, stderr.String(), want)
			}
		}
		entries, _ := os.ReadDir(dir)
		if len(entries) != 1 {
			t.Errorf("%v (named %v): left in the folder: %v", c.sig, c.named, entries)
		}
		if b, _ := os.ReadFile(path); string(b) != "old" {
			t.Errorf("%v: the old file changed", c.sig)
		}
	}
}

// TestInterruptedAtCreate: a SIGTERM that arrives while the temporary file is
// being made still names the write it interrupted and leaves the folder as it
// was (named temporary file or not): the file is made and the write registered
// under the lock its handler waits for.
func TestInterruptedAtCreate(t *testing.T) {
	for _, named := range []bool{false, true} {
		dir := t.TempDir()
		path := filepath.Join(dir, "out.bpat")
		os.WriteFile(path, []byte("old"), 0o644)
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), "ATOMICFILE_HELPER="+path, "ATOMICFILE_SIGNAL_AT_CREATE=1")
		if named {
			cmd.Env = append(cmd.Env, "ATOMICFILE_NAMED=1")
		}
		var stderr strings.Builder
		cmd.Stderr = &stderr
		cmd.Run()
		if code := cmd.ProcessState.ExitCode(); code != 143 {
			t.Errorf("named %v: exit %d, want 143; stderr %q", named, code, stderr.String())
		}
		if want := "interrupted by terminated while writing " + path + "\n"; stderr.String() != want {
			t.Errorf("named %v: stderr %q, want %q", named, stderr.String(), want)
		}
		if entries, _ := os.ReadDir(dir); len(entries) != 1 {
			t.Errorf("named %v: left in the folder: %v", named, entries)
		}
		if b, _ := os.ReadFile(path); string(b) != "old" {
			t.Errorf("named %v: the old file changed", named)
		}
	}
}

// TestReplaceLeavesOldInodeAndNoFile: replacing a file swaps in a new inode as a
// rename does (a hard link to the old file keeps the old bytes) and leaves
// nothing else in the folder (the old file, swapped out under the temporary
// name, is removed).
func TestReplaceLeavesOldInodeAndNoFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.bin")
	if err := os.WriteFile(path, []byte("old"), 0o640); err != nil {
		t.Fatal(err)
	}
	keep := filepath.Join(t.TempDir(), "kept")
	if err := os.Link(path, keep); err != nil {
		t.Skip("no hard links here:", err)
	}
	for _, s := range []string{"new", "newer"} {
		if err := Write(path, writeString(s)); err != nil {
			t.Fatal(err)
		}
		if b, _ := os.ReadFile(path); string(b) != s {
			t.Fatalf("content %q, want %q", b, s)
		}
	}
	if b, _ := os.ReadFile(keep); string(b) != "old" {
		t.Errorf("a hard link to the old file reads %q, want old", b)
	}
	if st, err := os.Stat(path); err != nil || st.Mode().Perm() != 0o640 {
		t.Errorf("mode %v (%v), want 0640 kept", st.Mode().Perm(), err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("folder holds %v, want only out.bin", names)
	}
}
