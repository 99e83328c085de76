package xz

import (
	"os/exec"
	"testing"

	"github.com/bonebake/bonebake/internal/testfiles"
)

// mixedData is n bytes of the pack benchmark's mixed files one after another
// (testfiles.Mixed).
func mixedData(n int, seed uint64) []byte {
	b := make([]byte, 0, n)
	testfiles.Mixed(int64(n), seed, func(_ int, f []byte) { b = append(b, f...) })
	return b
}

// xzTool is the path of the xz command, the independent reference; the test
// is skipped where it is missing (.ci/run installs xz-utils).
func xzTool(t testing.TB) string {
	p, err := exec.LookPath("xz")
	if err != nil {
		t.Skip("xz is not installed")
	}
	return p
}
