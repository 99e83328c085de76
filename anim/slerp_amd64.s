//go:build amd64 && !amd64.v3 && !purego

#include "textflag.h"

// The constants of slerp4, each in four lanes: sincosQuarter's coefficients
// (the float64 nearest each of its constant expressions), 1, 2 and ±1e-9.
// S1 = -0.16666666666666666
DATA slS1<>+0(SB)/8, $0xbfc5555555555555
DATA slS1<>+8(SB)/8, $0xbfc5555555555555
DATA slS1<>+16(SB)/8, $0xbfc5555555555555
DATA slS1<>+24(SB)/8, $0xbfc5555555555555
GLOBL slS1<>(SB), RODATA|NOPTR, $32
// S2 = 0.008333333333333333
DATA slS2<>+0(SB)/8, $0x3f81111111111111
DATA slS2<>+8(SB)/8, $0x3f81111111111111
DATA slS2<>+16(SB)/8, $0x3f81111111111111
DATA slS2<>+24(SB)/8, $0x3f81111111111111
GLOBL slS2<>(SB), RODATA|NOPTR, $32
// S3 = -0.0001984126984126984
DATA slS3<>+0(SB)/8, $0xbf2a01a01a01a01a
DATA slS3<>+8(SB)/8, $0xbf2a01a01a01a01a
DATA slS3<>+16(SB)/8, $0xbf2a01a01a01a01a
DATA slS3<>+24(SB)/8, $0xbf2a01a01a01a01a
GLOBL slS3<>(SB), RODATA|NOPTR, $32
// S4 = 2.7557319223985893e-06
DATA slS4<>+0(SB)/8, $0x3ec71de3a556c734
DATA slS4<>+8(SB)/8, $0x3ec71de3a556c734
DATA slS4<>+16(SB)/8, $0x3ec71de3a556c734
DATA slS4<>+24(SB)/8, $0x3ec71de3a556c734
GLOBL slS4<>(SB), RODATA|NOPTR, $32
// S5 = -2.505210838544172e-08
DATA slS5<>+0(SB)/8, $0xbe5ae64567f544e4
DATA slS5<>+8(SB)/8, $0xbe5ae64567f544e4
DATA slS5<>+16(SB)/8, $0xbe5ae64567f544e4
DATA slS5<>+24(SB)/8, $0xbe5ae64567f544e4
GLOBL slS5<>(SB), RODATA|NOPTR, $32
// S6 = 1.6059043836821613e-10
DATA slS6<>+0(SB)/8, $0x3de6124613a86d09
DATA slS6<>+8(SB)/8, $0x3de6124613a86d09
DATA slS6<>+16(SB)/8, $0x3de6124613a86d09
DATA slS6<>+24(SB)/8, $0x3de6124613a86d09
GLOBL slS6<>(SB), RODATA|NOPTR, $32
// C1 = -0.5
DATA slC1<>+0(SB)/8, $0xbfe0000000000000
DATA slC1<>+8(SB)/8, $0xbfe0000000000000
DATA slC1<>+16(SB)/8, $0xbfe0000000000000
DATA slC1<>+24(SB)/8, $0xbfe0000000000000
GLOBL slC1<>(SB), RODATA|NOPTR, $32
// C2 = 0.041666666666666664
DATA slC2<>+0(SB)/8, $0x3fa5555555555555
DATA slC2<>+8(SB)/8, $0x3fa5555555555555
DATA slC2<>+16(SB)/8, $0x3fa5555555555555
DATA slC2<>+24(SB)/8, $0x3fa5555555555555
GLOBL slC2<>(SB), RODATA|NOPTR, $32
// C3 = -0.001388888888888889
DATA slC3<>+0(SB)/8, $0xbf56c16c16c16c17
DATA slC3<>+8(SB)/8, $0xbf56c16c16c16c17
DATA slC3<>+16(SB)/8, $0xbf56c16c16c16c17
DATA slC3<>+24(SB)/8, $0xbf56c16c16c16c17
GLOBL slC3<>(SB), RODATA|NOPTR, $32
// C4 = 2.48015873015873e-05
DATA slC4<>+0(SB)/8, $0x3efa01a01a01a01a
DATA slC4<>+8(SB)/8, $0x3efa01a01a01a01a
DATA slC4<>+16(SB)/8, $0x3efa01a01a01a01a
DATA slC4<>+24(SB)/8, $0x3efa01a01a01a01a
GLOBL slC4<>(SB), RODATA|NOPTR, $32
// C5 = -2.755731922398589e-07
DATA slC5<>+0(SB)/8, $0xbe927e4fb7789f5c
DATA slC5<>+8(SB)/8, $0xbe927e4fb7789f5c
DATA slC5<>+16(SB)/8, $0xbe927e4fb7789f5c
DATA slC5<>+24(SB)/8, $0xbe927e4fb7789f5c
GLOBL slC5<>(SB), RODATA|NOPTR, $32
// C6 = 2.08767569878681e-09
DATA slC6<>+0(SB)/8, $0x3e21eed8eff8d898
DATA slC6<>+8(SB)/8, $0x3e21eed8eff8d898
DATA slC6<>+16(SB)/8, $0x3e21eed8eff8d898
DATA slC6<>+24(SB)/8, $0x3e21eed8eff8d898
GLOBL slC6<>(SB), RODATA|NOPTR, $32
// C7 = -1.1470745597729725e-11
DATA slC7<>+0(SB)/8, $0xbda93974a8c07c9d
DATA slC7<>+8(SB)/8, $0xbda93974a8c07c9d
DATA slC7<>+16(SB)/8, $0xbda93974a8c07c9d
DATA slC7<>+24(SB)/8, $0xbda93974a8c07c9d
GLOBL slC7<>(SB), RODATA|NOPTR, $32
// One = 1
DATA slOne<>+0(SB)/8, $0x3ff0000000000000
DATA slOne<>+8(SB)/8, $0x3ff0000000000000
DATA slOne<>+16(SB)/8, $0x3ff0000000000000
DATA slOne<>+24(SB)/8, $0x3ff0000000000000
GLOBL slOne<>(SB), RODATA|NOPTR, $32
// Two = 2
DATA slTwo<>+0(SB)/8, $0x4000000000000000
DATA slTwo<>+8(SB)/8, $0x4000000000000000
DATA slTwo<>+16(SB)/8, $0x4000000000000000
DATA slTwo<>+24(SB)/8, $0x4000000000000000
GLOBL slTwo<>(SB), RODATA|NOPTR, $32
// Eps = 1e-09
DATA slEps<>+0(SB)/8, $0x3e112e0be826d695
DATA slEps<>+8(SB)/8, $0x3e112e0be826d695
DATA slEps<>+16(SB)/8, $0x3e112e0be826d695
DATA slEps<>+24(SB)/8, $0x3e112e0be826d695
GLOBL slEps<>(SB), RODATA|NOPTR, $32
// NegEps = -1e-09
DATA slNegEps<>+0(SB)/8, $0xbe112e0be826d695
DATA slNegEps<>+8(SB)/8, $0xbe112e0be826d695
DATA slNegEps<>+16(SB)/8, $0xbe112e0be826d695
DATA slNegEps<>+24(SB)/8, $0xbe112e0be826d695
GLOBL slNegEps<>(SB), RODATA|NOPTR, $32

// TRANSPOSE turns four rows r0..r3 of four float64 (one quaternion or span
// each) into four columns c0..c3, with t0, t1 as scratch; c0..c3 may be the
// rows' registers only where noted by the callers.
#define TRANSPOSE(r0, r1, r2, r3, t0, t1, c0, c1, c2, c3) \
	VUNPCKLPD r1, r0, t0 \
	VUNPCKHPD r1, r0, t1 \
	VUNPCKLPD r3, r2, r0 \
	VUNPCKHPD r3, r2, r1 \
	VPERM2F128 $0x20, r0, t0, c0 \
	VPERM2F128 $0x20, r1, t1, c1 \
	VPERM2F128 $0x31, r0, t0, c2 \
	VPERM2F128 $0x31, r1, t1, c3

// func slerp4(b *slerpBatch)
//
// slerpSpan.slerp of four (span, keys, u) at once, one per lane, with the same
// float64 operations in the same order, each rounded alone (no fused
// multiply-add), so the same bits: both of slerp's branches are computed and
// the lanes pick theirs (a lerp where invSin is 0; 1 − d/2 or 1/√n for the
// normalization), as the scalar comparisons would.
//
// slerpBatch: a [4]*Quat at 0, b at 32, sp [4]*slerpSpan at 64, u [4]float64
// at 96, dst [4]*Quat at 128. A Quat is x y z w; a slerpSpan cos theta invSin
// sign: 32 bytes each.
TEXT ·slerp4(SB), NOSPLIT, $0-8
	MOVQ b+0(FP), R8

	// The spans' columns: cos Y8, theta Y9, invSin Y10, sign Y11; u Y12.
	MOVQ    64(R8), AX
	VMOVUPD (AX), Y0
	MOVQ    72(R8), AX
	VMOVUPD (AX), Y1
	MOVQ    80(R8), AX
	VMOVUPD (AX), Y2
	MOVQ    88(R8), AX
	VMOVUPD (AX), Y3
	TRANSPOSE(Y0, Y1, Y2, Y3, Y4, Y5, Y8, Y9, Y10, Y11)
	// u as four loads of eight bytes, each of which the store that wrote it
	// can forward (one 32-byte load of four 8-byte stores would wait for them).
	VMOVSD      96(R8), X12
	VMOVHPD     104(R8), X12, X12
	VMOVSD      112(R8), X0
	VMOVHPD     120(R8), X0, X0
	VINSERTF128 $1, X0, Y12, Y12

	// sincosQuarter(x), x = u·θ.
	VMULPD Y9, Y12, Y13 // x
	VMULPD Y13, Y13, Y0 // y = x·x
	VMULPD Y0, Y0, Y1 // y2 = y·y
	VMULPD Y1, Y1, Y2 // y4 = y2·y2
	// sin = x·(((1 + s1·y) + y2·(s2 + s3·y)) + y4·((s4 + s5·y) + y2·s6))
	VMULPD slS1<>(SB), Y0, Y3
	VADDPD slOne<>(SB), Y3, Y3
	VMULPD slS3<>(SB), Y0, Y4
	VADDPD slS2<>(SB), Y4, Y4
	VMULPD Y4, Y1, Y4
	VMULPD slS5<>(SB), Y0, Y5
	VADDPD slS4<>(SB), Y5, Y5
	VMULPD slS6<>(SB), Y1, Y6
	VADDPD Y6, Y5, Y5
	VMULPD Y5, Y2, Y5
	VADDPD Y4, Y3, Y3
	VADDPD Y5, Y3, Y3
	VMULPD Y3, Y13, Y3 // su
	// cos = ((1 + c1·y) + y2·(c2 + c3·y)) + y4·((c4 + c5·y) + y2·(c6 + c7·y))
	VMULPD slC1<>(SB), Y0, Y4
	VADDPD slOne<>(SB), Y4, Y4
	VMULPD slC3<>(SB), Y0, Y5
	VADDPD slC2<>(SB), Y5, Y5
	VMULPD Y5, Y1, Y5
	VMULPD slC5<>(SB), Y0, Y6
	VADDPD slC4<>(SB), Y6, Y6
	VMULPD slC7<>(SB), Y0, Y7
	VADDPD slC6<>(SB), Y7, Y7
	VMULPD Y7, Y1, Y7
	VADDPD Y7, Y6, Y6
	VMULPD Y6, Y2, Y6
	VADDPD Y5, Y4, Y4
	VADDPD Y6, Y4, Y4 // cu

	// The slerp's weights: wa = cu − (cos·su)·invSin, wb = (su·invSin)·sign;
	// the lerp's where invSin is 0: wa = 1 − u, wb = u·sign.
	VMULPD  Y3, Y8, Y5
	VMULPD  Y10, Y5, Y5
	VSUBPD  Y5, Y4, Y5 // wa
	VMULPD  Y10, Y3, Y6
	VMULPD  Y11, Y6, Y6 // wb
	VMOVUPD slOne<>(SB), Y7
	VSUBPD  Y12, Y7, Y7 // 1 − u
	VMULPD  Y11, Y12, Y0 // u·sign
	VXORPD  Y1, Y1, Y1
	VCMPPD  $0x00, Y1, Y10, Y1 // invSin == 0 (ordered: false for NaN)
	VBLENDVPD Y1, Y7, Y5, Y5
	VBLENDVPD Y1, Y0, Y6, Y6

	// wa·a: the first keys' columns x Y7, y Y8, z Y9, w Y10.
	MOVQ    0(R8), AX
	VMOVUPD (AX), Y0
	MOVQ    8(R8), AX
	VMOVUPD (AX), Y1
	MOVQ    16(R8), AX
	VMOVUPD (AX), Y2
	MOVQ    24(R8), AX
	VMOVUPD (AX), Y3
	TRANSPOSE(Y0, Y1, Y2, Y3, Y11, Y12, Y7, Y8, Y9, Y10)
	VMULPD Y5, Y7, Y7
	VMULPD Y5, Y8, Y8
	VMULPD Y5, Y9, Y9
	VMULPD Y5, Y10, Y10

	// wb·b, added: x y z w of the blend.
	MOVQ    32(R8), AX
	VMOVUPD (AX), Y0
	MOVQ    40(R8), AX
	VMOVUPD (AX), Y1
	MOVQ    48(R8), AX
	VMOVUPD (AX), Y2
	MOVQ    56(R8), AX
	VMOVUPD (AX), Y3
	TRANSPOSE(Y0, Y1, Y2, Y3, Y11, Y12, Y13, Y14, Y15, Y4)
	VMULPD Y6, Y13, Y13
	VADDPD Y13, Y7, Y7
	VMULPD Y6, Y14, Y14
	VADDPD Y14, Y8, Y8
	VMULPD Y6, Y15, Y15
	VADDPD Y15, Y9, Y9
	VMULPD Y6, Y4, Y4
	VADDPD Y4, Y10, Y10

	// n = ((x·x + y·y) + z·z) + w·w; f = 1 − d/2 where d = n − 1 is in
	// (−1e-9, 1e-9), else 1/√n.
	VMULPD Y7, Y7, Y0
	VMULPD Y8, Y8, Y1
	VADDPD Y1, Y0, Y0
	VMULPD Y9, Y9, Y1
	VADDPD Y1, Y0, Y0
	VMULPD Y10, Y10, Y1
	VADDPD Y1, Y0, Y0 // n
	VMOVUPD slOne<>(SB), Y6
	VSUBPD  Y6, Y0, Y1 // d
	VCMPPD  $0x1e, slNegEps<>(SB), Y1, Y2 // d > −1e-9 (ordered)
	VCMPPD  $0x11, slEps<>(SB), Y1, Y3 // d < 1e-9 (ordered)
	VANDPD  Y3, Y2, Y2
	VDIVPD  slTwo<>(SB), Y1, Y4
	VSUBPD  Y4, Y6, Y4 // 1 − d/2
	VSQRTPD Y0, Y5
	VDIVPD  Y5, Y6, Y5 // 1/√n
	VBLENDVPD Y2, Y4, Y5, Y5 // f
	VMULPD Y5, Y7, Y7
	VMULPD Y5, Y8, Y8
	VMULPD Y5, Y9, Y9
	VMULPD Y5, Y10, Y10

	// Back to one quaternion a row, each to its dst.
	TRANSPOSE(Y7, Y8, Y9, Y10, Y11, Y12, Y0, Y1, Y2, Y3)
	MOVQ    128(R8), AX
	VMOVUPD Y0, (AX)
	MOVQ    136(R8), AX
	VMOVUPD Y1, (AX)
	MOVQ    144(R8), AX
	VMOVUPD Y2, (AX)
	MOVQ    152(R8), AX
	VMOVUPD Y3, (AX)
	VZEROUPPER
	RET
