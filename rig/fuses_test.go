//go:build !amd64 || amd64.v3

package rig

// goRoundsEachOp: the compiler may fuse a multiply and an add here (amd64 v3 and
// up, arm64 and others), so the Go pass need not give the reference's bits.
const goRoundsEachOp = false
