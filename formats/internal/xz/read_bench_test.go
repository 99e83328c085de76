package xz

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"

	ulxz "github.com/ulikunitz/xz"
)

// benchSize is the benchmark's input: 64 MiB of mixedData.
const benchSize = 64 << 20

// benchStream is mixedData(benchSize) compressed by xz with args, cached in
// the temporary directory (compressing takes a while).
func benchStream(b *testing.B, name string, args ...string) []byte {
	path := filepath.Join(os.TempDir(), "bonebake-xz-bench-"+name+".xz")
	if z, err := os.ReadFile(path); err == nil {
		return z
	}
	z := xzCompress(b, mixedData(benchSize, 1), args...)
	if err := os.WriteFile(path, z, 0o644); err != nil {
		b.Fatal(err)
	}
	return z
}

func benchRead(b *testing.B, z []byte, open func(io.Reader) (io.Reader, error)) {
	buf := make([]byte, 1<<16)
	b.SetBytes(benchSize)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		r, err := open(bytes.NewReader(z))
		if err != nil {
			b.Fatal(err)
		}
		n, err := io.CopyBuffer(io.Discard, struct{ io.Reader }{r}, buf)
		if err != nil || n != benchSize {
			b.Fatalf("read %d bytes: %v", n, err)
		}
	}
}

func ours(cfg ReaderConfig) func(io.Reader) (io.Reader, error) {
	return func(r io.Reader) (io.Reader, error) { return NewReader(r, cfg) }
}

func ulikunitz(r io.Reader) (io.Reader, error) { return ulxz.NewReader(r) }

// xz -T0 -6 writes 24 MiB blocks that declare their sizes: decoded in
// parallel when MaxMemory holds them, streaming with the default 32 MiB.
func BenchmarkReadMultiBlock(b *testing.B) {
	z := benchStream(b, "T0-6", "-T0", "-6")
	b.Run("parallel-128MiB", func(b *testing.B) { benchRead(b, z, ours(ReaderConfig{MaxMemory: 128 << 20})) })
	b.Run("default", func(b *testing.B) { benchRead(b, z, ours(ReaderConfig{})) })
	b.Run("ulikunitz", func(b *testing.B) { benchRead(b, z, ulikunitz) })
}

// xz -T0 -6 --block-size=4MiB: blocks that fit the default memory.
func BenchmarkReadSmallBlocks(b *testing.B) {
	z := benchStream(b, "T0-6-4MiB", "-T0", "-6", "--block-size=4MiB")
	b.Run("default", func(b *testing.B) { benchRead(b, z, ours(ReaderConfig{})) })
}

// xz -6 (one thread) writes one block without sizes: the streaming path.
func BenchmarkReadSingleBlock(b *testing.B) {
	z := benchStream(b, "6", "-6")
	b.Run("ours", func(b *testing.B) { benchRead(b, z, ours(ReaderConfig{})) })
	b.Run("ulikunitz", func(b *testing.B) { benchRead(b, z, ulikunitz) })
}
