package mot

import (
	"encoding/binary"
	"os"
	"testing"
)

func realFile(b *testing.B) []byte {
	data, err := os.ReadFile(shared(b, "pl000f_0a25.wiiu-be.mot"))
	if err != nil {
		b.Fatal(err)
	}
	return data
}

// BenchmarkDecodeEvaluate parses the real Wii U motion and evaluates every track
// at every frame; values/s counts the per-frame values produced.
func BenchmarkDecodeEvaluate(b *testing.B) {
	data := realFile(b)
	m, err := Parse(data)
	if err != nil {
		b.Fatal(err)
	}
	values := len(m.Records) * m.Frames
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		m, err := Parse(data)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := m.Evaluate(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(values)*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mvalues/s")
}

// BenchmarkEncode encodes the real motion's per-frame values at tolerance 1e-3.
func BenchmarkEncode(b *testing.B) {
	m, err := Parse(realFile(b))
	if err != nil {
		b.Fatal(err)
	}
	in := tracksOf(b, m)
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := Encode(Bayo2, binary.BigEndian, m.Frames, in, 1e-3, Readable); err != nil {
			b.Fatal(err)
		}
	}
}
