package pack

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/bonebake/bonebake/formats"
	"github.com/bonebake/bonebake/internal/atomicfile"
)

// The journal of an unpack in progress (docs/formats/bpx.md §12). It lives in
// the hidden stage folder StageName inside the target folder, with the files
// being unpacked ("newN") and the files they replace ("oldN"). Each line is
// written before the change it describes, so that after kill -9 the next
// unpack knows everything that may have happened; a last line without its
// newline was cut short and its change never began.
//
//	bonebake unpack journal 2
//	package "creatures.bpx"
//	pid 1234
//	d "sub"             a folder created (relative to the target; ".", ".." for the target and above)
//	k "sub/a.txt" 0     the file there kept as oldN, to put back
//	p "sub/a.txt" D I S M B
//	                    newN renamed there; its stamp (atomicfile.Stamp): device,
//	                    inode, size, modification and creation times (ns; B 0: none)
//	committed           every file is in place: what is left is to drop the stage
const (
	journalMagic = "bonebake unpack journal 2"
	journalName  = "journal"

	// RuleJournal is the rule a damaged journal breaks.
	RuleJournal = "journal"
)

// ErrBusy is what an unpack returns (wrapped) when another unpack into the same
// folder is running.
var ErrBusy = errors.New("folder in use")

type op byte

const (
	opDir       op = 'd'
	opKeep      op = 'k'
	opPut       op = 'p'
	opCommitted op = 'c'
)

// record is one journal line.
type record struct {
	op  op
	rel string           // '/'-separated, relative to the target folder
	n   int              // opKeep: the backup's number
	st  atomicfile.Stamp // opPut: the placed file's stamp
}

func (r record) line() string {
	switch r.op {
	case opKeep:
		return fmt.Sprintf("k %s %d\n", strconv.Quote(r.rel), r.n)
	case opPut:
		return fmt.Sprintf("p %s %d %d %d %d %d\n", strconv.Quote(r.rel), r.st.Dev, r.st.Ino, r.st.Size, r.st.Mtime, r.st.Btime)
	case opCommitted:
		return "committed\n"
	}
	return fmt.Sprintf("d %s\n", strconv.Quote(r.rel))
}

// journal is what a journal file says.
type journal struct {
	pkg       string
	pid       int
	recs      []record
	committed bool
}

func header(pkg string) string {
	return fmt.Sprintf("%s\npackage %s\npid %d\n", journalMagic, strconv.Quote(pkg), os.Getpid())
}

// readJournal reads and checks the journal at path. Its names must stay in
// the target folder (SafeName), except a created folder's, which may be the
// target or above it (only ever removed when empty).
func readJournal(path string) (*journal, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var j journal
	off := 0
	bad := func(detail string) error {
		return &formats.FormatError{File: path, Rule: RuleJournal, Offset: int64(off), Index: -1, Detail: detail +
			"; it is not a journal this version of bonebake wrote: check the folder by hand and remove it"}
	}
	for n := 0; off < len(b); n++ {
		end := bytes.IndexByte(b[off:], '\n')
		if end < 0 {
			break // cut short by the end of the process: that change never began
		}
		line := string(b[off : off+end])
		word, rest, _ := strings.Cut(line, " ")
		switch {
		case n == 0:
			if line != journalMagic {
				return nil, bad(fmt.Sprintf("first line %q, want %q", line, journalMagic))
			}
		case n == 1 && word == "package":
			if j.pkg, err = strconv.Unquote(rest); err != nil {
				return nil, bad(fmt.Sprintf("package name %s is not a quoted string", rest))
			}
		case n == 2 && word == "pid":
			if j.pid, err = strconv.Atoi(rest); err != nil {
				return nil, bad(fmt.Sprintf("pid %q is not a number", rest))
			}
		case n < 3:
			return nil, bad(fmt.Sprintf("line %d is %q, want the %s", n+1, line, []string{"", "package", "pid"}[n]))
		case line == "committed":
			j.committed = true
		case word == "d" || word == "k" || word == "p":
			r, err := parseRecord(op(word[0]), rest)
			if err != nil {
				return nil, bad(fmt.Sprintf("line %d %q: %v", n+1, line, err))
			}
			j.recs = append(j.recs, r)
		default:
			return nil, bad(fmt.Sprintf("line %d %q: not a journal record", n+1, line))
		}
		off += end + 1
	}
	if off == 0 {
		return nil, bad("no header line")
	}
	return &j, nil
}

func parseRecord(o op, s string) (record, error) {
	r := record{op: o}
	q, err := strconv.QuotedPrefix(s)
	if err != nil {
		return r, errors.New("the name is not a quoted string")
	}
	r.rel, _ = strconv.Unquote(q)
	rest := strings.Fields(s[len(q):])
	want := map[op]int{opDir: 0, opKeep: 1, opPut: 5}[o]
	if len(rest) != want {
		return r, fmt.Errorf("%d numbers after the name, want %d", len(rest), want)
	}
	var nums [5]uint64
	for i, f := range rest {
		// Device, inode and backup numbers are unsigned; sizes and times
		// signed.
		if i < 2 {
			nums[i], err = strconv.ParseUint(f, 10, 64)
		} else {
			var v int64
			v, err = strconv.ParseInt(f, 10, 64)
			nums[i] = uint64(v)
		}
		if err != nil {
			return r, fmt.Errorf("%q is not a number", f)
		}
	}
	switch o {
	case opKeep:
		if nums[0] > 1<<31 {
			return r, fmt.Errorf("backup number %d out of range", nums[0])
		}
		r.n = int(nums[0])
	case opPut:
		r.st = atomicfile.Stamp{Dev: nums[0], Ino: nums[1], Size: int64(nums[2]), Mtime: int64(nums[3]), Btime: int64(nums[4])}
		if haveIDs && r.st.Ino == 0 {
			// Taken for "no inode numbers here", it would make any file at
			// the name the unpack's own.
			return r, errors.New("inode number 0")
		}
	}
	if o == opDir && aboveOrAt(r.rel) {
		return r, nil
	}
	if _, err := SafeName(r.rel); err != nil || strings.Contains(r.rel, `\`) {
		return r, fmt.Errorf("the name leaves the folder or is not one unpack writes")
	}
	return r, nil
}

// aboveOrAt says whether rel is the target folder (".") or one above it
// ("..", "../.."): folders an unpack may have created on the way to its target.
func aboveOrAt(rel string) bool {
	if rel == "." {
		return true
	}
	for _, p := range strings.Split(rel, "/") {
		if p != ".." {
			return false
		}
	}
	return true
}

// Recovered is an interrupted unpack that a later one found and finished or
// undid before starting.
type Recovered struct {
	Dir     string // the folder it unpacked into
	Package string // the package it unpacked, as it was named
	PID     int    // the process that ran it
	// Finished: it had put every file in place, and only its stage was left
	// to remove; otherwise it was undone.
	Finished          bool
	Restored, Removed int // files put back as they were, and files it had added that were removed
}

func (r Recovered) String() string {
	if r.Finished {
		return fmt.Sprintf("%s: an unpack of %s (process %d) was interrupted after it had put every file in place: finished it (removed its %s folder)",
			r.Dir, r.Package, r.PID, StageName)
	}
	return fmt.Sprintf("%s: an unpack of %s (process %d) was interrupted: undid it (%d replaced %s put back, %d new %s removed); the folder is as it was before it",
		r.Dir, r.Package, r.PID, r.Restored, plural(r.Restored, "file"), r.Removed, plural(r.Removed, "file"))
}

func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}

// recoverAt finishes or undoes an interrupted unpack into dir, when its stage
// folder is there. held says the caller holds dir's lock already: the caller
// unpacks into dir, and something of the stage's name that is not an unpack's
// stage is an error there (elsewhere it is not this unpack's concern); adopt, when
// given, takes the records of the folders it created at or above dir instead
// of removing them (the unpack into dir that found it is about to use them).
func recoverAt(dir string, held bool, adopt func([]record)) (*Recovered, error) {
	stage := filepath.Join(dir, StageName)
	st, err := os.Lstat(stage)
	if err != nil {
		return nil, nil // none (or none that can be seen: nothing to do)
	}
	if !st.IsDir() {
		if !held {
			return nil, nil // not an unpack's: none of this one's business
		}
		return nil, fmt.Errorf("%s: %s, not the folder bpx unpack keeps its journal in: move it away (unpacking uses this name)", stage, kindOf(st.Mode()))
	}
	if !held {
		l, err := lockDir(dir)
		if err != nil {
			return nil, err
		}
		defer l.Close()
	}
	j, err := readJournal(filepath.Join(stage, journalName))
	var fe *formats.FormatError
	if !held && errors.As(err, &fe) && fe.Offset == 0 {
		return nil, nil // not an unpack's journal: not this unpack's business
	}
	if errors.Is(err, fs.ErrNotExist) {
		// An unpack ended before it wrote its journal or after it removed
		// it: the folder is empty then, and goes; anything else in it stays.
		if os.Remove(stage) == nil || !held {
			return nil, nil
		}
		return nil, fmt.Errorf("%s holds no unpack journal and is not empty: not touched; move it away (bpx unpack keeps its journal under this name)", stage)
	}
	if err != nil {
		return nil, err
	}
	rec := &Recovered{Dir: dir, Package: j.pkg, PID: j.pid, Finished: j.committed}
	dirs := j.recs
	if !j.committed {
		rec.Restored, rec.Removed, err = undo(dir, stage, j.recs)
		if err != nil {
			return nil, fmt.Errorf("%s: undoing an interrupted unpack of %s: %w", dir, j.pkg, err)
		}
	}
	if err := clearStage(stage); err != nil {
		return nil, err
	}
	if !j.committed {
		if adopt != nil {
			var keep []record
			dirs = dirs[:0:0]
			for _, r := range j.recs {
				if r.op == opDir && aboveOrAt(r.rel) {
					keep = append(keep, r)
				} else {
					dirs = append(dirs, r)
				}
			}
			adopt(keep)
		}
		removeDirs(dir, dirs)
	}
	return rec, nil
}

// undo puts back what recs did in dir: each file kept is put back when the
// name holds the file the unpack put there or nothing, and each file put
// there that is still the one it put is removed. A name that holds another
// file (the one that was there all along, or one written since) keeps it.
func undo(dir, stage string, recs []record) (restored, removed int, err error) {
	keep := map[string]int{}
	put := map[string]record{}
	for _, r := range recs {
		switch r.op {
		case opKeep:
			keep[r.rel] = r.n
		case opPut:
			put[r.rel] = r
		}
	}
	var errs []error
	for i := len(recs) - 1; i >= 0; i-- {
		r := recs[i]
		if r.op != opKeep && r.op != opPut {
			continue
		}
		path, perr := inside(dir, r.rel)
		if perr != nil {
			errs = append(errs, perr)
			continue
		}
		_, serr := os.Lstat(path)
		ours := false
		if p, ok := put[r.rel]; ok && serr == nil {
			ours = isOurs(path, p.st)
		}
		switch r.op {
		case opPut:
			if n, ok := keep[r.rel]; ok && exists(backupPath(stage, n)) {
				continue // the kept file goes back over it, below
			}
			if ours {
				if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
					errs = append(errs, err)
					continue
				}
				removed++
			}
		case opKeep:
			saved := backupPath(stage, r.n)
			if !exists(saved) {
				continue // never made, or put back already
			}
			if ours || errors.Is(serr, fs.ErrNotExist) {
				if err := os.Rename(saved, path); err != nil {
					errs = append(errs, fmt.Errorf("putting back %s: %w", path, err))
					continue
				}
				restored++
			}
			// Otherwise the name still holds the file that was there (the
			// backup is a second link to it), or one written since: it stays.
		}
	}
	return restored, removed, errors.Join(errs...)
}

// isOurs says whether the file at path is the one an unpack put there: its
// stamp is the one recorded, all but the device number, which may change
// across the reboot that follows a power cut (the name is in dir's file
// system either way). An inode number alone could be guessed by whoever
// wrote the journal, and a file of the user's taken for the unpack's would
// be removed or replaced. Where the system gives no inode numbers, a file at
// the name is taken for the unpack's (docs/formats/bpx.md §12).
func isOurs(path string, want atomicfile.Stamp) bool {
	if !haveIDs {
		return true
	}
	s, ok := atomicfile.StampAt(path)
	return ok && s.Ino == want.Ino && s.Size == want.Size && s.Mtime == want.Mtime && s.Btime == want.Btime
}

// inside is rel under dir, refusing a symbolic link on the way: a journal
// never leads a change out of the folder.
func inside(dir, rel string) (string, error) {
	parts := strings.Split(rel, "/")
	path := dir
	for _, p := range parts[:len(parts)-1] {
		path = filepath.Join(path, p)
		st, err := os.Lstat(path)
		if err != nil {
			return "", err
		}
		if !st.IsDir() {
			return "", fmt.Errorf("%s is not a folder (%s); not following it", path, kindOf(st.Mode()))
		}
	}
	return filepath.Join(path, parts[len(parts)-1]), nil
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

func backupPath(stage string, n int) string { return filepath.Join(stage, "old"+strconv.Itoa(n)) }
func stagedPath(stage string, i int) string { return filepath.Join(stage, "new"+strconv.Itoa(i)) }

// clearStage removes the stage folder: the files an unpack writes there (the
// journal last, so that a stop half-way leaves it to the next run), then the
// folder. Anything else in it stays, and the folder with it.
func clearStage(stage string) error {
	entries, err := os.ReadDir(stage)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	for _, e := range entries {
		if n := e.Name(); isStageFile(n) {
			if err := os.Remove(filepath.Join(stage, n)); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return err
			}
		}
	}
	if err := os.Remove(filepath.Join(stage, journalName)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if err := os.Remove(stage); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("removing %s: it holds files bpx unpack did not put there: %w", stage, err)
	}
	return nil
}

// isStageFile says whether name is a file an unpack writes in its stage
// folder besides its journal: "newN" or "oldN".
func isStageFile(name string) bool {
	if !strings.HasPrefix(name, "new") && !strings.HasPrefix(name, "old") {
		return false
	}
	_, err := strconv.ParseUint(name[3:], 10, 31)
	return err == nil
}

// removeDirs removes the folders recs created, deepest first, when empty:
// what anyone else put there since stays, and the folder with it. A folder
// inside dir is reached through no symbolic link.
func removeDirs(dir string, recs []record) {
	for i := len(recs) - 1; i >= 0; i-- {
		r := recs[i]
		if r.op != opDir {
			continue
		}
		if aboveOrAt(r.rel) {
			os.Remove(filepath.Join(dir, filepath.FromSlash(r.rel)))
		} else if path, err := inside(dir, r.rel); err == nil {
			os.Remove(path)
		}
	}
}

// kindOf names what a name that is not a folder holds.
func kindOf(m fs.FileMode) string {
	switch {
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m.IsRegular():
		return "a file"
	case m.IsDir():
		return "a folder"
	}
	return "not a regular file (a pipe, a socket or a device)"
}

// Recover finishes or undoes the interrupted unpacks (processes killed) into
// dir, into the folders above it and into the folders under it, as the next
// unpack there would, without unpacking anything: what `bonebake bpx recover`
// runs. It returns what it found, in the order it dealt with them.
func Recover(dir string) ([]Recovered, error) {
	var found []Recovered
	note := func(r *Recovered, err error) error {
		if r != nil {
			found = append(found, *r)
		}
		return err
	}
	st, err := os.Stat(dir)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, fmt.Errorf("%s: %w", dir, err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("%s: not a folder", dir)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	for d := filepath.Dir(abs); ; d = filepath.Dir(d) {
		if err := note(recoverAt(d, false, nil)); err != nil {
			return found, err
		}
		if filepath.Dir(d) == d {
			break
		}
	}
	l, err := lockDir(dir)
	if err != nil {
		return nil, err
	}
	err = note(recoverAt(dir, true, nil))
	l.Close()
	if err != nil {
		return found, err
	}
	if _, err := os.Lstat(dir); err != nil {
		return found, nil // the unpack undone had made it
	}
	err = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case !d.IsDir():
			return nil
		case strings.EqualFold(d.Name(), StageName):
			return filepath.SkipDir
		case path == dir:
			return nil
		}
		if err := note(recoverAt(path, false, nil)); err != nil {
			return err
		}
		if _, err := os.Lstat(path); err != nil {
			return filepath.SkipDir // undone with the unpack that made it
		}
		return nil
	})
	return found, err
}
