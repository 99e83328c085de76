package bvh

import (
	"os"
	"testing"

	"github.com/bonebake/bonebake/internal/testfiles"
)

// BenchmarkParse parses the shared soldier_walk.bvh (84 KB, 26 frames of 294
// channels); Mvalues/s counts the frame values read.
func BenchmarkParse(b *testing.B) {
	data, err := os.ReadFile(testfiles.Path(b, "bvh", "soldier_walk.bvh"))
	if err != nil {
		b.Fatal(err)
	}
	f, err := Parse(data)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse(data); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(f.Motion))*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mvalues/s")
}
