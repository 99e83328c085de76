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

// func oneWordAVX2(key *[64]uint32, species *[64]unit.SpeciesID, clip *[64]unit.ClipID, now, phase, allowed *[64]float32, mask uint64) uint64
//
// oneWordGo eight units at a time: the key species<<16 | clip against key's
// (VPCMPEQD), |float64(now) − float64(phase)| ≤ float64(allowed) four units
// at a time in float64 (exact conversions, the same subtraction, the sign
// cleared, LE_OS false on NaN as Go's <= is), and now stored into phase for
// the units of mask that pass, by a masked store that leaves the others'
// bytes alone (a word may be two workers').
//
// AX key, BX species, R12 clip, DX now, SI phase, DI allowed, R8 mask (its
// next group's byte at the bottom), CX the group's first bit, R9 left; Y15
// the sign mask, Y14 wordBits.
TEXT ·oneWordAVX2(SB), NOSPLIT, $0-64
	MOVQ key+0(FP), AX
	MOVQ species+8(FP), BX
	MOVQ clip+16(FP), R12
	MOVQ now+24(FP), DX
	MOVQ phase+32(FP), SI
	MOVQ allowed+40(FP), DI
	MOVQ mask+48(FP), R8
	XORQ R9, R9
	XORQ CX, CX
	VBROADCASTSD wordAbs<>(SB), Y15
	VMOVDQU wordBits<>(SB), Y14

group:
	MOVQ R8, R10
	ANDQ $0xff, R10 // the group's units of mask
	JZ next
	// key == species<<16 | clip
	VPMOVZXBD (BX), Y1
	VPMOVZXWD (R12), Y2
	VPSLLD $16, Y1, Y1
	VPOR Y1, Y2, Y2
	VPCMPEQD (AX), Y2, Y2
	VMOVMSKPS Y2, R11
	ANDQ R11, R10
	// |now − phase| ≤ allowed, units 0–3 then 4–7 of the group
	VCVTPS2PD (DX), Y3
	VCVTPS2PD (SI), Y4
	VSUBPD Y4, Y3, Y3
	VANDPD Y15, Y3, Y3
	VCVTPS2PD (DI), Y5
	VCMPPD $2, Y5, Y3, Y3
	VMOVMSKPD Y3, R11
	VCVTPS2PD 16(DX), Y3
	VCVTPS2PD 16(SI), Y4
	VSUBPD Y4, Y3, Y3
	VANDPD Y15, Y3, Y3
	VCVTPS2PD 16(DI), Y5
	VCMPPD $2, Y5, Y3, Y3
	VMOVMSKPD Y3, R13
	SHLQ $4, R13
	ORQ R13, R11
	ANDQ R11, R10 // the group's units that pass
	// left |= (mask's byte &^ pass) << CX
	MOVQ R8, R13
	ANDQ $0xff, R13
	XORQ R10, R13
	SHLQ CX, R13
	ORQ R13, R9
	TESTQ R10, R10
	JZ next
	// phase = now where they pass
	VMOVD R10, X6
	VPBROADCASTD X6, Y6
	VPAND Y14, Y6, Y6
	VPCMPEQD Y14, Y6, Y6
	VMOVUPS (DX), Y7
	VMASKMOVPS Y7, Y6, (SI)

next:
	ADDQ $32, AX
	ADDQ $8, BX
	ADDQ $16, R12
	ADDQ $32, DX
	ADDQ $32, SI
	ADDQ $32, DI
	SHRQ $8, R8
	ADDQ $8, CX
	CMPQ CX, $64
	JLT group
	VZEROUPPER
	MOVQ R9, ret+56(FP)
	RET

// pairBit, and 1.0 as a float32.
DATA wordPair<>+0(SB)/4, $0x80000000
GLOBL wordPair<>(SB), RODATA|NOPTR, $4
DATA wordOne<>+0(SB)/4, $0x3f800000
GLOBL wordOne<>(SB), RODATA|NOPTR, $4
DATA wordEight<>+0(SB)/4, $8
GLOBL wordEight<>(SB), RODATA|NOPTR, $4
DATA wordFast<>+0(SB)/8, $0x3ff0000010000000 // 1 + 2⁻²⁴
GLOBL wordFast<>(SB), RODATA|NOPTR, $8

// func pairWordAVX2(a *pairWordArgs, mask uint64) uint64
//
// pairWordGo eight units at a time: pairKey's pairBit | (pairOff[s] + c·n +
// other) with n and pairOff looked up by species (VPERMD: species under 8; n
// 0 for a species the meter lacks), the unit's clips both under n, against
// key's, which is not noKey;
// the weights 1 − w and w (float32) equal to w0's and w1's (EQ_OQ, false on
// NaN as Go's == is) and |float64(1 − w)| + |float64(w)| ≤ steady; the phase's
// step as oneWordAVX2 takes it; and now stored into phase for the units of
// mask that pass, by a masked store.
//
// AX a, CX the group's first unit, R8 mask (its next group's byte at the
// bottom), R9 left, R10 the group's units still passing, R13 1 where steady
// allows the weights' shortcut; Y15 the sign mask
// (float64), Y14 steady, Y13 pairBit, Y12 noKey, Y11 1.0 (float32), Y10
// wordBits, Y9 and Y8 the tables' first eight, Y0 8.
TEXT ·pairWordAVX2(SB), NOSPLIT, $0-24
	MOVQ a+0(FP), AX
	MOVQ mask+8(FP), R8
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

pgroup:
	MOVQ R8, R10
	ANDQ $0xff, R10
	JZ pnext
	// key == pairKey(species, clip, other), not noKey
	MOVQ 8(AX), BX
	VPMOVZXBD (BX)(CX*1), Y1 // species
	MOVQ 16(AX), BX
	VPMOVZXWD (BX)(CX*2), Y2 // clip
	MOVQ 24(AX), BX
	VPMOVZXWD (BX)(CX*2), Y3 // other
	VPERMD Y9, Y1, Y4 // n
	VPERMD Y8, Y1, Y5 // pairOff
	VPCMPGTD Y2, Y4, Y6 // n > clip
	VPCMPGTD Y3, Y4, Y7 // n > other
	VPAND Y7, Y6, Y6
	VPCMPGTD Y1, Y0, Y7 // 8 > species
	VPAND Y7, Y6, Y6
	VPMULLD Y4, Y2, Y2
	VPADDD Y5, Y2, Y2
	VPADDD Y3, Y2, Y2
	VPOR Y13, Y2, Y2
	MOVQ 0(AX), BX
	VMOVDQU (BX)(CX*4), Y3 // key
	VPCMPEQD Y3, Y2, Y2
	VPAND Y6, Y2, Y2
	VPCMPEQD Y12, Y3, Y3
	VPANDN Y2, Y3, Y2
	VMOVMSKPS Y2, R11
	ANDQ R11, R10
	JZ pleft
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
	ANDQ R11, R10
	// |1 − w| + |w| ≤ steady in float64: so where 0 ≤ w ≤ 1 if steady is at
	// least 1 + 2⁻²⁴ (R13; 1 − w rounds by at most 2⁻²⁵ there, and both are
	// ≥ 0), else worked out, units 0–3 then 4–7 of the group.
	TESTQ R13, R13
	JZ psum
	VXORPS Y1, Y1, Y1
	VCMPPS $2, Y3, Y1, Y6 // 0 ≤ w
	VCMPPS $2, Y11, Y3, Y7 // w ≤ 1
	VANDPS Y7, Y6, Y6
	VMOVMSKPS Y6, R11
	ANDQ R10, R11
	CMPQ R11, R10
	JEQ pstep

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
	ANDQ R11, R10

pstep:
	// |now − phase| ≤ allowed in float64
	MOVQ 40(AX), BX
	MOVQ 48(AX), DX
	MOVQ 72(AX), SI
	VCVTPS2PD (BX)(CX*4), Y3
	VCVTPS2PD (DX)(CX*4), Y4
	VSUBPD Y4, Y3, Y3
	VANDPD Y15, Y3, Y3
	VCVTPS2PD (SI)(CX*4), Y5
	VCMPPD $2, Y5, Y3, Y3
	VMOVMSKPD Y3, R11
	VCVTPS2PD 16(BX)(CX*4), Y3
	VCVTPS2PD 16(DX)(CX*4), Y4
	VSUBPD Y4, Y3, Y3
	VANDPD Y15, Y3, Y3
	VCVTPS2PD 16(SI)(CX*4), Y5
	VCMPPD $2, Y5, Y3, Y3
	VMOVMSKPD Y3, R12
	SHLQ $4, R12
	ORQ R12, R11
	ANDQ R11, R10

pleft:
	// left |= (mask's byte &^ pass) << CX
	MOVQ R8, R11
	ANDQ $0xff, R11
	XORQ R10, R11
	SHLQ CX, R11
	ORQ R11, R9
	TESTQ R10, R10
	JZ pnext
	// phase = now where they pass
	VMOVD R10, X6
	VPBROADCASTD X6, Y6
	VPAND Y10, Y6, Y6
	VPCMPEQD Y10, Y6, Y6
	MOVQ 40(AX), BX
	MOVQ 48(AX), DX
	VMOVUPS (BX)(CX*4), Y7
	VMASKMOVPS Y7, Y6, (DX)(CX*4)

pnext:
	SHRQ $8, R8
	ADDQ $8, CX
	CMPQ CX, $64
	JLT pgroup
	VZEROUPPER
	MOVQ R9, ret+16(FP)
	RET

// func prefetch(p *[6]unsafe.Pointer)
TEXT ·prefetch(SB), NOSPLIT, $0-8
	MOVQ p+0(FP), AX
	MOVQ 0(AX), BX
	PREFETCHT0 (BX)
	MOVQ 8(AX), BX
	PREFETCHT0 (BX)
	MOVQ 16(AX), BX
	PREFETCHT0 (BX)
	MOVQ 24(AX), BX
	PREFETCHT0 (BX)
	MOVQ 32(AX), BX
	PREFETCHT0 (BX)
	MOVQ 40(AX), BX
	PREFETCHT0 (BX)
	RET
