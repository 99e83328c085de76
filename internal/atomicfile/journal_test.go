//go:build unix

package atomicfile

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// plantV1 writes, into dir, a journal in the format bonebake wrote before
// journals were checked (absolute paths, device and inode): what a hostile
// folder (a clone, an archive) can hold.
func plantV1(t *testing.T, dir string, files ...map[string]any) {
	t.Helper()
	b, err := json.Marshal(map[string]any{"files": files})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, JournalName), b, 0o600); err != nil {
		t.Fatal(err)
	}
}

func devIno(t *testing.T, path string) (uint64, uint64) {
	t.Helper()
	st, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	sys := st.Sys().(*syscall.Stat_t)
	return uint64(sys.Dev), uint64(sys.Ino)
}

// TestJournalHostileV1: a journal planted in a folder, naming a file outside
// it and a file in it that no commit wrote (with their true device and inode
// numbers, the best guess an attacker can make), changes neither when a
// command next commits into the folder.
func TestJournalHostileV1(t *testing.T) {
	dir, elsewhere := t.TempDir(), t.TempDir()
	outside := filepath.Join(elsewhere, "victim.txt")
	inside := filepath.Join(dir, "model.glb")
	planted := filepath.Join(dir, "planted")
	for _, p := range []string{outside, inside, planted} {
		if err := os.WriteFile(p, []byte("mine "+filepath.Base(p)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	od, oi := devIno(t, outside)
	id, ii := devIno(t, inside)
	plantV1(t, dir,
		map[string]any{"target": inside, "tmp": planted, "dev": id, "ino": ii},
		map[string]any{"target": outside, "tmp": filepath.Join(elsewhere, "gone"), "dev": od, "ino": oi},
		// One not renamed: the commit is undone, not finished.
		map[string]any{"target": filepath.Join(dir, "none"), "tmp": filepath.Join(dir, ".none.tmp1"), "dev": 1, "ino": 1},
	)
	s := NewSet()
	if err := s.Write(filepath.Join(dir, "x.bpat"), writeString("new")); err != nil {
		t.Fatal(err)
	}
	err := s.Commit()
	var je *JournalError
	if !errors.As(err, &je) || je.File != filepath.Join(dir, JournalName) || !strings.Contains(err.Error(), "journal: version 0") {
		t.Errorf("commit: %v; want the journal refused for its version", err)
	}
	if _, err := os.Stat(filepath.Join(dir, JournalName)); err != nil {
		t.Errorf("the refused journal is not left in place: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "x.bpat")); err == nil {
		t.Errorf("the commit went on")
	}
	for _, p := range []string{outside, inside, planted} {
		if b, err := os.ReadFile(p); err != nil || string(b) != "mine "+filepath.Base(p) {
			t.Errorf("%s: %q, %v; want it untouched", p, b, err)
		}
	}
}

// hostile is a folder holding a user's files, and another folder with one,
// for planted journals to aim at.
type hostile struct {
	dir, elsewhere        string
	inside, outside, tmp1 string
}

func newHostile(t *testing.T) *hostile {
	h := &hostile{dir: t.TempDir(), elsewhere: t.TempDir()}
	h.inside = filepath.Join(h.dir, "model.glb")
	h.outside = filepath.Join(h.elsewhere, "victim.txt")
	h.tmp1 = filepath.Join(h.dir, ".model.glb.tmp1") // a hidden file no commit made
	for _, p := range h.files() {
		if err := os.WriteFile(p, []byte("mine "+filepath.Base(p)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return h
}

func (h *hostile) files() []string { return []string{h.inside, h.outside, h.tmp1} }

// check fails unless every file of the user's is as it was.
func (h *hostile) check(t *testing.T) {
	t.Helper()
	for _, p := range h.files() {
		if b, err := os.ReadFile(p); err != nil || string(b) != "mine "+filepath.Base(p) {
			t.Errorf("%s: %q, %v; want it untouched", p, b, err)
		}
	}
}

// stampOfPath is the stamp a journal would need to take path's file for the
// commit's own.
func stampOfPath(t *testing.T, path string) Stamp {
	t.Helper()
	s, ok := StampAt(path)
	if !ok {
		t.Fatal("no stamp of", path)
	}
	return s
}

// plant writes j as the journal in dir.
func plant(t *testing.T, dir string, j any) {
	t.Helper()
	b, err := json.Marshal(j)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, JournalName), append(b, '\n'), 0o600); err != nil {
		t.Fatal(err)
	}
}

// commitInto commits one new file into dir.
func commitInto(dir string) error {
	s := NewSet()
	if err := s.Write(filepath.Join(dir, "x.bpat"), writeString("new")); err != nil {
		return err
	}
	return s.Commit()
}

const setID = "0123456789abcdef0123456789abcdef"

// TestJournalRules: a journal that breaks a rule (a name or hidden name that
// leads out of the folder or is not one a commit writes, another version, a
// field it does not have, a folder named by a relative path) is refused,
// naming the file, the rule and the entry or offset; it is left in place,
// the commit fails before changing anything, and every file stays.
func TestJournalRules(t *testing.T) {
	good := func(h *hostile) journalFile {
		return journalFile{Name: "model.glb", Tmp: ".model.glb.tmp1", Stamp: stampOfPath(t, h.inside)}
	}
	cases := []struct {
		name  string
		where string // in the message
		j     func(h *hostile) any
	}{
		{"name up", "files[0]", func(h *hostile) any {
			f := good(h)
			f.Name, f.Tmp = "../"+filepath.Base(h.elsewhere)+"/victim.txt", "."+f.Name+".tmp1"
			return journal{Version: 2, Set: setID, Files: []journalFile{f}}
		}},
		{"name absolute", "files[0]", func(h *hostile) any {
			f := good(h)
			f.Name = h.outside
			f.Tmp = "." + f.Name + ".tmp1"
			return journal{Version: 2, Set: setID, Files: []journalFile{f}}
		}},
		{"tmp absolute", "files[0]", func(h *hostile) any {
			f := good(h)
			f.Tmp = h.outside
			return journal{Version: 2, Set: setID, Files: []journalFile{f}}
		}},
		{"tmp not the pattern", "files[0]", func(h *hostile) any {
			f := good(h)
			f.Tmp = "victim.txt"
			return journal{Version: 2, Set: setID, Files: []journalFile{f}}
		}},
		{"tmp without digits", "files[0]", func(h *hostile) any {
			f := good(h)
			f.Tmp = ".model.glb.tmp"
			return journal{Version: 2, Set: setID, Files: []journalFile{f}}
		}},
		{"name twice", "files[1]", func(h *hostile) any {
			return journal{Version: 2, Set: setID, Files: []journalFile{good(h), good(h)}}
		}},
		{"the journal itself", "files[0]", func(h *hostile) any {
			return journal{Version: 2, Set: setID, Files: []journalFile{{JournalName, "." + JournalName + ".tmp1", stampOfPath(t, h.inside)}}}
		}},
		{"peer relative", "peers[0]", func(h *hostile) any {
			return journal{Version: 2, Set: setID, Files: []journalFile{good(h)}, Peers: []string{"../x"}}
		}},
		{"peer not clean", "peers[0]", func(h *hostile) any {
			return journal{Version: 2, Set: setID, Files: []journalFile{good(h)}, Peers: []string{h.dir + "/../x"}}
		}},
		{"version", "offset 0", func(h *hostile) any {
			return journal{Version: 3, Set: setID, Files: []journalFile{good(h)}}
		}},
		{"set", "offset 0", func(h *hostile) any {
			return journal{Version: 2, Set: "xyz", Files: []journalFile{good(h)}}
		}},
		{"no files", "offset 0", func(h *hostile) any {
			return journal{Version: 2, Set: setID}
		}},
		{"unknown field", "offset ", func(h *hostile) any {
			return map[string]any{"version": 2, "set": setID, "files": []journalFile{good(h)}, "target": h.outside}
		}},
	}
	raw := []struct{ name, where, text string }{
		{"more after the object", "offset 65", `{"version":2,"set":"` + setID + `","files":[]} {}` + "\n"},
		{"too long", "offset 1048576", `{"version":2,"set":"` + setID + `","files":[` + strings.Repeat(" ", 1<<20) + "]}\n"},
		{"not an object", "offset 1", "[1,2]\n"},
	}
	for _, c := range raw {
		t.Run(c.name, func(t *testing.T) {
			h := newHostile(t)
			os.WriteFile(filepath.Join(h.dir, JournalName), []byte(c.text), 0o600)
			err := commitInto(h.dir)
			var je *JournalError
			if want := filepath.Join(h.dir, JournalName) + ": " + c.where + ": journal: "; !errors.As(err, &je) || !strings.Contains(err.Error(), want) {
				t.Errorf("commit: %v; want a journal error starting %q", err, want)
			}
			if _, err := os.Stat(filepath.Join(h.dir, JournalName)); err != nil {
				t.Errorf("the journal is not left in place: %v", err)
			}
			h.check(t)
		})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := newHostile(t)
			plant(t, h.dir, c.j(h))
			err := commitInto(h.dir)
			var je *JournalError
			want := filepath.Join(h.dir, JournalName) + ": " + c.where
			if !errors.As(err, &je) || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), ": journal: ") {
				t.Errorf("commit: %v; want a journal error starting %q", err, want)
			}
			if _, err := os.Stat(filepath.Join(h.dir, JournalName)); err != nil {
				t.Errorf("the journal is not left in place: %v", err)
			}
			if _, err := os.Stat(filepath.Join(h.dir, "x.bpat")); err == nil {
				t.Errorf("the commit went on")
			}
			h.check(t)
		})
	}
}

// TestJournalNotRegular: a journal that is a link (to a user's file) or a
// named pipe is refused at once, without reading through it or waiting.
func TestJournalNotRegular(t *testing.T) {
	for _, what := range []string{"link", "fifo", "folder"} {
		h := newHostile(t)
		path := filepath.Join(h.dir, JournalName)
		switch what {
		case "link":
			os.Symlink(h.outside, path)
		case "fifo":
			if err := syscall.Mkfifo(path, 0o600); err != nil {
				t.Fatal(err)
			}
		case "folder":
			os.Mkdir(path, 0o755)
		}
		err := commitInto(h.dir)
		var je *JournalError
		if !errors.As(err, &je) || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("%s: commit: %v; want it refused as not a regular file", what, err)
		}
		h.check(t)
	}
}

// TestJournalStampGuessed: a well-formed journal naming a user's file in the
// folder with its true device, inode and size (an attacker's best guess) but
// not the times the commit's own file had leaves it, and a hidden file of the
// pattern that no commit made, alone: the file is not the commit's. The
// journal is dealt with (nothing of its set renamed) and the commit goes on.
func TestJournalStampGuessed(t *testing.T) {
	defer func(f func([]string, bool)) { OnRecover = f }(OnRecover)
	for _, finished := range []bool{false, true} {
		h := newHostile(t)
		s := stampOfPath(t, h.inside)
		s.Mtime--
		files := []journalFile{{"model.glb", ".model.glb.tmp1", s}}
		if !finished {
			// One more, never renamed: the set is undone rather than finished.
			files = append(files, journalFile{"none", ".none.tmp2", Stamp{Dev: s.Dev, Ino: 1}})
		}
		plant(t, h.dir, journal{Version: 2, Set: setID, Files: files})
		told := false
		OnRecover = func([]string, bool) { told = true }
		if err := commitInto(h.dir); err != nil {
			t.Fatal(err)
		}
		h.check(t)
		if !told {
			t.Error("OnRecover not told")
		}
		if _, err := os.Stat(filepath.Join(h.dir, JournalName)); err == nil {
			t.Error("the journal is left")
		}
	}
}

// TestJournalPeerOfAnotherSet: a journal naming another folder as one of its
// set changes nothing there unless that folder holds a journal of the same
// set: here it holds one of another set (which would remove its victim, were
// it acted on) and none at all.
func TestJournalPeerOfAnotherSet(t *testing.T) {
	for _, theirs := range []bool{false, true} {
		h := newHostile(t)
		victim := stampOfPath(t, h.outside)
		if theirs {
			other := journal{Version: 2, Set: strings.Repeat("f", 32), Files: []journalFile{
				{"victim.txt", ".victim.txt.tmp1", victim},
				{"none", ".none.tmp2", Stamp{Dev: victim.Dev, Ino: 1}},
			}}
			plant(t, h.elsewhere, other)
		}
		s := stampOfPath(t, h.inside)
		s.Btime, s.Mtime = 1, 1
		plant(t, h.dir, journal{Version: 2, Set: setID, Files: []journalFile{{"model.glb", ".model.glb.tmp1", s}}, Peers: []string{h.elsewhere}})
		if err := commitInto(h.dir); err != nil {
			t.Fatal(err)
		}
		h.check(t)
		if _, err := os.Stat(filepath.Join(h.elsewhere, JournalName)); theirs && err != nil {
			t.Errorf("the other folder's journal is gone: %v", err)
		}
	}
}

// TestSetKilledTwoFolders: a set whose last file goes into another folder,
// killed during its renames, leaves a journal in each folder; a commit into
// either folder undoes (or finishes) the whole set, in both.
func TestSetKilledTwoFolders(t *testing.T) {
	defer func(f func([]string, bool)) { OnRecover = f }(OnRecover)
	for _, at := range []int{1, 2, len(setNames)} {
		for _, from := range []string{"first", "second"} {
			name := fmt.Sprintf("killed before step %d, recovered from the %s folder", at, from)
			dir, dir2 := t.TempDir(), t.TempDir()
			oldSet(t, dir)
			last := setNames[len(setNames)-1]
			if err := os.Rename(filepath.Join(dir, last), filepath.Join(dir2, last)); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), "ATOMICFILE_SET_HELPER="+dir, "ATOMICFILE_DIR2="+dir2, fmt.Sprintf("ATOMICFILE_PAUSE_AT=%d", at))
			out, _ := cmd.StdoutPipe()
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			r := bufio.NewReader(out)
			for {
				line, err := r.ReadString('\n')
				if err != nil {
					t.Fatalf("%s: the helper ended first", name)
				}
				if line == "committing\n" {
					break
				}
			}
			cmd.Process.Kill()
			cmd.Wait()
			for _, d := range []string{dir, dir2} {
				if _, err := os.Stat(filepath.Join(d, JournalName)); err != nil {
					t.Errorf("%s: no journal in %s: %v", name, d, err)
				}
			}
			var got []string
			finished := false
			OnRecover = func(targets []string, f bool) { got, finished = targets, f }
			into := dir
			if from == "second" {
				into = dir2
			}
			s := NewSet()
			if err := s.Write(filepath.Join(into, "other.txt"), writeString("other")); err != nil {
				t.Fatal(err)
			}
			if err := s.Commit(); err != nil {
				t.Fatal(err)
			}
			if len(got) != len(setNames) || finished != (at == len(setNames)) {
				t.Errorf("%s: OnRecover told %v, finished %v", name, got, finished)
			}
			tag := "old"
			if at == len(setNames) {
				tag = "new"
			}
			want := map[string]string{}
			for _, n := range setNames[:len(setNames)-1] {
				want[filepath.Join(dir, n)] = tag + " " + n
			}
			want[filepath.Join(dir2, last)] = tag + " " + last
			want[filepath.Join(into, "other.txt")] = "other"
			have := map[string]string{}
			for _, d := range []string{dir, dir2} {
				for _, n := range folderNames(d) {
					b, _ := os.ReadFile(filepath.Join(d, n))
					have[filepath.Join(d, n)] = string(b)
				}
			}
			if fmt.Sprint(have) != fmt.Sprint(want) {
				t.Errorf("%s: the folders hold %v, want %v", name, have, want)
			}
		}
	}
}
