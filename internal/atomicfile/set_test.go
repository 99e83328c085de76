//go:build unix

package atomicfile

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

var setNames = []string{"a.bpat", "a.gait.json", "a_minimal.bpsm"}

// oldSet fills dir with the set's old files ("old a.bpat", ...), mode 0640.
func oldSet(t *testing.T, dir string) {
	t.Helper()
	for _, n := range setNames {
		if err := os.WriteFile(filepath.Join(dir, n), []byte("old "+n), 0o640); err != nil {
			t.Fatal(err)
		}
	}
}

// writeSet writes the set's files with content "TAG NAME" into s.
func writeSet(t *testing.T, s *Set, dir, tag string) {
	t.Helper()
	for _, n := range setNames {
		if err := s.Write(filepath.Join(dir, n), writeString(tag+" "+n)); err != nil {
			t.Fatal(err)
		}
	}
}

// checkSet fails unless dir holds exactly the set's files, each "TAG NAME".
func checkSet(t *testing.T, dir, tag string) {
	t.Helper()
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if want := slices.Sorted(slices.Values(setNames)); !slices.Equal(names, want) {
		t.Errorf("the folder holds %v, want %v", names, want)
	}
	for _, n := range setNames {
		if b, _ := os.ReadFile(filepath.Join(dir, n)); string(b) != tag+" "+n {
			t.Errorf("%s holds %q, want %q", n, b, tag+" "+n)
		}
	}
}

// eachWay runs f with unnamed and named temporary files, and with old files
// kept by exchange and by hard link.
func eachWay(t *testing.T, f func(t *testing.T)) {
	for _, named := range []bool{false, true} {
		for _, links := range []bool{false, true} {
			t.Run(fmt.Sprintf("named=%v,links=%v", named, links), func(t *testing.T) {
				oldU, oldX := unnamedOK.Load(), exchangeOff
				unnamedOK.Store(oldU && !named)
				exchangeOff = links
				defer func() { unnamedOK.Store(oldU); exchangeOff = oldX }()
				f(t)
			})
		}
	}
}

func TestSetCommits(t *testing.T) {
	eachWay(t, func(t *testing.T) {
		dir := t.TempDir()
		oldSet(t, dir)
		os.Remove(filepath.Join(dir, setNames[2])) // one file is new
		s := NewSet()
		writeSet(t, s, dir, "new")
		if e, _ := os.ReadDir(dir); len(e) != 2 && unnamedOK.Load() {
			t.Errorf("before Commit the folder holds %v", e)
		}
		if err := s.Commit(); err != nil {
			t.Fatal(err)
		}
		checkSet(t, dir, "new")
		if st, _ := os.Stat(filepath.Join(dir, setNames[0])); st.Mode().Perm() != 0o640 {
			t.Errorf("a replaced file's mode is %v, want 0640 kept", st.Mode())
		}
		if err := s.Commit(); err == nil {
			t.Error("a second Commit succeeded")
		}
	})
}

// TestSetFolderAtATarget: a folder that takes one target's name after the
// files are written fails the commit before anything is renamed: the old set
// stays whole and nothing is left beside it.
func TestSetFolderAtATarget(t *testing.T) {
	eachWay(t, func(t *testing.T) {
		for k := range setNames {
			dir := t.TempDir()
			oldSet(t, dir)
			s := NewSet()
			writeSet(t, s, dir, "new")
			p := filepath.Join(dir, setNames[k])
			os.Remove(p)
			os.Mkdir(p, 0o755)
			err := s.Commit()
			if err == nil || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), "directory") {
				t.Errorf("folder at %s: err = %v, want one naming it", setNames[k], err)
			}
			os.Remove(p)
			os.WriteFile(p, []byte("old "+setNames[k]), 0o640)
			checkSet(t, dir, "old")
		}
	})
}

// TestSetFailsMidCommit: a rename that fails after others were done undoes
// them: every old file is back, a file that was new is gone, and no old copy or
// temporary file is left.
func TestSetFailsMidCommit(t *testing.T) {
	eachWay(t, func(t *testing.T) {
		for k := 1; k < len(setNames); k++ {
			dir := t.TempDir()
			oldSet(t, dir)
			os.Remove(filepath.Join(dir, setNames[0])) // the first is new
			boom := errors.New("boom")
			commitHook = func(i int) error {
				if i == k {
					return boom
				}
				return nil
			}
			s := NewSet()
			writeSet(t, s, dir, "new")
			err := s.Commit()
			commitHook = nil
			if !errors.Is(err, boom) || !strings.Contains(err.Error(), setNames[k]) {
				t.Errorf("failing at %d: err = %v", k, err)
			}
			os.WriteFile(filepath.Join(dir, setNames[0]), []byte("old "+setNames[0]), 0o640)
			checkSet(t, dir, "old")
		}
	})
}

// TestSetDiscard: a discarded set touches nothing and leaves nothing.
func TestSetDiscard(t *testing.T) {
	eachWay(t, func(t *testing.T) {
		dir := t.TempDir()
		oldSet(t, dir)
		s := NewSet()
		writeSet(t, s, dir, "new")
		s.Discard()
		checkSet(t, dir, "old")
		if err := s.Commit(); err == nil {
			t.Error("Commit after Discard succeeded")
		}
	})
}

// TestSetSameFileTwice: two names of one file in a set are refused.
func TestSetSameFileTwice(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "a.bpat")
	os.Symlink("a.bpat", filepath.Join(dir, "b.bpat"))
	s := NewSet()
	defer s.Discard()
	if err := s.Write(p, writeString("x")); err != nil {
		t.Fatal(err)
	}
	if err := s.Write(filepath.Join(dir, "b.bpat"), writeString("y")); err == nil || !strings.Contains(err.Error(), "same file") {
		t.Errorf("err = %v", err)
	}
}

// TestSetConcurrent: sets committed into one folder at once take turns: a
// reader that takes a shared flock on the folder (as Set documents) sees one
// whole set at every read, never files of two.
func TestSetConcurrent(t *testing.T) {
	dir := t.TempDir()
	oldSet(t, dir)
	stop := make(chan struct{})
	var mixed []string
	reads := 0
	done := make(chan struct{})
	go func() {
		defer close(done)
		d, err := os.Open(dir)
		if err != nil {
			t.Error(err)
			return
		}
		defer d.Close()
		for {
			select {
			case <-stop:
				return
			default:
			}
			unix.Flock(int(d.Fd()), unix.LOCK_SH)
			var tags []string
			for _, n := range setNames {
				b, _ := os.ReadFile(filepath.Join(dir, n))
				tag, _, _ := strings.Cut(string(b), " ")
				tags = append(tags, tag)
			}
			unix.Flock(int(d.Fd()), unix.LOCK_UN)
			reads++
			if tags[0] != tags[1] || tags[1] != tags[2] {
				mixed = append(mixed, strings.Join(tags, ","))
			}
		}
	}()
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range 30 {
				s := NewSet()
				tag := fmt.Sprintf("w%dr%d", w, r)
				for _, n := range setNames {
					if err := s.Write(filepath.Join(dir, n), writeString(tag+" "+n)); err != nil {
						t.Error(err)
					}
					time.Sleep(50 * time.Microsecond) // the writes interleave too
				}
				if err := s.Commit(); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	close(stop)
	<-done
	if len(mixed) > 0 {
		t.Errorf("%d of %d reads saw a mixed set, e.g. %s", len(mixed), reads, mixed[0])
	}
	b, _ := os.ReadFile(filepath.Join(dir, setNames[0]))
	tag, _, _ := strings.Cut(string(b), " ")
	checkSet(t, dir, tag)
}

// setHelper is the subprocess of TestSetInterrupted and TestSetKilled: it
// writes the set into dir, says "written" (and, with ATOMICFILE_HOLD, waits
// there for its signal), commits, saying "committing" before the rename
// ATOMICFILE_PAUSE_AT gives (the second by default) and pausing there until a
// signal is caught (or for a minute, for kill -9), and says "committed".
func setHelper(dir string) {
	if os.Getenv("ATOMICFILE_NAMED") != "" {
		unnamedOK.Store(false)
	}
	exchangeOff = os.Getenv("ATOMICFILE_LINKS") != ""
	pauseAt := 1
	if k := os.Getenv("ATOMICFILE_PAUSE_AT"); k != "" {
		pauseAt = int(k[0] - '0')
	}
	HandleInterrupts(func(sig os.Signal, paths []string) {
		slices.Sort(paths)
		os.Stderr.WriteString("interrupted by " + sig.String() + " while writing " + strings.Join(paths, ", ") + "\n")
	})
	s := NewSet()
	for i, n := range setNames {
		d := dir
		if d2 := os.Getenv("ATOMICFILE_DIR2"); d2 != "" && i == len(setNames)-1 {
			d = d2 // the set's last file in another folder
		}
		if err := s.Write(filepath.Join(d, n), writeString("new "+n)); err != nil {
			os.Stderr.WriteString(err.Error() + "\n")
			os.Exit(3)
		}
	}
	os.Stdout.WriteString("written\n")
	if os.Getenv("ATOMICFILE_HOLD") != "" {
		time.Sleep(time.Minute)
	}
	commitHook = func(i int) error {
		if i == pauseAt {
			os.Stdout.WriteString("committing\n")
			for deadline := time.Now().Add(time.Minute); !caught.Load() && time.Now().Before(deadline); {
				time.Sleep(time.Millisecond)
			}
		}
		return nil
	}
	if err := s.Commit(); err != nil {
		os.Stderr.WriteString(err.Error() + "\n")
		os.Exit(3)
	}
	os.Stdout.WriteString("committed\n")
	time.Sleep(time.Second)
	os.Exit(0)
}

// TestSetInterrupted: SIGINT or SIGTERM before the commit leaves the old set
// whole and nothing else, with the line naming the set's files; during the
// commit's renames it waits for them, leaving the new set whole.
func TestSetInterrupted(t *testing.T) {
	for _, named := range []bool{false, true} {
		for _, at := range []string{"written", "committing"} {
			for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
				dir := t.TempDir()
				oldSet(t, dir)
				cmd := exec.Command(os.Args[0], "-test.run=^$")
				cmd.Env = append(os.Environ(), "ATOMICFILE_SET_HELPER="+dir)
				if at == "written" {
					cmd.Env = append(cmd.Env, "ATOMICFILE_HOLD=1")
				}
				if named {
					cmd.Env = append(cmd.Env, "ATOMICFILE_NAMED=1")
				}
				var stderr strings.Builder
				cmd.Stderr = &stderr
				out, _ := cmd.StdoutPipe()
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				r := bufio.NewReader(out)
				for {
					line, err := r.ReadString('\n')
					if err != nil {
						t.Fatalf("the helper ended before %q: %v; stderr %q", at, err, stderr.String())
					}
					if line == at+"\n" {
						break
					}
				}
				cmd.Process.Signal(sig)
				rest, _ := r.ReadString(0)
				cmd.Wait()
				name := fmt.Sprintf("named %v, %v at %q", named, sig, at)
				if code := cmd.ProcessState.ExitCode(); code != 128+int(sig) {
					t.Errorf("%s: exit %d, want %d; stderr %q", name, code, 128+int(sig), stderr.String())
				}
				if strings.Contains(rest, "committed") {
					t.Errorf("%s: the helper went on after the commit", name)
				}
				if at == "written" {
					var paths []string
					for _, n := range setNames {
						paths = append(paths, filepath.Join(dir, n))
					}
					slices.Sort(paths)
					if want := "interrupted by " + sig.String() + " while writing " + strings.Join(paths, ", ") + "\n"; stderr.String() != want {
						t.Errorf("%s: stderr %q, want %q", name, stderr.String(), want)
					}
					checkSet(t, dir, "old")
				} else {
					checkSet(t, dir, "new")
				}
			}
		}
	}
}

// TestSetKilled: kill -9 during a commit's renames leaves its journal; the next
// commit into the folder undoes it (the old files back, a file that was new
// removed, no hidden file left), or finishes it when every file was renamed,
// and says so through OnRecover.
func TestSetKilled(t *testing.T) {
	defer func(f func([]string, bool)) { OnRecover = f }(OnRecover)
	for _, named := range []bool{false, true} {
		for _, links := range []bool{false, true} {
			for at := 1; at <= len(setNames); at++ {
				name := fmt.Sprintf("named %v, links %v, killed before step %d", named, links, at)
				dir := t.TempDir()
				oldSet(t, dir)
				os.Remove(filepath.Join(dir, setNames[2])) // new in this set
				cmd := exec.Command(os.Args[0], "-test.run=^$")
				cmd.Env = append(os.Environ(), "ATOMICFILE_SET_HELPER="+dir, fmt.Sprintf("ATOMICFILE_PAUSE_AT=%d", at))
				if named {
					cmd.Env = append(cmd.Env, "ATOMICFILE_NAMED=1")
				}
				if links {
					cmd.Env = append(cmd.Env, "ATOMICFILE_LINKS=1")
				}
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
				if _, err := os.Stat(filepath.Join(dir, JournalName)); err != nil {
					t.Errorf("%s: no journal: %v", name, err)
				}
				var got []string
				finished := false
				OnRecover = func(targets []string, f bool) { got, finished = targets, f }
				s := NewSet()
				if err := s.Write(filepath.Join(dir, "other.txt"), writeString("other")); err != nil {
					t.Fatal(err)
				}
				if err := s.Commit(); err != nil {
					t.Fatal(err)
				}
				if len(got) != len(setNames) || finished != (at == len(setNames)) {
					t.Errorf("%s: OnRecover told %v, finished %v", name, got, finished)
				}
				want := map[string]string{"other.txt": "other"}
				for i, n := range setNames {
					switch {
					case at == len(setNames):
						want[n] = "new " + n
					case i < 2:
						want[n] = "old " + n
					}
				}
				have := map[string]string{}
				for _, n := range folderNames(dir) {
					b, _ := os.ReadFile(filepath.Join(dir, n))
					have[n] = string(b)
				}
				if fmt.Sprint(have) != fmt.Sprint(want) {
					t.Errorf("%s: the folder holds %v, want %v", name, have, want)
				}
			}
		}
	}
}

func folderNames(dir string) []string {
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// TestSetJournalCutShort: a journal a kill cut short while it was written (no
// rename had begun) is removed by the next commit, which goes ahead.
func TestSetJournalCutShort(t *testing.T) {
	dir := t.TempDir()
	oldSet(t, dir)
	os.WriteFile(filepath.Join(dir, JournalName), []byte(`{"files":[{"target":"`), 0o600)
	s := NewSet()
	writeSet(t, s, dir, "new")
	if err := s.Commit(); err != nil {
		t.Fatal(err)
	}
	checkSet(t, dir, "new")
}

// TestSetWriteOnlyFolder: a folder one may write but not list takes a set,
// committed without its lock (it cannot be opened to be locked).
func TestSetWriteOnlyFolder(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root reads any folder")
	}
	dir := filepath.Join(t.TempDir(), "wo")
	os.Mkdir(dir, 0o755)
	oldSet(t, dir)
	os.Chmod(dir, 0o300)
	defer os.Chmod(dir, 0o755)
	s := NewSet()
	writeSet(t, s, dir, "new")
	if err := s.Commit(); err != nil {
		t.Fatal(err)
	}
	os.Chmod(dir, 0o755)
	checkSet(t, dir, "new")
}
