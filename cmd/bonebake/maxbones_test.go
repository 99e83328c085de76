package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestBakeXbotWithNoFlag: Xbot's 67 joints bake with no flag (BPAT holds 64):
// the unweighted joints are dropped with a note naming them, and the summary
// gives the bone count, the joints it came from and the worst vertex
// deviation. An impossible --max-bones is refused as a usage error naming the
// count and the flag; bat of Xbot works alike.
func TestBakeXbotWithNoFlag(t *testing.T) {
	xbot := sharedModel(t, "threejs/Xbot.glb")
	dir := t.TempDir()
	code, out, errOut := bonebake(t, "bake", xbot, "-o", filepath.Join(dir, "xbot.bpat"))
	if code != 0 || !strings.Contains(out, "(of 67 joints; worst vertex deviation") || !strings.Contains(errOut, "mixamorig:HeadTop_End") ||
		!strings.Contains(errOut, "more than the 64 bones a BPAT file holds (--max-bones)") {
		t.Errorf("bake Xbot: exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut = bonebake(t, "bake", xbot, "-o", filepath.Join(dir, "xbot.bpat"), "--max-bones", "20")
	if code != 0 || !strings.Contains(out, "20 bones (of 67 joints; worst vertex deviation ") || !strings.Contains(errOut, "merged 32 leaf joints") {
		t.Errorf("bake Xbot --max-bones 20: exit %d\n%s%s", code, out, errOut)
	}
	for _, bad := range []string{"0", "65", "-3"} {
		if code, _, errOut := bonebake(t, "bake", xbot, "-o", filepath.Join(dir, "x.bpat"), "--max-bones", bad); code != 2 || !strings.Contains(errOut, "--max-bones "+bad) {
			t.Errorf("--max-bones %s: exit %d %s", bad, code, errOut)
		}
	}
	if code, _, errOut := bonebake(t, "bat", xbot, "-o", filepath.Join(dir, "bat"), "--clips", "idle"); code != 0 {
		t.Errorf("bat Xbot: exit %d %s", code, errOut)
	}
}
