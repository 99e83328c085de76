package binfmt

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"unsafe"
)

// A float32 is NaN or infinite exactly when its eight exponent bits are all ones.
// The scan tests two floats per 64-bit word with integer operations only: masking
// each 32-bit lane's exponent (bits 23-30) and adding one unit of it carries into
// the lane's bit 31 exactly when all eight were set.
const (
	expMask  = 0x7f8000007f800000
	expUnit  = 0x0080000000800000
	laneHigh = 0x8000000080000000
)

// bad returns x's bit 31 and bit 63 set for each lane holding a non-finite float.
func bad(x uint64) uint64 { return ((x & expMask) + expUnit) & laneHigh }

// NonFinite scans b, a run of float32 in the given byte order (len(b) a multiple
// of 4), and returns the byte offset of the first NaN or infinite float and how
// many there are; first is -1 when every float is finite. It runs at memory speed.
func NonFinite(b []byte, order binary.ByteOrder) (first int, count int) {
	swap := order == binary.BigEndian
	i := 0
	// Fast path: 32 bytes a step, one branch.
	for ; i+32 <= len(b); i += 32 {
		w := b[i : i+32 : i+32]
		if bad(word(w[0:], swap))|bad(word(w[8:], swap))|bad(word(w[16:], swap))|bad(word(w[24:], swap)) != 0 {
			break
		}
	}
	return countFrom(b, i, 0, ^uint64(0), swap)
}

// NonFiniteRecords is NonFinite for b made of records of size bytes (a multiple
// of 8, at most 512) in which only some 4-byte words are floats: bit k of
// floatWords is set when word k of each record is one.
func NonFiniteRecords(b []byte, order binary.ByteOrder, size int, floatWords uint64) (first int, count int) {
	swap := order == binary.BigEndian
	var keep [64]uint64 // per 8-byte word of a record: the lanes that are floats
	for k := 0; k < size/8; k++ {
		if floatWords>>(2*k)&1 != 0 {
			keep[k] |= 0x80000000
		}
		if floatWords>>(2*k+1)&1 != 0 {
			keep[k] |= 0x80000000_00000000
		}
	}
	nw := size / 8
	i := 0
	if !swap {
		// Little-endian: lanes test as loaded, four words a step where a record
		// allows (BPSM's 7 words: 4 + 3).
		for ; i+size <= len(b); i += size {
			r := b[i : i+size : i+size]
			acc, k := uint64(0), 0
			for ; k+4 <= nw; k += 4 {
				w := r[8*k : 8*k+32]
				acc |= bad(binary.LittleEndian.Uint64(w[0:]))&keep[k] | bad(binary.LittleEndian.Uint64(w[8:]))&keep[k+1] |
					bad(binary.LittleEndian.Uint64(w[16:]))&keep[k+2] | bad(binary.LittleEndian.Uint64(w[24:]))&keep[k+3]
			}
			for ; k < nw; k++ {
				acc |= bad(binary.LittleEndian.Uint64(r[8*k:])) & keep[k]
			}
			if acc != 0 {
				break
			}
		}
	}
	for ; i+size <= len(b); i += size {
		r := b[i : i+size : i+size]
		acc := uint64(0)
		for k := 0; k < nw; k++ {
			acc |= bad(word(r[8*k:], swap)) & keep[k]
		}
		if acc != 0 {
			break
		}
	}
	return countFrom(b, i, size, floatWords, swap)
}

// word loads 8 bytes as two float lanes, the first float in the low lane.
func word(p []byte, swap bool) uint64 {
	x := binary.LittleEndian.Uint64(p)
	if swap {
		x = bits.RotateLeft64(bits.ReverseBytes64(x), 32)
	}
	return x
}

// countFrom finds and counts the non-finite floats of b from byte i on, a float at
// a time; with records of size bytes, only the words floatWords marks are floats.
func countFrom(b []byte, i, size int, floatWords uint64, swap bool) (first int, count int) {
	first = -1
	for ; i+4 <= len(b); i += 4 {
		if size > 0 && floatWords>>(i%size/4)&1 == 0 {
			continue
		}
		u := binary.LittleEndian.Uint32(b[i:])
		if swap {
			u = bits.ReverseBytes32(u)
		}
		if bad(uint64(u)) != 0 {
			if first < 0 {
				first = i
			}
			count++
		}
	}
	return first, count
}

// FirstNonFinite returns the index of the first NaN or infinite float of fs, or
// -1: the scan of NonFinite over the floats' bytes in memory.
func FirstNonFinite(fs []float32) int {
	if len(fs) == 0 {
		return -1
	}
	order := binary.ByteOrder(binary.BigEndian)
	if LittleEndianHost {
		order = binary.LittleEndian
	}
	first, _ := NonFinite(unsafe.Slice((*byte)(unsafe.Pointer(&fs[0])), 4*len(fs)), order)
	if first < 0 {
		return -1
	}
	return first / 4
}

// Finite checks that every float of span s (float32 in the checker's byte order)
// is finite: one problem of the given rule for the whole span, naming the first
// bad float and the count. It is a strict-only rule, skipped under SkipFloatScan.
func (c *Checker) Finite(rule string, s Span) {
	if s.OK && !c.Opts.SkipFloatScan {
		first, n := NonFinite(c.B[s.Start:s.End], c.Order)
		c.reportFloats(rule, s, first, n, "")
	}
}

// FiniteRecords is Finite for a span of records (see NonFiniteRecords); the problem
// names the record too.
func (c *Checker) FiniteRecords(rule string, s Span, what string, size int, floatWords uint64) {
	if s.OK && !c.Opts.SkipFloatScan {
		first, n := NonFiniteRecords(c.B[s.Start:s.End], c.Order, size, floatWords)
		c.reportFloats(rule, s, first, n, fmt.Sprintf(" (%s %d, byte %d)", what, first/size, first%size))
	}
}

func (c *Checker) reportFloats(rule string, s Span, first, n int, where string) {
	if first < 0 {
		return
	}
	off := s.Start + uint64(first)
	c.Strict(rule, off, -1, "%s float at byte %d%s is %v; %d of its floats are NaN or infinite",
		s.Name, first, where, math.Float32frombits(c.U32(off)), n)
}

// LittleEndianHost is true where numeric slices can view a file's bytes directly.
// Tests set it to false to run the decoding path big-endian hosts take.
var LittleEndianHost = func() bool {
	x := uint16(1)
	return *(*byte)(unsafe.Pointer(&x)) == 1
}()

// Float32s returns b as little-endian float32s: a zero-copy view on little-endian
// hosts when b is 4-byte aligned, a decoded copy otherwise.
func Float32s(b []byte) []float32 { return view(b, math.Float32frombits) }

// Uint32s is Float32s for little-endian uint32s.
func Uint32s(b []byte) []uint32 { return view(b, func(u uint32) uint32 { return u }) }

func view[T float32 | uint32](b []byte, decode func(uint32) T) []T {
	n := len(b) / 4
	if n == 0 {
		return nil
	}
	if LittleEndianHost && uintptr(unsafe.Pointer(&b[0]))%4 == 0 {
		return unsafe.Slice((*T)(unsafe.Pointer(&b[0])), n)
	}
	out := make([]T, n)
	for i := range out {
		out[i] = decode(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return out
}
