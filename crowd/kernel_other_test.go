//go:build !amd64

package crowd

// setWideKernel: this machine has one kernel, the Go one.
func setWideKernel(bool) {}

// setFMAKernel: nor one with fused multiply-adds.
func setFMAKernel(bool) {}
