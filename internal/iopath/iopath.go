// Package iopath holds the rules for the paths a program is given, one way for
// every command and for the libraries that write files themselves
// (gltfbake.BakeAll): a file to read is there and is not a folder; a file to
// write names no folder, existing or not, and is one atomicfile can replace;
// the folders made for it are recorded, so that a run that fails removes those
// it made and left empty.
package iopath

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/bonebake/bonebake/internal/atomicfile"
)

// Input checks that path is a file to read, so that a folder or a missing file
// gets a plain message instead of the mapping layer's.
func Input(path string) error {
	st, err := os.Stat(path)
	if err != nil {
		if os.IsNotExist(err) {
			return fmt.Errorf("%s: no such file", path)
		}
		return err
	}
	if st.IsDir() {
		return fmt.Errorf("%s: is a directory, not a file", path)
	}
	return nil
}

// Inputs is Input of each of paths in turn, the first error; an empty path, a
// setting or flag not given, is skipped.
func Inputs(paths ...string) error {
	for _, p := range paths {
		if p == "" {
			continue
		}
		if err := Input(p); err != nil {
			return err
		}
	}
	return nil
}

// OutputError is a path refused as a file to write (Dirs.Output), before
// anything is made or written. ReadsOn says Err's text reads on from the name
// of what gave the path, as bake.SettingError's does: the caller writes that
// name, a space and Err ("-o out/: names a folder; …"), where otherwise a colon
// comes between ("-o: writing p.bpat: …").
type OutputError struct {
	Err     error
	ReadsOn bool
}

func (e *OutputError) Error() string { return e.Err.Error() }
func (e *OutputError) Unwrap() error { return e.Err }

// Dirs are the folders a run made for its outputs, outermost first: a run that
// fails removes those it left empty (Undo), so that a failed bake does not
// leave behind the folder it made for its file. So does a SIGINT or SIGTERM
// while any is recorded (an atomicfile.Guard, from the first folder made until
// Undo or Forget): a program that called atomicfile.HandleInterrupts then
// exits through its handler, not by the signal's default action, which would
// leave them. The zero value is ready to use, by several goroutines at once.
type Dirs struct {
	mu   sync.Mutex
	made []string
	// gmu orders registering and releasing the guard; the interrupt handler
	// never takes it (its undo takes mu alone), so no lock order can cycle.
	gmu  sync.Mutex
	done func()
}

// Output makes path ready to be written as a file: an existing folder, a name
// ending in a separator and a file atomicfile cannot replace are refused, each
// as an *OutputError; then the folder it goes in is made when missing (Make).
// An error making it names path first.
func (d *Dirs) Output(path string) error {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return &OutputError{fmt.Errorf("%s: is a directory; give the file name to write", path), true}
	}
	// "out/" names a folder even before it exists: refused now, not after the
	// work when the write finds it is one.
	if path != "" && os.IsPathSeparator(path[len(path)-1]) {
		return &OutputError{fmt.Errorf("%s: names a folder; give the file name to write", path), true}
	}
	if err := atomicfile.Check(path); err != nil {
		return &OutputError{err, false}
	}
	if i := strings.LastIndexAny(path, `/\`); i > 0 {
		if err := d.Make(path[:i]); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
	}
	return nil
}

// Make makes dir and any missing folder above it, as os.MkdirAll, and records
// the ones it made.
func (d *Dirs) Make(dir string) error {
	var missing []string
	for p := filepath.Clean(dir); ; p = filepath.Dir(p) {
		if _, err := os.Lstat(p); err == nil {
			break
		}
		missing = append(missing, p)
		if filepath.Dir(p) == p {
			break
		}
	}
	if len(missing) > 0 {
		d.guard() // registered before the folders are made
	}
	err := os.MkdirAll(dir, 0o755)
	d.mu.Lock()
	defer d.mu.Unlock()
	for i := len(missing) - 1; i >= 0; i-- {
		if st, serr := os.Lstat(missing[i]); serr == nil && st.IsDir() {
			d.made = append(d.made, missing[i])
		}
	}
	return err
}

// guard has a signal remove the folders made, once: an undo that names
// nothing (returns true), since it leaves no file half written.
func (d *Dirs) guard() {
	d.gmu.Lock()
	defer d.gmu.Unlock()
	if d.done == nil {
		d.done = atomicfile.Guard("", func() bool { d.removeEmpty(); return true })
	}
}

// release ends the guard, if any.
func (d *Dirs) release() {
	d.gmu.Lock()
	defer d.gmu.Unlock()
	if d.done != nil {
		d.done()
		d.done = nil
	}
}

// removeEmpty removes the folders Make made that are still empty, innermost
// first (os.Remove leaves a folder that holds anything), and forgets them.
func (d *Dirs) removeEmpty() {
	d.mu.Lock()
	defer d.mu.Unlock()
	for i := len(d.made) - 1; i >= 0; i-- {
		os.Remove(d.made[i])
	}
	d.made = nil
}

// Undo removes the folders Make made that are still empty, innermost first,
// and forgets them.
func (d *Dirs) Undo() {
	d.removeEmpty()
	d.release()
}

// Forget forgets the folders Make made, for a run that succeeded.
func (d *Dirs) Forget() {
	d.mu.Lock()
	d.made = nil
	d.mu.Unlock()
	d.release()
}
