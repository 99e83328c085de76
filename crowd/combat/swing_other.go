//go:build !amd64 || amd64.v3 || purego

package combat

// useKernel is false: Step is its Go loop alone. (Where the compiler fuses
// multiply-adds, GOAMD64=v3 and up, the Go loop rounds otherwise than the
// kernel would.)
var useKernel = false

func swing8(a *swingArgs, start, end int) int { return start }
