package atomicfile

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/bonebake/bonebake/internal/regfile"
)

// JournalName is the name of a set's journal.
//
// A set's commit leaves a journal, JournalName, in each folder it writes into
// while it renames, and removes them when it is done or undone; a journal
// found later is from a commit that was killed (kill -9) during its renames,
// since its writer held the folder's flock all along. The next commit that
// locks that folder undoes it, or finishes it when every file was renamed.
//
// A journal is also a file anyone can put in a folder (a git clone, an
// archive), so it is trusted with nothing outside what it could have done
// itself. Each folder's journal names that folder's files only, by base name,
// each with the hidden name its new file had before the rename, which must be
// ".NAME.tmpDIGITS", the name a commit gives it; it changes nothing outside
// its folder. A journal names the other folders of its set only so that they
// are undone or finished with it (one decision for the whole set): such a
// folder is touched only when it holds a journal of the same set (the same
// random set number) itself. A target counts as holding the commit's new file
// only when its stamp (device, inode, size, modification time and, where the
// file system keeps one, creation time, to the nanosecond) is the one the
// commit read from its new file: an inode alone can be guessed, and a file of
// the user's that a hostile journal named would be put "back" or removed. A
// journal that breaks a rule is refused (a JournalError, rule "journal"): it
// is left where it is, nothing is changed, and the commit that found it fails,
// naming it. A journal cut short (a kill while it was written, before any
// rename) is removed.
const JournalName = ".bonebake-set.journal"

// RuleJournal is the rule a damaged or hostile journal breaks.
const RuleJournal = "journal"

const (
	journalVersion  = 2
	maxJournalBytes = 1 << 20
	maxJournalFiles = 4096
	maxJournalPeers = 256
)

// JournalError is a journal refused: File, the place in it (an entry such as
// "files[2]", or a byte offset), and what is wrong.
type JournalError struct {
	File   string
	Offset int64  // the byte offset, when Entry is empty
	Entry  string // "files[N]", "peers[N]", or "" for a place given by Offset
	Detail string
}

func (e *JournalError) Error() string {
	where := e.Entry
	if where == "" {
		where = fmt.Sprintf("offset %d", e.Offset)
	}
	return fmt.Sprintf("%s: %s: %s: %s; it was not acted on and is left in place: check the folder and remove it", e.File, where, RuleJournal, e.Detail)
}

// Stamp is what tells the file a commit wrote from every other file: its
// device and inode numbers, size, modification time and creation time (0
// where the file system keeps none), in nanoseconds. Renames keep them all;
// no one can give them to an existing file of theirs, let alone of someone
// else's (the two times cannot be set back to an unknown nanosecond by
// writing it, and a creation time cannot be set at all). Unpacking's journal
// (package pack) records it too.
type Stamp struct {
	Dev   uint64 `json:"dev"`
	Ino   uint64 `json:"ino"`
	Size  int64  `json:"size"`
	Mtime int64  `json:"mtime"`
	Btime int64  `json:"btime,omitempty"`
}

type journal struct {
	Version int           `json:"version"`
	Set     string        `json:"set"`             // 32 hex digits, random: the same in every folder of the set
	Files   []journalFile `json:"files"`           // this folder's files, in the order renamed
	Peers   []string      `json:"peers,omitempty"` // the set's other folders, absolute
}

type journalFile struct {
	Name  string `json:"name"`  // the target's base name
	Tmp   string `json:"tmp"`   // ".NAME.tmpDIGITS": the new file before the rename, the old after an exchange
	Stamp Stamp  `json:"stamp"` // the new file's
}

// OnRecover is told, when set, the targets of each killed commit that a later
// commit undid, or finished when it had renamed every file (a command prints a
// line; tests look).
var OnRecover func(targets []string, finished bool)

// writeJournals writes the journals of files, whose temporary files have or
// will have the hidden names named and are still open, one into each of
// their folders, and returns their paths; none when the system gives no
// inode numbers (the documented limit there).
func writeJournals(files []*member, named []string) ([]string, error) {
	type folder struct {
		dir string
		id  fs.FileInfo
		j   journal
	}
	var set [16]byte
	if _, err := rand.Read(set[:]); err != nil {
		return nil, err
	}
	var folders []*folder
	for i, m := range files {
		s, ok := stampFile(m.tmp.f)
		if !ok {
			return nil, nil
		}
		dir, err := filepath.Abs(filepath.Dir(m.target))
		if err != nil {
			return nil, err
		}
		st, err := os.Stat(dir)
		if err != nil {
			return nil, err
		}
		k := slices.IndexFunc(folders, func(f *folder) bool { return os.SameFile(f.id, st) })
		if k < 0 {
			k = len(folders)
			folders = append(folders, &folder{dir: dir, id: st, j: journal{Version: journalVersion, Set: hex.EncodeToString(set[:])}})
		}
		f := folders[k]
		f.j.Files = append(f.j.Files, journalFile{filepath.Base(m.target), filepath.Base(named[i]), s})
	}
	var paths []string
	for _, f := range folders {
		for _, o := range folders {
			if o != f {
				f.j.Peers = append(f.j.Peers, o.dir)
			}
		}
		b, err := json.Marshal(f.j)
		if err != nil {
			return nil, err
		}
		path := filepath.Join(f.dir, JournalName)
		if err = writeNew(path, append(b, '\n')); err != nil {
			removeAll(paths)
			return nil, err
		}
		paths = append(paths, path)
	}
	return paths, nil
}

// writeNew creates path, which must not exist, holding b, in one write.
func writeNew(path string, b []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
	}
	return err
}

func removeAll(paths []string) {
	for _, p := range paths {
		os.Remove(p)
	}
}

// recoverJournals undoes or finishes the killed commits whose journals are in
// dirs, which the caller holds locked. A journal refused is an error, and
// stops the caller's commit before it changes anything.
func recoverJournals(dirs []string) error {
	var held []fs.FileInfo
	var heldDirs []string
	for _, d := range dirs {
		st, err := os.Stat(d)
		if err != nil || slices.ContainsFunc(held, func(h fs.FileInfo) bool { return os.SameFile(h, st) }) {
			continue
		}
		held, heldDirs = append(held, st), append(heldDirs, d)
	}
	for _, d := range heldDirs {
		path := filepath.Join(d, JournalName)
		j, cut, err := readJournal(path)
		if err != nil {
			return err
		}
		if cut {
			// Cut short while it was written: no rename had begun.
			os.Remove(path)
			continue
		}
		if j != nil {
			undoSet(d, j, held)
		}
	}
	return nil
}

// readJournal reads and checks the journal at path: nil when there is none,
// cut when it was cut short while written.
func readJournal(path string) (j *journal, cut bool, err error) {
	st, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	bad := func(off int64, entry, detail string, args ...any) error {
		return &JournalError{File: path, Offset: off, Entry: entry, Detail: fmt.Sprintf(detail, args...)}
	}
	if err != nil {
		return nil, false, err
	}
	if !st.Mode().IsRegular() {
		what := regfile.Kind(st.Mode())
		switch {
		case st.Mode()&fs.ModeSymlink != 0:
			what = "a symbolic link"
		case st.IsDir():
			what = "a folder"
		}
		return nil, false, bad(0, "", "it is %s, not a regular file", what)
	}
	f, err := openNoFollow(path)
	if err != nil {
		return nil, false, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxJournalBytes+1))
	if err != nil {
		return nil, false, err
	}
	if len(b) > maxJournalBytes {
		return nil, false, bad(maxJournalBytes, "", "longer than %d bytes, far more than a set's journal", maxJournalBytes)
	}
	if len(b) == 0 || b[len(b)-1] != '\n' && !json.Valid(b) {
		return nil, true, nil
	}
	// The version first, so that a journal of another version is refused
	// as such rather than for its fields.
	var v struct {
		Version int `json:"version"`
	}
	if json.Unmarshal(b, &v) == nil && v.Version != journalVersion {
		return nil, false, bad(0, "", "version %d, want %d (a journal of an older bonebake is not trusted: its paths were not checked)", v.Version, journalVersion)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	j = new(journal)
	if err := dec.Decode(j); err != nil {
		var se *json.SyntaxError
		var te *json.UnmarshalTypeError
		off := dec.InputOffset()
		switch {
		case errors.As(err, &se):
			off = se.Offset
		case errors.As(err, &te):
			off = te.Offset
		}
		return nil, false, bad(off, "", "%v", err)
	}
	if off := dec.InputOffset(); string(b[off:]) != "\n" {
		return nil, false, bad(off, "", "more after the journal's object")
	}
	return j, false, checkJournal(j, bad)
}

// checkJournal checks the rules of the package comment on j.
func checkJournal(j *journal, bad func(off int64, entry, detail string, args ...any) error) error {
	if j.Version != journalVersion {
		return bad(0, "", "version %d, want %d (a journal of an older bonebake is not trusted: its paths were not checked)", j.Version, journalVersion)
	}
	if _, err := hex.DecodeString(j.Set); err != nil || len(j.Set) != 32 {
		return bad(0, "", "set %q is not 32 hexadecimal digits", j.Set)
	}
	if len(j.Files) == 0 || len(j.Files) > maxJournalFiles {
		return bad(0, "", "%d files, want 1 to %d", len(j.Files), maxJournalFiles)
	}
	for i, f := range j.Files {
		entry := fmt.Sprintf("files[%d]", i)
		if !baseName(f.Name) {
			return bad(0, entry, "name %q is not the name of a file in the journal's folder", f.Name)
		}
		if !tmpName(f.Name, f.Tmp) {
			return bad(0, entry, "tmp %q is not the hidden name a commit gives %s's new file (%q followed by digits)", f.Tmp, f.Name, "."+f.Name+".tmp")
		}
		if f.Stamp.Ino == 0 {
			return bad(0, entry, "no inode number")
		}
		if slices.ContainsFunc(j.Files[:i], func(o journalFile) bool { return o.Name == f.Name }) {
			return bad(0, entry, "%s is named twice", f.Name)
		}
	}
	if len(j.Peers) > maxJournalPeers {
		return bad(0, "", "%d other folders, want at most %d", len(j.Peers), maxJournalPeers)
	}
	for i, p := range j.Peers {
		if !filepath.IsAbs(p) || filepath.Clean(p) != p || strings.ContainsRune(p, 0) {
			return bad(0, fmt.Sprintf("peers[%d]", i), "folder %q is not a clean absolute path", p)
		}
	}
	return nil
}

// baseName says whether name names a file in a folder, and not the journal.
func baseName(name string) bool {
	return name != "" && name != "." && name != ".." && len(name) <= 255 &&
		!strings.ContainsAny(name, "/\x00"+string(filepath.Separator)) && !strings.EqualFold(name, JournalName)
}

// tmpName says whether tmp is a hidden name a commit gives name's new file:
// ".NAME.tmp" and a number (createNamed, tempFile.link).
func tmpName(name, tmp string) bool {
	digits, ok := strings.CutPrefix(tmp, "."+name+".tmp")
	if !ok || digits == "" || len(digits) > 20 {
		return false
	}
	for _, c := range digits {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// undoSet undoes the killed commit of journal j, found in dir, or finishes it
// when every target holds its new file already (the commit was removing the
// old copies). The set's other folders are undone with it when each holds a
// journal of the same set; one that the caller does not hold is locked for
// it, or, when another process holds it now, the whole undo waits for a
// later commit.
func undoSet(dir string, j *journal, held []fs.FileInfo) {
	type part struct {
		dir string
		j   *journal
	}
	parts := []part{{dir, j}}
	st, err := os.Stat(dir)
	if err != nil {
		return
	}
	seen := []fs.FileInfo{st}
	for _, p := range j.Peers {
		st, err := os.Stat(p)
		if err != nil || !st.IsDir() || slices.ContainsFunc(seen, func(h fs.FileInfo) bool { return os.SameFile(h, st) }) {
			continue
		}
		seen = append(seen, st)
		path := filepath.Join(p, JournalName)
		if pj, _, err := readJournal(path); err != nil || pj == nil || pj.Set != j.Set {
			continue // not a folder of this set: not touched
		}
		if !slices.ContainsFunc(held, func(h fs.FileInfo) bool { return os.SameFile(h, st) }) {
			release, ok := tryLockDir(p)
			if !ok {
				return
			}
			defer release()
		}
		// Read again under its lock: a recovery from there may have just
		// dealt with it.
		if pj, _, err := readJournal(path); err == nil && pj != nil && pj.Set == j.Set {
			parts = append(parts, part{p, pj})
		}
	}
	var targets []string
	renamed := map[string]bool{}
	finished := true
	for _, p := range parts {
		for _, f := range p.j.Files {
			target := filepath.Join(p.dir, f.Name)
			targets = append(targets, target)
			s, ok := StampAt(target)
			renamed[target] = ok && s == f.Stamp
			finished = finished && renamed[target]
		}
	}
	for k := len(parts) - 1; k >= 0; k-- {
		p := parts[k]
		for i := len(p.j.Files) - 1; i >= 0; i-- {
			f := p.j.Files[i]
			target := filepath.Join(p.dir, f.Name)
			if finished {
				os.Remove(filepath.Join(p.dir, f.Tmp))
				os.Remove(filepath.Join(p.dir, f.Tmp+".old"))
			} else {
				undoFile(p.dir, f, renamed[target])
			}
		}
	}
	// This folder's journal last: a recovery killed before it is taken up
	// again by the next commit here (each step is done once).
	for k := len(parts) - 1; k >= 0; k-- {
		os.Remove(filepath.Join(parts[k].dir, JournalName))
	}
	if OnRecover != nil {
		OnRecover(targets, finished)
	}
}

// undoFile puts back the old file of f, in dir; renamed says that the target
// holds f's new file (its stamp says so). Only hidden files of f's pattern
// and a target holding the commit's own file are ever removed or replaced.
func undoFile(dir string, f journalFile, renamed bool) {
	target := filepath.Join(dir, f.Name)
	tmp := filepath.Join(dir, f.Tmp)
	old := tmp + ".old"
	if !renamed {
		// The new file is still under its hidden name (or was never named).
		// Beside it may be the old file's hard link (the link way, killed
		// between the link and the rename), or the old file itself, moved
		// aside where there are no hard links (killed between the two
		// renames).
		if s, ok := StampAt(tmp); ok && s == f.Stamp {
			os.Remove(tmp)
		}
		if _, ok := StampAt(old); ok {
			if !exists(target) {
				os.Rename(old, target)
			} else if sameFile(old, target) {
				os.Remove(old)
			}
		}
		return
	}
	// Old copies are removed only once every file is renamed: each renamed
	// file's old copy is still there.
	_, hasTmp := StampAt(tmp)
	_, hasOld := StampAt(old)
	switch {
	case hasTmp:
		// Exchanged: the hidden name holds the old file.
		if exchange(tmp, target) == nil {
			os.Remove(tmp)
		}
	case hasOld:
		os.Rename(old, target)
	case !exists(tmp) && !exists(old):
		os.Remove(target) // it was new, and it is this commit's file
	}
}

func sameFile(a, b string) bool {
	sa, err := os.Lstat(a)
	if err != nil {
		return false
	}
	sb, err := os.Lstat(b)
	return err == nil && os.SameFile(sa, sb)
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return !errors.Is(err, fs.ErrNotExist)
}
