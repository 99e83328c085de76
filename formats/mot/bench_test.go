package mot

import (
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"runtime"
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

// BenchmarkEncode encodes the real motion's per-frame values at tolerance 1e-3,
// on one worker and on every core (what Encode does): the two are the same bytes.
func BenchmarkEncode(b *testing.B) {
	m, err := Parse(realFile(b))
	if err != nil {
		b.Fatal(err)
	}
	in := tracksOf(b, m)
	for _, workers := range []int{1, runtime.GOMAXPROCS(0)} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, _, err := encode(Bayo2, binary.BigEndian, m.Frames, in, 1e-3, Readable, workers, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkWriteDump writes the real motion's dump (830 records × 96 frames) into
// io.Discard: "now" is WriteDump, "before" the MarshalIndent writer it replaced.
func BenchmarkWriteDump(b *testing.B) {
	m, err := Parse(realFile(b))
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		write func(io.Writer, *Motion) error
	}{{"now", WriteDump}, {"before", writeDumpBefore}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := c.write(io.Discard, m); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
