package crowd

import (
	"testing"
	"unsafe"

	"golang.org/x/sys/cpu"
)

// setWideKernel lets step use the AVX2 kernel (where the machine has it) or
// keeps it to the SSE2 one.
func setWideKernel(on bool) { useAVX2 = on && cpu.X86.HasAVX2 }

// setFMAKernel lets rows8 resolve in float32 with fused multiply-adds (where
// the machine has them) or keeps it to float64.
func setFMAKernel(on bool) { useFMA = on && cpu.X86.HasFMA }

// The selection kernel reads selectArgs, picks and gait pairs by offset.
func TestSelectArgsLayout(t *testing.T) {
	var a selectArgs
	var d pick
	var g gaitPair
	if unsafe.Offsetof(a.pairs) != 112 || unsafe.Offsetof(a.maxID) != 120 || unsafe.Offsetof(a.dt) != 124 || unsafe.Offsetof(a.gaitW) != 104 ||
		unsafe.Offsetof(a.swing) != 64 || unsafe.Offsetof(a.flags) != 40 || unsafe.Offsetof(a.memoKey) != 128 || unsafe.Offsetof(a.memoSel) != 136 ||
		unsafe.Offsetof(a.memoBase) != 144 || unsafe.Offsetof(a.memoPer) != 152 || unsafe.Offsetof(a.memoRead) != 160 {
		t.Error("selectArgs fields moved")
	}
	if unsafe.Sizeof(d) != 16 || unsafe.Offsetof(d.pair) != 2 || unsafe.Offsetof(d.base) != 4 || unsafe.Offsetof(d.perSpeed) != 8 || unsafe.Offsetof(d.rule) != 12 {
		t.Error("pick is not clip, pair, base, perSpeed, rule in 16 bytes")
	}
	if unsafe.Sizeof(g) != 32 || unsafe.Offsetof(g.walkSpeed) != 4 || unsafe.Offsetof(g.perRunDiff) != 8 || unsafe.Offsetof(g.stride) != 12 ||
		unsafe.Offsetof(g.strideDiff) != 16 || unsafe.Offsetof(g.walkPer) != 20 || unsafe.Offsetof(g.runPer) != 24 {
		t.Error("gaitPair is not walk, run, walkSpeed, perRunDiff, stride, strideDiff, walkPer, runPer in 32 bytes")
	}
	if pickLoops != 1 || pickWrap != 2 || pickSwung != 4 || pickKeep != 8 {
		t.Error("pick rule bits moved")
	}
}
