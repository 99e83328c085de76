package pack

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/bonebake/bonebake/formats/bpx"
	"github.com/bonebake/bonebake/internal/testfiles"
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

// mixedTree writes size bytes of testfiles.Mixed's files under dir, in 16
// folders.
func mixedTree(tb testing.TB, dir string, size int64) {
	if err := testfiles.WriteMixedTree(dir, size); err != nil {
		tb.Fatal(err)
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
		objs, _, err := Dir(src)
		if err != nil {
			b.Fatal(err)
		}
		if err := WriteFile(out, objs, bpx.PackOptions{Compression: bpx.XZ, Check: bpx.CRC32}); err != nil {
			b.Fatal(err)
		}
		packT = time.Since(start)
		start = time.Now()
		f, err := bpx.Open(out)
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
