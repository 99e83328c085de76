//go:build linux

package main

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestInterruptedBake: SIGINT and SIGTERM during a big bake exit 130 and 143 with
// one line saying what was interrupted, and SIGKILL too leaves the folder as it
// was: no temporary file, the old output untouched.
func TestInterruptedBake(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and starts an 800 MB bake")
	}
	bin := builtBinary(t)
	for _, c := range []struct {
		sig  syscall.Signal
		code int
		name string
	}{{syscall.SIGINT, 130, "SIGINT"}, {syscall.SIGTERM, 143, "SIGTERM"}, {syscall.SIGKILL, -1, ""}} {
		dir := t.TempDir()
		out := filepath.Join(dir, "fox.bpat")
		os.WriteFile(out, []byte("old"), 0o644)
		side := filepath.Join(dir, "fox.gait.json")
		os.WriteFile(side, []byte("old"), 0o644)
		cmd := exec.Command(bin, "bake", sharedModel(t, "Fox.glb"), "-o", out, "--fps", "100000", "--force")
		stderr, _ := cmd.StderrPipe()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// The bake says "writing N MB to OUT" when it starts writing.
		r := bufio.NewReader(stderr)
		var said strings.Builder
		for !strings.Contains(said.String(), "writing") {
			b, err := r.ReadByte()
			if err != nil {
				t.Fatalf("the bake ended before writing: %q", said.String())
			}
			said.WriteByte(b)
		}
		// Then it opens its temporary file in dir (unnamed, it shows in
		// /proc/PID/fd as "dir/#N (deleted)"): signal it mid-write.
		if !writing(cmd.Process.Pid, dir) {
			t.Fatalf("%v: the bake never opened a file in %s", c.sig, dir)
		}
		cmd.Process.Signal(c.sig)
		rest, _ := readAll(r)
		cmd.Wait()
		if code := cmd.ProcessState.ExitCode(); code != c.code {
			t.Errorf("%v: exit %d, want %d (was the bake over before the signal?)", c.sig, code, c.code)
		}
		if c.code > 0 {
			lines := strings.Split(strings.TrimSpace(rest), "\n")
			want := "bonebake: interrupted by " + c.name + " while writing " + out
			if last := lines[len(lines)-1]; !strings.Contains(last, want) || strings.Count(rest, "interrupted") != 1 {
				t.Errorf("%v: stderr ends %q, want one line %q", c.sig, rest, want)
			}
		}
		entries, _ := os.ReadDir(dir)
		if len(entries) != 2 {
			t.Errorf("%v: left in the folder: %v", c.sig, entries)
		}
		if b, _ := os.ReadFile(out); string(b) != "old" {
			t.Errorf("%v: the old output changed (%d bytes)", c.sig, len(b))
		}
		if b, _ := os.ReadFile(side); string(b) != "old" {
			t.Errorf("%v: the old sidecar changed (%d bytes)", c.sig, len(b))
		}
	}
}

// TestInterruptedBat: SIGINT and SIGTERM while bat writes and verifies its set
// exit 130 and 143 with one line naming the set's files, and leave the old set
// whole and nothing else (it once left a hidden .bat-stage-NNN/ folder of 5-6
// MB and said nothing).
func TestInterruptedBat(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and verifies a large bat bake")
	}
	bin := builtBinary(t)
	names := []string{"Fox.bat.json", "Fox.glb", "Fox.position.exr", "Fox.rotation.exr", "Fox.skin.exr"}
	for _, c := range []struct {
		sig  syscall.Signal
		code int
		name string
	}{{syscall.SIGINT, 130, "SIGINT"}, {syscall.SIGTERM, 143, "SIGTERM"}} {
		dir := t.TempDir()
		for _, n := range names {
			os.WriteFile(filepath.Join(dir, n), []byte("old"), 0o644)
		}
		// At 1000 fps the verification rebuilds about 1.8 million vertex-rows:
		// seconds, while the set's files are open.
		cmd := exec.Command(bin, "bat", sharedModel(t, "Fox.glb"), "-o", dir, "--fps", "1000")
		var stderr strings.Builder
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		if !writing(cmd.Process.Pid, dir) {
			t.Fatalf("%v: bat never opened a file in %s", c.sig, dir)
		}
		cmd.Process.Signal(c.sig)
		cmd.Wait()
		if code := cmd.ProcessState.ExitCode(); code != c.code {
			t.Errorf("%v: exit %d, want %d (was bat over before the signal?); stderr %q", c.sig, code, c.code, stderr.String())
		}
		lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
		last := lines[len(lines)-1]
		if !strings.HasPrefix(last, "bonebake: interrupted by "+c.name+" while writing ") || !strings.Contains(last, filepath.Join(dir, "Fox.position.exr")) {
			t.Errorf("%v: stderr ends %q, want one line naming the files", c.sig, last)
		}
		entries, _ := os.ReadDir(dir)
		if len(entries) != len(names) {
			t.Errorf("%v: left in the folder: %v", c.sig, entries)
		}
		for _, n := range names {
			if b, _ := os.ReadFile(filepath.Join(dir, n)); string(b) != "old" {
				t.Errorf("%v: %s changed", c.sig, n)
			}
		}
	}
}

// TestInterruptRemovesMadeFolders: SIGINT removes the folders a command made
// for its output, as a failure does: a bake stopped while it writes, and bat
// stopped while it samples, before it writes anything (there the signal's
// default action used to end the process and leave the folders).
func TestInterruptRemovesMadeFolders(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and starts an 800 MB bake")
	}
	bin := builtBinary(t)
	fox := sharedModel(t, "Fox.glb")
	for _, c := range []struct {
		name, made string // the folder to wait for before the signal
		args       []string
		last       string
	}{
		{"bake", "new/deeper", []string{"bake", fox, "-o", "new/deeper/fox.bpat", "--fps", "100000", "--force"}, "interrupted by SIGINT while writing new/deeper/fox.bpat"},
		{"bat", "new/bat", []string{"bat", fox, "-o", "new/bat", "--fps", "30000"}, "interrupted by SIGINT"},
	} {
		dir := t.TempDir()
		cmd := exec.Command(bin, c.args...)
		cmd.Dir = dir
		var stderr strings.Builder
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		made := filepath.Join(dir, c.made)
		if c.name == "bake" {
			if !writing(cmd.Process.Pid, made) {
				t.Fatalf("%s: never opened a file in %s", c.name, made)
			}
		} else {
			for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(5 * time.Millisecond) {
				if _, err := os.Stat(made); err == nil {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("%s: never made %s", c.name, made)
				}
			}
		}
		cmd.Process.Signal(syscall.SIGINT)
		cmd.Wait()
		if code := cmd.ProcessState.ExitCode(); code != 130 {
			t.Errorf("%s: exit %d, want 130; stderr %q", c.name, code, stderr.String())
		}
		if !strings.Contains(stderr.String(), c.last) {
			t.Errorf("%s: stderr %q, want %q", c.name, stderr.String(), c.last)
		}
		if entries, _ := os.ReadDir(dir); len(entries) != 0 {
			t.Errorf("%s: left %v in the folder it ran in", c.name, entries)
		}
	}
}

// writing waits until process pid holds a file open in dir.
func writing(pid int, dir string) bool {
	fds := fmt.Sprintf("/proc/%d/fd", pid)
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		entries, _ := os.ReadDir(fds)
		for _, e := range entries {
			if l, err := os.Readlink(filepath.Join(fds, e.Name())); err == nil && strings.HasPrefix(l, dir+"/") {
				return true
			}
		}
	}
	return false
}

func readAll(r *bufio.Reader) (string, error) {
	var sb strings.Builder
	_, err := r.WriteTo(&sb)
	return sb.String(), err
}
