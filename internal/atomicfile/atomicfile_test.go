package atomicfile

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWriteReplaces(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out.bin")
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Write(path, func(w io.Writer) error { _, err := w.Write([]byte("new")); return err }); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != "new" {
		t.Fatalf("content %q, want new", b)
	}
}

// Pieces of every size, some past the size that skips the buffer, and each way
// of writing (Write, WriteString, WriteByte, io.Copy) land in the file in the
// order written.
func TestWriteKeepsOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, replace := range []bool{false, true} {
		var want bytes.Buffer
		path := filepath.Join(t.TempDir(), "out.bin")
		write := func(w io.Writer) error {
			for k := range 200 {
				n := rng.IntN(3 * direct)
				if k%3 == 0 {
					n = rng.IntN(100)
				}
				p := make([]byte, n)
				for i := range p {
					p[i] = byte(rng.Uint32())
				}
				want.Write(p)
				var err error
				switch k % 4 {
				case 0:
					_, err = w.Write(p)
				case 1:
					_, err = w.(io.StringWriter).WriteString(string(p))
				case 2:
					if len(p) > 0 {
						err = w.(io.ByteWriter).WriteByte(p[0])
						if err == nil {
							_, err = w.Write(p[1:])
						}
					}
				case 3:
					_, err = io.Copy(w, bytes.NewReader(p))
				}
				if err != nil {
					return err
				}
			}
			return nil
		}
		var err error
		if replace {
			err = WriteReplacingLink(path, write)
		} else {
			err = Write(path, write)
		}
		if err != nil {
			t.Fatal(err)
		}
		if b, _ := os.ReadFile(path); !bytes.Equal(b, want.Bytes()) {
			t.Fatalf("the file (%d bytes) is not the %d bytes written, in order", len(b), want.Len())
		}
	}
}

func TestFailedWriteKeepsOldFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.bin")
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	err := Write(path, func(w io.Writer) error {
		w.Write([]byte("partial"))
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v, want boom", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "old" {
		t.Fatalf("old file changed to %q", b)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Fatalf("temporary file left behind: %v", entries)
	}
}

func TestMissingDirectory(t *testing.T) {
	path := filepath.Join(t.TempDir(), "no", "such", "out.bin")
	if err := Write(path, func(io.Writer) error { return nil }); err == nil {
		t.Fatal("no error writing into a missing directory")
	}
}

// TestErrorsNameTheTarget: a failed write names the file the caller asked for, never
// the temporary file beside it.
func TestErrorsNameTheTarget(t *testing.T) {
	dir := t.TempDir()
	write := func(w io.Writer) error { _, err := w.Write([]byte("x")); return err }
	missing := filepath.Join(dir, "no", "such", "f.bin")
	err := Write(missing, write)
	if err == nil || !strings.Contains(err.Error(), "does not exist") || strings.Contains(err.Error(), ".tmp") || !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing folder: %v", err)
	}
	sub := filepath.Join(dir, "sub")
	os.Mkdir(sub, 0o755)
	err = Write(sub, write)
	if err == nil || !strings.Contains(err.Error(), "is a directory") || strings.Contains(err.Error(), ".tmp") {
		t.Errorf("onto a folder: %v", err)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".*")); len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
}
