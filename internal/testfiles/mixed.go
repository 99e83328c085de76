package testfiles

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
)

var words = []string{"bone", "palette", "frame", "clip", "horse", "elephant", "the", "a", "of", "skin", "mesh", "walk", "run", "attack", "idle", "\n"}

// Mixed makes size bytes of the packing benchmarks' synthetic files and hands
// them to file one at a time (so that a gigabyte is never held whole): in
// turn a third text of sixteen repeated words, a third float32 sine curves
// like animation data, a third random bytes (incompressible), each file 1 KiB
// to 8 MiB. The same seed gives the same files.
func Mixed(size int64, seed uint64, file func(i int, b []byte)) {
	rng := rand.New(rand.NewPCG(seed, 2))
	var written int64
	for i := 0; written < size; i++ {
		n := min(int64(1<<(10+rng.IntN(14))), size-written)
		b := make([]byte, 0, n+8)
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
		file(i, b[:n])
		written += n
	}
}

// WriteMixedTree writes size bytes of Mixed's files (seed 1) under dir, the
// i-th as dNN/fNNNNN.bin in one of 16 folders: the packing benchmarks' tree
// (`bpx pack` against `tar | xz`).
func WriteMixedTree(dir string, size int64) error {
	var err error
	Mixed(size, 1, func(i int, b []byte) {
		if err != nil {
			return
		}
		path := filepath.Join(dir, fmt.Sprintf("d%02d", i%16), fmt.Sprintf("f%05d.bin", i))
		if err = os.MkdirAll(filepath.Dir(path), 0o755); err == nil {
			err = os.WriteFile(path, b, 0o644)
		}
	})
	return err
}
