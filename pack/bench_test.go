package pack

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"bonebake/formats/bpx"
)

// benchSize is how much mixed data the pack benchmarks use: 64 MiB, or
// BONEBAKE_BPX_BENCH_MB mebibytes (1024 for the 1 GiB).
func benchSize() int64 {
	if s := os.Getenv("BONEBAKE_BPX_BENCH_MB"); s != "" {
		if n, err := strconv.Atoi(s); err == nil && n > 0 {
			return int64(n) << 20
		}
	}
	return 64 << 20
}

var words = []string{"bone", "palette", "frame", "clip", "horse", "elephant", "the", "a", "of", "skin", "mesh", "walk", "run", "attack", "idle", "\n"}

// mixedTree writes size bytes of mixed files under dir: a third text, a third
// float32 animation-like curves, a third random (incompressible), in files of
// 1 KiB to 8 MiB. The same seed gives the same files.
func mixedTree(tb testing.TB, dir string, size int64) {
	rng := rand.New(rand.NewPCG(1, 2))
	var written int64
	for i := 0; written < size; i++ {
		n := min(int64(1<<(10+rng.IntN(14))), size-written)
		b := make([]byte, 0, n)
		switch i % 3 {
		case 0:
			for int64(len(b)) < n {
				b = append(append(b, words[rng.IntN(len(words))]...), ' ')
			}
		case 1:
			phase := rng.Float64()
			for k := 0; int64(len(b)) < n; k++ {
				b = binary.LittleEndian.AppendUint32(b, math.Float32bits(float32(math.Sin(float64(k)*0.01+phase))))
			}
		case 2:
			for int64(len(b)) < n {
				b = binary.LittleEndian.AppendUint64(b, rng.Uint64())
			}
		}
		b = b[:n]
		path := filepath.Join(dir, fmt.Sprintf("d%02d", i%16), fmt.Sprintf("f%05d.bin", i))
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, b, 0o644); err != nil {
			tb.Fatal(err)
		}
		written += n
	}
}

// xzOptions are the xz settings the benchmark compares with: BONEBAKE_BPX_BENCH_XZ,
// or -6 (xz's default).
func xzOptions() string {
	if s := os.Getenv("BONEBAKE_BPX_BENCH_XZ"); s != "" {
		return s
	}
	return "-6"
}

// BenchmarkPackUnpack packs and unpacks the mixed tree with xz and reports
// throughput beside tar | xz -T0 with xzOptions on the same files.
func BenchmarkPackUnpack(b *testing.B) {
	size := benchSize()
	src := b.TempDir()
	mixedTree(b, src, size)
	out := filepath.Join(b.TempDir(), "p.bpx")
	mbs := func(d time.Duration) float64 { return float64(size) / (1 << 20) / d.Seconds() }
	var packT, unpackT time.Duration
	for b.Loop() {
		start := time.Now()
		objs, err := Dir(src)
		if err != nil {
			b.Fatal(err)
		}
		if err := WriteFile(out, objs, bpx.PackOptions{Compression: bpx.XZ, Check: bpx.CRC32}); err != nil {
			b.Fatal(err)
		}
		packT = time.Since(start)
		start = time.Now()
		f, err := bpx.OpenFile(out)
		if err != nil {
			b.Fatal(err)
		}
		p, err := bpx.ReadPackage(f)
		if err != nil {
			b.Fatal(err)
		}
		dst := b.TempDir()
		if _, err := Unpack(p, dst); err != nil {
			b.Fatal(err)
		}
		f.Close()
		unpackT = time.Since(start)
		os.RemoveAll(dst)
	}
	st, _ := os.Stat(out)
	b.ReportMetric(mbs(packT), "pack-MiB/s")
	b.ReportMetric(mbs(unpackT), "unpack-MiB/s")
	b.ReportMetric(float64(st.Size())/float64(size), "ratio")
	if _, err := exec.LookPath("xz"); err != nil {
		return
	}
	tarxz := filepath.Join(b.TempDir(), "p.tar.xz")
	start := time.Now()
	if out, err := exec.Command("bash", "-c", fmt.Sprintf("tar -C %q -cf - . | xz -T0 %s > %q", src, xzOptions(), tarxz)).CombinedOutput(); err != nil {
		b.Fatalf("tar|xz: %v %s", err, out)
	}
	tarPack := time.Since(start)
	dst := b.TempDir()
	start = time.Now()
	if out, err := exec.Command("bash", "-c", fmt.Sprintf("xz -T0 -dc %q | tar -C %q -xf -", tarxz, dst)).CombinedOutput(); err != nil {
		b.Fatalf("xz|tar: %v %s", err, out)
	}
	tarUnpack := time.Since(start)
	tst, _ := os.Stat(tarxz)
	b.ReportMetric(mbs(tarPack), "tarxz-pack-MiB/s")
	b.ReportMetric(mbs(tarUnpack), "tarxz-unpack-MiB/s")
	b.ReportMetric(float64(tst.Size())/float64(size), "tarxz-ratio")
}
