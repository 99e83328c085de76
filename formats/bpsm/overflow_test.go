package bpsm

import (
	"encoding/binary"
	"strings"
	"testing"

	"github.com/bonebake/bonebake/formats"
)

// A vertex count and frame total whose product of bytes passes 2^64 are
// refused with the product written out, not as a Go slice ("[2147483648
// 2147483648 56]"); one that does not overflow but runs past the file says the
// product, its value and where it would end.
func TestSectionSizeMessages(t *testing.T) {
	good := write(t, testContents(3, []uint32{0, 1, 2}, []int{2}))
	for _, c := range []struct {
		vertices, frames uint32
		want             string
	}{
		{1 << 31, 1 << 31, "vertex data at 128 would be 2147483648 × 2147483648 × 56 bytes long, more than 2^64"},
		{1 << 20, 1000, "vertex data at 128, 1000 × 1048576 × 56 = 58720256000 bytes long, would end at byte 58720256128, but the file ends at byte "},
	} {
		b := append([]byte{}, good...)
		binary.LittleEndian.PutUint32(b[16:], c.vertices)
		binary.LittleEndian.PutUint32(b[28:], c.frames)
		_, err := Parse(b, formats.Name("x.bpsm"))
		ve, ok := err.(*formats.ValidationError)
		if !ok || !ve.HasRule(formats.RuleBounds) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("vertices %d, frames %d: %v; want %q", c.vertices, c.frames, err, c.want)
		}
	}
}
