//go:build amd64 && !purego

#include "textflag.h"

// Each lane's bit, to turn a byte of bits into a mask of lanes.
DATA wordBits<>+0(SB)/4, $1
DATA wordBits<>+4(SB)/4, $2
DATA wordBits<>+8(SB)/4, $4
DATA wordBits<>+12(SB)/4, $8
DATA wordBits<>+16(SB)/4, $16
DATA wordBits<>+20(SB)/4, $32
DATA wordBits<>+24(SB)/4, $64
DATA wordBits<>+28(SB)/4, $128
GLOBL wordBits<>(SB), RODATA|NOPTR, $32

// All but a float64's sign: math.Abs.
DATA wordAbs<>+0(SB)/8, $0x7fffffffffffffff
GLOBL wordAbs<>(SB), RODATA|NOPTR, $8

// pairBit, and 1.0 as a float32.
DATA wordPair<>+0(SB)/4, $0x80000000
GLOBL wordPair<>(SB), RODATA|NOPTR, $4
DATA wordOne<>+0(SB)/4, $0x3f800000
GLOBL wordOne<>(SB), RODATA|NOPTR, $4
DATA wordEight<>+0(SB)/4, $8
GLOBL wordEight<>(SB), RODATA|NOPTR, $4
DATA wordFast<>+0(SB)/8, $0x3ff0000010000000 // 1 + 2⁻²⁴
GLOBL wordFast<>(SB), RODATA|NOPTR, $8

// func wordAVX2(a *wordArgs, one, pair uint64) uint64
//
// oneWordGo on one and pairWordGo on pair (disjoint), eight units at a time,
// each operation theirs on lanes. For every unit of the group: its step,
// |float64(now) − float64(phase)| ≤ float64(allowed) four units at a time
// (exact conversions, the same subtraction, the sign cleared, LE_OS false on
// NaN as Go's <= is). Of one's, the key species<<16 | clip against key's. Of
// pair's, pairKey's pairBit | (pairOff[s] + c·n + other) with n and pairOff
// looked up by species (VPERMD: species under 8; n 0 for a species the meter
// lacks), the unit's clips both under n, against key's, which is not noKey;
// the weights 1 − w and w (float32) equal to w0's and w1's (EQ_OQ, false on
// NaN as Go's == is) and |float64(1 − w)| + |float64(w)| ≤ steady, so where
// 0 ≤ w ≤ 1 if steady is at least 1 + 2⁻²⁴ (1 − w rounds by at most 2⁻²⁵
// there, and both terms are ≥ 0). now is stored into phase for the units
// that pass, by a masked store that leaves the others' bytes alone (a word
// may be two workers').
//
// AX a, CX the group's first unit, R8 one and R14 pair (their next group's
// byte at the bottom), R9 left, R10 one's units of the group still passing
// and DX pair's, R12 the group's steps within allowed, R13 1 where steady
// allows the weights' shortcut; Y15 the sign mask (float64), Y14 steady, Y13
// pairBit, Y12 noKey, Y11 1.0 (float32), Y10 wordBits, Y9 and Y8 the tables'
// first eight, Y0 8.
TEXT ·wordAVX2(SB), NOSPLIT, $0-32
	MOVQ a+0(FP), AX
	MOVQ one+8(FP), R8
	MOVQ pair+16(FP), R14
	XORQ R9, R9
	XORQ CX, CX
	VBROADCASTSD wordAbs<>(SB), Y15
	VBROADCASTSD 96(AX), Y14
	VPBROADCASTD wordPair<>(SB), Y13
	VPCMPEQD Y12, Y12, Y12
	VBROADCASTSS wordOne<>(SB), Y11
	VMOVDQU wordBits<>(SB), Y10
	MOVQ 80(AX), BX
	VMOVDQU (BX), Y9 // n, species 0–7
	MOVQ 88(AX), BX
	VMOVDQU (BX), Y8 // pairOff, species 0–7
	VPBROADCASTD wordEight<>(SB), Y0
	XORQ R13, R13
	MOVSD 96(AX), X1
	UCOMISD wordFast<>(SB), X1
	SETCC R13 // steady ≥ 1 + 2⁻²⁴ (not NaN)

group:
	MOVQ R8, R10
	ANDQ $0xff, R10 // one's units of the group
	MOVQ R14, DX
	ANDQ $0xff, DX // pair's
	MOVQ R10, R11
	ORQ DX, R11
	JZ next
	// |now − phase| ≤ allowed, units 0–3 then 4–7 of the group
	MOVQ 40(AX), BX
	MOVQ 48(AX), SI
	MOVQ 72(AX), DI
	VCVTPS2PD (BX)(CX*4), Y3
	VCVTPS2PD (SI)(CX*4), Y4
	VSUBPD Y4, Y3, Y3
	VANDPD Y15, Y3, Y3
	VCVTPS2PD (DI)(CX*4), Y5
	VCMPPD $2, Y5, Y3, Y3
	VMOVMSKPD Y3, R12
	VCVTPS2PD 16(BX)(CX*4), Y3
	VCVTPS2PD 16(SI)(CX*4), Y4
	VSUBPD Y4, Y3, Y3
	VANDPD Y15, Y3, Y3
	VCVTPS2PD 16(DI)(CX*4), Y5
	VCMPPD $2, Y5, Y3, Y3
	VMOVMSKPD Y3, R11
	SHLQ $4, R11
	ORQ R11, R12
	ANDQ R12, R10
	ANDQ R12, DX
	MOVQ R10, R11
	ORQ DX, R11
	JZ left
	// The units' species, clip and key.
	MOVQ 8(AX), BX
	VPMOVZXBD (BX)(CX*1), Y1 // species
	MOVQ 16(AX), BX
	VPMOVZXWD (BX)(CX*2), Y2 // clip
	MOVQ 0(AX), BX
	VMOVDQU (BX)(CX*4), Y3 // key
	TESTQ R10, R10
	JZ pair
	// one's: key == species<<16 | clip
	VPSLLD $16, Y1, Y4
	VPOR Y4, Y2, Y4
	VPCMPEQD Y3, Y4, Y4
	VMOVMSKPS Y4, R11
	ANDQ R11, R10

pair:
	TESTQ DX, DX
	JZ left
	// pair's: key == pairKey(species, clip, other), not noKey
	MOVQ 24(AX), BX
	VPMOVZXWD (BX)(CX*2), Y5 // other
	VPERMD Y9, Y1, Y4 // n
	VPCMPGTD Y2, Y4, Y7 // n > clip
	VPCMPGTD Y5, Y4, Y6 // n > other
	VPAND Y6, Y7, Y7
	VPCMPGTD Y1, Y0, Y6 // 8 > species
	VPAND Y6, Y7, Y7
	VPERMD Y8, Y1, Y6 // pairOff
	VPMULLD Y4, Y2, Y2
	VPADDD Y6, Y2, Y2
	VPADDD Y5, Y2, Y2
	VPOR Y13, Y2, Y2
	VPCMPEQD Y3, Y2, Y2
	VPAND Y7, Y2, Y2
	VPCMPEQD Y12, Y3, Y3 // key == noKey
	VPANDN Y2, Y3, Y2
	VMOVMSKPS Y2, R11
	ANDQ R11, DX
	JZ left
	// 1 − w == w0, w == w1
	MOVQ 32(AX), BX
	VMOVUPS (BX)(CX*4), Y3 // w
	VSUBPS Y3, Y11, Y4 // 1 − w
	MOVQ 56(AX), BX
	VCMPPS $0, (BX)(CX*4), Y4, Y5
	MOVQ 64(AX), BX
	VCMPPS $0, (BX)(CX*4), Y3, Y6
	VANDPS Y6, Y5, Y5
	VMOVMSKPS Y5, R11
	ANDQ R11, DX
	// |1 − w| + |w| ≤ steady: the shortcut where it holds for every unit
	// left, else worked out in float64, units 0–3 then 4–7.
	TESTQ R13, R13
	JZ psum
	VXORPS Y1, Y1, Y1
	VCMPPS $2, Y3, Y1, Y6 // 0 ≤ w
	VCMPPS $2, Y11, Y3, Y7 // w ≤ 1
	VANDPS Y7, Y6, Y6
	VMOVMSKPS Y6, R11
	ANDQ DX, R11
	CMPQ R11, DX
	JEQ left

psum:
	VCVTPS2PD X4, Y6
	VCVTPS2PD X3, Y7
	VANDPD Y15, Y6, Y6
	VANDPD Y15, Y7, Y7
	VADDPD Y7, Y6, Y6
	VCMPPD $2, Y14, Y6, Y6
	VMOVMSKPD Y6, R11
	VEXTRACTF128 $1, Y4, X6
	VEXTRACTF128 $1, Y3, X7
	VCVTPS2PD X6, Y6
	VCVTPS2PD X7, Y7
	VANDPD Y15, Y6, Y6
	VANDPD Y15, Y7, Y7
	VADDPD Y7, Y6, Y6
	VCMPPD $2, Y14, Y6, Y6
	VMOVMSKPD Y6, R12
	SHLQ $4, R12
	ORQ R12, R11
	ANDQ R11, DX

left:
	// left |= ((one's | pair's byte) &^ pass) << CX
	ORQ DX, R10 // the group's units that pass
	MOVQ R8, R11
	ORQ R14, R11
	ANDQ $0xff, R11
	XORQ R10, R11
	SHLQ CX, R11
	ORQ R11, R9
	TESTQ R10, R10
	JZ next
	// phase = now where they pass
	VMOVD R10, X6
	VPBROADCASTD X6, Y6
	VPAND Y10, Y6, Y6
	VPCMPEQD Y10, Y6, Y6
	MOVQ 40(AX), BX
	MOVQ 48(AX), SI
	VMOVUPS (BX)(CX*4), Y7
	VMASKMOVPS Y7, Y6, (SI)(CX*4)

next:
	SHRQ $8, R8
	SHRQ $8, R14
	ADDQ $8, CX
	CMPQ CX, $64
	JLT group
	VZEROUPPER
	MOVQ R9, ret+24(FP)
	RET

// func prefetch(p, q unsafe.Pointer)
TEXT ·prefetch(SB), NOSPLIT, $0-16
	MOVQ p+0(FP), AX
	PREFETCHT0 (AX)
	MOVQ q+8(FP), AX
	PREFETCHT0 (AX)
	RET
