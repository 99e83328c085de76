//go:build amd64 && !amd64.v3 && !purego

#include "textflag.h"

// The constants of localsAVX and childrenAVX.
// -0 in every lane: adding it changes no float, -0 included.
DATA msNegZero<>+0(SB)/8, $0x8000000000000000
DATA msNegZero<>+8(SB)/8, $0x8000000000000000
DATA msNegZero<>+16(SB)/8, $0x8000000000000000
DATA msNegZero<>+24(SB)/8, $0x8000000000000000
GLOBL msNegZero<>(SB), RODATA|NOPTR, $32
// An affine matrix's bottom row: 0 0 0 1.
DATA msBottom<>+0(SB)/8, $0.0
DATA msBottom<>+8(SB)/8, $0.0
DATA msBottom<>+16(SB)/8, $0.0
DATA msBottom<>+24(SB)/8, $1.0
GLOBL msBottom<>(SB), RODATA|NOPTR, $32

// func hasAVX() bool
TEXT ·hasAVX(SB), NOSPLIT, $0-1
	MOVL  $1, AX
	XORL  CX, CX
	CPUID
	ANDL  $0x18000000, CX // OSXSAVE (bit 27) and AVX (bit 28)
	CMPL  CX, $0x18000000
	JNE   no
	XORL  CX, CX
	XGETBV                // XCR0: the OS saves SSE (bit 1) and AVX (bit 2) state
	ANDL  $6, AX
	CMPL  AX, $6
	JNE   no
	MOVB  $1, ret+0(FP)
	RET

no:
	MOVB $0, ret+0(FP)
	RET

DATA msExpMask<>+0(SB)/4, $0x7f800000
GLOBL msExpMask<>(SB), RODATA|NOPTR, $4

// func putPaletteAVX(dst *float32, global *Mat4, bones *int, n int) (nonFinite bool)
//
// A float32 is not finite exactly when its exponent bits are all ones: each lane
// masked to its exponent and compared with the mask, the results or-ed together.
TEXT ·putPaletteAVX(SB), NOSPLIT, $0-33
	MOVQ         dst+0(FP), DI
	MOVQ         global+8(FP), SI
	MOVQ         bones+16(FP), BX
	MOVQ         n+24(FP), CX
	VBROADCASTSS msExpMask<>(SB), X8
	VPXOR        X9, X9, X9

putLoop:
	MOVQ       (BX), AX
	SHLQ       $7, AX
	LEAQ       (SI)(AX*1), DX // global[bones[i]]
	VCVTPD2PSY 0(DX), X0
	VCVTPD2PSY 32(DX), X1
	VCVTPD2PSY 64(DX), X2
	VCVTPD2PSY 96(DX), X3
	VMOVUPS    X0, 0(DI)
	VMOVUPS    X1, 16(DI)
	VMOVUPS    X2, 32(DI)
	VMOVUPS    X3, 48(DI)
	VANDPS     X8, X0, X0
	VANDPS     X8, X1, X1
	VANDPS     X8, X2, X2
	VANDPS     X8, X3, X3
	VPCMPEQD   X8, X0, X0
	VPCMPEQD   X8, X1, X1
	VPCMPEQD   X8, X2, X2
	VPCMPEQD   X8, X3, X3
	VPOR       X0, X1, X1
	VPOR       X2, X3, X3
	VPOR       X1, X9, X9
	VPOR       X3, X9, X9
	ADDQ       $8, BX
	ADDQ       $64, DI
	DECQ       CX
	JNZ        putLoop

	VPTEST     X9, X9
	SETNE      nonFinite+32(FP)
	VZEROUPPER
	RET

// TR4 turns four rows r0..r3 of four float64 into four columns c0..c3, with
// t0 and t1 as scratch; r0 and r1 are overwritten, and a column may be t0,
// t1, r2 or r3.
#define TR4(r0, r1, r2, r3, t0, t1, c0, c1, c2, c3) \
	VUNPCKLPD r1, r0, t0 \
	VUNPCKHPD r1, r0, t1 \
	VUNPCKLPD r3, r2, r0 \
	VUNPCKHPD r3, r2, r1 \
	VPERM2F128 $0x20, r0, t0, c0 \
	VPERM2F128 $0x20, r1, t1, c1 \
	VPERM2F128 $0x31, r0, t0, c2 \
	VPERM2F128 $0x31, r1, t1, c3

DATA ms4One<>+0(SB)/8, $1.0
DATA ms4One<>+8(SB)/8, $1.0
DATA ms4One<>+16(SB)/8, $1.0
DATA ms4One<>+24(SB)/8, $1.0
GLOBL ms4One<>(SB), RODATA|NOPTR, $32
DATA ms4Two<>+0(SB)/8, $2.0
DATA ms4Two<>+8(SB)/8, $2.0
DATA ms4Two<>+16(SB)/8, $2.0
DATA ms4Two<>+24(SB)/8, $2.0
GLOBL ms4Two<>(SB), RODATA|NOPTR, $32
DATA ms4Eps<>+0(SB)/8, $1e-9
DATA ms4Eps<>+8(SB)/8, $1e-9
DATA ms4Eps<>+16(SB)/8, $1e-9
DATA ms4Eps<>+24(SB)/8, $1e-9
GLOBL ms4Eps<>(SB), RODATA|NOPTR, $32
DATA ms4NegEps<>+0(SB)/8, $-1e-9
DATA ms4NegEps<>+8(SB)/8, $-1e-9
DATA ms4NegEps<>+16(SB)/8, $-1e-9
DATA ms4NegEps<>+24(SB)/8, $-1e-9
GLOBL ms4NegEps<>(SB), RODATA|NOPTR, $32

// func localsAVX(local *Transform, out *Mat4, n int)
//
// localMatrix of n bones (a multiple of 4), four at a time, one bone a lane:
// the same float64 operations in the same order as the scalar pass, each
// rounded alone; rotationScale's branches computed in every lane and picked as
// its comparisons would pick them.
TEXT ·localsAVX(SB), NOSPLIT, $0-24
	MOVQ local+0(FP), SI
	MOVQ out+8(FP), DI
	MOVQ n+16(FP), CX

l4loop:
	CMPQ CX, $4
	JLT  l4done

	// x y z w of the four rotations (Transform.Rotation at 24).
	VMOVUPD 24(SI), Y4
	VMOVUPD 104(SI), Y5
	VMOVUPD 184(SI), Y0
	VMOVUPD 264(SI), Y1
	TR4(Y4, Y5, Y0, Y1, Y2, Y3, Y0, Y1, Y2, Y3)

	// s = rotationScale(((x·x + y·y) + z·z) + w·w): 2·(1 − d) where d = n − 1
	// is in (−1e-9, 1e-9), else 2/n where n > 0, else 0.
	VMULPD Y0, Y0, Y4
	VMULPD Y1, Y1, Y5
	VADDPD Y5, Y4, Y4
	VMULPD Y2, Y2, Y5
	VADDPD Y5, Y4, Y4
	VMULPD Y3, Y3, Y5
	VADDPD Y5, Y4, Y4 // n
	VMOVUPD ms4One<>(SB), Y15
	VSUBPD  Y15, Y4, Y5 // d
	VCMPPD  $0x1e, ms4NegEps<>(SB), Y5, Y6 // d > −1e-9
	VCMPPD  $0x11, ms4Eps<>(SB), Y5, Y7 // d < 1e-9
	VANDPD  Y7, Y6, Y6
	VSUBPD  Y5, Y15, Y5
	VMULPD  ms4Two<>(SB), Y5, Y5 // 2·(1 − d)
	VMOVUPD ms4Two<>(SB), Y7
	VDIVPD  Y4, Y7, Y7 // 2/n
	VXORPD  Y8, Y8, Y8
	VCMPPD  $0x1e, Y8, Y4, Y8 // n > 0
	VANDPD  Y8, Y7, Y7 // 2/n or +0
	VBLENDVPD Y6, Y5, Y7, Y4 // s

	VMULPD Y4, Y0, Y5 // xs
	VMULPD Y4, Y1, Y6 // ys
	VMULPD Y4, Y2, Y7 // zs
	VMULPD Y5, Y3, Y8 // wx
	VMULPD Y6, Y3, Y9 // wy
	VMULPD Y7, Y3, Y10 // wz
	VMULPD Y5, Y0, Y11 // xx
	VMULPD Y6, Y1, Y12 // yy
	VMULPD Y7, Y2, Y13 // zz
	VMULPD Y6, Y0, Y3 // xy
	VMULPD Y7, Y0, Y14 // xz
	VMULPD Y7, Y1, Y15 // yz

	VMOVUPD ms4One<>(SB), Y4
	VADDPD  Y13, Y12, Y0
	VSUBPD  Y0, Y4, Y0 // r0 = 1 − (yy + zz)
	VADDPD  Y13, Y11, Y1
	VSUBPD  Y1, Y4, Y1 // r4 = 1 − (xx + zz)
	VADDPD  Y12, Y11, Y2
	VSUBPD  Y2, Y4, Y2 // r8 = 1 − (xx + yy)
	VSUBPD  Y10, Y3, Y4 // r1 = xy − wz
	VADDPD  Y10, Y3, Y5 // r3 = xy + wz
	VADDPD  Y9, Y14, Y6 // r2 = xz + wy
	VSUBPD  Y9, Y14, Y7 // r6 = xz − wy
	VSUBPD  Y8, Y15, Y11 // r5 = yz − wx
	VADDPD  Y8, Y15, Y12 // r7 = yz + wx

	// The scales: the rows (w sx sy sz) at 48, sx Y9, sy Y10, sz Y14.
	VMOVUPD 48(SI), Y3
	VMOVUPD 128(SI), Y8
	VMOVUPD 208(SI), Y9
	VMOVUPD 288(SI), Y10
	TR4(Y3, Y8, Y9, Y10, Y13, Y14, Y15, Y9, Y10, Y14)
	VMULPD Y9, Y0, Y0 // r0·sx
	VMULPD Y10, Y4, Y4 // r1·sy
	VMULPD Y14, Y6, Y6 // r2·sz
	VMULPD Y9, Y5, Y5 // r3·sx
	VMULPD Y10, Y1, Y1 // r4·sy
	VMULPD Y14, Y11, Y11 // r5·sz
	VMULPD Y9, Y7, Y7 // r6·sx
	VMULPD Y10, Y12, Y12 // r7·sy
	VMULPD Y14, Y2, Y2 // r8·sz

	// The translations: the rows (tx ty tz x) at 0, tx Y15, ty Y9, tz Y10.
	VMOVUPD 0(SI), Y3
	VMOVUPD 80(SI), Y8
	VMOVUPD 160(SI), Y9
	VMOVUPD 240(SI), Y10
	TR4(Y3, Y8, Y9, Y10, Y13, Y14, Y15, Y9, Y10, Y14)

	// Each matrix's rows, back to one bone a register.
	TR4(Y0, Y4, Y6, Y15, Y3, Y8, Y13, Y14, Y3, Y8)
	VMOVUPD Y13, 0(DI)
	VMOVUPD Y14, 128(DI)
	VMOVUPD Y3, 256(DI)
	VMOVUPD Y8, 384(DI)
	TR4(Y5, Y1, Y11, Y9, Y0, Y4, Y13, Y14, Y0, Y4)
	VMOVUPD Y13, 32(DI)
	VMOVUPD Y14, 160(DI)
	VMOVUPD Y0, 288(DI)
	VMOVUPD Y4, 416(DI)
	TR4(Y7, Y12, Y2, Y10, Y0, Y4, Y13, Y14, Y0, Y4)
	VMOVUPD Y13, 64(DI)
	VMOVUPD Y14, 192(DI)
	VMOVUPD Y0, 320(DI)
	VMOVUPD Y4, 448(DI)
	VMOVUPD msBottom<>(SB), Y0
	VMOVUPD Y0, 96(DI)
	VMOVUPD Y0, 224(DI)
	VMOVUPD Y0, 352(DI)
	VMOVUPD Y0, 480(DI)

	ADDQ $320, SI
	ADDQ $512, DI
	SUBQ $4, CX
	JMP  l4loop

l4done:
	VZEROUPPER
	RET

// func childrenAVX(parents *int, out *Mat4, n int)
//
// For every bone with a parent (an earlier bone), out[i] = out[parent]·out[i],
// out[i] holding its local matrix: the rows of modelSpaceAVX's product,
// ((p0·L0 + p1·L1) + p2·L2) + (−0, −0, −0, p3).
TEXT ·childrenAVX(SB), NOSPLIT, $0-24
	MOVQ    parents+0(FP), BX
	MOVQ    out+8(FP), R8
	MOVQ    n+16(FP), DX
	XORQ    CX, CX
	MOVQ    R8, DI
	VMOVUPD msNegZero<>(SB), Y13

c4loop:
	CMPQ CX, DX
	JGE  c4done
	MOVQ (BX)(CX*8), AX
	TESTQ AX, AX
	JL   c4next
	VMOVUPD 0(DI), Y0
	VMOVUPD 32(DI), Y1
	VMOVUPD 64(DI), Y2
	SHLQ $7, AX
	LEAQ (R8)(AX*1), R9 // the parent's matrix

	VBROADCASTSD 0(R9), Y3
	VMULPD       Y0, Y3, Y3
	VBROADCASTSD 8(R9), Y4
	VMULPD       Y1, Y4, Y4
	VADDPD       Y4, Y3, Y3
	VBROADCASTSD 16(R9), Y4
	VMULPD       Y2, Y4, Y4
	VADDPD       Y4, Y3, Y3
	VBLENDPD     $8, 0(R9), Y13, Y4
	VADDPD       Y4, Y3, Y3
	VMOVUPD      Y3, 0(DI)

	VBROADCASTSD 32(R9), Y3
	VMULPD       Y0, Y3, Y3
	VBROADCASTSD 40(R9), Y4
	VMULPD       Y1, Y4, Y4
	VADDPD       Y4, Y3, Y3
	VBROADCASTSD 48(R9), Y4
	VMULPD       Y2, Y4, Y4
	VADDPD       Y4, Y3, Y3
	VBLENDPD     $8, 32(R9), Y13, Y4
	VADDPD       Y4, Y3, Y3
	VMOVUPD      Y3, 32(DI)

	VBROADCASTSD 64(R9), Y3
	VMULPD       Y0, Y3, Y3
	VBROADCASTSD 72(R9), Y4
	VMULPD       Y1, Y4, Y4
	VADDPD       Y4, Y3, Y3
	VBROADCASTSD 80(R9), Y4
	VMULPD       Y2, Y4, Y4
	VADDPD       Y4, Y3, Y3
	VBLENDPD     $8, 64(R9), Y13, Y4
	VADDPD       Y4, Y3, Y3
	VMOVUPD      Y3, 64(DI)

c4next:
	INCQ CX
	SUBQ $-128, DI
	JMP  c4loop

c4done:
	VZEROUPPER
	RET
