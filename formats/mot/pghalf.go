package mot

import (
	"math"
)

// pghalf is PlatinumGames' 16-bit float (docs/formats/mot.md §3): 1 sign bit, 6
// exponent bits, 9 mantissa bits, exponent bias 47.
const (
	halfMantBits = 9
	halfBias     = 47
	halfExpMax   = 63
)

// HalfToFloat32 widens a pghalf code exactly to float32 (every pghalf value is a
// float32 value; NaN payloads keep their bits, shifted into place).
func HalfToFloat32(h uint16) float32 {
	sign := uint32(h>>15) << 31
	e := uint32(h>>halfMantBits) & halfExpMax
	m := uint32(h) & (1<<halfMantBits - 1)
	switch {
	case e == halfExpMax:
		return math.Float32frombits(sign | 0xFF<<23 | m<<(23-halfMantBits))
	case e == 0:
		if m == 0 {
			return math.Float32frombits(sign)
		}
		// Subnormal m·2^-55: normalise (float32 normals reach 2^-126).
		v := float32(m) * float32(math.Ldexp(1, 1-halfBias-halfMantBits))
		if sign != 0 {
			v = -v
		}
		return v
	default:
		return math.Float32frombits(sign | (e-halfBias+127)<<23 | m<<(23-halfMantBits))
	}
}

// HalfToFloat64 is HalfToFloat32 widened to float64, also exact.
func HalfToFloat64(h uint16) float64 { return float64(HalfToFloat32(h)) }

// FloatToHalf rounds v to the nearest pghalf, ties to even. Values beyond the
// largest finite pghalf (just under 2^16) round to infinity, NaN stays NaN.
func FloatToHalf(v float64) uint16 {
	b := math.Float64bits(v)
	sign := uint16(b>>63) << 15
	if math.IsNaN(v) {
		return sign | halfExpMax<<halfMantBits | 1<<(halfMantBits-1)
	}
	a := math.Abs(v)
	if math.IsInf(v, 0) {
		return sign | halfExpMax<<halfMantBits
	}
	if a == 0 {
		return sign
	}
	// Express a as q·2^k with q an integer mantissa in the target precision, rounded
	// to nearest even from the exact float64 bits.
	fb := math.Float64bits(a)
	e := int(fb>>52) - 1023 // unbiased; float64 subnormals are far below pghalf's range
	mant := fb&(1<<52-1) | 1<<52
	if fb>>52 == 0 {
		return sign // under 2^-1022: rounds to zero
	}
	he := e + halfBias // biased pghalf exponent
	shift := 52 - halfMantBits
	if he <= 0 { // subnormal in pghalf: fewer mantissa bits
		shift += 1 - he
		he = 0
	}
	if shift > 63 {
		return sign
	}
	q := mant >> shift
	rem := mant & (1<<shift - 1)
	half := uint64(1) << (shift - 1)
	if rem > half || rem == half && q&1 == 1 {
		q++
	}
	// q now holds the implicit bit too (for normals); a carry out of the mantissa
	// bumps the exponent, which the addition below does by itself.
	var code uint64
	if he == 0 {
		code = q // subnormal, or the smallest normal after a carry
	} else {
		code = uint64(he)<<halfMantBits + q - 1<<halfMantBits
	}
	if code >= halfExpMax<<halfMantBits {
		return sign | halfExpMax<<halfMantBits
	}
	return sign | uint16(code)
}
