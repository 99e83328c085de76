package crowd

import "golang.org/x/sys/cpu"

// setWideKernel lets step use the AVX2 kernel (where the machine has it) or
// keeps it to the SSE2 one.
func setWideKernel(on bool) { useAVX2 = on && cpu.X86.HasAVX2 }
