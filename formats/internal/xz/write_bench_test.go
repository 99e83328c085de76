package xz

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"sync"
	"testing"
	"time"
)

type countWriter struct{ n int64 }

func (c *countWriter) Write(p []byte) (int, error) { c.n += int64(len(p)); return len(p), nil }

// peakHeap samples the heap in use until stop is called and returns its
// highest value above the level at the start, in MiB.
func peakHeap() (stop func() float64) {
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	base, peak := ms.HeapInuse, ms.HeapInuse
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(20 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				runtime.ReadMemStats(&ms)
				peak = max(peak, ms.HeapInuse)
			}
		}
	})
	return func() float64 {
		close(done)
		wg.Wait()
		return float64(peak-base) / (1 << 20)
	}
}

// BenchmarkWriterMixed64 compresses the pack benchmark's 64 MiB of mixed
// data with GOMAXPROCS workers (-cpu 1,2): MB/s of input, the ratio, and the
// Writer's peak heap above the input's.
func BenchmarkWriterMixed64(b *testing.B) {
	data := mixedData(64<<20, 1)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	var out countWriter
	stop := peakHeap()
	for b.Loop() {
		out.n = 0
		w, err := NewWriter(&out, WriterConfig{})
		if err != nil {
			b.Fatal(err)
		}
		for p := data; len(p) > 0; p = p[min(len(p), 1<<20):] {
			w.Write(p[:min(len(p), 1<<20)])
		}
		if err := w.Close(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(stop(), "peak-heap-MiB")
	b.ReportMetric(float64(out.n)/float64(len(data)), "ratio")
}

// BenchmarkWriterFile compresses the file XZ_BENCH_FILE (in blocks of
// XZ_BENCH_BLOCK bytes if set) to io.Discard,
// reading it 1 MiB at a time, so that `go test -c` and
// /usr/bin/time -f %M give the peak memory of the whole process.
func BenchmarkWriterFile(b *testing.B) {
	name := os.Getenv("XZ_BENCH_FILE")
	if name == "" {
		b.Skip("XZ_BENCH_FILE not set")
	}
	for b.Loop() {
		f, err := os.Open(name)
		if err != nil {
			b.Fatal(err)
		}
		var out countWriter
		var bs int
		fmt.Sscan(os.Getenv("XZ_BENCH_BLOCK"), &bs)
		w, err := NewWriter(&out, WriterConfig{BlockSize: bs})
		if err != nil {
			b.Fatal(err)
		}
		n, err := io.CopyBuffer(w, f, make([]byte, 1<<20))
		f.Close()
		if err != nil || w.Close() != nil {
			b.Fatal(err)
		}
		b.SetBytes(n)
		b.ReportMetric(float64(out.n)/float64(n), "ratio")
	}
}
