package meshopt

import (
	"errors"
	"testing"
)

// FuzzDecode feeds arbitrary streams and parameters to Decode, seeded with the
// test vectors: it must never panic, and must fail only with an *Error.
func FuzzDecode(f *testing.F) {
	modes := []Mode{Attributes, Triangles, Indices}
	filters := []Filter{None, Octahedral, Quaternion, Exponential, Color}
	for _, v := range loadVectors(f) {
		if len(v.enc) > 2000 {
			continue
		}
		m, fl := 0, 0
		for i := range modes {
			if modes[i] == v.Mode {
				m = i
			}
		}
		for i := range filters {
			if filters[i] == v.Filter {
				fl = i
			}
		}
		f.Add(v.enc, uint16(v.Count), uint8(v.Stride), uint8(m), uint8(fl))
	}
	f.Fuzz(func(t *testing.T, src []byte, count uint16, stride, mode, filter uint8) {
		m, fl := modes[int(mode)%len(modes)], filters[int(filter)%len(filters)]
		n := int(count) % 4096
		s := int(stride)
		if s == 0 || s > 256 {
			return
		}
		if m == Attributes {
			s = (s + 3) &^ 3
		} else {
			fl = None
		}
		dst := make([]byte, n*s)
		err := Decode(dst, n, s, src, m, fl)
		var e *Error
		if err != nil && !errors.As(err, &e) {
			t.Fatalf("error %v is not an *Error", err)
		}
	})
}
