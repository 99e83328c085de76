//go:build !amd64 || amd64.v3 || purego

package anim

// useAVX is false: Sample blends each rotation on its own.
const useAVX = false

// slerp4 is never called without AVX.
func slerp4(b *slerpBatch) { b.finish(4) }
