package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/bonebake/bonebake/formats/bpat"
	"github.com/bonebake/bonebake/formats/gait"
	"github.com/bonebake/bonebake/internal/atomicfile"
	"github.com/bonebake/bonebake/internal/testfiles"
)

// TestBakeRecoversKilledSet: a bake into a folder where a killed bake left its
// set half replaced (the BPAT exchanged for the new one, the sidecar not yet,
// and the journal saying so) first puts the previous set back, saying so in
// one line, then writes its own set, leaving nothing else.
func TestBakeRecoversKilledSet(t *testing.T) {
	dir := t.TempDir()
	out, side := filepath.Join(dir, "w.bpat"), filepath.Join(dir, "w.gait.json")
	oldB, newB := filepath.Join(dir, ".w.bpat.tmp1"), filepath.Join(dir, ".w.gait.json.tmp2")
	os.WriteFile(out, []byte("new bpat"), 0o644) // in place: its old file under the hidden name
	os.WriteFile(oldB, []byte("old bpat"), 0o644)
	os.WriteFile(side, []byte("old side"), 0o644)
	os.WriteFile(newB, []byte("new side"), 0o644) // not yet renamed
	// The journal names each file by its base name with its hidden name and
	// the stamp of the new file (docs/ARCHITECTURE.md, internal/atomicfile).
	stamp := func(p string) string {
		var x unix.Statx_t
		if err := unix.Statx(unix.AT_FDCWD, p, unix.AT_SYMLINK_NOFOLLOW, unix.STATX_BASIC_STATS|unix.STATX_BTIME, &x); err != nil {
			t.Fatal(err)
		}
		var btime int64
		if x.Mask&unix.STATX_BTIME != 0 {
			btime = x.Btime.Sec*1e9 + int64(x.Btime.Nsec)
		}
		return fmt.Sprintf(`{"dev":%d,"ino":%d,"size":%d,"mtime":%d,"btime":%d}`, unix.Mkdev(x.Dev_major, x.Dev_minor), x.Ino, x.Size, x.Mtime.Sec*1e9+int64(x.Mtime.Nsec), btime)
	}
	j := fmt.Sprintf(`{"version":2,"set":"00112233445566778899aabbccddeeff","files":[{"name":"w.bpat","tmp":%q,"stamp":%s},{"name":"w.gait.json","tmp":%q,"stamp":%s}]}`+"\n",
		filepath.Base(oldB), stamp(out), filepath.Base(newB), stamp(newB))
	os.WriteFile(filepath.Join(dir, atomicfile.JournalName), []byte(j), 0o600)
	code, _, e := bonebake(t, "bake", testfiles.WalkerGLTF(t, true), "-o", out)
	if code != 0 {
		t.Fatal(e)
	}
	if want := "bonebake: " + out + ", " + side + ": undid what a command killed while replacing them had begun; the previous files are whole"; !strings.Contains(e, want) {
		t.Errorf("stderr %q, want the line %q", e, want)
	}
	if f, err := bpat.Open(out); err != nil {
		t.Errorf("the bake's own BPAT: %v", err)
	} else {
		f.Close()
	}
	if g, err := gait.OpenFor(out); err != nil || g == nil {
		t.Errorf("the bake's own sidecar: %v", err)
	}
	if names := folderNames(dir); !slices.Equal(names, []string{"w.bpat", "w.gait.json"}) {
		t.Errorf("the folder holds %v", names)
	}
}

// TestBakeRefusesHostileJournal: a journal planted in the output folder (a
// clone, an archive), naming a file outside the folder and one in it with
// their true device and inode numbers, is refused: the bake fails naming the
// journal and the rule, and both files, and the folder, are as they were.
func TestBakeRefusesHostileJournal(t *testing.T) {
	dir, elsewhere := t.TempDir(), t.TempDir()
	outside, inside := filepath.Join(elsewhere, "victim.txt"), filepath.Join(dir, "model.glb")
	for _, p := range []string{outside, inside} {
		os.WriteFile(p, []byte("mine"), 0o644)
	}
	id := func(p string) (uint64, uint64) {
		var st unix.Stat_t
		if err := unix.Lstat(p, &st); err != nil {
			t.Fatal(err)
		}
		return st.Dev, st.Ino
	}
	od, oi := id(outside)
	id2, ii := id(inside)
	j := fmt.Sprintf(`{"files":[{"target":%q,"tmp":%q,"dev":%d,"ino":%d},{"target":%q,"tmp":%q,"dev":%d,"ino":%d},{"target":%q,"tmp":%q,"dev":1,"ino":1}]}`,
		inside, filepath.Join(dir, "planted"), id2, ii, outside, filepath.Join(elsewhere, "gone"), od, oi, filepath.Join(dir, "none"), filepath.Join(dir, ".none.tmp1"))
	journal := filepath.Join(dir, atomicfile.JournalName)
	os.WriteFile(journal, []byte(j), 0o600)
	os.WriteFile(filepath.Join(dir, "planted"), []byte("theirs"), 0o644)
	out := filepath.Join(dir, "w.bpat")
	code, _, e := bonebake(t, "bake", testfiles.WalkerGLTF(t, true), "-o", out)
	if code == 0 || !strings.Contains(e, journal+": offset 0: journal: version 0") {
		t.Errorf("exit %d, stderr %q; want the journal refused", code, e)
	}
	for _, p := range []string{outside, inside} {
		if b, err := os.ReadFile(p); err != nil || string(b) != "mine" {
			t.Errorf("%s: %q, %v", p, b, err)
		}
	}
	if names := folderNames(dir); !slices.Equal(names, []string{atomicfile.JournalName, "model.glb", "planted"}) {
		t.Errorf("the folder holds %v", names)
	}
}
