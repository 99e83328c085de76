package bpx

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// lenWriter is a Buffer that says how much it holds.
type lenWriter struct{ Buffer }

// WritePackage's Progress follows what is stored, not what is read: with xz,
// once per 4 MiB block after the block is compressed and written (the output
// grew since the last report), the last report the total; without
// compression, as bytes are written. Before, a pack's progress could only
// count the objects' bytes as read, up to four blocks ahead of the compressor
// (bake --package sat silent through its compression: issue 45, round 3).
func TestPackProgress(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	big := make([]byte, 9<<20+12345) // three blocks: 4 MiB, 4 MiB, the rest
	for i := range big {
		big[i] = byte(rng.Uint32()) // incompressible: stored quickly
	}
	objs := []PackInput{input("small.txt", []byte("alpha\n")), input("big.bin", big)}
	total := uint64(len(big) + 6)
	for _, comp := range []Compression{XZ, NoCompression} {
		var out lenWriter
		type report struct{ done, held uint64 }
		var got []report
		o := PackOptions{Compression: comp, Check: CRC32, Progress: func(done, t uint64) {
			if t != total {
				panic("total changed")
			}
			got = append(got, report{done, uint64(len(out.Bytes()))})
		}}
		if err := WritePackage(&out, objs, o); err != nil {
			t.Fatal(err)
		}
		if len(got) == 0 || got[len(got)-1].done != total {
			t.Fatalf("compression %d: reports %v, want the last at %d", comp, got, total)
		}
		for i := 1; i < len(got); i++ {
			if got[i].done <= got[i-1].done {
				t.Errorf("compression %d: report %d: %d after %d", comp, i, got[i].done, got[i-1].done)
			}
		}
		if comp != XZ {
			continue
		}
		// Per block: 4 MiB, 8 MiB, then the rest (the small object shares
		// the first block), and each only once its block is in the output.
		if len(got) != 3 || got[0].done != 4<<20 || got[1].done != 8<<20 {
			t.Errorf("xz: reports %v, want one per block", got)
		}
		for i, r := range got {
			if prev := uint64(0); i > 0 {
				prev = got[i-1].held
				if r.held <= prev {
					t.Errorf("xz: report %d (%d bytes) came before its block was written (output %d bytes, %d at the last)", i, r.done, r.held, prev)
				}
			} else if r.held < 4<<20 {
				t.Errorf("xz: the first block reported with %d bytes written", r.held)
			}
		}
	}
	// The bytes do not depend on being watched.
	var a, b Buffer
	if err := WritePackage(&a, objs, PackOptions{Compression: XZ, Check: CRC32}); err != nil {
		t.Fatal(err)
	}
	if err := WritePackage(&b, objs, PackOptions{Compression: XZ, Check: CRC32, Progress: func(uint64, uint64) {}}); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Error("a package written with Progress differs")
	}
}
