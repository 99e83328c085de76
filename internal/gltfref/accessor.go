package gltfref

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

type reader struct {
	jd      *jsonDoc
	buffers [][]byte
}

func componentCount(typ string) (n, cols int, err error) {
	switch typ {
	case "SCALAR":
		return 1, 1, nil
	case "VEC2":
		return 2, 1, nil
	case "VEC3":
		return 3, 1, nil
	case "VEC4":
		return 4, 1, nil
	case "MAT2":
		return 4, 2, nil
	case "MAT3":
		return 9, 3, nil
	case "MAT4":
		return 16, 4, nil
	}
	return 0, 0, fmt.Errorf("accessor type %q", typ)
}

func componentSize(ct int) (int, error) {
	switch ct {
	case 5120, 5121:
		return 1, nil
	case 5122, 5123:
		return 2, nil
	case 5125, 5126:
		return 4, nil
	}
	return 0, fmt.Errorf("component type %d", ct)
}

// component decodes one component at b. With normalize, integer types map to
// [-1,1] or [0,1] by the glTF 2.0 formulas (signed: max(c/MAX, -1)).
func component(b []byte, ct int, normalize bool) float64 {
	le := binary.LittleEndian
	switch ct {
	case 5120:
		c := float64(int8(b[0]))
		if normalize {
			return math.Max(c/127, -1)
		}
		return c
	case 5121:
		c := float64(b[0])
		if normalize {
			return c / 255
		}
		return c
	case 5122:
		c := float64(int16(le.Uint16(b)))
		if normalize {
			return math.Max(c/32767, -1)
		}
		return c
	case 5123:
		c := float64(le.Uint16(b))
		if normalize {
			return c / 65535
		}
		return c
	case 5125:
		return float64(le.Uint32(b))
	default: // 5126
		return float64(math.Float32frombits(le.Uint32(b)))
	}
}

// view returns the bytes of a buffer view.
func (r *reader) view(i int) ([]byte, int, error) {
	if i < 0 || i >= len(r.jd.BufferViews) {
		return nil, 0, fmt.Errorf("bufferView %d out of range", i)
	}
	v := r.jd.BufferViews[i]
	if v.Buffer < 0 || v.Buffer >= len(r.buffers) {
		return nil, 0, fmt.Errorf("bufferView %d: buffer %d out of range", i, v.Buffer)
	}
	b := r.buffers[v.Buffer]
	if v.ByteOffset < 0 || v.ByteLength < 0 || v.ByteOffset > len(b) || v.ByteLength > len(b)-v.ByteOffset {
		return nil, 0, fmt.Errorf("bufferView %d runs past its buffer", i)
	}
	return b[v.ByteOffset : v.ByteOffset+v.ByteLength], v.ByteStride, nil
}

// readElements decodes count tightly packed or strided elements from src at offset.
// Matrix columns of 1- and 2-byte components start on 4-byte boundaries (spec §3.6.2.4).
func readElements(src []byte, offset, stride, count int, ct int, typ string, normalize bool) ([][]float64, error) {
	n, cols, err := componentCount(typ)
	if err != nil {
		return nil, err
	}
	cs, err := componentSize(ct)
	if err != nil {
		return nil, err
	}
	rows := n / cols
	colBytes := rows * cs
	if cols > 1 && colBytes%4 != 0 {
		colBytes += 4 - colBytes%4
	}
	elemSize := colBytes * cols
	if stride == 0 {
		stride = elemSize
	}
	if count < 0 || offset < 0 || stride < elemSize {
		return nil, errors.New("bad count, offset or stride")
	}
	if count > 0 && (offset > len(src) || (count-1) > (len(src)-offset-elemSize)/stride || len(src)-offset < elemSize) {
		return nil, fmt.Errorf("%d elements of %d bytes (stride %d) at %d run past %d bytes", count, elemSize, stride, offset, len(src))
	}
	out := make([][]float64, count)
	for e := range out {
		el := make([]float64, n)
		base := offset + e*stride
		for c := 0; c < cols; c++ {
			for k := 0; k < rows; k++ {
				el[c*rows+k] = component(src[base+c*colBytes+k*cs:], ct, normalize)
			}
		}
		out[e] = el
	}
	return out, nil
}

// accessor decodes accessor i, one []float64 per element, with sparse substitution.
// forceNormalize treats integer components as normalized even if the accessor does
// not set "normalized".
func (r *reader) accessor(i int, forceNormalize bool) ([][]float64, error) {
	if i < 0 || i >= len(r.jd.Accessors) {
		return nil, fmt.Errorf("accessor %d out of range", i)
	}
	a := r.jd.Accessors[i]
	normalize := (a.Normalized || forceNormalize) && a.ComponentType != 5126 && a.ComponentType != 5125
	var out [][]float64
	if a.BufferView != nil {
		src, stride, err := r.view(*a.BufferView)
		if err != nil {
			return nil, fmt.Errorf("accessor %d: %w", i, err)
		}
		out, err = readElements(src, a.ByteOffset, stride, a.Count, a.ComponentType, a.Type, normalize)
		if err != nil {
			return nil, fmt.Errorf("accessor %d: %w", i, err)
		}
	} else {
		n, _, err := componentCount(a.Type)
		if err != nil {
			return nil, fmt.Errorf("accessor %d: %w", i, err)
		}
		if a.Count < 0 {
			return nil, fmt.Errorf("accessor %d: negative count", i)
		}
		out = make([][]float64, a.Count)
		for e := range out {
			out[e] = make([]float64, n)
		}
	}
	if sp := a.Sparse; sp != nil {
		isrc, _, err := r.view(sp.Indices.BufferView)
		if err != nil {
			return nil, fmt.Errorf("accessor %d sparse indices: %w", i, err)
		}
		idx, err := readElements(isrc, sp.Indices.ByteOffset, 0, sp.Count, sp.Indices.ComponentType, "SCALAR", false)
		if err != nil {
			return nil, fmt.Errorf("accessor %d sparse indices: %w", i, err)
		}
		vsrc, _, err := r.view(sp.Values.BufferView)
		if err != nil {
			return nil, fmt.Errorf("accessor %d sparse values: %w", i, err)
		}
		vals, err := readElements(vsrc, sp.Values.ByteOffset, 0, sp.Count, a.ComponentType, a.Type, normalize)
		if err != nil {
			return nil, fmt.Errorf("accessor %d sparse values: %w", i, err)
		}
		for k, ix := range idx {
			j := int(ix[0])
			if j < 0 || j >= len(out) {
				return nil, fmt.Errorf("accessor %d: sparse index %d out of range", i, j)
			}
			out[j] = vals[k]
		}
	}
	return out, nil
}
