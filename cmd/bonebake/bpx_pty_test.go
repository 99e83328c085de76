//go:build linux

package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
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
