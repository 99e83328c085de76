package xz

import (
	"os"
	"runtime"
	"syscall"
	"testing"
	"time"
)

// BenchmarkBlocksFile encodes the 4 MiB blocks of XZ_BENCH_FILE one after
// another on one locked thread and reports the thread's CPU time for them
// all (getrusage RUSAGE_THREAD, which a loaded machine inflates less than
// wall time), logging each block's time and ratio with -v: the per-block
// times BENCHMARKS.md replays through the Writer's scheduling rule.
func BenchmarkBlocksFile(b *testing.B) {
	name := os.Getenv("XZ_BENCH_FILE")
	if name == "" {
		b.Skip("XZ_BENCH_FILE not set")
	}
	data, err := os.ReadFile(name)
	if err != nil {
		b.Fatal(err)
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	enc := newBlockEncoder(windowFor(DefaultBlockSize), windowFor(DefaultBlockSize))
	gap := gapFor(DefaultBlockSize, enc.window)
	mem := make([]byte, gap+DefaultBlockSize)
	b.SetBytes(int64(len(data)))
	var total time.Duration
	for b.Loop() {
		total = 0
		out := 0
		for i := 0; i*DefaultBlockSize < len(data); i++ {
			blk := data[i*DefaultBlockSize : min(len(data), (i+1)*DefaultBlockSize)]
			copy(mem[gap:], blk)
			t0 := threadCPU()
			n := len(enc.encode(mem, gap, len(blk)))
			d := threadCPU() - t0
			total += d
			out += n
			b.Logf("block %d: %.3f s, ratio %.3f", i, d.Seconds(), float64(n)/float64(len(blk)))
		}
		b.ReportMetric(float64(out)/float64(len(data)), "ratio")
	}
	b.ReportMetric(total.Seconds(), "thread-cpu-s")
}

// threadCPU is the calling thread's CPU time.
func threadCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(1, &ru) // RUSAGE_THREAD
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
