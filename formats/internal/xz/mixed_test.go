package xz

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"os/exec"
	"testing"
)

var words = []string{"bone", "palette", "frame", "clip", "horse", "elephant", "the", "a", "of", "skin", "mesh", "walk", "run", "attack", "idle", "\n"}

// mixedData is n bytes like the pack benchmark's files (pack/bench_test.go):
// runs of text, float32 animation-like curves and random bytes, 1 KiB to
// 8 MiB each. The same seed gives the same bytes.
func mixedData(n int, seed uint64) []byte {
	rng := rand.New(rand.NewPCG(seed, 2))
	b := make([]byte, 0, n+8)
	for i := 0; len(b) < n; i++ {
		end := min(len(b)+1<<(10+rng.IntN(14)), n)
		switch i % 3 {
		case 0:
			for len(b) < end {
				b = append(append(b, words[rng.IntN(len(words))]...), ' ')
			}
		case 1:
			phase := rng.Float64()
			for k := 0; len(b) < end; k++ {
				b = binary.LittleEndian.AppendUint32(b, math.Float32bits(float32(math.Sin(float64(k)*0.01+phase))))
			}
		case 2:
			for len(b) < end {
				b = binary.LittleEndian.AppendUint64(b, rng.Uint64())
			}
		}
		b = b[:end]
	}
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
