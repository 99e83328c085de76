package binfmt

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"testing"
)

// reference finds the non-finite floats with math.IsNaN and math.IsInf, one
// float at a time: an independent statement of what NonFinite computes.
func reference(b []byte, order binary.ByteOrder, size int, floatWords uint64) (first, count int) {
	first = -1
	for i := 0; i+4 <= len(b); i += 4 {
		if size > 0 && floatWords>>(i%size/4)&1 == 0 {
			continue
		}
		f := float64(math.Float32frombits(order.Uint32(b[i:])))
		if math.IsNaN(f) || math.IsInf(f, 0) {
			if first < 0 {
				first = i
			}
			count++
		}
	}
	return first, count
}

// randomFloats fills n floats with finite values, exponents all ones at a few
// places (NaN, ±Inf), and near misses (largest finite, exponent 0xfe).
func randomFloats(rng *rand.Rand, n int, order binary.ByteOrder, bad int) []byte {
	b := make([]byte, 4*n)
	for i := 0; i < n; i++ {
		u := rng.Uint32() &^ 0x7f800000  // any sign and mantissa
		u |= uint32(rng.IntN(255)) << 23 // exponent 0..254: finite
		order.PutUint32(b[4*i:], u)
	}
	specials := []uint32{0x7f800000, 0xff800000, 0x7fc00000, 0x7f800001, 0xffffffff}
	for k := 0; k < bad && n > 0; k++ {
		order.PutUint32(b[4*rng.IntN(n):], specials[rng.IntN(len(specials))])
	}
	return b
}

func TestNonFiniteMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, order := range []binary.ByteOrder{binary.LittleEndian, binary.BigEndian} {
		for n := 0; n < 80; n++ {
			for _, bad := range []int{0, 1, 3} {
				b := randomFloats(rng, n, order, bad)
				gf, gc := NonFinite(b, order)
				wf, wc := reference(b, order, 0, 0)
				if gf != wf || gc != wc {
					t.Fatalf("%v n=%d: NonFinite = (%d, %d), want (%d, %d)", order, n, gf, gc, wf, wc)
				}
			}
		}
	}
	// The largest finite float and the smallest NaN differ in one bit.
	b := make([]byte, 64)
	binary.LittleEndian.PutUint32(b[40:], 0x7f7fffff)
	if f, _ := NonFinite(b, binary.LittleEndian); f != -1 {
		t.Fatalf("MaxFloat32 reported at %d", f)
	}
	binary.LittleEndian.PutUint32(b[44:], 0x7f800000)
	if f, n := NonFinite(b, binary.LittleEndian); f != 44 || n != 1 {
		t.Fatalf("+Inf at 44 reported as (%d, %d)", f, n)
	}
}

func TestNonFiniteRecordsSkipsNonFloatWords(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	const size, words = 56, 0b1_1110_1111_1111 // a BPSM vertex
	for _, order := range []binary.ByteOrder{binary.LittleEndian, binary.BigEndian} {
		for recs := 0; recs < 12; recs++ {
			for _, bad := range []int{0, 1, 4} {
				b := randomFloats(rng, recs*size/4, order, bad)
				for r := 0; r < recs; r++ { // non-float words full of exponent bits
					copy(b[r*size+32:], []byte{0xff, 0xff, 0xff, 0xff})
					copy(b[r*size+52:], []byte{0x7f, 0x80, 0xff, 0xff})
				}
				gf, gc := NonFiniteRecords(b, order, size, words)
				wf, wc := reference(b, order, size, words)
				if gf != wf || gc != wc {
					t.Fatalf("%v %d records: (%d, %d), want (%d, %d)", order, recs, gf, gc, wf, wc)
				}
			}
		}
	}
}

// BenchmarkNonFinite scans 64 KiB (in cache) and 64 MiB (from memory) of finite
// floats, the cost Open adds to check a palette.
func BenchmarkNonFinite(b *testing.B) {
	for _, n := range []struct {
		name  string
		bytes int
	}{{"64KiB", 64 << 10}, {"64MiB", 64 << 20}} {
		for _, order := range []binary.ByteOrder{binary.LittleEndian, binary.BigEndian} {
			data := randomFloats(rand.New(rand.NewPCG(1, 1)), n.bytes/4, order, 0)
			b.Run(n.name+"/"+order.String(), func(b *testing.B) {
				b.SetBytes(int64(len(data)))
				for b.Loop() {
					if f, _ := NonFinite(data, order); f >= 0 {
						b.Fatal("found a non-finite float")
					}
				}
			})
		}
	}
	data := randomFloats(rand.New(rand.NewPCG(1, 1)), (56<<20)/4, binary.LittleEndian, 0)
	b.Run("records56/56MiB", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			NonFiniteRecords(data, binary.LittleEndian, 56, 0b1_1110_1111_1111)
		}
	})
}
