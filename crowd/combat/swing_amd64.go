//go:build amd64 && !amd64.v3 && !purego

package combat

import "golang.org/x/sys/cpu"

// useKernel says whether Step runs the AVX2 kernel; tests turn it off to hold
// it to the Go loop.
var useKernel = cpu.X86.HasAVX2

// swing8 is stepRange for the attackers from start, eight at a time while
// eight are left before end, with AVX2 (swing_amd64.s): each operation the Go
// loop's, in its order, so the same bits. It stops at the first attacker that
// has more to do than run down its cooldown and advance its swing (a release,
// a strike, the swing's end, a dead attacker, a retarget, a time that is NaN
// or leaves [0, SwingDuration)), having stepped those before it and nothing
// of it, and returns its index; else the index of the first attacker it did
// not reach, fewer than eight before end.
//
//go:noescape
func swing8(a *swingArgs, start, end int) int
