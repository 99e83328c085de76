package meshopt

import (
	"encoding/binary"
	"math"
	"math/bits"
)

// The filters compute in float32 exactly as the reference C decoder does; each
// product is converted explicitly so that the compiler cannot fuse it into a
// multiply-add, which would round differently.

// ApplyFilter post-processes count decoded elements of stride bytes in place.
func ApplyFilter(data []byte, count, stride int, f Filter) error {
	if len(data) != count*stride {
		return fail(-1, "filter input is %d bytes, want %d elements × %d bytes", len(data), count, stride)
	}
	switch f {
	case "", None:
	case Octahedral:
		switch stride {
		case 4:
			octahedral8(data)
		case 8:
			octahedral16(data)
		default:
			return fail(-1, "filter OCTAHEDRAL needs 4- or 8-byte elements, not %d", stride)
		}
	case Quaternion:
		if stride != 8 {
			return fail(-1, "filter QUATERNION needs 8-byte elements, not %d", stride)
		}
		quaternion(data)
	case Exponential:
		if stride%4 != 0 {
			return fail(-1, "filter EXPONENTIAL needs elements a multiple of 4 bytes, not %d", stride)
		}
		exponential(data)
	case Color:
		switch stride {
		case 4:
			color8(data)
		case 8:
			color16(data)
		default:
			return fail(-1, "filter COLOR needs 4- or 8-byte elements, not %d", stride)
		}
	default:
		return fail(-1, "unknown filter %q", f)
	}
	return nil
}

// round rounds half away from zero, like the C decoder's
// int(x + (x >= 0 ? 0.5f : -0.5f)). meshoptimizer's decoder 1.3 rounds an exact
// tie of the quaternion filter to even instead (one component in the 1998
// quaternions of the test vectors), so a filtered value can differ from its
// output by one unit in the last place.
func round(x float32) int32 {
	if x >= 0 {
		return int32(x + 0.5)
	}
	return int32(x - 0.5)
}

// octahedron decodes one octahedral-encoded unit vector: x, y and the value that
// encodes 1, scaled back to ±limit.
func octahedron(x, y, one, limit float32) (int32, int32, int32) {
	z := one - float32(abs32(x)) - float32(abs32(y))
	t := min(z, 0)
	if x >= 0 {
		x += t
	} else {
		x -= t
	}
	if y >= 0 {
		y += t
	} else {
		y -= t
	}
	l := float32(math.Sqrt(float64(float32(float32(x*x)+float32(y*y)) + float32(z*z))))
	s := limit / l
	return round(float32(x * s)), round(float32(y * s)), round(float32(z * s))
}

func abs32(x float32) float32 { return math.Float32frombits(math.Float32bits(x) &^ (1 << 31)) }

func octahedral8(data []byte) {
	for i := 0; i+4 <= len(data); i += 4 {
		x, y, z := octahedron(float32(int8(data[i])), float32(int8(data[i+1])), float32(int8(data[i+2])), 127)
		data[i], data[i+1], data[i+2] = byte(x), byte(y), byte(z)
	}
}

func octahedral16(data []byte) {
	get := func(i int) float32 { return float32(int16(binary.LittleEndian.Uint16(data[i:]))) }
	for i := 0; i+8 <= len(data); i += 8 {
		x, y, z := octahedron(get(i), get(i+2), get(i+4), 32767)
		binary.LittleEndian.PutUint16(data[i:], uint16(x))
		binary.LittleEndian.PutUint16(data[i+2:], uint16(y))
		binary.LittleEndian.PutUint16(data[i+4:], uint16(z))
	}
}

// quaternion decodes the "smallest three" encoding: three components scaled by
// the value whose low two bits name the dropped (largest) one.
func quaternion(data []byte) {
	const scale = float32(1 / math.Sqrt2)
	for i := 0; i+8 <= len(data); i += 8 {
		var q [4]int16
		for k := range q {
			q[k] = int16(binary.LittleEndian.Uint16(data[i+2*k:]))
		}
		s := scale / float32(q[3]|3)
		x := float32(float32(q[0]) * s)
		y := float32(float32(q[1]) * s)
		z := float32(float32(q[2]) * s)
		ww := float32(float32(float32(1-float32(x*x))-float32(y*y)) - float32(z*z))
		w := float32(math.Sqrt(float64(max(ww, 0))))
		qc := int(q[3] & 3)
		out := [4]int32{}
		out[(qc+1)&3] = round(float32(x * 32767))
		out[(qc+2)&3] = round(float32(y * 32767))
		out[(qc+3)&3] = round(float32(z * 32767))
		out[qc] = round(float32(w * 32767))
		for k, v := range out {
			binary.LittleEndian.PutUint16(data[i+2*k:], uint16(v))
		}
	}
}

// exponential decodes 32-bit values holding an 8-bit signed exponent above a
// 24-bit signed mantissa into float32 mantissa·2^exponent.
func exponential(data []byte) {
	for i := 0; i+4 <= len(data); i += 4 {
		v := binary.LittleEndian.Uint32(data[i:])
		m := int32(v<<8) >> 8
		e := int32(v) >> 24
		f := float32(math.Float32frombits(uint32(e+127)<<23) * float32(m))
		binary.LittleEndian.PutUint32(data[i:], math.Float32bits(f))
	}
}

// colorFixed converts one YCoCg colour with its alpha (whose top set bit gives
// the precision the encoder used) to RGBA scaled to limit.
func colorFixed(y, co, cg, a int32, limit float32) [4]int32 {
	as := int32(1)<<(32-bits.LeadingZeros32(uint32(a))) - 1 // a's precision: all ones up to its top bit
	r, g, b := y+co-cg, y+cg, y-co-cg
	a = (a & (as >> 1)) << 1
	a |= a >> 1 & 1
	ss := limit / float32(as)
	return [4]int32{round(float32(float32(r) * ss)), round(float32(float32(g) * ss)), round(float32(float32(b) * ss)), round(float32(float32(a) * ss))}
}

func color8(data []byte) {
	for i := 0; i+4 <= len(data); i += 4 {
		c := colorFixed(int32(data[i]), int32(int8(data[i+1])), int32(int8(data[i+2])), int32(data[i+3]), 255)
		for k, v := range c {
			data[i+k] = byte(v)
		}
	}
}

func color16(data []byte) {
	for i := 0; i+8 <= len(data); i += 8 {
		u := func(k int) uint16 { return binary.LittleEndian.Uint16(data[i+2*k:]) }
		c := colorFixed(int32(u(0)), int32(int16(u(1))), int32(int16(u(2))), int32(u(3)), 65535)
		for k, v := range c {
			binary.LittleEndian.PutUint16(data[i+2*k:], uint16(v))
		}
	}
}
