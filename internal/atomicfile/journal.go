package atomicfile

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
)

// A set's commit leaves a journal in the folder of its first file while it
// renames: JournalName, listing each target, the hidden name its new file has
// before the rename (which holds the old file after an exchange) and the new
// file's device and inode numbers. The commit removes it when it is done or
// undone; a journal found later is from a commit that was killed (kill -9)
// during its renames, since its writer held the folder's flock all
// along. The next commit that locks that folder undoes it: a target that holds
// the new file (its inode says so) gets its old file back or, new, is removed;
// every hidden file is removed. The journal is complete before the first
// rename: one cut short (killed while written, so unreadable) is from before
// any rename, and is removed. One name per folder is enough: one commit at a
// time holds a folder's lock.
const JournalName = ".bonebake-set.journal"

type journal struct {
	Files []journalFile `json:"files"`
}

type journalFile struct {
	Target string `json:"target"` // absolute
	Tmp    string `json:"tmp"`    // absolute: the new file before the rename, the old after an exchange
	Dev    uint64 `json:"dev"`
	Ino    uint64 `json:"ino"`
}

// OnRecover, when set, is told the targets of each killed commit that a later
// commit undid, or finished when it had renamed every file (a command prints a
// line; tests look).
var OnRecover func(targets []string, finished bool)

// writeJournal writes the journal of files, whose temporary files have or will
// have the hidden names named and are still open, into the folder of the
// first, and returns its path; "" when the system gives no inode numbers (no
// journal: the documented limit there).
func writeJournal(files []*member, named []string) (string, error) {
	var j journal
	for i, m := range files {
		st, err := m.tmp.f.Stat()
		if err != nil {
			return "", err
		}
		dev, ino, ok := fileID(st)
		if !ok {
			return "", nil
		}
		target, err := filepath.Abs(m.target)
		if err != nil {
			return "", err
		}
		tmp, err := filepath.Abs(named[i])
		if err != nil {
			return "", err
		}
		j.Files = append(j.Files, journalFile{target, tmp, dev, ino})
	}
	b, err := json.Marshal(j)
	if err != nil {
		return "", err
	}
	path := filepath.Join(filepath.Dir(j.Files[0].Target), JournalName)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return "", err
	}
	_, err = f.Write(b)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
		return "", err
	}
	return path, nil
}

// recoverJournals undoes the killed commits whose journals are in dirs, which
// the caller holds locked.
func recoverJournals(dirs []string) {
	var held []fs.FileInfo
	for _, d := range dirs {
		if st, err := os.Stat(d); err == nil {
			held = append(held, st)
		}
	}
	for _, d := range dirs {
		path := filepath.Join(d, JournalName)
		b, err := os.ReadFile(path)
		if err != nil {
			continue
		}
		var j journal
		if json.Unmarshal(b, &j) != nil {
			// Cut short while it was written: no rename had begun.
			os.Remove(path)
			continue
		}
		if targets, finished, ok := undoJournal(&j, held); ok {
			os.Remove(path)
			if OnRecover != nil {
				OnRecover(targets, finished)
			}
		}
	}
}

// undoJournal puts back the old files of a killed commit, in reverse order, or,
// when every target holds its new file already (the commit was removing the
// old copies), finishes it. A folder of the journal that the caller does not
// hold is locked for the undo, or, when another commit holds it now, the undo
// waits for a later commit (ok false).
func undoJournal(j *journal, held []fs.FileInfo) (targets []string, finished, ok bool) {
	for _, f := range j.Files {
		d := filepath.Dir(f.Target)
		st, err := os.Stat(d)
		if err != nil || slices.ContainsFunc(held, func(h fs.FileInfo) bool { return os.SameFile(h, st) }) {
			continue
		}
		release, ok := tryLockDir(d)
		if !ok {
			return nil, false, false
		}
		defer release()
		held = append(held, st)
	}
	renamed := make([]bool, len(j.Files))
	finished = true
	for i, f := range j.Files {
		targets = append(targets, f.Target)
		if st, err := os.Lstat(f.Target); err == nil {
			dev, ino, ok := fileID(st)
			renamed[i] = ok && dev == f.Dev && ino == f.Ino
		}
		finished = finished && renamed[i]
	}
	if finished {
		for _, f := range j.Files {
			os.Remove(f.Tmp)
			os.Remove(f.Tmp + ".old")
		}
		return targets, true, true
	}
	// Old copies are removed only once every file is renamed: each renamed
	// file's old copy is still there.
	for i := len(j.Files) - 1; i >= 0; i-- {
		f := j.Files[i]
		switch {
		case !renamed[i]:
			// The new file is still under its hidden name. Beside it may be
			// the old file's hard link (the link way, killed between the link
			// and the rename), or the old file itself, moved aside where
			// there are no hard links (killed between the two renames).
			os.Remove(f.Tmp)
			if !exists(f.Target) && exists(f.Tmp+".old") {
				os.Rename(f.Tmp+".old", f.Target)
			} else {
				os.Remove(f.Tmp + ".old")
			}
		case exists(f.Tmp):
			// Exchanged: the hidden name holds the old file.
			if exchange(f.Tmp, f.Target) == nil {
				os.Remove(f.Tmp)
			}
		case exists(f.Tmp + ".old"):
			os.Rename(f.Tmp+".old", f.Target)
		default:
			os.Remove(f.Target) // it was new
		}
	}
	return targets, false, true
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return !errors.Is(err, fs.ErrNotExist)
}
