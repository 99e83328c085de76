// Package regfile opens the files readers are named, refusing at once anything
// that is not a regular file: a named pipe would block the open (or the read)
// until a writer comes, a device never ends (/dev/zero) or hands over bytes
// that are not a file's (/dev/stdin), and a socket cannot be opened at all.
// Readers read regular files only, so each says so, naming the path and what it
// is, instead of waiting or reporting a wrong magic.
//
// The path is looked at first (Stat, following links) so that nothing but a
// regular file is ever opened; the open itself does not block (O_NONBLOCK), and
// what was opened is checked again, so that a file swapped for a pipe between
// the two is refused too.
package regfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"unsafe"

	"github.com/edsrzf/mmap-go"
)

// ErrNotRegular is what opening something other than a regular file returns,
// wrapped in an *Error.
var ErrNotRegular = errors.New("not a regular file")

// ErrIsDirectory is what opening a directory returns, wrapped in an *Error.
var ErrIsDirectory = errors.New("is a directory, not a file")

// Error is a path that is not a regular file.
type Error struct {
	Path string
	Mode fs.FileMode // the file's type bits
}

func (e *Error) Error() string {
	if e.Mode.IsDir() {
		return e.Path + ": " + ErrIsDirectory.Error()
	}
	return fmt.Sprintf("%s: it is %s, not a regular file; only regular files are read", e.Path, Kind(e.Mode))
}

// Is makes errors.Is see ErrNotRegular (and ErrIsDirectory for a directory).
func (e *Error) Is(target error) bool {
	return target == ErrNotRegular || (target == ErrIsDirectory && e.Mode.IsDir())
}

// Kind names a file type in words: "a named pipe (FIFO)", "a character device", ….
func Kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m&fs.ModeIrregular != 0:
		return "a file of an unknown type"
	case m.IsRegular():
		return "a regular file"
	}
	return "not a regular file"
}

// check returns an *Error unless st is a regular file.
func check(path string, st fs.FileInfo) error {
	if st.Mode().IsRegular() {
		return nil
	}
	return &Error{Path: path, Mode: st.Mode().Type()}
}

// Open opens path for reading if it is a regular file (links followed), and
// returns it with its FileInfo. Anything else is an *Error, without waiting.
func Open(path string) (*os.File, fs.FileInfo, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, nil, err
	}
	if err := check(path, st); err != nil {
		return nil, nil, err
	}
	f, err := os.OpenFile(path, os.O_RDONLY|oNonblock, 0)
	if err != nil {
		return nil, nil, err
	}
	return verify(f, path, st)
}

// OpenInRoot is Open for a name inside root, opened through os.Root so that
// neither "../" nor a symbolic link leaves it.
func OpenInRoot(root, name string) (*os.File, fs.FileInfo, error) {
	r, err := os.OpenRoot(root)
	if err != nil {
		return nil, nil, err
	}
	defer r.Close()
	st, err := r.Stat(name)
	if err != nil {
		return nil, nil, rootError(root, err)
	}
	if err := check(name, st); err != nil {
		return nil, nil, err
	}
	f, err := r.OpenFile(name, os.O_RDONLY|oNonblock, 0)
	if err != nil {
		return nil, nil, rootError(root, err)
	}
	return verify(f, name, st)
}

// rootError words os.Root's error as Open's: "open DIR/NAME: no such file or
// directory", not "statat NAME: …" (a system call and a bare name). The cause
// stays wrapped, so errors.Is and "path escapes from parent" still show.
func rootError(root string, err error) error {
	var pe *fs.PathError
	if !errors.As(err, &pe) {
		return err
	}
	return &fs.PathError{Op: "open", Path: filepath.Join(root, pe.Path), Err: pe.Err}
}

// verify checks that f, just opened, is the regular file st described.
func verify(f *os.File, path string, st fs.FileInfo) (*os.File, fs.FileInfo, error) {
	got, err := f.Stat()
	if err == nil {
		err = check(path, got)
	}
	if err == nil && !os.SameFile(st, got) {
		err = fmt.Errorf("%s: the file changed while it was opened", path)
	}
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, got, nil
}

// ReadFile reads the whole of the regular file at path (os.ReadFile, but
// refusing what Open refuses).
func ReadFile(path string) ([]byte, error) {
	f, st, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readAll(f, st.Size())
}

// readAll reads f to its end; size is a hint: a file that grows while it is
// read is read to its end.
func readAll(f *os.File, size int64) ([]byte, error) {
	b := make([]byte, 0, size+1)
	for {
		n, err := f.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return nil, err
		}
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
	}
}

// Map returns the bytes of the regular file at path, mapped read-only, and
// release, which unmaps them: they must not be used after it. A mapping shares
// the pages the page cache already holds, where reading copies them into memory
// the process must first be given, page by page (a .gltf of 688 KB: 168 page
// faults, a sixth of a bake's on a VM where each costs tens of microseconds). An
// empty file, or one that cannot be mapped, is read instead (release then does
// nothing). The mapping has the file's size when it was opened: should the file
// be cut short meanwhile, reading the pages it lost faults (SIGBUS), which a
// reader turns into an error with debug.SetPanicOnFault (see Faulted).
func Map(path string) (data []byte, release func() error, err error) {
	f, st, err := Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	if st.Size() > 0 && int64(int(st.Size())) == st.Size() {
		if m, err := mmap.Map(f, mmap.RDONLY, 0); err == nil {
			return m, m.Unmap, nil
		}
	}
	data, err = readAll(f, st.Size())
	return data, func() error { return nil }, err
}

// Faulted reports whether r, a value recovered from a panic, is the fault of a
// read of data with debug.SetPanicOnFault on: the mapped file was cut short.
func Faulted(r any, data []byte) bool {
	f, ok := r.(interface{ Addr() uintptr })
	if !ok || len(data) == 0 {
		return false
	}
	start := uintptr(unsafe.Pointer(unsafe.SliceData(data)))
	return f.Addr() >= start && f.Addr()-start < uintptr(len(data))
}
