package pack

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	pathpkg "path"
	"path/filepath"
	"strings"
	"sync"

	"github.com/bonebake/bonebake/formats/bpx"
	"github.com/bonebake/bonebake/internal/atomicfile"
)

// SafeName checks an object name for unpacking and returns its parts: it must
// be relative ('/' or '\' separated), with no empty, "." or ".." part, no NUL,
// no drive letter or colon, so that it names a file inside the target folder on
// every system, and no part named StageName or atomicfile.JournalName (in any
// case), so that no object is ever written where an unpack keeps its journal
// and backups, nor planted as the journal a later write of several files into
// the folder would act on.
func SafeName(name string) ([]string, error) {
	bad := func(why string) ([]string, error) {
		return nil, fmt.Errorf("object %q: %s: %w", name, why, ErrUnsafeName)
	}
	switch {
	case name == "":
		return bad("empty name")
	case strings.IndexByte(name, 0) >= 0:
		return bad("contains a NUL byte")
	case name[0] == '/' || name[0] == '\\':
		return bad("absolute path")
	case strings.ContainsRune(name, ':'):
		return bad("a drive letter or colon (C:, a:b)")
	}
	parts := strings.Split(strings.ReplaceAll(name, `\`, "/"), "/")
	for _, p := range parts {
		if p == "" {
			return bad("an empty part (a doubled or trailing separator)")
		}
		if p == ".." {
			return bad("a '..' part would leave the folder")
		}
		if p == "." {
			return bad("a '.' part")
		}
		if strings.EqualFold(p, StageName) {
			return bad("a part named " + StageName + ", the folder unpacking keeps its journal in")
		}
		if strings.EqualFold(p, atomicfile.JournalName) {
			// The journal the next write of several files into the folder
			// would read and act on: a package must not plant one.
			return bad("named " + atomicfile.JournalName + ", the journal bonebake's writes of several files keep")
		}
	}
	return parts, nil
}

// StageName is the hidden folder an unpack keeps its journal, the files it
// writes and the files they replace in, inside the target folder, until it
// ends (docs/formats/bpx.md §12). SafeName refuses it as any part of an object
// name, so it can never be an object; a file or folder of this name that is
// not an unpack's is never touched: unpacking refuses to start.
const StageName = ".bonebake-unpack"

// Unpacked is one file Unpack wrote.
type Unpacked struct {
	Path string
	Size uint64
}

// UnpackOptions are Unpack's settings.
type UnpackOptions struct {
	// Recovered, when set, is told of each interrupted unpack (the process
	// killed) found in the target folder, above it or in a folder it enters,
	// which this one finished or undid before going on.
	Recovered func(Recovered)
}

// Unpack writes every object of p under dir (created when missing): UnpackWith
// with no options.
func Unpack(p *bpx.Package, dir string) ([]Unpacked, error) {
	return UnpackWith(p, dir, UnpackOptions{})
}

// UnpackWith writes every object of p under dir (created when missing), all or
// nothing (docs/formats/bpx.md §12). Every name is checked before anything is
// written (SafeName; no object is both a file and another's folder), no
// symbolic link on the way is followed, and the objects are first written into
// the stage folder dir/StageName; only when all are complete and verified (a
// bad checksum is found only at the end of a data section several objects
// share) do they take their names, each file they replace kept in the stage
// until the end. A failure at any point, or SIGINT or SIGTERM in a command
// that called atomicfile.HandleInterrupts, puts back what was there exactly:
// replaced files restored, created files and folders removed, no stage left.
// After kill -9 or a power cut, the stage's journal lets the next unpack that
// touches the folder finish or undo the interrupted one first (o.Recovered is
// told). Two unpacks into one folder at once: the second fails with ErrBusy.
func UnpackWith(p *bpx.Package, dir string, o UnpackOptions) (out []Unpacked, err error) {
	name := "a package"
	if p.File != nil && p.File.Name != "" {
		name = p.File.Name
	}
	parts := make([][]string, len(p.Objects))
	for i, ob := range p.Objects {
		if parts[i], err = SafeName(ob.Name); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
	}
	if err := folderConflicts(p, parts); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	for _, part := range strings.Split(filepath.ToSlash(filepath.Clean(dir)), "/") {
		if strings.EqualFold(part, StageName) {
			return nil, fmt.Errorf("%s: not unpacking into a folder named %s, the name unpacking keeps its stage under: %w", dir, StageName, ErrUnsafeName)
		}
	}
	u := &unpacker{dir: dir, note: o.Recovered, entered: map[string]bool{}, staged: map[string]int{}}
	if u.note == nil {
		u.note = func(Recovered) {}
	}
	done := atomicfile.Guard(fmt.Sprintf("the files of %s into %s", name, dir), u.interrupt)
	defer done()
	defer func() {
		if err != nil {
			out = nil
			if uerr := u.abort(); uerr != nil {
				err = fmt.Errorf("%w; undoing the unpack failed too: %v (its journal in %s is left for the next bpx unpack into %s to finish undoing it)",
					err, uerr, u.stage, dir)
			}
		}
		if u.lock != nil {
			u.lock.Close()
		}
	}()
	if err := u.step(func() error { return u.begin(name) }); err != nil {
		return nil, err
	}
	err = p.Walk(func(i int, r io.Reader) error {
		ob := p.Objects[i]
		var f *os.File
		var path string
		if err := u.step(func() (err error) {
			if path, err = u.makeParents(parts[i]); err != nil {
				return err
			}
			rel := strings.Join(parts[i], "/")
			if prev, ok := u.staged[rel]; ok {
				os.Remove(stagedPath(u.stage, prev)) // a later object of the same name wins
			} else {
				u.order = append(u.order, rel)
			}
			u.staged[rel] = i
			f, err = os.OpenFile(stagedPath(u.stage, i), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
			return err
		}); err != nil {
			return fmt.Errorf("object %q: %w", ob.Name, err)
		}
		_, err := io.Copy(f, r)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("object %q: %w", ob.Name, err)
		}
		out = append(out, Unpacked{path, ob.Size})
		afterStep("staged", i)
		return nil
	})
	if err != nil {
		return nil, err
	}
	for n, rel := range u.order {
		if err := u.step(func() error { return u.place(rel) }); err != nil {
			return nil, err
		}
		afterStep("placed", n)
	}
	if err := u.step(u.commit); err != nil {
		return nil, err
	}
	afterStep("committed", 0)
	return out, u.step(u.finish)
}

// afterStep is called after each step of an unpack; tests stop the process
// there.
var afterStep = func(phase string, n int) {}

// folderConflicts refuses a package in which one object's name is a folder on
// the way to another's ("a" and "a/b"): both cannot be unpacked.
func folderConflicts(p *bpx.Package, parts [][]string) error {
	files := map[string]int{}
	for i, ps := range parts {
		files[strings.Join(ps, "/")] = i
	}
	for i, ps := range parts {
		for k := 1; k < len(ps); k++ {
			if j, ok := files[strings.Join(ps[:k], "/")]; ok {
				return fmt.Errorf("object %q is a file and a folder of object %q: %w", p.Objects[j].Name, p.Objects[i].Name, ErrUnsafeName)
			}
		}
	}
	return nil
}

// unpacker is an unpack in progress. Each change to the file system is a step
// taken under mu and recorded before it is made, in recs and in the journal,
// so that the interrupt handler, which takes mu and never gives it back, sees
// every change either made (and recorded) or not begun.
type unpacker struct {
	mu        sync.Mutex
	dir       string
	stage     string   // dir/StageName, once made
	journal   *os.File // its journal, once made
	lock      *os.File // dir, locked
	recs      []record
	over      bool // undone or finished: no step may follow
	committed bool // every file in place
	note      func(Recovered)
	entered   map[string]bool // existing folders checked for an interrupted unpack
	staged    map[string]int  // name → the object staged for it
	order     []string        // names, in the order they are first staged
	keeps     int
}

// errOver is what a step returns after the unpack was undone by a signal: the
// process is exiting.
var errOver = errors.New("unpack undone")

func (u *unpacker) step(f func() error) error {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.over {
		return errOver
	}
	return f()
}

// log records r, in the journal when there is one yet, before its change.
func (u *unpacker) log(r record) error {
	u.recs = append(u.recs, r)
	if u.journal == nil {
		return nil
	}
	if _, err := u.journal.WriteString(r.line()); err != nil {
		return fmt.Errorf("writing the journal %s: %w", u.journal.Name(), err)
	}
	return nil
}

// begin makes dir, takes its lock, deals with interrupted unpacks at and above
// it, and makes the stage folder and its journal.
func (u *unpacker) begin(pkg string) error {
	abs, err := filepath.Abs(u.dir)
	if err != nil {
		return err
	}
	// Interrupted unpacks above dir first: undoing one may remove folders on
	// the way to dir.
	for d := filepath.Dir(abs); ; d = filepath.Dir(d) {
		if err := u.recover(d, false, nil); err != nil {
			return err
		}
		if filepath.Dir(d) == d {
			break
		}
	}
	if err := u.mkdirAll(); err != nil {
		return err
	}
	if u.lock, err = lockDir(u.dir); err != nil {
		return err
	}
	u.entered[filepath.Clean(u.dir)] = true
	// One into dir itself: the folders it made at and above dir are left for
	// this unpack, to remove if it fails in turn.
	if err := u.recover(u.dir, true, func(adopted []record) { u.recs = append(adopted, u.recs...) }); err != nil {
		return err
	}
	u.stage = filepath.Join(u.dir, StageName)
	if err := os.Mkdir(u.stage, 0o700); err != nil {
		u.stage = ""
		return fmt.Errorf("making the stage folder: %w", err)
	}
	j, err := os.OpenFile(filepath.Join(u.stage, journalName), os.O_WRONLY|os.O_CREATE|os.O_EXCL|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	var b strings.Builder
	b.WriteString(header(pkg))
	for _, r := range u.recs {
		b.WriteString(r.line())
	}
	u.journal = j
	if _, err := j.WriteString(b.String()); err != nil {
		return fmt.Errorf("writing the journal %s: %w", j.Name(), err)
	}
	return nil
}

// recover deals with an interrupted unpack into d, saying so.
func (u *unpacker) recover(d string, held bool, adopt func([]record)) error {
	r, err := recoverAt(d, held, adopt)
	if r != nil {
		u.note(*r)
	}
	return err
}

// mkdirAll creates dir and its missing parents, recording each.
func (u *unpacker) mkdirAll() error {
	var missing []string
	dir := filepath.Clean(u.dir)
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Lstat(d); err == nil {
			break
		}
		missing = append(missing, d)
		if filepath.Dir(d) == d {
			break
		}
	}
	for i := len(missing) - 1; i >= 0; i-- {
		rel, err := filepath.Rel(dir, missing[i])
		if err != nil {
			return err
		}
		if err := u.log(record{op: opDir, rel: filepath.ToSlash(rel)}); err != nil {
			return err
		}
		if err := os.Mkdir(missing[i], 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
			return err
		}
	}
	return nil
}

// makeParents creates the folders of parts under dir, refusing any that exists
// as a symbolic link or a file, and returns the file's path. The first time it
// enters a folder that exists, an interrupted unpack into it is dealt with.
func (u *unpacker) makeParents(parts []string) (string, error) {
	path := u.dir
	for k, p := range parts[:len(parts)-1] {
		path = filepath.Join(path, p)
		if !u.entered[path] {
			u.entered[path] = true
			if st, err := os.Lstat(path); err == nil && st.IsDir() {
				// The folders that unpack made at and above its target are
				// on this one's way: they become this one's to remove on
				// failure, instead of going now.
				prefix := strings.Join(parts[:k+1], "/")
				var aerr error
				err := u.recover(path, false, func(adopted []record) {
					for _, r := range adopted {
						rel := pathpkg.Join(prefix, r.rel)
						if rel != "." && rel != ".." && !strings.HasPrefix(rel, "../") && aerr == nil {
							aerr = u.log(record{op: opDir, rel: rel})
						}
					}
				})
				if err == nil {
					err = aerr
				}
				if err != nil {
					return "", err
				}
			}
		}
		st, err := os.Lstat(path)
		switch {
		case errors.Is(err, os.ErrNotExist):
			if err := u.log(record{op: opDir, rel: strings.Join(parts[:k+1], "/")}); err != nil {
				return "", err
			}
			if err := os.Mkdir(path, 0o755); err != nil {
				return "", err
			}
		case err != nil:
			return "", err
		case st.Mode()&os.ModeSymlink != 0:
			return "", fmt.Errorf("%s is a symbolic link; unpacking does not follow links", path)
		case !st.IsDir():
			return "", fmt.Errorf("%s is a file, not a folder", path)
		}
	}
	path = filepath.Join(path, parts[len(parts)-1])
	if st, err := os.Lstat(path); err == nil {
		if err := replaceable(path, st); err != nil {
			return "", err
		}
	}
	return path, nil
}

// replaceable says whether what is at path may be replaced by an object: a
// file or a symbolic link (replaced, not followed), not a folder or a special
// file.
func replaceable(path string, st fs.FileInfo) error {
	switch m := st.Mode(); {
	case m.IsDir():
		return fmt.Errorf("%s is a folder", path)
	case !m.IsRegular() && m&fs.ModeSymlink == 0:
		return fmt.Errorf("%s is not a regular file (a pipe, a socket or a device); unpacking replaces only files and links", path)
	}
	return nil
}

// place renames the file staged for rel into its place, keeping the file or
// link there (a second link to it in the stage, or the link itself moved
// there) to put back if the unpack fails. A replaced file's mode is kept.
func (u *unpacker) place(rel string) error {
	path := filepath.Join(u.dir, filepath.FromSlash(rel))
	staged := stagedPath(u.stage, u.staged[rel])
	st, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return err
	default:
		if err := replaceable(path, st); err != nil {
			return err
		}
		n := u.keeps
		u.keeps++
		if err := u.log(record{op: opKeep, rel: rel, n: n}); err != nil {
			return err
		}
		saved := backupPath(u.stage, n)
		if err := os.Link(path, saved); err != nil {
			if err = os.Rename(path, saved); err != nil {
				if crossDevice(err) {
					return fmt.Errorf("%s is on another file system than %s: unpacking cannot keep it to put it back on failure", path, u.dir)
				}
				return fmt.Errorf("keeping %s to put it back on failure: %w", path, err)
			}
		}
		if st.Mode().IsRegular() {
			if err := os.Chmod(staged, st.Mode()&(fs.ModePerm|fs.ModeSetuid|fs.ModeSetgid|fs.ModeSticky)); err != nil {
				return err
			}
		}
	}
	stamp, ok := atomicfile.StampAt(staged)
	if !ok && haveIDs {
		return fmt.Errorf("writing %s: its staged file %s cannot be told apart (no inode and times)", path, staged)
	}
	if err := u.log(record{op: opPut, rel: rel, st: stamp}); err != nil {
		return err
	}
	if err := os.Rename(staged, path); err != nil {
		if crossDevice(err) {
			return fmt.Errorf("%s is on another file system than %s: unpacking puts files in place from %s", filepath.Dir(path), u.dir, u.stage)
		}
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// commit records that every file is in place: from here on the unpack is
// done, and what is left (dropping the stage) is finished, never undone.
func (u *unpacker) commit() error {
	if err := u.log(record{op: opCommitted}); err != nil {
		return err
	}
	u.committed = true
	return nil
}

// finish drops the stage: the kept files and the journal.
func (u *unpacker) finish() error {
	u.over = true
	u.journal.Close()
	return clearStage(u.stage)
}

// interrupt is the SIGINT/SIGTERM handler's undo: it takes the lock for good
// (the process exits after it) and finishes a committed unpack (saying so) or
// undoes it.
func (u *unpacker) interrupt() (finished bool) {
	u.mu.Lock()
	if u.over {
		return u.committed
	}
	if u.committed {
		u.finish()
		return true
	}
	u.undoAll()
	return false
}

// abort undoes a failed unpack, unless a signal's handler has.
func (u *unpacker) abort() error {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.over {
		return nil
	}
	if u.committed {
		return u.finish()
	}
	return u.undoAll()
}

// undoAll puts back what the unpack changed; mu is held. When something cannot
// be put back, the stage and its journal stay for the next unpack to retry.
func (u *unpacker) undoAll() error {
	u.over = true
	if u.journal != nil {
		u.journal.Close()
	}
	if u.stage != "" {
		if _, _, err := undo(u.dir, u.stage, u.recs); err != nil {
			return err
		}
		if err := clearStage(u.stage); err != nil {
			return err
		}
	}
	removeDirs(u.dir, u.recs)
	return nil
}
