// Package atomicfile writes files so that a reader sees either the old content or the
// complete new content, never a half-written file: data goes to a temporary file in
// the target's folder, which then takes the target's name in one rename. It is the
// one way bonebake writes an output file.
//
// What it guarantees:
//   - A failed write leaves the target as it was and no temporary file behind.
//   - Only regular files are replaced: a folder, a named pipe, a socket or a device
//     at the target's name is refused before anything is written.
//   - A symbolic link at the target's name is followed: the file it points to is
//     rewritten (in that file's folder) and the link stays (WriteReplacingLink
//     replaces the link instead, for unpacking, where a link must not be followed).
//   - A rewritten file keeps its mode; a new file gets 0666 less the umask.
//   - On Linux the temporary file is created unnamed (O_TMPFILE) and given a name
//     only when complete, so that even kill -9 or a power cut leaves nothing
//     behind; where the file system cannot, a hidden ".NAME.tmpNNN" file is used.
//   - With HandleInterrupts, SIGINT or SIGTERM during a write removes the
//     temporary file and exits 130 or 143.
//   - Files that belong together (a BPAT and its sidecar) are written as a Set:
//     they take their names together or not at all (see Set).
//
// It does not fsync: the guarantee is against failed or interrupted writes, not
// against power loss reordering the file system's writes, which keeps baking
// output-sized files fast (an fsync cost more than the bake itself).
package atomicfile

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/bonebake/bonebake/internal/regfile"
)

// ErrNotRegular is what a write onto something other than a regular file (a
// named pipe, a socket, a device) returns, wrapped.
var ErrNotRegular = errors.New("not a regular file")

// Write runs write on a buffered temporary file in the target's folder and gives
// it the target's name only when write, flush and close all succeed. On any
// failure the temporary file is removed and path is left as it was. A symbolic
// link at path is followed (see the package documentation).
func Write(path string, write func(io.Writer) error) error {
	return do(path, true, func(f *os.File) error {
		bw := newWriter(f)
		if err := write(bw); err != nil {
			return err
		}
		return bw.Flush()
	})
}

// WriteFunc is Write, or a Set's Write: what a package's WriteFileWith takes so
// that its file can be one of a set.
type WriteFunc = func(path string, write func(io.Writer) error) error

// writer is the buffered writer Write and WriteReplacingLink hand out: small
// writes gather in a 64 KiB buffer; a piece of half that or more (a bake's run
// of palette frames) goes straight to the file after what is buffered, instead
// of being copied through the buffer first.
type writer struct {
	*bufio.Writer
	f *os.File
}

// direct is the size from which a write skips the buffer.
const direct = 1 << 15

func newWriter(f *os.File) *writer {
	return &writer{Writer: bufio.NewWriterSize(f, 2*direct), f: f}
}

func (w *writer) Write(p []byte) (int, error) {
	if len(p) < direct {
		return w.Writer.Write(p)
	}
	if err := w.Flush(); err != nil {
		return 0, err
	}
	return w.f.Write(p)
}

// WriteFile is Write handing write the temporary file itself, unbuffered, for
// writers that seek.
func WriteFile(path string, write func(f *os.File) error) error {
	return do(path, true, write)
}

// WriteReplacingLink is Write, except that a symbolic link at path is replaced
// by the file instead of followed: what unpacking a package into a folder needs,
// where a link must never lead a write out of the folder.
func WriteReplacingLink(path string, write func(io.Writer) error) error {
	return do(path, false, func(f *os.File) error {
		bw := newWriter(f)
		if err := write(bw); err != nil {
			return err
		}
		return bw.Flush()
	})
}

// Check says whether Write could replace path, without writing: an error for a
// folder or a file that is not regular (a named pipe, a socket, a device), after
// following symbolic links. A missing file is fine. Commands call it before
// long work, so that a bad -o fails at once.
func Check(path string) error {
	_, _, err := resolve(path, true)
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// resolve follows symbolic links at path (when follow is set) to the file to
// write, and returns it with its current state (nil when it does not exist).
// A folder or a non-regular file is an error.
func resolve(path string, follow bool) (string, fs.FileInfo, error) {
	target := path
	for hops := 0; ; hops++ {
		st, err := os.Lstat(target)
		if errors.Is(err, fs.ErrNotExist) {
			return target, nil, nil
		}
		if err != nil {
			return "", nil, withoutPath(err)
		}
		m := st.Mode()
		switch {
		case m&fs.ModeSymlink != 0 && !follow:
			return target, nil, nil // replaced by the rename
		case m&fs.ModeSymlink != 0:
			if hops >= 40 {
				return "", nil, fmt.Errorf("too many levels of symbolic links")
			}
			link, err := os.Readlink(target)
			if err != nil {
				return "", nil, withoutPath(err)
			}
			if !filepath.IsAbs(link) {
				link = filepath.Join(filepath.Dir(target), link)
			}
			target = link
			continue
		case m.IsDir():
			if target != path {
				return "", nil, fmt.Errorf("it is a link to the directory %s", target)
			}
			return "", nil, fmt.Errorf("it is a directory")
		case !m.IsRegular():
			what := regfile.Kind(m)
			if target != path {
				what = "a link to " + what + " (" + target + ")"
			}
			return "", nil, notRegular{what}
		}
		return target, st, nil
	}
}

// notRegular is the error for a target that is not a regular file.
type notRegular struct{ what string }

func (e notRegular) Error() string {
	return "it is " + e.what + ", not a regular file; only regular files are replaced: remove it or choose another name"
}

func (e notRegular) Is(target error) bool { return target == ErrNotRegular }

// begin resolves path (following links when follow says so; a non-regular
// target is refused) and creates the temporary file beside the file it names:
// the first steps of every write, alone or in a Set.
func begin(path string, follow bool) (target string, st fs.FileInfo, tmp *tempFile, err error) {
	if target, st, err = resolve(path, follow); err != nil {
		return "", nil, nil, err
	}
	dir := filepath.Dir(target)
	if tmp, err = create(dir, filepath.Base(target), path); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			err = fmt.Errorf("folder %s does not exist: %w", dir, fs.ErrNotExist)
		}
		return "", nil, nil, err
	}
	return target, st, tmp, nil
}

func do(path string, follow bool, write func(*os.File) error) (err error) {
	defer func() {
		if err != nil {
			err = fmt.Errorf("writing %s: %w", path, withoutPath(err))
		}
	}()
	target, st, tmp, err := begin(path, follow)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tmp.discard()
		}
		end(tmp)
	}()
	if st != nil {
		// A rewritten file keeps its mode; a new one has the umask's (the
		// temporary file was created 0666 less the umask).
		if err = tmp.f.Chmod(st.Mode() & (fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky)); err != nil {
			return err
		}
	}
	if err = write(tmp.f); err != nil {
		return err
	}
	if st, serr := os.Lstat(target); serr == nil && (st.IsDir() || (!st.Mode().IsRegular() && st.Mode()&fs.ModeSymlink == 0)) {
		return fmt.Errorf("it became %s while writing", regfile.Kind(st.Mode()))
	}
	return tmp.commit(target)
}

// tempFile is a temporary file being written: unnamed (name == "") or named.
type tempFile struct {
	f    *os.File
	dir  string
	name string
}

// createNamed creates a hidden temporary file beside base in dir, mode 0666 less
// the umask.
func createNamed(dir, base string) (*os.File, error) {
	for try := 0; ; try++ {
		name := filepath.Join(dir, "."+base+".tmp"+nextSuffix())
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
		if errors.Is(err, fs.ErrExist) && try < 1000 {
			continue
		}
		return f, err
	}
}

var suffix atomic.Uint64

func nextSuffix() string {
	n := suffix.Add(1) + uint64(time.Now().UnixNano())%1_000_000_007 + uint64(os.Getpid())<<20
	return strconv.FormatUint(n%1_000_000_000_000, 10)
}

// discard closes and removes the temporary file.
func (t *tempFile) discard() {
	t.f.Close()
	if t.name != "" {
		os.Remove(t.name)
	}
}

// withoutPath drops the temporary file's name from an operating-system error: the
// user named the target, not the temporary file.
func withoutPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err
	}
	return err
}
