// Command mixedtree writes the packing benchmarks' mixed folder (78 MiB of
// testfiles.Mixed with seed 1, 109 files in 16 folders: 81.9 MB), as
// pack's mixedTree does, for timing `bonebake bpx pack` against `tar | xz`
// (internal/bench/issue46.py --bpx).
//
//	go run ./internal/bench/mixedtree DIR
package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/bonebake/bonebake/internal/testfiles"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: mixedtree DIR")
		os.Exit(2)
	}
	dir := os.Args[1]
	testfiles.Mixed(78<<20, 1, func(i int, b []byte) {
		path := filepath.Join(dir, fmt.Sprintf("d%02d", i%16), fmt.Sprintf("f%05d.bin", i))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			fmt.Fprintln(os.Stderr, "mixedtree:", err)
			os.Exit(1)
		}
		if err := os.WriteFile(path, b, 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "mixedtree:", err)
			os.Exit(1)
		}
	})
}
