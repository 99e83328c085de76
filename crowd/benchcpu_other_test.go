//go:build !linux

package crowd

import "time"

// threadCPU is not measured off Linux (see benchcpu_linux_test.go).
func threadCPU() (time.Duration, bool) { return 0, false }

func lockThread() func() { return func() {} }
