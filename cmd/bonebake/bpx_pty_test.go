//go:build linux

package main

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
	"golang.org/x/term"
)

// openPTY opens a pseudo-terminal pair; the test skips where the system has none.
func openPTY(t *testing.T) (master, slave *os.File) {
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	t.Cleanup(func() { m.Close() })
	if err := unix.IoctlSetPointerInt(int(m.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Skipf("cannot unlock the pseudo-terminal: %v", err)
	}
	n, err := unix.IoctlGetInt(int(m.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Skipf("no pseudo-terminal number: %v", err)
	}
	s, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("cannot open the pseudo-terminal: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return m, s
}

// TestBPXDumpRefusesTerminal: raw section bytes are not written to a terminal,
// and the same command writes them to a file.
func TestBPXDumpRefusesTerminal(t *testing.T) {
	_, tty := openPTY(t)
	if !term.IsTerminal(int(tty.Fd())) {
		t.Fatal("the pseudo-terminal is not a terminal")
	}
	file := sharedBPX(t, "03_crc32_plain.bpx")
	var errOut bytes.Buffer
	code := run([]string{"bpx", "dump", file, "--section", "0"}, tty, &errOut)
	if code != 2 || !strings.Contains(errOut.String(), "not writing raw binary to a terminal") {
		t.Errorf("to a terminal: exit %d, %q", code, errOut.String())
	}
	out, err := os.Create(filepath.Join(t.TempDir(), "raw"))
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	errOut.Reset()
	if code := run([]string{"bpx", "dump", file, "--section", "0"}, out, &errOut); code != 0 {
		t.Fatalf("to a file: exit %d, %s", code, errOut.String())
	}
	if b, _ := os.ReadFile(out.Name()); string(b) != "123456789" {
		t.Errorf("to a file: %q, want the section's bytes", b)
	}
}

// onTerminal runs the command with stderr on a pseudo-terminal and returns its
// exit code, its stdout and what the terminal received.
func onTerminal(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	master, tty := openPTY(t)
	var seen bytes.Buffer
	read := make(chan struct{})
	go func() { io.Copy(&seen, master); close(read) }() // ends when the terminal closes
	var out bytes.Buffer
	code := run(args, &out, tty)
	tty.Close()
	<-read
	return code, out.String(), seen.String()
}

// percent is a progress bar's figure.
var percent = regexp.MustCompile(`\b\d{1,3}%`)

// bake --package draws a bar on a terminal while the package is compressed,
// per 4 MiB block as the compressor stores it, not only its stage lines: the
// compression was a silent 11–83 s (issue 45, round 3).
func TestBakePackageProgressOnTerminal(t *testing.T) {
	if testing.Short() {
		t.Skip("bakes the humanoid, whose 13.6 MB take seconds to compress")
	}
	out := filepath.Join(t.TempDir(), "h.bpx")
	code, so, seen := onTerminal(t, "bake", "--package", out, "--species", "humanoid")
	if code != 0 || !strings.Contains(so, "baked 1 creature") {
		t.Fatalf("exit %d: %s%s", code, so, seen)
	}
	i := strings.Index(seen, "compressing and writing")
	if after := seen[max(i, 0):]; i < 0 || !strings.Contains(after, "compressing h.bpx") || !percent.MatchString(after) {
		t.Errorf("no bar while compressing: %q", seen)
	}
	// The bar tells the command's clock, as the stage lines before it do, not
	// its own from 0 s ("[0s:12s]").
	if after := seen[max(i, 0):]; !barClock.MatchString(after) || ownClock.MatchString(after) {
		t.Errorf("the bar does not tell the command's time: %q", after)
	}
}

var (
	barClock = regexp.MustCompile(`bonebake: [0-9.]+ (ms|s|min [0-9]+ s): compressing h\.bpx`)
	ownClock = regexp.MustCompile(`\[[0-9]+s:[0-9]+s\]`)
)

// bpx pack draws its bar from the same reports.
func TestBPXPackProgressOnTerminal(t *testing.T) {
	dir := t.TempDir()
	b := make([]byte, 9<<20) // three blocks, incompressible: stored quickly
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
	os.Mkdir(filepath.Join(dir, "in"), 0o755)
	writeTestFile(t, filepath.Join(dir, "in", "noise.bin"), string(b))
	code, so, seen := onTerminal(t, "bpx", "pack", filepath.Join(dir, "in"), "-o", filepath.Join(dir, "n.bpx"))
	if code != 0 || !strings.Contains(so, "packed 1 file") || !strings.Contains(seen, "packing ") || !percent.MatchString(seen) {
		t.Errorf("exit %d: %s; terminal %q", code, so, seen)
	}
}
