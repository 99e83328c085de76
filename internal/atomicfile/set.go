package atomicfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
)

// A Set is a group of output files that become visible together or not at all
// (a BPAT file, its gait sidecar and its snapshot; a bake's textures, mesh and
// report). Each file is written like Write writes one, into a temporary file
// beside its target (unnamed on Linux), and none takes its name until Commit:
//
//   - Commit holds an exclusive flock(2) on each target's folder, so that two
//     commands committing sets into the same folder take turns: the folder ends
//     holding one set or the other, never a mix.
//   - It checks every target again (a folder, a named pipe or a device at any
//     of the names fails the set before anything is renamed).
//   - It renames the files into place in the order they were written. On Linux
//     each rename is an exchange (renameat2 RENAME_EXCHANGE) that keeps the
//     old file under the new one's temporary name; elsewhere the old file is
//     kept as a hard link first. If a rename fails, the ones done are undone
//     from those old files, in reverse, and the set's error is returned; on
//     success the old files are removed.
//   - With HandleInterrupts, a SIGINT or SIGTERM before Commit removes the
//     set's temporary files (the previous files stay whole); one that arrives
//     during Commit's renames waits for them to finish or be undone (the
//     renames take microseconds), then ends the process.
//
// Readers do not lock: one that opens a set's files while a commit runs may
// see a file of each; one that wants a consistent set takes a shared flock on
// the folder while it opens them. kill -9 before the renames leaves nothing
// (the files are unnamed); during them (microseconds) it leaves a journal
// (JournalName) in each of the set's folders, and the next commit into any
// of them puts the old files back, or finishes the set when every file was
// renamed. A journal changes nothing outside its folder and touches only the
// commit's own files there (see JournalName); one that breaks its rules fails
// the commit that finds it, untouched.
// Without O_TMPFILE, kill -9 before the renames leaves the hidden
// ".NAME.tmpNNN" files, as Write does.
type Set struct {
	mu    sync.Mutex
	files []*member
	done  bool
}

// member is one file of a set.
type member struct {
	path   string // as the caller named it
	target string // the file written: path after following links
	tmp    *tempFile
	old    string // after its rename: the old file's hidden copy, if there was one
	undo   func() error
}

// NewSet starts an empty set.
func NewSet() *Set { return &Set{} }

// Write writes a file of the set as Write would, without giving it its name
// yet. On an error the file is dropped from the set (the others stay) and path
// is not touched.
func (s *Set) Write(path string, write func(io.Writer) error) error {
	return s.add(path, func(f *os.File) error {
		bw := newWriter(f)
		if err := write(bw); err != nil {
			return err
		}
		return bw.Flush()
	})
}

// WriteFile is Write handing write the temporary file itself, unbuffered, for
// writers that seek.
func (s *Set) WriteFile(path string, write func(f *os.File) error) error {
	return s.add(path, write)
}

// Paths returns the paths of the set's files, in the order written.
func (s *Set) Paths() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var p []string
	for _, m := range s.files {
		p = append(p, m.path)
	}
	return p
}

var errDone = errors.New("the set is already committed or discarded")

func (s *Set) add(path string, write func(*os.File) error) (err error) {
	defer func() {
		if err != nil {
			err = fmt.Errorf("writing %s: %w", path, withoutPath(err))
		}
	}()
	s.mu.Lock()
	done := s.done
	s.mu.Unlock()
	if done {
		return errDone
	}
	target, st, tmp, err := begin(path, true)
	if err != nil {
		return err
	}
	keep := false
	defer func() {
		if !keep {
			tmp.discard()
			end(tmp)
		}
	}()
	if st != nil {
		if err = tmp.f.Chmod(st.Mode() & (fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky)); err != nil {
			return err
		}
	}
	if err = write(tmp.f); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.done {
		return errDone
	}
	for _, m := range s.files {
		if m.target == target {
			return fmt.Errorf("the set already holds %s, the same file", m.path)
		}
	}
	s.files = append(s.files, &member{path: path, target: target, tmp: tmp})
	keep = true
	return nil
}

// Discard drops the set: its temporary files are removed and no target is
// touched. It does nothing after Commit.
func (s *Set) Discard() {
	s.mu.Lock()
	files := s.files
	if s.done {
		files = nil
	}
	s.done = true
	s.mu.Unlock()
	for _, m := range files {
		m.tmp.discard()
		end(m.tmp)
	}
}

// commitHook, when set (by tests), runs before the set's i-th rename and, as
// i = len(files), before the old files are removed, with the interrupt handler
// held off; an error it returns fails the commit there.
var commitHook func(i int) error

// exchangeOff makes commits keep old files as hard links, as where there is no
// exchange (tests).
var exchangeOff bool

// Commit gives every file of the set its name, all or none (see Set). After it
// the set is spent, whatever the result: on an error no target has changed
// and no temporary file is left.
func (s *Set) Commit() error {
	s.mu.Lock()
	if s.done {
		s.mu.Unlock()
		return errDone
	}
	s.done = true
	files := s.files
	s.mu.Unlock()
	if len(files) == 0 {
		return nil
	}
	var dirs []string
	for _, m := range files {
		dirs = append(dirs, filepath.Dir(m.target))
	}
	unlock, err := lockDirs(dirs)
	if err != nil {
		for _, m := range files {
			m.tmp.discard()
			end(m.tmp)
		}
		return fmt.Errorf("writing %s: %w", files[0].path, err)
	}
	defer unlock()
	// Under the interrupt handler's lock: a signal now waits until every file
	// is in place or every rename is undone, and finds none of the set's
	// writes in progress.
	mu.Lock()
	var jpaths []string
	err = recoverJournals(dirs)
	if err != nil {
		err = fmt.Errorf("writing %s: %w", files[0].path, err)
	} else {
		jpaths, err = commitLocked(files)
	}
	for _, m := range files {
		if err != nil {
			m.tmp.discard()
		}
		delete(active, m.tmp)
	}
	removeAll(jpaths) // last: every file is new, or old again
	stopWatching()
	if caught.Load() {
		heldOff = true // read by the handler once it has mu
	}
	mu.Unlock()
	if caught.Load() {
		// A signal arrived during the renames: the set is whole (new, or old
		// again), and the handler ends the process now.
		select {}
	}
	return err
}

// commitLocked renames files into place, all or none, and returns the paths
// of its journals for the caller to remove once the temporary files are gone
// (none when there are none, or when an undo failed: the journals then let a
// later commit finish the undo).
func commitLocked(files []*member) (jpaths []string, err error) {
	// Every target is checked again before anything is renamed: something may
	// have taken a name since its file was written.
	for _, m := range files {
		target, _, err := resolve(m.path, true)
		if err != nil {
			return nil, fmt.Errorf("writing %s: %w", m.path, err)
		}
		if target != m.target {
			return nil, fmt.Errorf("writing %s: it now leads to %s, not %s as when it was written", m.path, target, m.target)
		}
	}
	// The journal names each file's hidden name before the file has it: a kill
	// between the two leaves unnamed files, which vanish, and a journal that
	// names nothing yet.
	named := make([]string, len(files))
	for i, m := range files {
		named[i] = m.tmp.name
		if named[i] == "" {
			named[i] = m.tmp.f.Name() + nextSuffix()
		}
	}
	if jpaths, err = writeJournals(files, named); err != nil {
		return nil, fmt.Errorf("writing %s: the commit's journal: %w", files[0].path, err)
	}
	rewrite := false
	for i, m := range files {
		if m.tmp.name == "" {
			name, changed, err := m.tmp.nameAs(named[i])
			if err != nil {
				return jpaths, fmt.Errorf("writing %s: %w", m.path, withoutPath(err))
			}
			m.tmp.name, named[i] = name, name
			rewrite = rewrite || changed
		}
	}
	if rewrite { // copied into other files: other names and inodes
		removeAll(jpaths)
		if jpaths, err = writeJournals(files, named); err != nil {
			return nil, fmt.Errorf("writing %s: the commit's journal: %w", files[0].path, err)
		}
	}
	for _, m := range files {
		if err := m.tmp.f.Close(); err != nil {
			return jpaths, fmt.Errorf("writing %s: %w", m.path, withoutPath(err))
		}
	}
	var put []*member
	defer func() {
		if err == nil {
			return
		}
		for i := len(put) - 1; i >= 0; i-- {
			if uerr := put[i].undo(); uerr != nil {
				err = fmt.Errorf("%w; and putting back %s failed: %v (its old content is in %s)", err, put[i].path, withoutPath(uerr), put[i].old)
				jpaths = nil
			}
		}
	}()
	for i, m := range files {
		if commitHook != nil {
			if err := commitHook(i); err != nil {
				return jpaths, fmt.Errorf("writing %s: %w", m.path, err)
			}
		}
		if err := m.rename(); err != nil {
			return jpaths, fmt.Errorf("writing %s: %w", m.path, withoutPath(err))
		}
		put = append(put, m)
	}
	if commitHook != nil {
		if err := commitHook(len(files)); err != nil {
			return jpaths, fmt.Errorf("writing %s: %w", files[0].path, err)
		}
	}
	for _, m := range files {
		if m.old != "" {
			os.Remove(m.old)
		}
	}
	return jpaths, nil
}

// rename puts m's file in place, keeping what it replaces for undo.
func (m *member) rename() error {
	tmp, target := m.tmp.name, m.target
	// Where the exchange fails (no target: ENOENT; no exchange on this file
	// system: EINVAL), a plain rename does, keeping an old file as a hard link.
	if !exchangeOff && exchange(tmp, target) == nil {
		// tmp now holds the old file; a folder that took the target's place
		// since the check goes back.
		if st, serr := os.Lstat(tmp); serr == nil && st.IsDir() {
			if err := exchange(tmp, target); err != nil {
				return err
			}
			return fmt.Errorf("it became a directory")
		}
		m.old, m.tmp.name = tmp, ""
		m.undo = func() error {
			if err := exchange(m.old, target); err != nil {
				return err
			}
			m.tmp.name, m.old = m.old, "" // holds the new file: discarded
			return nil
		}
		return nil
	}
	if _, err := os.Lstat(target); err == nil {
		old := tmp + ".old"
		if err := os.Link(target, old); err != nil {
			// No hard links here (FAT): move the old file aside instead, which
			// leaves the name empty between the two renames.
			if err := os.Rename(target, old); err != nil {
				return err
			}
			if err := os.Rename(tmp, target); err != nil {
				os.Rename(old, target)
				return err
			}
		} else if err := os.Rename(tmp, target); err != nil {
			os.Remove(old)
			return err
		}
		m.old, m.tmp.name = old, ""
		m.undo = func() error { return os.Rename(m.old, target) }
		return nil
	}
	if err := os.Rename(tmp, target); err != nil {
		return err
	}
	m.tmp.name = ""
	m.undo = func() error { return os.Remove(target) }
	return nil
}
