package mot

import (
	"encoding/binary"
	"fmt"
	"math"
)

// fields is a record's data decoded into its parts, the form conversion works on.
type fields struct {
	shape  shape
	hdr    [6]uint32    // header words: float32 bits, or pghalf codes
	frames []int        // keyed shapes: absolute key frames
	q      [3][]uint16  // quantized shapes: cp, cm0, cm1 per value or key
	f      [3][]float32 // shF32: f[0] per frame; shFloatKeys: p, m0, m1 per key
}

// decodeFields reads count values or keys of shape s from data (long enough) in
// byte order o.
func decodeFields(s shape, o binary.ByteOrder, count int, data []byte) fields {
	fd := fields{shape: s}
	h, k := s.sizes()
	switch s {
	case shQ16, shQ8F:
		fd.hdr[0], fd.hdr[1] = o.Uint32(data), o.Uint32(data[4:])
	case shQ8H:
		fd.hdr[0], fd.hdr[1] = uint32(o.Uint16(data)), uint32(o.Uint16(data[2:]))
	case shQKeys:
		for i := range 6 {
			fd.hdr[i] = o.Uint32(data[4*i:])
		}
	case shHKeysRel, shHKeysAbs8, shHKeys16Pad, shHKeys16BE:
		for i := range 6 {
			fd.hdr[i] = uint32(o.Uint16(data[2*i:]))
		}
	}
	keys := data[h:]
	switch s {
	case shF32:
		fd.f[0] = make([]float32, count)
		for i := range count {
			fd.f[0][i] = math.Float32frombits(o.Uint32(keys[4*i:]))
		}
	case shQ16:
		fd.q[0] = make([]uint16, count)
		for i := range count {
			fd.q[0][i] = o.Uint16(keys[2*i:])
		}
	case shQ8F, shQ8H:
		fd.q[0] = make([]uint16, count)
		for i := range count {
			fd.q[0][i] = uint16(keys[i])
		}
	case shFloatKeys:
		fd.frames = make([]int, count)
		for j := range fd.f {
			fd.f[j] = make([]float32, count)
		}
		for i := range count {
			b := keys[k*i:]
			fd.frames[i] = int(o.Uint16(b))
			for j := range 3 {
				fd.f[j][i] = math.Float32frombits(o.Uint32(b[4+4*j:]))
			}
		}
	default: // quantized keys
		fd.frames = make([]int, count)
		for j := range fd.q {
			fd.q[j] = make([]uint16, count)
		}
		frame := 0
		for i := range count {
			b := keys[k*i:]
			var q []byte
			switch s {
			case shQKeys:
				fd.frames[i] = int(o.Uint16(b))
				for j := range 3 {
					fd.q[j][i] = o.Uint16(b[2+2*j:])
				}
				continue
			case shHKeysRel:
				frame += int(b[0])
				fd.frames[i], q = frame, b[1:4]
			case shHKeysAbs8:
				fd.frames[i], q = int(b[0]), b[1:4]
			case shHKeys16Pad:
				fd.frames[i], q = int(o.Uint16(b)), b[3:6]
			case shHKeys16BE:
				fd.frames[i], q = int(binary.BigEndian.Uint16(b)), b[2:5]
			}
			for j := range 3 {
				fd.q[j][i] = uint16(q[j])
			}
		}
	}
	return fd
}

// count is the number of values or keys.
func (fd *fields) count() int {
	switch {
	case fd.frames != nil:
		return len(fd.frames)
	case fd.f[0] != nil:
		return len(fd.f[0])
	}
	return len(fd.q[0])
}

// encode writes the fields in shape fd.shape and byte order o. Pad bytes are zero.
// It fails when a value does not fit the shape's field (a frame over 255 in a u8).
func (fd *fields) encode(o binary.ByteOrder) ([]byte, error) {
	s := fd.shape
	h, k := s.sizes()
	n := fd.count()
	out := make([]byte, h+k*n)
	switch s {
	case shQ16, shQ8F:
		o.PutUint32(out, fd.hdr[0])
		o.PutUint32(out[4:], fd.hdr[1])
	case shQ8H:
		o.PutUint16(out, uint16(fd.hdr[0]))
		o.PutUint16(out[2:], uint16(fd.hdr[1]))
	case shQKeys:
		for i := range 6 {
			o.PutUint32(out[4*i:], fd.hdr[i])
		}
	case shHKeysRel, shHKeysAbs8, shHKeys16Pad, shHKeys16BE:
		for i := range 6 {
			o.PutUint16(out[2*i:], uint16(fd.hdr[i]))
		}
	}
	keys := out[h:]
	prev := 0
	for i := range n {
		b := keys[k*i:]
		switch s {
		case shF32:
			o.PutUint32(b, math.Float32bits(fd.f[0][i]))
			continue
		case shQ16:
			o.PutUint16(b, fd.q[0][i])
			continue
		case shQ8F, shQ8H:
			if fd.q[0][i] > 255 {
				return nil, fmt.Errorf("value %d: quantum %d does not fit a byte", i, fd.q[0][i])
			}
			b[0] = byte(fd.q[0][i])
			continue
		}
		f := fd.frames[i]
		if f < 0 || f > math.MaxUint16 {
			return nil, fmt.Errorf("key %d: frame %d does not fit 16 bits", i, f)
		}
		var q []byte
		switch s {
		case shFloatKeys:
			o.PutUint16(b, uint16(f))
			for j := range 3 {
				o.PutUint32(b[4+4*j:], math.Float32bits(fd.f[j][i]))
			}
			continue
		case shQKeys:
			o.PutUint16(b, uint16(f))
			for j := range 3 {
				o.PutUint16(b[2+2*j:], fd.q[j][i])
			}
			continue
		case shHKeysRel:
			if f-prev < 0 || f-prev > 255 {
				return nil, fmt.Errorf("key %d: frame step %d does not fit a byte", i, f-prev)
			}
			b[0], q = byte(f-prev), b[1:4]
			prev = f
		case shHKeysAbs8:
			if f > 255 {
				return nil, fmt.Errorf("key %d: frame %d does not fit a byte", i, f)
			}
			b[0], q = byte(f), b[1:4]
		case shHKeys16Pad:
			o.PutUint16(b, uint16(f))
			q = b[3:6]
		case shHKeys16BE:
			binary.BigEndian.PutUint16(b, uint16(f))
			q = b[2:5]
		}
		for j := range 3 {
			if fd.q[j][i] > 255 {
				return nil, fmt.Errorf("key %d: quantum %d does not fit a byte", i, fd.q[j][i])
			}
			q[j] = byte(fd.q[j][i])
		}
	}
	return out, nil
}

// header returns header word i as a float64: pghalf shapes widen their codes.
func (fd *fields) header(i int) float64 {
	switch fd.shape {
	case shQ8H, shHKeysRel, shHKeysAbs8, shHKeys16Pad, shHKeys16BE:
		return HalfToFloat64(uint16(fd.hdr[i]))
	}
	return float64(math.Float32frombits(fd.hdr[i]))
}

// Curve is one track's values: per frame, or Hermite keys (§9). Evaluation is in
// float64.
type Curve struct {
	// Values holds a per-frame track's values, or a constant's one value.
	Values []float64
	// Frames, P, M0 and M1 are a keyed track's keys: frame, value, incoming and
	// outgoing tangent.
	Frames    []int
	P, M0, M1 []float64
}

func (fd *fields) curve() Curve {
	n := fd.count()
	switch fd.shape {
	case shF32:
		v := make([]float64, n)
		for i, x := range fd.f[0] {
			v[i] = float64(x)
		}
		return Curve{Values: v}
	case shQ16, shQ8F, shQ8H:
		p, dp := fd.header(0), fd.header(1)
		v := make([]float64, n)
		for i, c := range fd.q[0] {
			v[i] = p + dp*float64(c)
		}
		return Curve{Values: v}
	}
	c := Curve{Frames: fd.frames, P: make([]float64, n), M0: make([]float64, n), M1: make([]float64, n)}
	if fd.shape == shFloatKeys {
		for i := range n {
			c.P[i], c.M0[i], c.M1[i] = float64(fd.f[0][i]), float64(fd.f[1][i]), float64(fd.f[2][i])
		}
		return c
	}
	var h [6]float64
	for i := range h {
		h[i] = fd.header(i)
	}
	for i := range n {
		c.P[i] = h[0] + h[1]*float64(fd.q[0][i])
		c.M0[i] = h[2] + h[3]*float64(fd.q[1][i])
		c.M1[i] = h[4] + h[5]*float64(fd.q[2][i])
	}
	return c
}

// At evaluates the curve at integer frame x (§9).
func (c *Curve) At(x int) float64 {
	if c.Frames == nil {
		return c.Values[max(0, min(x, len(c.Values)-1))]
	}
	lo, hi := 0, len(c.Frames) // the first key at or after x
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if c.Frames[mid] < x {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return c.value(lo, x)
}

// value is the value at x given k, the number of keys before frame x. Where
// several keys share frame x the first of them gives the value, as in the
// community decoder (§9).
func (c *Curve) value(k, x int) float64 {
	switch n := len(c.Frames); {
	case k < n && c.Frames[k] == x:
		return c.P[k]
	case k == 0:
		return c.P[0]
	case k == n:
		return c.P[n-1]
	}
	return c.segment(k-1, x)
}

func (c *Curve) segment(i, x int) float64 {
	t := float64(x-c.Frames[i]) / float64(c.Frames[i+1]-c.Frames[i])
	return hermite(t, c.P[i], c.M1[i], c.P[i+1], c.M0[i+1])
}

// hermite is §9's cubic with the operations in the community decoder's order
// (each power multiplied out afresh, left to right), so that results agree bit for
// bit; reusing t² for t³ changes the last bit of about one value in a hundred.
func hermite(t, p0, m0, p1, m1 float64) float64 {
	return (2*t*t*t-3*t*t+1)*p0 + (t*t*t-2*t*t+t)*m0 + (-2*t*t*t+3*t*t)*p1 + (t*t*t-t*t)*m1
}

// Eval writes the values at frames 0 … len(dst)−1 into dst, walking the keys once.
func (c *Curve) Eval(dst []float64) {
	if c.Frames == nil {
		n := len(c.Values)
		for x := range dst {
			dst[x] = c.Values[min(x, n-1)]
		}
		return
	}
	n, k := len(c.Frames), 0
	for x := range dst {
		for k < n && c.Frames[k] < x {
			k++
		}
		dst[x] = c.value(k, x)
	}
}
