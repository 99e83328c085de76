package pack

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bonebake/bonebake/internal/atomicfile"
)

// tree is what a folder holds, for comparing before and after: each path with
// its kind, mode and content (a link's target); root itself is left out.
func tree(t *testing.T, root string) map[string]string {
	t.Helper()
	got := map[string]string{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if rel == "." {
			return nil
		}
		st, err := os.Lstat(path)
		if err != nil {
			return err
		}
		v := st.Mode().String()
		switch {
		case st.Mode()&fs.ModeSymlink != 0:
			l, _ := os.Readlink(path)
			v += " -> " + l
		case st.Mode().IsRegular():
			b, _ := os.ReadFile(path)
			v += " " + string(b)
		}
		got[filepath.ToSlash(rel)] = v
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// sameTree reports how got differs from want.
func sameTree(t *testing.T, what string, got, want map[string]string) {
	t.Helper()
	for k, v := range want {
		if g, ok := got[k]; !ok {
			t.Errorf("%s: %s missing (was %.40q)", what, k, v)
		} else if g != v {
			t.Errorf("%s: %s is %.60q, want %.60q", what, k, g, v)
		}
	}
	for k, v := range got {
		if _, ok := want[k]; !ok {
			t.Errorf("%s: %s left behind (%.40q)", what, k, v)
		}
	}
}

// TestUnpackBackupNamesNeverCollide: replaced files are kept in the stage
// folder, whose name no object can hold, so that neither a package's objects
// nor a user's files are ever taken for backups (issue 42 item 4: a package
// holding "a" and ".a.unpack-backup0" lost the second, and the unpack said it
// succeeded).
func TestUnpackBackupNamesNeverCollide(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a"), []byte("old a"), 0o644)
	os.WriteFile(filepath.Join(dir, ".b.unpack-backup0"), []byte("the user's"), 0o644)
	os.WriteFile(filepath.Join(dir, "b"), []byte("old b"), 0o644)
	p := packageOf(t, Bytes("a", []byte("new a")), Bytes(".a.unpack-backup0", []byte("an object")),
		Bytes(".a.unpack-backup1", []byte("another")), Bytes("b", []byte("new b")))
	if _, err := Unpack(p, dir); err != nil {
		t.Fatal(err)
	}
	sameTree(t, "after the unpack", tree(t, dir), map[string]string{
		"a":                 "-rw-r--r-- new a",
		".a.unpack-backup0": "-rw-r--r-- an object",
		".a.unpack-backup1": "-rw-r--r-- another",
		"b":                 "-rw-r--r-- new b",
		".b.unpack-backup0": "-rw-r--r-- the user's",
	})
}

// TestUnpackRefusesStageName: no object may be named, or lie under a folder
// named, like the stage folder, or be named like the journal of a write of
// several files (atomicfile.JournalName, which the next such write into the
// folder would act on), in any case: nothing is written.
func TestUnpackRefusesStageName(t *testing.T) {
	for _, name := range []string{StageName, StageName + "/journal", "x/.BONEBAKE-Unpack/old0", atomicfile.JournalName, "x/.BoneBake-Set.Journal"} {
		dir := t.TempDir()
		_, err := Unpack(packageOf(t, Bytes("ok.txt", nil), Bytes(name, []byte("x"))), dir)
		if !errors.Is(err, ErrUnsafeName) || !strings.Contains(err.Error(), "named .bonebake-") {
			t.Errorf("%q: %v, want it refused naming the reserved name", name, err)
		}
		if e, _ := os.ReadDir(dir); len(e) != 0 {
			t.Errorf("%q: wrote %v", name, e)
		}
	}
}

// TestUnpackRefusesStageAsTarget: the target folder cannot be a stage or lie
// in one (an unpack there would take the stage for its own).
func TestUnpackRefusesStageAsTarget(t *testing.T) {
	root := t.TempDir()
	for _, dir := range []string{filepath.Join(root, StageName), filepath.Join(root, ".Bonebake-Unpack", "x")} {
		if _, err := Unpack(packageOf(t, Bytes("a", nil)), dir); !errors.Is(err, ErrUnsafeName) || !strings.Contains(err.Error(), dir) {
			t.Errorf("%s: %v", dir, err)
		}
	}
	if e, _ := os.ReadDir(root); len(e) != 0 {
		t.Errorf("wrote %v", e)
	}
}

// TestUnpackFolderConflict: an object that is also another's folder is refused
// before anything is written.
func TestUnpackFolderConflict(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	_, err := Unpack(packageOf(t, Bytes("z", nil), Bytes("a", []byte("file")), Bytes("a/b", []byte("under"))), dir)
	if !errors.Is(err, ErrUnsafeName) || !strings.Contains(err.Error(), `object "a" is a file and a folder of object "a/b"`) {
		t.Errorf("got %v", err)
	}
	if _, err := os.Lstat(dir); err == nil {
		t.Error("the target folder was made")
	}
}

// TestUnpackTwiceSameName: a later object of a name replaces an earlier one,
// as it did when each was written in turn.
func TestUnpackTwiceSameName(t *testing.T) {
	dir := t.TempDir()
	if _, err := Unpack(packageOf(t, Bytes("a", []byte("first")), Bytes("a", []byte("second"))), dir); err != nil {
		t.Fatal(err)
	}
	sameTree(t, "after", tree(t, dir), map[string]string{"a": "-rw-r--r-- second"})
}

// TestUnpackBusy: an unpack into a folder another unpack holds fails at once,
// naming the folder, and changes nothing.
func TestUnpackBusy(t *testing.T) {
	dir := t.TempDir()
	l, err := lockDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	_, err = Unpack(packageOf(t, Bytes("a", []byte("x"))), dir)
	if !errors.Is(err, ErrBusy) || !strings.Contains(err.Error(), dir) {
		t.Fatalf("got %v, want ErrBusy naming %s", err, dir)
	}
	if e, _ := os.ReadDir(dir); len(e) != 0 {
		t.Errorf("wrote %v", e)
	}
}

// TestUnpackJournalRefusesEscape: a journal someone else wrote cannot lead a
// recovery out of the folder or through a link: it is refused, naming the
// file, the rule and the offset, and nothing is touched.
func TestUnpackJournalRefusesEscape(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "out")
	os.MkdirAll(filepath.Join(dir, StageName), 0o755)
	os.WriteFile(filepath.Join(root, "victim"), []byte("mine"), 0o644)
	os.WriteFile(filepath.Join(dir, StageName, "old0"), []byte("evil"), 0o644)
	j := header("x.bpx") + "k \"../victim\" 0\n"
	os.WriteFile(filepath.Join(dir, StageName, journalName), []byte(j), 0o644)
	before := tree(t, root)
	_, err := Unpack(packageOf(t, Bytes("a", nil)), dir)
	want := fmt.Sprintf("%s: offset %d (0x%x): journal: line 4", filepath.Join(dir, StageName, journalName), len(header("x.bpx")), len(header("x.bpx")))
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("got %v, want %q", err, want)
	}
	sameTree(t, "after", tree(t, root), before)

	// Through a link to a folder outside: not followed.
	os.Remove(filepath.Join(dir, "a"))
	os.Symlink(root, filepath.Join(dir, "l"))
	j = header("x.bpx") + "k \"l/victim\" 0\n"
	os.WriteFile(filepath.Join(dir, StageName, journalName), []byte(j), 0o644)
	before = tree(t, root)
	if _, err := Unpack(packageOf(t, Bytes("a", nil)), dir); err == nil || !strings.Contains(err.Error(), "not following") {
		t.Fatalf("got %v", err)
	}
	sameTree(t, "after", tree(t, root), before)
}

// TestUnpackJournalGuessedInode: a journal someone else wrote, naming a file
// of the user's in the folder with its true device, inode and size (the best
// guess they can make) but not its times, neither removes it nor puts a
// planted "backup" over it: the file is not one the unpack put there. A
// record with inode 0 (what a system without inode numbers records) is
// refused where there are inode numbers.
func TestUnpackJournalGuessedInode(t *testing.T) {
	if !haveIDs {
		t.Skip("no inode numbers here")
	}
	for _, replace := range []bool{false, true} {
		dir := t.TempDir()
		victim := filepath.Join(dir, "model.glb")
		os.WriteFile(victim, []byte("mine"), 0o644)
		st, ok := atomicfile.StampAt(victim)
		if !ok {
			t.Fatal("no stamp")
		}
		st.Mtime--
		stage := filepath.Join(dir, StageName)
		os.Mkdir(stage, 0o700)
		j := header("x.bpx")
		if replace {
			os.WriteFile(backupPath(stage, 0), []byte("evil"), 0o644)
			j += record{op: opKeep, rel: "model.glb", n: 0}.line()
		}
		j += record{op: opPut, rel: "model.glb", st: st}.line()
		os.WriteFile(filepath.Join(stage, journalName), []byte(j), 0o600)
		if _, err := Unpack(packageOf(t, Bytes("a", nil)), dir); err != nil {
			t.Fatal(err)
		}
		if b, err := os.ReadFile(victim); err != nil || string(b) != "mine" {
			t.Errorf("replace %v: the user's file holds %q, %v", replace, b, err)
		}
	}
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, StageName), 0o700)
	j := header("x.bpx") + "p \"model.glb\" 0 0 4 0 0\n"
	os.WriteFile(filepath.Join(dir, StageName, journalName), []byte(j), 0o600)
	if _, err := Unpack(packageOf(t, Bytes("a", nil)), dir); err == nil || !strings.Contains(err.Error(), "journal: line 4") || !strings.Contains(err.Error(), "inode number 0") {
		t.Errorf("inode 0: %v", err)
	}
}

// TestUnpackRecoversJournal: a stage left by an unpack that was killed is
// undone before the next unpack into the folder, which says so: files it put
// in place removed, files it replaced put back, its folders removed.
func TestUnpackRecoversJournal(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "kept"), []byte("mine"), 0o600)
	before := tree(t, dir)
	// What an unpack of "new/x" and "kept" did before it was killed.
	stage := filepath.Join(dir, StageName)
	os.Mkdir(stage, 0o700)
	os.Mkdir(filepath.Join(dir, "new"), 0o755)
	os.WriteFile(filepath.Join(dir, "new", "x"), []byte("put"), 0o644)
	st, _ := atomicfile.StampAt(filepath.Join(dir, "new", "x"))
	os.Link(filepath.Join(dir, "kept"), backupPath(stage, 0))
	os.WriteFile(stagedPath(stage, 1), []byte("theirs"), 0o644)
	st2, _ := atomicfile.StampAt(stagedPath(stage, 1))
	os.Rename(stagedPath(stage, 1), filepath.Join(dir, "kept"))
	j := header("x.bpx") + record{op: opDir, rel: "new"}.line() + record{op: opPut, rel: "new/x", st: st}.line() +
		record{op: opKeep, rel: "kept", n: 0}.line() + record{op: opPut, rel: "kept", st: st2}.line() + "p \"cut"
	os.WriteFile(filepath.Join(stage, journalName), []byte(j), 0o600)

	var notes []Recovered
	_, err := UnpackWith(corruptPackage(t, Bytes("other", []byte("data"))), dir, UnpackOptions{Recovered: func(r Recovered) { notes = append(notes, r) }})
	if err == nil {
		t.Fatal("corrupt package unpacked")
	}
	if len(notes) != 1 || notes[0].Finished || notes[0].Restored != 1 || notes[0].Removed != 1 || notes[0].Package != "x.bpx" || notes[0].PID != os.Getpid() {
		t.Fatalf("told %+v, want one undone unpack of x.bpx: 1 restored, 1 removed", notes)
	}
	if s := notes[0].String(); !strings.Contains(s, "was interrupted: undid it (1 replaced file put back, 1 new file removed)") {
		t.Errorf("says %q", s)
	}
	sameTree(t, "after recovery", tree(t, dir), before)
}

// TestDirSkipsStage: packing a folder leaves out stage folders (an interrupted
// unpack's files, or anything of that name, which unpack refuses) and the
// journals of writes of several files, saying so.
func TestDirSkipsStage(t *testing.T) {
	src := t.TempDir()
	for _, p := range []string{"a.txt", StageName + "/journal", "x/.BONEBAKE-UNPACK/old0", "x/b.txt", "x/" + atomicfile.JournalName} {
		os.MkdirAll(filepath.Dir(filepath.Join(src, p)), 0o755)
		os.WriteFile(filepath.Join(src, p), []byte(p), 0o644)
	}
	objs, skipped, err := Dir(src)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, o := range objs {
		names = append(names, o.Name)
	}
	if strings.Join(names, " ") != "a.txt x/b.txt" {
		t.Errorf("packed %v", names)
	}
	if len(skipped) != 3 || !strings.Contains(skipped[0].Why, "bpx unpack") || !strings.Contains(skipped[2].Why, "journal") {
		t.Errorf("skipped %v", skipped)
	}
	if _, err := Unpack(packageOf(t, objs...), t.TempDir()); err != nil {
		t.Errorf("what Dir packed does not unpack: %v", err)
	}
}

// TestUnpackLeavesUsersStageName: a file, or a folder holding no journal, of
// the stage's name is the user's: an unpack into its folder refuses to start,
// naming it, and leaves it whole; one in a folder above is none of the
// unpack's business.
func TestUnpackLeavesUsersStageName(t *testing.T) {
	for _, make := range []func(path string){
		func(path string) { os.WriteFile(path, []byte("mine"), 0o644) },
		func(path string) {
			os.Mkdir(path, 0o755)
			os.WriteFile(filepath.Join(path, "notes"), []byte("mine"), 0o644)
		},
		func(path string) {
			os.Mkdir(path, 0o755)
			os.WriteFile(filepath.Join(path, journalName), []byte("my journal\n"), 0o644)
		},
	} {
		root := t.TempDir()
		make(filepath.Join(root, StageName))
		before := tree(t, root)
		_, err := Unpack(packageOf(t, Bytes("a", []byte("x"))), root)
		if err == nil || !strings.Contains(err.Error(), filepath.Join(root, StageName)) {
			t.Errorf("unpacked beside the user's %s: %v", StageName, err)
		}
		sameTree(t, "after", tree(t, root), before)
		sub := filepath.Join(root, "sub")
		if _, err := Unpack(packageOf(t, Bytes("a", []byte("x"))), sub); err != nil {
			t.Errorf("into a folder below it: %v", err)
		}
		os.RemoveAll(sub)
		sameTree(t, "after unpacking below", tree(t, root), before)
	}
}
