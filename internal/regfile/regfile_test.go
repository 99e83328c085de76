//go:build unix

package regfile

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// within fails the test if f takes more than a few seconds: before this package,
// opening a named pipe for reading waited for a writer for ever.
func within(t *testing.T, f func() error) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- f() }()
	select {
	case err := <-done:
		return err
	case <-time.After(20 * time.Second):
		t.Fatal("still waiting after 20 s: the open blocked")
		return nil
	}
}

func TestRefusesWhatIsNotARegularFile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe.bin")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("no named pipes here:", err)
	}
	link := filepath.Join(dir, "link.bin")
	if err := os.Symlink("pipe.bin", link); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(dir, "s.sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	for _, c := range []struct{ path, want string }{
		{fifo, "a named pipe (FIFO)"},
		{link, "a named pipe (FIFO)"},
		{sock, "a socket"},
		{"/dev/null", "a character device"},
		{"/dev/zero", "a character device"},
		{dir, "is a directory"},
	} {
		for name, open := range map[string]func() error{
			"Open":     func() error { _, _, err := Open(c.path); return err },
			"ReadFile": func() error { _, err := ReadFile(c.path); return err },
			"OpenInRoot": func() error {
				if filepath.Dir(c.path) != dir {
					_, _, err := OpenInRoot(filepath.Dir(c.path), filepath.Base(c.path))
					return err
				}
				_, _, err := OpenInRoot(dir, filepath.Base(c.path))
				return err
			},
		} {
			if c.path == dir && name == "OpenInRoot" {
				continue
			}
			err := within(t, open)
			var e *Error
			if !errors.As(err, &e) || !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), filepath.Base(c.path)) {
				t.Errorf("%s(%s) = %v, want an *Error naming the path and saying %q", name, c.path, err, c.want)
			}
			if c.path == dir && !errors.Is(err, ErrIsDirectory) {
				t.Errorf("%s(%s) = %v, want ErrIsDirectory", name, c.path, err)
			}
		}
	}
}

func TestReadsARegularFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "a.bin")
	want := strings.Repeat("bonebake", 10000)
	if err := os.WriteFile(p, []byte(want), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("a.bin", filepath.Join(dir, "l.bin")); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"a.bin", "l.bin"} {
		b, err := ReadFile(filepath.Join(dir, name))
		if err != nil || string(b) != want {
			t.Errorf("ReadFile(%s) = %d bytes, %v; want the %d bytes written", name, len(b), err, len(want))
		}
		f, st, err := OpenInRoot(dir, name)
		if err != nil || st.Size() != int64(len(want)) {
			t.Fatalf("OpenInRoot(%s) = %v, %v", name, st, err)
		}
		f.Close()
	}
	if _, err := ReadFile(filepath.Join(dir, "missing")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("ReadFile(missing) = %v, want ErrNotExist", err)
	}
	empty := filepath.Join(dir, "empty")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if b, err := ReadFile(empty); err != nil || len(b) != 0 {
		t.Errorf("ReadFile(empty) = %q, %v", b, err)
	}
}

// A file missing inside the root is named by the path looked for, in the words
// Open uses: os.Root's own error says "statat missing.jpg", a system call's
// name and the bare name, which a glTF's or FBX's missing texture printed
// as it was (issue 45, round 4).
func TestOpenInRootMissingNamesThePath(t *testing.T) {
	dir := t.TempDir()
	_, _, err := OpenInRoot(dir, "missing.jpg")
	if !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("err %v: want one that is os.ErrNotExist", err)
	}
	want := "open " + filepath.Join(dir, "missing.jpg") + ": no such file or directory"
	if err.Error() != want {
		t.Errorf("err %q, want %q", err, want)
	}
}
