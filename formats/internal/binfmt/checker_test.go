package binfmt

import (
	"math"
	"testing"
)

// PastEnd says a file that ends before a section is cut short, with where the
// section would end; a section starting after the file's end too; and a span
// no file can hold (its end past 2^64) is not called a cut.
func TestPastEnd(t *testing.T) {
	for _, c := range []struct {
		offset, n, size uint64
		want            string
	}{
		{176, 244224, 5000, "would end at byte 244400, but the file ends at byte 5000: it is cut short"},
		{9000, 16, 5000, "would start past the file's end at byte 5000: it is cut short"},
		{100, math.MaxUint64, 5000, "would end past byte 2^64, which no file reaches"},
	} {
		if got := PastEnd(c.offset, c.n, c.size); got != c.want {
			t.Errorf("PastEnd(%d, %d, %d) = %q, want %q", c.offset, c.n, c.size, got, c.want)
		}
	}
}
