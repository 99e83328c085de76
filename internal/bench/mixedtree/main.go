// Command mixedtree writes the packing benchmarks' mixed folder
// (testfiles.WriteMixedTree: 78 MiB, 109 files in 16 folders, 81.9 MB), for
// timing `bonebake bpx pack` against `tar | xz` (internal/bench/issue46.py
// --bpx).
//
//	go run ./internal/bench/mixedtree DIR
package main

import (
	"fmt"
	"os"

	"github.com/bonebake/bonebake/internal/testfiles"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: mixedtree DIR")
		os.Exit(2)
	}
	if err := testfiles.WriteMixedTree(os.Args[1], 78<<20); err != nil {
		fmt.Fprintln(os.Stderr, "mixedtree:", err)
		os.Exit(1)
	}
}
