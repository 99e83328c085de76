package fbx

import (
	"os"
	"testing"

	"github.com/bonebake/bonebake/internal/testfiles"
)

// BenchmarkParse: a Mixamo character (3 MB, 7.7, zlib arrays) parsed from
// memory into its tree, and its object graph built.
func BenchmarkParse(b *testing.B) {
	data, err := os.ReadFile(testfiles.Path(b, "fbx", "mixamo.fbx"))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		f, err := Parse(data)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := f.Scene(); err != nil {
			b.Fatal(err)
		}
	}
}
